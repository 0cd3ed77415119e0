// The storage tag of native bf16 stores and the CPU test for them: what every SIMD target shares
// of Note [Native bf16 stores] (src/simd/convert-inl.h).
#pragma once

#include "hwy/base.h"
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace aclnn_cpu {

/// bf16 storage, the same 16 bits as hwy::bfloat16_t, whose vector stores use the CPU's
/// AVX512-BF16 conversion where a kernel runs on an AVX-512 target (Note [Native bf16 stores]).
/// The kernel tables take it for bf16 only where CpuHasAvx512Bf16().
struct NativeBFloat16 : hwy::bfloat16_t {};
static_assert(sizeof(NativeBFloat16) == 2);

/// Whether this CPU has AVX512-BF16 (CPUID leaf 7, subleaf 1, EAX bit 5). Only asked on AVX-512
/// targets, which Highway chooses only where the OS saves the AVX-512 registers.
inline bool CpuHasAvx512Bf16() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (eax & (1u << 5)) != 0;
#else
  return false;
#endif
}

}  // namespace aclnn_cpu

