/// @file aclnn_binary_cross_entropy_backward.h
/// aclnnBinaryCrossEntropyBackward: the gradient of aclnnBinaryCrossEntropy with respect to self
/// (PyTorch's binary_cross_entropy_backward), the CANN operator BinaryCrossEntropyGrad, run on the
/// CPU.
///
///   x = self, y = target, dout = gradOutput, w = weightOptional (1 without)
///   out = dout * (x - y) / max((1 - x) * x, eps) * w,  divided by N = numel(self) for mean
///
/// The floor eps is PyTorch's, fp32's 1e-12 (9.99999996e-13) for fp64 inputs too: x = 0 or x = 1
/// gives a large finite gradient, not infinity. Computed per element in fp32 for fp32/fp16/bf16 inputs (fp64 when any
/// input is fp64) and rounded once to out: within 5 ULP of the exact value of the formula in the
/// compute type (mean's 1/N is one more rounding). x - y and 1 - x are differences rounded once,
/// so nothing cancels beyond them. Any x is computed by the formula (PyTorch's backward does not
/// check x either); NaN propagates.
#ifndef ACLNNOP_ACLNN_BINARY_CROSS_ENTROPY_BACKWARD_H_
#define ACLNNOP_ACLNN_BINARY_CROSS_ENTROPY_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/// First phase: checks the arguments, promotes dtypes, tiles the work and makes the executor.
///
/// @param gradOutput     the loss's gradient: broadcastable to self's shape (one element for mean
///                       and sum, as the forward's out has).
/// @param self           probabilities; 0..8 dims, FLOAT, FLOAT16, BF16 or DOUBLE.
/// @param target         labels; broadcastable to self's shape.
/// @param weightOptional optional weight broadcastable to self's shape, or nullptr (all ones).
/// @param reduction      the forward's reduction: 0 none, 1 mean (the gradient divided by N), 2 sum.
/// @param out            the gradient, self's shape and dtype (its elements must not share memory;
///                       it may be the very same view as an input but must not overlap one otherwise).
/// @param workspaceSize  receives the bytes of workspace the second phase needs.
/// @param executor       receives the plan, consumed by the second phase.
///
/// Checks, first failure wins: (1) gradOutput, self, target, out, workspaceSize and executor
/// non-null, else ACLNN_ERR_PARAM_NULLPTR; then ACLNN_ERR_PARAM_INVALID for (2) a dtype outside
/// {FLOAT, FLOAT16, BF16, DOUBLE} or out dtype != self dtype, (3) reduction outside [0, 2], (4)
/// more than 8 dims, (5) out shape != self shape, (6) gradOutput, target or weightOptional not
/// broadcasting to self's shape, then, for a non-empty self only, a non-empty tensor whose data
/// address is not a multiple of its element size, and an out whose elements share memory or that
/// overlaps an input without being the same view, (7) a promoted dtype (PyTorch's rules) that
/// cannot be cast to out's. Nothing is written on failure and aclGetRecentErrMsg() names the
/// parameter and the rule. An empty self gives workspace 0 and writes nothing.
ACLNN_API aclnnStatus aclnnBinaryCrossEntropyBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *target, const aclTensor *weightOptional,
    int64_t reduction, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/// Second phase: enqueues the executor's work on @p stream; as every second phase (see
/// aclnn_binary_cross_entropy_with_logits_backward.h).
ACLNN_API aclnnStatus aclnnBinaryCrossEntropyBackward(void *workspace, uint64_t workspaceSize,
                                                      aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // ACLNNOP_ACLNN_BINARY_CROSS_ENTROPY_BACKWARD_H_
