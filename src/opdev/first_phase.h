// The pieces of an ACLNN first phase (GetWorkspaceSize) that every operator runs the same way, with
// one message each: the required pointers, the promoted dtype of the inputs and its cast to an
// output, and the plan cached and handed out as an executor. The tensor rules are
// opdev/tensor_checks.h; the plan cache opdev/plan_cache.h.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <utility>

#include "acl/acl_base.h"
#include "common/error.h"
#include "opdev/elementwise_plan.h"
#include "opdev/kernel_dtype.h"
#include "opdev/plan_cache.h"
#include "opdev/reduction.h"
#include "opdev/tensor_checks.h"
#include "runtime/launch_plan.h"

namespace aclnn_cpu {

/// An operator's first phase (GetWorkspaceSize) from the start every one shares to its own
/// checks, with no C++ exception crossing the C API (Guarded: out of memory gives
/// ACLNN_ERR_RUNTIME_ERROR and leaves *executor unset, Note [No exceptions across the C API]):
/// the @p required tensors, workspaceSize and executor non-null (CheckRequired), every tensor of
/// @p all live (CheckLive), and this thread's plan of the same description (the tensors of @p
/// all in order, @p reduction, @p kernels: the kernel table the plan takes its kernels from)
/// handed out where there is one (Note [Plan cache]). Otherwise checked(key) runs the operator's
/// own checks and makes its executor with @p key (MakeReducingExecutor, CacheAndMakeExecutor).
template <class Checked>
aclnnStatus RunFirstPhase(const char* api, const PlanTag& tag, std::span<const NamedTensor> required,
                          std::span<const NamedTensor> all, int64_t reduction, const void* kernels,
                          uint64_t* workspace_size, aclOpExecutor** executor, Checked&& checked) noexcept;

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

/// The checks a loss or gradient of the list runs first after the shared start, in this order:
/// every tensor of @p all of a float dtype (CheckFloatDTypes), @p out of @p self's dtype
/// (CheckSameDType), the reduction (CheckAclnnReduction: @p reduction_type receives it), at most
/// 8 dims (CheckDims), each of @p same_shape of self's shape (CheckSameShape), each of @p
/// broadcast broadcasting to it (CheckBroadcastsTo).
aclnnStatus CheckOperandsOfSelf(const char* api, std::span<const NamedTensor> all, NamedTensor self, NamedTensor out,
                                int64_t reduction, std::span<const NamedTensor> same_shape,
                                std::span<const NamedTensor> broadcast, ReductionType& reduction_type);

/// The same checks, but out of @p like's dtype and no shapes.
aclnnStatus CheckDTypesReductionDims(const char* api, std::span<const NamedTensor> all, NamedTensor out,
                                     NamedTensor like, int64_t reduction, ReductionType& reduction_type);

/// A reducing operator's out shape: @p self's for reduction none, one element ([] or [1]) for
/// mean and sum ("<api>: out shape S must be [] or [1] for reduction mean (1)", for one).
aclnnStatus CheckReducedOutShape(const char* api, const aclTensor* self, const aclTensor* out,
                                 ReductionType reduction);

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

template <class Checked>
aclnnStatus RunFirstPhase(const char* api, const PlanTag& tag, std::span<const NamedTensor> required,
                          std::span<const NamedTensor> all, int64_t reduction, const void* kernels,
                          uint64_t* workspace_size, aclOpExecutor** executor, Checked&& checked) noexcept {
  return Guarded(api, ExceptionCodes<aclnnStatus>{ACLNN_ERR_RUNTIME_ERROR, ACLNN_ERR_RUNTIME_ERROR}, [&] {
    if (aclnnStatus s = CheckRequired(api, required, workspace_size, executor)) return s;
    if (aclnnStatus s = CheckLive(api, all)) return s;
    std::array<const aclTensor*, 16> described{};
    if (all.size() > described.size()) return Fail(ACLNN_ERR_INNER, api, ": more operands than RunFirstPhase takes");
    for (size_t i = 0; i < all.size(); ++i) described[i] = all[i].tensor;
    const PlanCacheKey key(tag, reduction, kernels, std::span<const aclTensor* const>(described.data(), all.size()));
    if (auto cached = FindCachedPlan(key)) return MakeExecutorFor(api, std::move(cached), workspace_size, executor);
    return static_cast<aclnnStatus>(checked(key));
  });
}

}  // namespace aclnn_cpu
