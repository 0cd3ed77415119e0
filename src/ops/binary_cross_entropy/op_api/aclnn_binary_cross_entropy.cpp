// ACLNN L2 API of BinaryCrossEntropy (the loss of probabilities): the shared start of a first
// phase, the checks of the other losses in their order and with their messages, promotion, and
// the shared reducing launch.
#include "aclnnop/aclnn_binary_cross_entropy.h"

#include "opdev/first_phase.h"
#include "opdev/reducing_launch.h"
#include "opdev/tensor_checks.h"
#include "ops/binary_cross_entropy/op_kernel/binary_cross_entropy.h"
#include "runtime/executor.h"
#include "runtime/tensor.h"

// Memory: as the logits loss (Note [Loss aliasing]): out of reduction none follows the backward's
// rule (Note [Aliasing]); the one element of mean and sum is written after every input is read.
extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnBinaryCrossEntropyGetWorkspaceSize(
    const aclTensor* self, const aclTensor* target, const aclTensor* weight, int64_t reduction, aclTensor* out,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  using namespace aclnn_cpu;
  using namespace aclnn_cpu::bce_prob;
  static constexpr const char* kFirstPhase = "aclnnBinaryCrossEntropyGetWorkspaceSize";
  static constexpr PlanTag kPlans{kFirstPhase};  // this first phase's plans (Note [Plan cache])
  const NamedTensor required[] = {{"self", self}, {"target", target}, {"out", out}};
  const NamedTensor all[] = {{"self", self}, {"target", target}, {"weight", weight}, {"out", out}};
  const auto checked = [&](const PlanCacheKey& key) {
    // 2. dtypes, 3. reduction, 4. dims, 5.-7. shapes, then the memory rules, 8. promotion
    ReductionType reduction_type{};
    const NamedTensor same_shape[] = {{"target", target}}, broadcast[] = {{"weight", weight}};
    if (aclnnStatus s = CheckOperandsOfSelf(kFirstPhase, all, {"self", self}, {"out", out}, reduction, same_shape,
                                            broadcast, reduction_type)) {
      return s;
    }
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
      return ChosenKernelTable().fn[MakeVariantKey<KernelTable::kFeatures>(dtype, {weight != nullptr, sums})];
    };
    const aclTensor* const tensors[kOperandCount] = {self, target, weight, out};
    return MakeReducingExecutor<Traits>(kFirstPhase, key, tensors, promoted, reduction_type, 1.0, kernel_for,
                                        workspaceSize, executor);
  };
  return RunFirstPhase(kFirstPhase, kPlans, required, all, reduction, &ChosenKernelTable(), workspaceSize, executor,
                       checked);
}

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnBinaryCrossEntropy(void* workspace, uint64_t workspaceSize,
                                                                aclOpExecutor* executor, aclrtStream stream) {
  return aclnn_cpu::LaunchExecutor("aclnnBinaryCrossEntropy", workspace, workspaceSize, executor, stream);
}
