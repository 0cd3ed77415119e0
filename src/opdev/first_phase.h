// The pieces of an ACLNN first phase (GetWorkspaceSize) that every operator runs the same way, with
// one message each: the required pointers, the promoted dtype of the inputs and its cast to an
// output, and the plan cached and handed out as an executor. The tensor rules are
// opdev/tensor_checks.h; the plan cache opdev/plan_cache.h.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>

#include "acl/acl_base.h"
#include "opdev/plan_cache.h"
#include "opdev/tensor_checks.h"
#include "runtime/launch_plan.h"

namespace aclnn_cpu {

/// Every required tensor, workspaceSize and executor is non-null ("<api>: <name> must not be
/// null", ACLNN_ERR_PARAM_NULLPTR, for the first that is), in that order.
aclnnStatus CheckRequired(const char* api, std::span<const NamedTensor> required, const uint64_t* workspace_size,
                          aclOpExecutor* const* executor);

/// The promoted dtype of the inputs present (PyTorch's rules, PromoteFloat; null ones absent);
/// ACL_DT_UNDEFINED when none is.
aclDataType PromoteInputs(std::initializer_list<const aclTensor*> inputs);

/// @p promoted can be cast to out's dtype ("<api>: promoted dtype D cannot be cast to <out> dtype
/// E", ACLNN_ERR_PARAM_INVALID, where it cannot).
aclnnStatus CheckCastable(const char* api, aclDataType promoted, NamedTensor out);

/// The end of a first phase: caches @p plan under @p key (Note [Plan cache]) and hands out an
/// executor on it with its workspace size (MakeExecutorFor).
aclnnStatus CacheAndMakeExecutor(const char* api, const PlanCacheKey& key, std::shared_ptr<const LaunchPlan> plan,
                                 uint64_t* workspace_size, aclOpExecutor** executor);

}  // namespace aclnn_cpu
