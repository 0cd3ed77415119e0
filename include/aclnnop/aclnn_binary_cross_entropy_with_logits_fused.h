/// @file aclnn_binary_cross_entropy_with_logits_fused.h
/// aclnnBinaryCrossEntropyWithLogitsFused: the loss of aclnnBinaryCrossEntropyWithLogits and the
/// gradient of aclnnBinaryCrossEntropyWithLogitsBackward in one pass over the inputs, for the
/// training-loop case of a scalar upstream gradient. An extension of this library (CANN has no
/// such call): it reads self, target, weight and posWeight once and writes both results.
///
///   out       = the forward's loss (reduction none, mean or sum), bitwise as
///               aclnnBinaryCrossEntropyWithLogits computes it;
///   gradInput = the backward's gradient for gradOutput = gradOutputOptional (null: 1), bitwise as
///               aclnnBinaryCrossEntropyWithLogitsBackward computes it with that 0-dim gradOutput
///               and the same reduction (so 1/numel(self) for mean).
///
/// Both come from one exp(-|x|) per element; the numerics, the deterministic mean and sum and the
/// special values are those of the two calls (see their headers).
#ifndef ACLNNOP_ACLNN_BINARY_CROSS_ENTROPY_WITH_LOGITS_FUSED_H_
#define ACLNNOP_ACLNN_BINARY_CROSS_ENTROPY_WITH_LOGITS_FUSED_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/// First phase: checks the arguments, promotes dtypes, tiles the work and makes the executor.
///
/// @param self               logits; 0..8 dims, FLOAT, FLOAT16, BF16 or DOUBLE.
/// @param target             labels; self's shape.
/// @param weightOptional     optional weight broadcastable to self's shape, or nullptr.
/// @param posWeightOptional  optional positive-class weight broadcastable to self's shape, or nullptr.
/// @param gradOutputOptional the upstream gradient: one element (a 0-dim tensor, or any shape of
///                           one element that broadcasts to self's), or nullptr for 1.
/// @param reduction          0 none, 1 mean, 2 sum.
/// @param out                the loss, dtype of target: self's shape for none, one element of
///                           shape [] or [1] for mean and sum (as the forward's out).
/// @param gradInput          the gradient, self's shape, dtype of target; its elements must not
///                           share memory; it may be the very same view as an input (in place)
///                           but must not overlap one otherwise.
/// @param workspaceSize      receives the bytes of workspace the second phase needs.
/// @param executor           receives the plan, consumed by the second phase.
///
/// Checks, first failure wins: (1) self, target, out, gradInput, workspaceSize and executor
/// non-null, else ACLNN_ERR_PARAM_NULLPTR; then ACLNN_ERR_PARAM_INVALID for (2) a dtype outside
/// {FLOAT, FLOAT16, BF16, DOUBLE}, or out or gradInput dtype != target dtype, (3) reduction
/// outside [0, 2], (4) more than 8 dims, (5) target or gradInput shape != self shape, (6)
/// weight, posWeight or gradOutput not broadcasting to self's shape, or a gradOutput of more than
/// one element, (7) out shape not self's for none, not [] or [1] for mean and sum, then, for a
/// non-empty self only, a misaligned data address, a gradInput (or, for none, an out) whose
/// elements share memory or that overlaps an input without being the same view, and an out and
/// gradInput that share any byte, (8) a promoted dtype (PyTorch's rules, over the inputs and
/// gradOutput) that cannot be cast to out's or gradInput's. Nothing is written on failure and
/// aclGetRecentErrMsg() names the parameter and the rule. An empty self gives workspace 0; mean
/// then writes NaN to out and sum 0.
ACLNN_API aclnnStatus aclnnBinaryCrossEntropyWithLogitsFusedGetWorkspaceSize(
    const aclTensor *self, const aclTensor *target, const aclTensor *weightOptional,
    const aclTensor *posWeightOptional, const aclTensor *gradOutputOptional, int64_t reduction, aclTensor *out,
    aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor);

/// Second phase: enqueues the executor's work on @p stream (nullptr: the default stream), with the
/// codes and lifetime rules of every second phase (see aclnn_binary_cross_entropy_with_logits_backward.h).
ACLNN_API aclnnStatus aclnnBinaryCrossEntropyWithLogitsFused(void *workspace, uint64_t workspaceSize,
                                                             aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // ACLNNOP_ACLNN_BINARY_CROSS_ENTROPY_WITH_LOGITS_FUSED_H_
