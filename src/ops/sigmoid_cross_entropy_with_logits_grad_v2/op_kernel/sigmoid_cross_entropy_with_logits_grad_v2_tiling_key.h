// Tiling key of SigmoidCrossEntropyWithLogitsGradV2: kernel dtype x has_weight x has_pos_weight,
// one kernel instantiation per key (as the NPU original's DISPATCH_SIGMOID_GRAD).
#pragma once

#include <cstdint>

#include "opdev/kernel_dtype.h"

namespace aclnn_cpu::bce_grad {

// The kernel dtype is the shared one (opdev/kernel_dtype.h).
using ::aclnn_cpu::KernelDType;
using ::aclnn_cpu::KernelDTypeLabel;
using ::aclnn_cpu::KernelDTypeSize;
using ::aclnn_cpu::kKernelDTypeCount;
inline constexpr uint32_t kTilingKeyCount = kKernelDTypeCount * 4;

/// key = dtype * 4 + has_weight * 2 + has_pos_weight
inline constexpr uint32_t MakeTilingKey(KernelDType dtype, bool has_weight, bool has_pos_weight) {
  return static_cast<uint32_t>(dtype) * 4u + (has_weight ? 2u : 0u) + (has_pos_weight ? 1u : 0u);
}
inline constexpr KernelDType TilingKeyDType(uint32_t key) { return static_cast<KernelDType>(key / 4u); }
inline constexpr bool TilingKeyHasWeight(uint32_t key) { return (key & 2u) != 0; }
inline constexpr bool TilingKeyHasPosWeight(uint32_t key) { return (key & 1u) != 0; }

}  // namespace aclnn_cpu::bce_grad
