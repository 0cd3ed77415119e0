/// @file aclnn_binary_cross_entropy_with_logits_target_backward.h
/// aclnnBinaryCrossEntropyWithLogitsTargetBackward: the gradient of binary cross entropy with
/// logits with respect to the target (labels), PyTorch's
/// binary_cross_entropy_with_logits_target_backward, run on the CPU.
///
///   x = self
///   without posWeight: t = -x
///   with posWeight pw: t = log_sigmoid(-x) - pw * log_sigmoid(x) = pw * softplus(-x) - softplus(x)
///   gradTarget = t * gradOutput [* weight] [* 1/numel(self) when reduction is mean]
///
/// The target is checked but not read: the gradient does not depend on it. Computed in fp32 for
/// fp32/fp16/bf16 inputs (fp64 when any input is fp64) as (pw - 1) * log1p(exp(-|x|)) minus
/// (x < 0 ? pw * x : x), which never subtracts the two softplus from each other (pw = 1 gives -x
/// exactly, the value without posWeight), and rounded once, to nearest even, to gradTarget's
/// dtype. Infinite logits give the limits (pw = 0 with x = -inf gives 0); NaN propagates.
#ifndef ACLNNOP_ACLNN_BINARY_CROSS_ENTROPY_WITH_LOGITS_TARGET_BACKWARD_H_
#define ACLNNOP_ACLNN_BINARY_CROSS_ENTROPY_WITH_LOGITS_TARGET_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/// First phase: checks the arguments, promotes dtypes, tiles the work and makes the executor.
///
/// The parameters and checks are those of aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize
/// (aclnn_binary_cross_entropy_with_logits_backward.h), in the same order, with gradTarget in the
/// place of out and named so in the messages: (1) gradOutput, self, target, gradTarget,
/// workspaceSize and executor non-null, else ACLNN_ERR_PARAM_NULLPTR; then ACLNN_ERR_PARAM_INVALID
/// for (2) more than 8 dims, (3) a dtype outside {FLOAT, FLOAT16, BF16, DOUBLE} or gradTarget dtype
/// != target dtype, (4) self, target and gradTarget formats not equal, (5) target or gradTarget
/// shape != self shape, gradOutput, weight or posWeight not broadcasting to self's shape, and
/// for a non-empty self the alignment and memory rules (gradTarget's elements must not share
/// memory; it may be the very same view as an input, else must not overlap one), (6) reduction
/// outside [0, 2], and a promoted dtype that cannot be cast to gradTarget's. Nothing is written on
/// failure and aclGetRecentErrMsg() names the parameter and the rule. An empty self gives
/// workspace 0.
ACLNN_API aclnnStatus aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *target,
    const aclTensor *weightOptional, const aclTensor *posWeightOptional, int64_t reduction,
    aclTensor *gradTarget, uint64_t *workspaceSize, aclOpExecutor **executor);

/// Second phase: enqueues the executor's work on @p stream, with the return codes and lifetime
/// rules of aclnnBinaryCrossEntropyWithLogitsBackward.
ACLNN_API aclnnStatus aclnnBinaryCrossEntropyWithLogitsTargetBackward(void *workspace, uint64_t workspaceSize,
                                                                      aclOpExecutor *executor,
                                                                      aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // ACLNNOP_ACLNN_BINARY_CROSS_ENTROPY_WITH_LOGITS_TARGET_BACKWARD_H_
