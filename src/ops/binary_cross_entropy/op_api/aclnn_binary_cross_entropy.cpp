// ACLNN L2 API of BinaryCrossEntropy (the loss of probabilities): the checks of the other losses,
// in their order and with their messages, promotion, and the shared reducing launch.
#include "aclnnop/aclnn_binary_cross_entropy.h"

#include "common/error.h"
#include "opdev/first_phase.h"
#include "opdev/plan_cache.h"
#include "opdev/reducing_launch.h"
#include "opdev/tensor_checks.h"
#include "ops/binary_cross_entropy/op_kernel/binary_cross_entropy.h"
#include "runtime/executor.h"
#include "runtime/tensor.h"

using namespace aclnn_cpu;
using namespace aclnn_cpu::bce_prob;

namespace {

constexpr const char* kFirstPhase = "aclnnBinaryCrossEntropyGetWorkspaceSize";
constexpr PlanTag kPlans{kFirstPhase};  // Note [Plan cache]

// Memory: as the logits loss (Note [Loss aliasing]): out of reduction none follows the backward's
// rule (Note [Aliasing]); the one element of mean and sum is written after every input is read.
aclnnStatus GetWorkspaceSize(const aclTensor* self, const aclTensor* target, const aclTensor* weight,
                             int64_t reduction, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const NamedTensor required[] = {{"self", self}, {"target", target}, {"out", out}};
  if (aclnnStatus s = CheckRequired(kFirstPhase, required, workspaceSize, executor)) return s;
  const NamedTensor all[] = {{"self", self}, {"target", target}, {"weight", weight}, {"out", out}};
  if (aclnnStatus s = CheckLive(kFirstPhase, all)) return s;
  const aclTensor* const tensors[kOperandCount] = {self, target, weight, out};
  const PlanCacheKey key(kPlans, reduction, &ChosenKernelTable(), tensors);
  if (auto cached = FindCachedPlan(key)) return MakeExecutorFor(kFirstPhase, std::move(cached), workspaceSize, executor);
  // 2. dtypes, 3. reduction, 4. dims, 5.-7. shapes, then the memory rules, 8. promotion
  if (aclnnStatus s = CheckFloatDTypes(kFirstPhase, all)) return s;
  if (aclnnStatus s = CheckSameDType(kFirstPhase, {"out", out}, {"self", self})) return s;
  ReductionType reduction_type{};
  if (aclnnStatus s = CheckAclnnReduction(kFirstPhase, reduction, reduction_type)) return s;
  if (aclnnStatus s = CheckDims(kFirstPhase, all)) return s;
  const NamedTensor self_named{"self", self};
  const NamedTensor target_named[] = {{"target", target}};
  if (aclnnStatus s = CheckSameShape(kFirstPhase, target_named, self_named)) return s;
  const NamedTensor broadcast[] = {{"weight", weight}};
  if (aclnnStatus s = CheckBroadcastsTo(kFirstPhase, broadcast, self_named)) return s;
  if (aclnnStatus s = CheckReducedOutShape(kFirstPhase, self, out, reduction_type)) return s;
  if (self->numel != 0) {  // an empty self reads nothing: the memory rules are waived for it
    if (aclnnStatus s = CheckAlignment(kFirstPhase, all)) return s;
    const NamedTensor inputs[] = {{"self", self}, {"target", target}, {"weight", weight}};
    if (reduction_type == ReductionType::kNone) {
      if (aclnnStatus s = CheckOutMemory(kFirstPhase, {"out", out}, inputs)) return s;
    }
  }
  const aclDataType promoted = PromoteInputs({self, target, weight});
  if (aclnnStatus s = CheckCastable(kFirstPhase, promoted, {"out", out})) return s;
  const auto kernel_for = [&](KernelDType dtype, bool sums) {
    return ChosenKernelTable().fn[KernelKey(dtype, weight != nullptr, sums)];
  };
  return MakeReducingExecutor<Traits>(kFirstPhase, key, tensors, promoted, reduction_type, 1.0, kernel_for,
                                      workspaceSize, executor);
}

}  // namespace

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnBinaryCrossEntropyGetWorkspaceSize(
    const aclTensor* self, const aclTensor* target, const aclTensor* weight, int64_t reduction, aclTensor* out,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  // No C++ exception crosses the C API (Note [No exceptions across the C API]).
  return Guarded(kFirstPhase, ExceptionCodes<aclnnStatus>{ACLNN_ERR_RUNTIME_ERROR, ACLNN_ERR_RUNTIME_ERROR},
                 [&] { return GetWorkspaceSize(self, target, weight, reduction, out, workspaceSize, executor); });
}

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnBinaryCrossEntropy(void* workspace, uint64_t workspaceSize,
                                                                aclOpExecutor* executor, aclrtStream stream) {
  return LaunchExecutor("aclnnBinaryCrossEntropy", workspace, workspaceSize, executor, stream);
}
