// The kernel of BinaryCrossEntropyGrad (the gradient of the loss of probabilities) on the CPU: its
// operands, its traits and its tile functions per (dtype, weight). The launch is the shared
// reducing launch (src/opdev/reducing_launch.h) with reduction none: the gradient is elementwise
// for every reduction, mean only divides it by N.
#pragma once

#include <cstddef>
#include <cstdint>

#include "opdev/kernel_variant.h"
#include "opdev/reducing_launch.h"

namespace aclnn_cpu::bce_prob_grad {

// The operands: self (x), target (y), gradOutput (dout), weightOptional (w), out (the gradient).
enum OperandIndex : int { kSelf = 0, kTarget, kDout, kWeight, kOut, kOperandCount };

/// The operator for the shared elementwise layer (Note [Elementwise traits]). A broadcast scalar
/// gradOutput is read from its tile buffer like any input (the block driver fills it).
struct Traits {
  static constexpr size_t kOperands = kOperandCount;
  static constexpr bool IsOutput(size_t o) { return o == kOut; }
  static constexpr bool ReadsConstantOnce(size_t) { return false; }
  static constexpr size_t kReduced = kOut;  // never reduced
};

/// The variants (TileFn over TileArgs at[OperandIndex]): weight present, and a divisor that is not
/// 1 (TileArgs::scale holds N for mean, 1 otherwise).
inline constexpr uint32_t kKernelFeatures = 2;
using KernelTable = VariantTable<kKernelFeatures>;
constexpr uint32_t KernelKey(KernelDType dtype, bool has_weight, bool divides) {
  return MakeVariantKey<kKernelFeatures>(dtype, {has_weight, divides});
}
/// The tile functions of the best SIMD target of this CPU.
const KernelTable& ChosenKernelTable();

}  // namespace aclnn_cpu::bce_prob_grad
