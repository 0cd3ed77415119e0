#include "opdev/first_phase.h"

#include <utility>

#include "common/dtype.h"
#include "common/error.h"
#include "platform/platform_info.h"
#include "runtime/tensor.h"
#include "runtime/thread_pool.h"

namespace aclnn_cpu {

aclnnStatus CheckRequired(const char* api, std::span<const NamedTensor> required, const uint64_t* workspace_size,
                          aclOpExecutor* const* executor) {
  for (const auto& t : required) {
    if (t.tensor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, api, ": ", t.name, " must not be null");
  }
  if (workspace_size == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, api, ": workspaceSize must not be null");
  if (executor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, api, ": executor must not be null");
  return ACLNN_SUCCESS;
}

aclDataType PromoteInputs(std::initializer_list<const aclTensor*> inputs) {
  aclDataType promoted = ACL_DT_UNDEFINED;
  for (const aclTensor* t : inputs) {
    if (t == nullptr) continue;
    promoted = promoted == ACL_DT_UNDEFINED ? t->dtype : PromoteFloat(promoted, t->dtype);
  }
  return promoted;
}

aclnnStatus CheckCastable(const char* api, aclDataType promoted, NamedTensor out) {
  if (CanCast(promoted, out.tensor->dtype)) return ACLNN_SUCCESS;
  return FailAs(ACLNN_CPU_ERROR_TYPE, ACLNN_ERR_PARAM_INVALID, api, ": promoted dtype ", DTypeName(promoted),
                " cannot be cast to ", out.name, " dtype ", DTypeName(out.tensor->dtype));
}

aclnnStatus CheckDTypesReductionDims(const char* api, std::span<const NamedTensor> all, NamedTensor out,
                                     NamedTensor like, int64_t reduction, ReductionType& reduction_type) {
  if (aclnnStatus s = CheckFloatDTypes(api, all)) return s;
  if (aclnnStatus s = CheckSameDType(api, out, like)) return s;
  if (aclnnStatus s = CheckAclnnReduction(api, reduction, reduction_type)) return s;
  return CheckDims(api, all);
}

aclnnStatus CheckOperandsOfSelf(const char* api, std::span<const NamedTensor> all, NamedTensor self, NamedTensor out,
                                int64_t reduction, std::span<const NamedTensor> same_shape,
                                std::span<const NamedTensor> broadcast, ReductionType& reduction_type) {
  if (aclnnStatus s = CheckDTypesReductionDims(api, all, out, self, reduction, reduction_type)) return s;
  if (aclnnStatus s = CheckSameShape(api, same_shape, self)) return s;
  return CheckBroadcastsTo(api, broadcast, self);
}

aclnnStatus CheckReducedOutShape(const char* api, const aclTensor* self, const aclTensor* out,
                                 ReductionType reduction) {
  if (reduction == ReductionType::kNone) {
    const NamedTensor same_shape[] = {{"out", out}};
    return CheckSameShape(api, same_shape, {"self", self});
  }
  const bool scalar = out->dims.rank == 0 || (out->dims.rank == 1 && out->dims.v[0] == 1);
  if (scalar) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID, api, ": out shape ", FormatDims(out->dims.span()),
              " must be [] or [1] for reduction ", reduction == ReductionType::kMean ? "mean (1)" : "sum (2)");
}

aclnnStatus CacheAndMakeExecutor(const char* api, const PlanCacheKey& key, std::shared_ptr<const LaunchPlan> plan,
                                 uint64_t* workspace_size, aclOpExecutor** executor) {
  CachePlan(key, plan);
  return MakeExecutorFor(api, std::move(plan), workspace_size, executor);
}

PlatformInfo LaunchPlatform(const IterSpace& space, std::span<const GlobalOperand> operands, KernelDType kernel_dtype,
                            uint64_t ub_bytes_per_element) {
  return AlignTilesToRowGroups(CpuPlatform(static_cast<uint64_t>(ThreadPool::Instance().NumThreads())), space,
                               operands, kernel_dtype, ub_bytes_per_element);
}

}  // namespace aclnn_cpu
