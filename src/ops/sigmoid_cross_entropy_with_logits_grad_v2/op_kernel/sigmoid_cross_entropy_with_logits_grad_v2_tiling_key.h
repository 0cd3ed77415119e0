// Tiling key of SigmoidCrossEntropyWithLogitsGradV2: kernel dtype x has_weight x has_pos_weight,
// one kernel instantiation per key (as the NPU original's DISPATCH_SIGMOID_GRAD).
#pragma once

#include <cstdint>

#include "opdev/kernel_variant.h"

namespace aclnn_cpu::bce_grad {

// The kernel dtype is the shared one (opdev/kernel_dtype.h).
using ::aclnn_cpu::KernelDType;
using ::aclnn_cpu::KernelDTypeLabel;
using ::aclnn_cpu::KernelDTypeSize;
using ::aclnn_cpu::kKernelDTypeCount;
inline constexpr uint32_t kTilingKeyCount = kVariantKeyCount<2>;

/// key = dtype * 4 + has_weight * 2 + has_pos_weight (a variant key, src/opdev/kernel_variant.h)
inline constexpr uint32_t MakeTilingKey(KernelDType dtype, bool has_weight, bool has_pos_weight) {
  return MakeVariantKey<2>(dtype, {has_weight, has_pos_weight});
}
inline constexpr KernelDType TilingKeyDType(uint32_t key) { return VariantKeyDType<2>(key); }
inline constexpr bool TilingKeyHasWeight(uint32_t key) { return (key & 2u) != 0; }
inline constexpr bool TilingKeyHasPosWeight(uint32_t key) { return (key & 1u) != 0; }

}  // namespace aclnn_cpu::bce_grad
