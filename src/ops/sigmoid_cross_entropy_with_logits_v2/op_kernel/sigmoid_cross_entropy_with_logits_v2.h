// The kernel of SigmoidCrossEntropyWithLogitsV2 (the loss) on the CPU: its operands and traits,
// its tile functions per (dtype, weight, pos_weight, output kind) and its launch, the shared
// reducing launch (src/opdev/reducing_launch.h: the elementwise stage and, for mean and sum, the
// combine of the per-chunk partial sums, Note [Deterministic reduction]).
#pragma once

#include <cstddef>
#include <cstdint>

#include "opdev/chunk_reduction.h"
#include "opdev/elementwise_plan.h"
#include "opdev/elementwise_tiling.h"
#include "opdev/kernel_dtype.h"
#include "opdev/kernel_variant.h"
#include "opdev/reducing_launch.h"
#include "opdev/reduction.h"
#include "opdev/strided_iter.h"
#include "simd/kernel_parts.h"

namespace aclnn_cpu::bce_loss {

// Note [Names]
// The ACLNN API keeps CANN's parameter names; the IR operator, the tiling and the kernel keep the
// NPU original's. One operand, by layer:
//   ACLNN parameter      IR / kernel (OperandIndex)   formula
//   self                 predict (kPredict)           x
//   target               target (kTarget)             y
//   weightOptional       weight (kWeight)             w
//   posWeightOptional    pos_weight (kPosWeight)      pw
//   gradOutputOptional   dout (kDout)                 dout    (the fused call only)
//   out                  loss (kLoss)                 loss
//   gradInput            gradient (kGradient)         g       (the fused call only)
// One launch layout serves the forward and the fused loss and gradient
// (aclnnBinaryCrossEntropyWithLogitsWithGrad): an operand a call does not have is absent (a null
// tensor to the plan): dout and the gradient in the forward, the loss in mean and sum (the losses
// go to a chunk buffer, not to memory).
enum OperandIndex : int { kPredict = 0, kTarget, kWeight, kPosWeight, kDout, kLoss, kGradient, kOperandCount };

/// The operator for the shared elementwise layer (Note [Elementwise traits]).
struct LossTraits {
  static constexpr size_t kOperands = kOperandCount;
  static constexpr bool IsOutput(size_t o) { return o == kLoss || o == kGradient; }
  /// dout is one value (a 0-dim gradOutput): the kernel reads it once.
  static constexpr bool ReadsConstantOnce(size_t o) { return o == kDout; }
  /// mean and sum reduce the loss (src/opdev/reducing_launch.h).
  static constexpr size_t kReduced = kLoss;
};

// mean and sum: the shared deterministic reduction (Note [Deterministic reduction],
// src/opdev/chunk_reduction.h) over the losses, in chunks of kSumChunkElems.
using ::aclnn_cpu::kSumChunkElems;

/// The tile functions (TileFn over TileArgs, src/opdev/kernel_variant.h): a tile's operands are
/// at[OperandIndex], all in the kernel dtype T but the loss, which is T (none) or the compute type
/// (mean and sum: losses for the chunk buffer). weight and pos_weight are read only when present.
/// The fused call also writes the gradient (T), from dout (one value, read at its first element;
/// null: 1) and the scale, exactly as the backward computes it. Each result depends only on its
/// element's inputs. The variant key: dtype, whether the gradient is written too, weight,
/// pos_weight, and whether the loss is written in the compute type (for the sums).
inline constexpr uint32_t kLossKernelFeatures = 4;
constexpr uint32_t MakeLossKernelKey(KernelDType dtype, bool has_weight, bool has_pos_weight, bool to_compute,
                                     bool with_gradient = false) {
  return MakeVariantKey<kLossKernelFeatures>(dtype, {with_gradient, has_weight, has_pos_weight, to_compute});
}
inline constexpr uint32_t kLossKernelKeyCount = kVariantKeyCount<kLossKernelFeatures>;

struct KernelTable : VariantTable<kLossKernelFeatures> {
  ChunkSumFloatFn sum_chunk_float;  ///< the target's SumChunksFloat (src/simd/chunk_sum-inl.h)
};
/// The tile computes of the best SIMD target of this CPU.
const KernelTable& ChosenKernelTable();

/// The launch: the shared reducing launch (src/opdev/reducing_launch.h) over the loss's operands;
/// its scale is the fused call's gradient scale (1/N for mean, else 1; the backward's globalScale).
using LossLaunch = ReducingLaunch<LossTraits>;
using LossPlan = ReducingPlan<LossTraits>;

}  // namespace aclnn_cpu::bce_loss
