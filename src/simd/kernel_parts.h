// The parts a kernel table is compiled in: one translation unit per SIMD target and element type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include "hwy/base.h"
#include "hwy/detect_targets.h"
#include "opdev/kernel_dtype.h"
#include "simd/native_bf16.h"

namespace aclnn_cpu {

// Note [One target per translation unit]
// A kernel's code for every SIMD target in one translation unit (hwy/foreach_target.h) took
// 9-11 minutes to compile on two cores, and 4-9 GB and over 19 minutes under the sanitizers. So
// each operator's kernel table is compiled in parts: cmake/kernel_parts.cmake compiles the
// operator's "part" file (which aclnn_add_op writes, cmake/aclnn_op.cmake) once per (SIMD target,
// part), with ACLNN_KERNEL_TARGET and ACLNN_KERNEL_PART defined; src/simd/one_target.h makes that
// unit compile the one target only. The operator's -inl.h defines its FillKernelPart<kPart> (a
// function template in the target's namespace), which the part file instantiates for its part
// alone. The operator's dispatch file (aclnn_add_op writes it too) compiles every
// target through foreach_target.h as before, but with only a declaration of FillKernelPart: its
// per-target table calls the parts, which the linker finds in the part files. A target the
// dispatch file compiles and no part file defines is a link error, not a silent gap. The parts
// are the element types below, and no smaller: each unit parses Highway and the kernel's headers
// again (about 1.5 s of a release unit's 4-11 s), so the loss, which was once cut in ten parts
// (without and with the gradient), now compiles both in its five.

/// The element types of a kernel table, in part order. bf16 comes twice: with Highway's stores,
/// and with AVX512-BF16's, which a table takes where the target and the CPU have them (Note
/// [Native bf16 stores], src/simd/convert-inl.h).
using KernelPartElements = std::tuple<float, hwy::float16_t, hwy::bfloat16_t, NativeBFloat16, double>;
inline constexpr size_t kKernelPartCount = std::tuple_size_v<KernelPartElements>;
inline constexpr size_t kNativeBFloat16Part = 3;
template <size_t kPart>
using KernelPartElement = std::tuple_element_t<kPart % kKernelPartCount, KernelPartElements>;
static_assert(std::is_same_v<KernelPartElement<kNativeBFloat16Part>, NativeBFloat16>);
#ifdef ACLNN_KERNEL_ELEMENT_PARTS  // a part file's unit (src/simd/one_target.h)
static_assert(ACLNN_KERNEL_ELEMENT_PARTS == kKernelPartCount && ACLNN_KERNEL_NATIVE_BF16_PART == kNativeBFloat16Part,
              "src/simd/one_target.h's part numbers must match KernelPartElements");
#endif

/// Whether kernel part @p part has code for SIMD target @p target: every part but the native bf16
/// one, which only the x86 AVX-512 targets have (src/simd/one_target.h compiles the others'
/// units empty). The dispatch file calls a part only where this holds.
constexpr bool KernelPartCompiled(size_t part, int64_t target) {
  return part % kKernelPartCount != kNativeBFloat16Part || (HWY_ARCH_X86 && target <= HWY_AVX3);
}

/// The kernel dtype an element type is stored as.
template <class T>
inline constexpr KernelDType kKernelDTypeOf = std::is_same_v<T, float>            ? KernelDType::kFloat
                                              : std::is_same_v<T, hwy::float16_t> ? KernelDType::kFloat16
                                              : std::is_same_v<T, double>         ? KernelDType::kDouble
                                                                                  : KernelDType::kBFloat16;

}  // namespace aclnn_cpu
