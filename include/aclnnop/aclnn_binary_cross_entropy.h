/// @file aclnn_binary_cross_entropy.h
/// aclnnBinaryCrossEntropy: binary cross entropy of probabilities (PyTorch's
/// binary_cross_entropy), the CANN operator BinaryCrossEntropy, run on the CPU.
///
///   x = self, y = target, w = weight (1 without)
///   loss = -w * (y * max(log(x), -100) + (1 - y) * max(log(1 - x), -100))
///   out = loss (reduction none), mean(loss) (mean), sum(loss) (sum)
///
/// The log terms are clamped at -100 as PyTorch clamps them, so x = 0 or x = 1 gives a finite
/// loss (100 per unit of the wrong label). Computed per element in fp32 for fp32/fp16/bf16 inputs
/// (fp64 when any input is fp64), log(1 - x) as log1p(-x): for x in [0, 1] and labels in [0, 1]
/// both terms are >= 0, so nothing cancels, and the loss is within 6 ULP of the exact clamped loss
/// in fp32 (weights >= 0). An x outside [0, 1], or NaN, gives NaN for its element (and for mean
/// and sum): the NPU computes on without a check, PyTorch's CPU kernel raises "all elements of
/// input should be between 0 and 1"; the Python layer (aclnn_bce.binary_cross_entropy and its
/// torch forms) raises as PyTorch does. A target outside [0, 1] is computed by the formula above
/// (PyTorch raises there too; so does the Python layer). mean and sum accumulate in fp64
/// (compensated for fp64 inputs) over fixed chunks of 1024 elements in a fixed order, so the result
/// is bitwise the same for any thread count, rounded once to out.
#ifndef ACLNNOP_ACLNN_BINARY_CROSS_ENTROPY_H_
#define ACLNNOP_ACLNN_BINARY_CROSS_ENTROPY_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/// First phase: checks the arguments, promotes dtypes, tiles the work and makes the executor.
///
/// @param self          probabilities; 0..8 dims, FLOAT, FLOAT16, BF16 or DOUBLE.
/// @param target        labels; self's shape.
/// @param weight        optional weight broadcastable to self's shape, or nullptr (all ones).
/// @param reduction     0 none, 1 mean, 2 sum.
/// @param out           the loss, dtype of self: self's shape for none (its elements must not
///                      share memory; it may be the very same view as an input but must not
///                      overlap one otherwise), one element of shape [] or [1] for mean and sum
///                      (written after every input is read, so it may alias any).
/// @param workspaceSize receives the bytes of workspace the second phase needs.
/// @param executor      receives the plan, consumed by the second phase.
///
/// Checks, first failure wins: (1) self, target, out, workspaceSize and executor non-null, else
/// ACLNN_ERR_PARAM_NULLPTR; then ACLNN_ERR_PARAM_INVALID for (2) a dtype outside {FLOAT,
/// FLOAT16, BF16, DOUBLE} or out dtype != self dtype, (3) reduction outside [0, 2], (4) more than
/// 8 dims, (5) target shape != self shape, (6) weight not broadcasting to self's shape (the
/// broadcast result must be self's shape), (7) out shape not self's for none, not [] or [1] for
/// mean and sum, then, for a non-empty self only, a non-empty tensor whose data address is not a
/// multiple of its element size, and for none an out whose elements share memory or that overlaps
/// an input without being the same view, (8) a promoted dtype (PyTorch's rules) that cannot be
/// cast to out's. Nothing is written on failure and aclGetRecentErrMsg() names the parameter and
/// the rule. An empty self gives workspace 0; mean then writes NaN and sum 0 (as PyTorch). A
/// tensor handle that is destroyed or was never made by aclCreateTensor gives
/// ACLNN_ERR_PARAM_INVALID; memory that runs out gives ACLNN_ERR_RUNTIME_ERROR.
ACLNN_API aclnnStatus aclnnBinaryCrossEntropyGetWorkspaceSize(const aclTensor *self, const aclTensor *target,
                                                              const aclTensor *weight, int64_t reduction,
                                                              aclTensor *out, uint64_t *workspaceSize,
                                                              aclOpExecutor **executor);

/// Second phase: enqueues the executor's work on @p stream (nullptr: the default stream); the
/// results are ready after aclrtSynchronizeStream(stream). Buffers and workspace must stay alive
/// until then. Codes and lifetimes as for every second phase (see
/// aclnn_binary_cross_entropy_with_logits_backward.h).
ACLNN_API aclnnStatus aclnnBinaryCrossEntropy(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                              aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // ACLNNOP_ACLNN_BINARY_CROSS_ENTROPY_H_
