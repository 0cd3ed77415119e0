// The argument checks every ACLNN operator's first phase is made of, with their messages. Each
// names the API (@p api, the first-phase function), the parameter and the rule, returns
// ACLNN_ERR_PARAM_INVALID (recording the message for aclGetRecentErrMsg) on the first tensor that
// breaks it, and ACLNN_SUCCESS otherwise. An operator calls them in its documented order; a null
// tensor in a list is an absent optional input and is skipped.
#pragma once

#include <cstdint>
#include <span>

#include "aclnn/acl_meta.h"
#include "opdev/reduction.h"

namespace aclnn_cpu {

/// A tensor parameter of a call, by its API name.
struct NamedTensor {
  const char* name;
  const aclTensor* tensor;
};

/// Every tensor is live: made by aclCreateTensor and not destroyed (a registry lookup per group of
/// kMaxCheckedTensors; a dead handle is never read).
inline constexpr size_t kMaxCheckedTensors = 16;
aclnnStatus CheckLive(const char* api, std::span<const NamedTensor> tensors);
/// ACLNN's integer reduction is 0 (none), 1 (mean) or 2 (sum), one message for every operator;
/// @p parsed is set on success only.
aclnnStatus CheckAclnnReduction(const char* api, int64_t reduction, ReductionType& parsed);
/// At most kMaxDims dims.
aclnnStatus CheckDims(const char* api, std::span<const NamedTensor> tensors);
/// The dtype is FLOAT, FLOAT16, BF16 or DOUBLE.
aclnnStatus CheckFloatDTypes(const char* api, std::span<const NamedTensor> tensors);
/// @p t has the dtype of @p reference.
aclnnStatus CheckSameDType(const char* api, NamedTensor t, NamedTensor reference);
/// @p t has the format of @p reference.
aclnnStatus CheckSameFormat(const char* api, NamedTensor t, NamedTensor reference);
/// Each tensor has the shape of @p reference.
aclnnStatus CheckSameShape(const char* api, std::span<const NamedTensor> tensors, NamedTensor reference);
/// Each tensor broadcasts (numpy rules) to the shape of @p reference, and not beyond it.
aclnnStatus CheckBroadcastsTo(const char* api, std::span<const NamedTensor> tensors, NamedTensor reference);
/// Each non-empty tensor's data address is a multiple of its element size: kernels read single
/// elements with typed loads (a broadcast scalar, a staged gather, a partial chunk), which a
/// misaligned address makes undefined behaviour. aclrtMalloc memory and any C++ array of the
/// element type are aligned.
aclnnStatus CheckAlignment(const char* api, std::span<const NamedTensor> tensors);
/// The output @p out may be written element by element while @p inputs are read: its elements
/// share no memory, and it is either the very same view as an input (in place) or shares no byte
/// with it. Decided exactly (opdev/overlap.h); a pair whose proof needs more than
/// kMaxOverlapSearchSteps is refused too. Only for an operator whose every path reads an
/// element's inputs before it writes the element (so that the same view is safe).
aclnnStatus CheckOutMemory(const char* api, NamedTensor out, std::span<const NamedTensor> inputs);
/// Two outputs of one call share no byte (not even as the same view: both would be written, and
/// one result lost). Decided exactly, with the same search limit as CheckOutMemory.
aclnnStatus CheckOutputsDisjoint(const char* api, NamedTensor a, NamedTensor b);

}  // namespace aclnn_cpu
