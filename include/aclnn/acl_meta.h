/// @file acl_meta.h
/// Tensors, operator executors and status codes of the ACLNN API (CANN names, signatures, values).
#ifndef ACLNN_ACL_META_H_
#define ACLNN_ACL_META_H_

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Status of an ACLNN call: ACLNN_SUCCESS (0) or one of the codes below.
typedef int32_t aclnnStatus;

static const aclnnStatus ACLNN_SUCCESS = 0;
/// A required pointer argument is null.
static const aclnnStatus ACLNN_ERR_PARAM_NULLPTR = 161001;
/// An argument breaks a rule (dims, dtype, format, shape, reduction, workspace, executor).
static const aclnnStatus ACLNN_ERR_PARAM_INVALID = 161002;
/// The runtime failed (stream, launch).
static const aclnnStatus ACLNN_ERR_RUNTIME_ERROR = 361001;
/// An internal error.
static const aclnnStatus ACLNN_ERR_INNER = 561000;
static const aclnnStatus ACLNN_ERR_INNER_TILING_ERROR = 561002;
static const aclnnStatus ACLNN_ERR_INNER_CREATE_EXECUTOR = 561101;
static const aclnnStatus ACLNN_ERR_INNER_NULLPTR = 561103;

/// A view (shape, strides in elements, offset in elements) over a storage (shape, data pointer).
typedef struct aclTensor aclTensor;
/// The plan made by an operator's first phase and run by its second phase.
typedef struct aclOpExecutor aclOpExecutor;

/// Creates a tensor describing the view @p viewDims / @p stride / @p offset over the storage
/// @p storageDims at @p tensorData. The data is not copied and stays owned by the caller; the
/// tensor copies the dims and strides.
/// - @p viewDimsNum: 0..32 (0 = a scalar; operators accept up to 8); @p viewDims may be null only
///   when it is 0.
/// - @p stride: one per view dim, in elements, >= 0 (0 = broadcast); null means contiguous.
/// - @p storageDims: the storage's shape (a contiguous tensor passes its view shape, a view often
///   passes [storage elements]); it holds product(storageDims) elements (1 for 0 dims).
/// - every element the view addresses lies inside the storage:
///   offset + sum((viewDims[i] - 1) * stride[i]) < product(storageDims); an empty view addresses nothing.
/// - @p tensorData may be null only when the view is empty.
/// @return the tensor (release it with aclDestroyTensor), or nullptr when a rule is broken; then
///         aclGetRecentErrMsg() names the parameter and the rule (negative dims, strides or offset,
///         more than 32 dims, element or byte counts that overflow 64 bits, a view outside its
///         storage, null data for a non-empty view).
ACL_FUNC_VISIBILITY aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum,
                                               aclDataType dataType, const int64_t *stride,
                                               int64_t offset, aclFormat format,
                                               const int64_t *storageDims, uint64_t storageDimsNum,
                                               void *tensorData);
/// Destroys a tensor made by aclCreateTensor; null is accepted. Executors made from the tensor
/// keep their own copy of its description (the data it points at must stay alive until the launch
/// has run). @return ACLNN_SUCCESS, or ACLNN_ERR_PARAM_INVALID for a tensor already destroyed or
/// not made by aclCreateTensor (liveness is looked up, never read from the handle).
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensor(const aclTensor *tensor);

/// Makes @p executor reusable: the second phase may run it any number of times (each run reads
/// the tensors' current contents) until aclDestroyAclOpExecutor.
/// @return ACLNN_ERR_PARAM_NULLPTR for null, ACLNN_ERR_PARAM_INVALID for an unknown or consumed executor.
ACL_FUNC_VISIBILITY aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor);
/// Destroys an executor that has not been consumed (repeatable, or never run).
/// @return ACLNN_ERR_PARAM_NULLPTR for null, ACLNN_ERR_PARAM_INVALID for an unknown or consumed executor.
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor);

#ifdef __cplusplus
}
#endif

#endif  // ACLNN_ACL_META_H_
