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

/// The operator for the shared elementwise layer (Note [Elementwise traits]); out is never reduced.
using Traits = OneOutputTraits<kOperandCount, kOut>;

/// The tile functions (TileFn over TileArgs at[OperandIndex]) of the best SIMD target of this CPU,
/// by MakeVariantKey(dtype, {weight present, a divisor (TileArgs::scale: N for mean) not 1}).
using KernelTable = VariantTable<2>;
const KernelTable& ChosenKernelTable();

}  // namespace aclnn_cpu::bce_prob_grad
