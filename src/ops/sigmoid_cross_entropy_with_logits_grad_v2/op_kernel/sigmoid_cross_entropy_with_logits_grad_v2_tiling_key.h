// Tiling key of SigmoidCrossEntropyWithLogitsGradV2: kernel dtype x has_weight x has_pos_weight,
// one kernel instantiation per key (as the NPU original's DISPATCH_SIGMOID_GRAD).
#pragma once

#include <cstdint>

namespace aclnn_cpu::bce_grad {

/// The element type the kernel loads and stores. Mixed-dtype problems run on the compute type
/// (kFloat or kDouble) with the operands converted in CopyIn (see Note [Staging]).
enum class KernelDType : uint32_t { kFloat = 0, kFloat16 = 1, kBFloat16 = 2, kDouble = 3 };
inline constexpr uint32_t kKernelDTypeCount = 4;
inline constexpr uint32_t kTilingKeyCount = kKernelDTypeCount * 4;

/// "Fp32", "Fp16", "Bf16", "Fp64" (usable in test names).
inline constexpr const char* KernelDTypeLabel(KernelDType dtype) {
  switch (dtype) {
    case KernelDType::kFloat: return "Fp32";
    case KernelDType::kFloat16: return "Fp16";
    case KernelDType::kBFloat16: return "Bf16";
    case KernelDType::kDouble: return "Fp64";
  }
  return "Unknown";
}

/// key = dtype * 4 + has_weight * 2 + has_pos_weight
inline constexpr uint32_t MakeTilingKey(KernelDType dtype, bool has_weight, bool has_pos_weight) {
  return static_cast<uint32_t>(dtype) * 4u + (has_weight ? 2u : 0u) + (has_pos_weight ? 1u : 0u);
}
inline constexpr KernelDType TilingKeyDType(uint32_t key) { return static_cast<KernelDType>(key / 4u); }
inline constexpr bool TilingKeyHasWeight(uint32_t key) { return (key & 2u) != 0; }
inline constexpr bool TilingKeyHasPosWeight(uint32_t key) { return (key & 1u) != 0; }

}  // namespace aclnn_cpu::bce_grad
