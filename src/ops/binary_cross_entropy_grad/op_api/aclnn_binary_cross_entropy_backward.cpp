// ACLNN L2 API of BinaryCrossEntropyGrad (the gradient of the loss of probabilities): the shared
// start of a first phase, the checks of the other gradients with their messages, promotion, and
// the shared launch (reduction none: mean only divides the gradient by N).
#include "aclnnop/aclnn_binary_cross_entropy_backward.h"

#include "opdev/first_phase.h"
#include "opdev/reducing_launch.h"
#include "opdev/tensor_checks.h"
#include "ops/binary_cross_entropy_grad/op_kernel/binary_cross_entropy_grad.h"
#include "runtime/executor.h"
#include "runtime/tensor.h"

// Memory: out is written element by element, the logits backward's rule (Note [Aliasing]).
extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnBinaryCrossEntropyBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target, const aclTensor* weightOptional,
    int64_t reduction, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  using namespace aclnn_cpu;
  using namespace aclnn_cpu::bce_prob_grad;
  static constexpr const char* kFirstPhase = "aclnnBinaryCrossEntropyBackwardGetWorkspaceSize";
  static constexpr PlanTag kPlans{kFirstPhase};  // this first phase's plans (Note [Plan cache])
  const NamedTensor required[] = {{"gradOutput", gradOutput}, {"self", self}, {"target", target}, {"out", out}};
  const NamedTensor inputs[] = {
      {"gradOutput", gradOutput}, {"self", self}, {"target", target}, {"weightOptional", weightOptional}};
  const NamedTensor all[] = {
      {"gradOutput", gradOutput}, {"self", self}, {"target", target}, {"weightOptional", weightOptional}, {"out", out}};
  const auto checked = [&](const PlanCacheKey& key) {
    // 2. dtypes, 3. reduction, 4. dims, 5.-6. shapes, then the memory rules, 7. promotion
    ReductionType reduction_type{};
    const NamedTensor out_shape[] = {{"out", out}};
    const NamedTensor broadcast[] = {
        {"gradOutput", gradOutput}, {"target", target}, {"weightOptional", weightOptional}};
    if (aclnnStatus s = CheckOperandsOfSelf(kFirstPhase, all, {"self", self}, {"out", out}, reduction, out_shape,
                                            broadcast, reduction_type)) {
      return s;
    }
    if (self->numel != 0) {  // an empty self reads and writes nothing: the memory rules are waived for it
      if (aclnnStatus s = CheckAlignment(kFirstPhase, all)) return s;
      if (aclnnStatus s = CheckOutMemory(kFirstPhase, {"out", out}, inputs)) return s;
    }
    const aclDataType promoted = PromoteInputs({self, target, gradOutput, weightOptional});
    if (aclnnStatus s = CheckCastable(kFirstPhase, promoted, {"out", out})) return s;
    // mean divides by N (PyTorch's division by numel): the tiles' scale.
    const bool divides = reduction_type == ReductionType::kMean && self->numel > 1;
    const auto kernel_for = [&](KernelDType dtype, bool) {
      const bool weighted = weightOptional != nullptr;
      return ChosenKernelTable().fn[MakeVariantKey<KernelTable::kFeatures>(dtype, {weighted, divides})];
    };
    const aclTensor* const tensors[kOperandCount] = {self, target, gradOutput, weightOptional, out};
    return MakeReducingExecutor<Traits>(kFirstPhase, key, tensors, promoted, ReductionType::kNone,
                                        divides ? static_cast<double>(self->numel) : 1.0, kernel_for, workspaceSize,
                                        executor);
  };
  return RunFirstPhase(kFirstPhase, kPlans, required, all, reduction, &ChosenKernelTable(), workspaceSize, executor,
                       checked);
}

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnBinaryCrossEntropyBackward(void* workspace, uint64_t workspaceSize,
                                                                        aclOpExecutor* executor, aclrtStream stream) {
  return aclnn_cpu::LaunchExecutor("aclnnBinaryCrossEntropyBackward", workspace, workspaceSize, executor, stream);
}
