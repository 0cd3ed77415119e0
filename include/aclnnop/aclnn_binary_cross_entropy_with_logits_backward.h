/// @file aclnn_binary_cross_entropy_with_logits_backward.h
/// aclnnBinaryCrossEntropyWithLogitsBackward: the gradient of binary cross entropy with logits
/// (PyTorch's binary_cross_entropy_with_logits backward), the CANN operator
/// SigmoidCrossEntropyWithLogitsGradV2, run on the CPU.
///
///   p = sigmoid(self), y = target
///   without posWeight: g = p - y
///   with posWeight pw: g = (pw*y + 1 - y) * p - pw*y
///   out = g * gradOutput [* weight] [* 1/numel(self) when reduction is mean]
///
/// Computed in fp32 for fp32/fp16/bf16 inputs (fp64 when any input is fp64) and rounded once,
/// to nearest even, to out's dtype.
#ifndef ACLNNOP_ACLNN_BINARY_CROSS_ENTROPY_WITH_LOGITS_BACKWARD_H_
#define ACLNNOP_ACLNN_BINARY_CROSS_ENTROPY_WITH_LOGITS_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/// First phase: checks the arguments, promotes dtypes, tiles the work and makes the executor.
///
/// @param gradOutput        upstream gradient; broadcastable to self (a 0-dim tensor is common).
/// @param self              logits (predict); 0..8 dims, FLOAT, FLOAT16, BF16 or DOUBLE.
/// @param target            labels; same shape and format as self.
/// @param weightOptional    optional per-element weight broadcastable to self, or nullptr.
/// @param posWeightOptional optional positive-class weight broadcastable to self, or nullptr.
/// @param reduction         0 none, 1 mean, 2 sum (the forward's reduction).
/// @param out               the gradient; shape and format of self, dtype of target; its
///                          elements must not share memory; it may be the very same view as any
///                          input (in place: same first address, element size, sizes and strides
///                          over the dims of size > 1) but must not overlap one in any other way.
/// @param workspaceSize     receives the bytes of workspace the second phase needs.
/// @param executor          receives the plan, consumed by the second phase.
///
/// Checks, first failure wins: (1) gradOutput, self, target, out, workspaceSize and executor
/// non-null, else ACLNN_ERR_PARAM_NULLPTR; then ACLNN_ERR_PARAM_INVALID for (2) more than 8 dims,
/// (3) a dtype outside {FLOAT, FLOAT16, BF16, DOUBLE} or out dtype != target dtype, (4) self,
/// target and out formats not equal, (5) target or out shape != self shape, or gradOutput,
/// weight, posWeight not broadcasting to self's shape, then, for a non-empty self only, a
/// non-empty tensor whose data address is not a multiple of its element size, an out whose
/// elements share memory, or an out that overlaps an input without being the same view (decided
/// exactly; a view pair whose proof needs more than 65536 search steps is rejected too), (6) reduction
/// outside [0, 2], and a promoted dtype that cannot be cast to out's. Nothing is written on failure
/// and aclGetRecentErrMsg() names the parameter and the rule. An empty self gives workspace 0.
/// A tensor handle that is destroyed or was never made by aclCreateTensor gives
/// ACLNN_ERR_PARAM_INVALID (decided without reading it); memory that runs out gives
/// ACLNN_ERR_RUNTIME_ERROR with no executor made.
ACLNN_API aclnnStatus aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *target,
    const aclTensor *weightOptional, const aclTensor *posWeightOptional, int64_t reduction,
    aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/// Second phase: enqueues the executor's work on @p stream (nullptr: the default stream). The
/// results are ready after aclrtSynchronizeStream(stream). Every buffer the tensors point at, and
/// the workspace, must stay alive until then (aclrtFree waits for the launches itself; memory
/// from elsewhere is the caller's to keep). When the stream's queue is full (Stream queue bound,
/// 1024 launches), the call waits for room.
/// @return ACLNN_ERR_PARAM_NULLPTR for a null executor, or for a null workspace when the first
///         phase asked for one; ACLNN_ERR_PARAM_INVALID for an unknown or consumed executor, a
///         workspaceSize below the size asked for, or an unknown stream; ACLNN_ERR_RUNTIME_ERROR
///         when the runtime cannot start a thread it needs (the stream's, or the worker pool's)
///         or the process is exiting: nothing is then queued and the executor is not consumed.
ACLNN_API aclnnStatus aclnnBinaryCrossEntropyWithLogitsBackward(void *workspace, uint64_t workspaceSize,
                                                                aclOpExecutor *executor,
                                                                aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // ACLNNOP_ACLNN_BINARY_CROSS_ENTROPY_WITH_LOGITS_BACKWARD_H_
