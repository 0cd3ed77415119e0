/// @file aclnn_binary_cross_entropy_with_logits.h
/// aclnnBinaryCrossEntropyWithLogits: binary cross entropy with logits (PyTorch's
/// binary_cross_entropy_with_logits), the CANN operator SigmoidCrossEntropyWithLogitsV2, run on
/// the CPU.
///
///   x = self, y = target, pw = posWeight (1 without), w = weight (1 without)
///   loss = w * (pw * y * softplus(-x) + (1 - y) * softplus(x)),  softplus(t) = log(1 + e^t)
///   out = loss (reduction none), mean(loss) (mean), sum(loss) (sum)
///
/// Computed per element in fp32 for fp32/fp16/bf16 inputs (fp64 when any input is fp64) in a form
/// that does not cancel (both terms >= 0 for labels in [0, 1] and weights >= 0): within 4 ULP of
/// the exact loss in fp32 there; x = +inf with y = 1 gives 0 (the limit); NaN propagates. mean and
/// sum accumulate in fp64 (compensated for fp64 inputs) over fixed chunks of 1024 elements in a
/// fixed order, so the result is bitwise the same for any thread count, rounded once to out.
#ifndef ACLNNOP_ACLNN_BINARY_CROSS_ENTROPY_WITH_LOGITS_H_
#define ACLNNOP_ACLNN_BINARY_CROSS_ENTROPY_WITH_LOGITS_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/// First phase: checks the arguments, promotes dtypes, tiles the work and makes the executor.
///
/// @param self              logits; 0..8 dims, FLOAT, FLOAT16, BF16 or DOUBLE.
/// @param target            labels; self's shape.
/// @param weightOptional    optional weight broadcastable to self's shape, or nullptr.
/// @param posWeightOptional optional positive-class weight broadcastable to self's shape, or nullptr.
/// @param reduction         0 none, 1 mean, 2 sum.
/// @param out               the loss, dtype of target: self's shape for none (its elements must
///                          not share memory; it may be the very same view as an input but must
///                          not overlap one otherwise), one element of shape [] or [1] for mean
///                          and sum (written after every input is read, so it may alias any).
/// @param workspaceSize     receives the bytes of workspace the second phase needs.
/// @param executor          receives the plan, consumed by the second phase.
///
/// Checks, first failure wins: (1) self, target, out, workspaceSize and executor non-null, else
/// ACLNN_ERR_PARAM_NULLPTR; then ACLNN_ERR_PARAM_INVALID for (2) a dtype outside {FLOAT,
/// FLOAT16, BF16, DOUBLE} or out dtype != target dtype, (3) reduction outside [0, 2], (4) more
/// than 8 dims, (5) target shape != self shape, (6) weight or posWeight not broadcasting to
/// self's shape (the broadcast result must be self's shape), (7) out shape not self's for none,
/// not [] or [1] for mean and sum, then, for a non-empty self only, a non-empty tensor whose data
/// address is not a multiple of its element size, and for none an out whose elements share memory
/// or that overlaps an input without being the same view, (8) a promoted dtype (PyTorch's
/// rules) that cannot be cast to out's. Nothing is written on failure and aclGetRecentErrMsg()
/// names the parameter and the rule. An empty self gives workspace 0; mean then writes NaN and
/// sum 0 (as PyTorch). A tensor handle that is destroyed or was never made by aclCreateTensor
/// gives ACLNN_ERR_PARAM_INVALID; memory that runs out gives ACLNN_ERR_RUNTIME_ERROR.
ACLNN_API aclnnStatus aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
    const aclTensor *self, const aclTensor *target, const aclTensor *weightOptional,
    const aclTensor *posWeightOptional, int64_t reduction, aclTensor *out, uint64_t *workspaceSize,
    aclOpExecutor **executor);

/// Second phase: enqueues the executor's work on @p stream (nullptr: the default stream); the
/// results are ready after aclrtSynchronizeStream(stream). Buffers and workspace must stay alive
/// until then. Codes and lifetimes as for every second phase (see
/// aclnn_binary_cross_entropy_with_logits_backward.h).
ACLNN_API aclnnStatus aclnnBinaryCrossEntropyWithLogits(void *workspace, uint64_t workspaceSize,
                                                        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // ACLNNOP_ACLNN_BINARY_CROSS_ENTROPY_WITH_LOGITS_H_
