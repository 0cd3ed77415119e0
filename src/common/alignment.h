// The one alignment of the CPU device: aclrtMalloc memory, each block's workspace slice and each
// tile buffer start on it. 64 bytes is a cache line on every x86-64 and AArch64 core here and
// the widest vector (AVX-512), which aligned and non-temporal vector stores need.
#pragma once

#include <cstdint>

namespace aclnn_cpu {

inline constexpr uint64_t kDeviceAlignment = 64;

/// @p value rounded up to a multiple of @p alignment (a power of two); no overflow check.
constexpr uint64_t AlignUp(uint64_t value, uint64_t alignment = kDeviceAlignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

}  // namespace aclnn_cpu
