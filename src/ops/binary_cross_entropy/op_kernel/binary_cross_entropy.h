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
using Traits = OneOutputTraits<kOperandCount, kOut>;

/// The tile functions (TileFn over TileArgs at[OperandIndex]) of the best SIMD target of this CPU,
/// by MakeVariantKey(dtype, {weight present, out in the compute type (the losses of mean and sum)}).
using KernelTable = VariantTable<2>;
const KernelTable& ChosenKernelTable();

}  // namespace aclnn_cpu::bce_prob
