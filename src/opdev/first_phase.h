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
#include "opdev/elementwise_plan.h"
#include "opdev/kernel_dtype.h"
#include "opdev/plan_cache.h"
#include "opdev/reduction.h"
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
/// E", ACLNN_ERR_PARAM_INVALID and a type error (Note [Error kinds]), where it cannot).
aclnnStatus CheckCastable(const char* api, aclDataType promoted, NamedTensor out);

/// A reducing operator's out shape: @p self's for reduction none, one element ([] or [1]) for
/// mean and sum ("<api>: out shape S must be [] or [1] for reduction mean (1)", for one).
aclnnStatus CheckReducedOutShape(const char* api, const aclTensor* self, const aclTensor* out, ReductionType reduction);

/// The end of a first phase: caches @p plan under @p key (Note [Plan cache]) and hands out an
/// executor on it with its workspace size (MakeExecutorFor).
aclnnStatus CacheAndMakeExecutor(const char* api, const PlanCacheKey& key, std::shared_ptr<const LaunchPlan> plan,
                                 uint64_t* workspace_size, aclOpExecutor** executor);

/// The operands of a launch, planned: the kernel dtype, each operand's access and memory (the
/// shared elementwise plan, Note [Staging]) and their traffic for the cost model.
template <ElementwiseTraits Traits>
struct PlannedOperands {
  KernelDType kernel_dtype = KernelDType::kFloat;
  OperandTraffic traffic[Traits::kOperands];
  size_t traffic_count = 0;
  std::span<const OperandTraffic> Traffic() const { return {traffic, traffic_count}; }
};

/// Plans @p tensors (in the operator's operand order, absent ones null) over @p dims: the kernel
/// dtype (ChooseKernelDType with @p promoted), the iteration space and the operands.
template <ElementwiseTraits Traits>
PlannedOperands<Traits> PlanOperands(const DimVector& dims, const aclTensor* const (&tensors)[Traits::kOperands],
                                     aclDataType promoted, IterSpace& space,
                                     GlobalOperand (&operands)[Traits::kOperands]) {
  PlannedOperands<Traits> planned;
  const aclDataType kernel_acl_dtype = ChooseKernelDType(tensors, promoted);
  planned.kernel_dtype = KernelDTypeOf(kernel_acl_dtype);
  PlanElementwise<Traits>(dims, tensors, kernel_acl_dtype, space, operands);
  planned.traffic_count = OperandTrafficOf(operands, planned.traffic);
  return planned;
}

/// The platform a launch's tiling targets: this machine with the worker pool's threads, its
/// tiles aligned to the row groups of the planned operands (AlignTilesToRowGroups).
PlatformInfo LaunchPlatform(const IterSpace& space, std::span<const GlobalOperand> operands, KernelDType kernel_dtype,
                            uint64_t ub_bytes_per_element);

}  // namespace aclnn_cpu
