// The kernel of BinaryCrossEntropy (the loss of probabilities) on the CPU: its operands, its
// traits and its tile functions per (dtype, weight, output kind). The launch is the shared
// reducing launch (src/opdev/reducing_launch.h): elementwise, and for mean and sum the shared
// deterministic reduction (Note [Deterministic reduction]).
#pragma once

#include <cstddef>
#include <cstdint>

#include "opdev/kernel_variant.h"
#include "opdev/reducing_launch.h"

namespace aclnn_cpu::bce_prob {

// The operands, in the ACLNN API's order: self (x, probabilities), target (y), weight (w), out.
enum OperandIndex : int { kSelf = 0, kTarget, kWeight, kOut, kOperandCount };

/// The operator for the shared elementwise layer (Note [Elementwise traits]); mean and sum reduce out.
struct Traits {
  static constexpr size_t kOperands = kOperandCount;
  static constexpr bool IsOutput(size_t o) { return o == kOut; }
  static constexpr bool ReadsConstantOnce(size_t) { return false; }
  static constexpr size_t kReduced = kOut;
};

/// The variants (TileFn over TileArgs at[OperandIndex]): weight present, and out written in the
/// compute type (the losses of mean and sum) rather than in the kernel dtype.
inline constexpr uint32_t kKernelFeatures = 2;
using KernelTable = VariantTable<kKernelFeatures>;
constexpr uint32_t KernelKey(KernelDType dtype, bool has_weight, bool to_compute) {
  return MakeVariantKey<kKernelFeatures>(dtype, {has_weight, to_compute});
}
/// The tile functions of the best SIMD target of this CPU.
const KernelTable& ChosenKernelTable();

}  // namespace aclnn_cpu::bce_prob
