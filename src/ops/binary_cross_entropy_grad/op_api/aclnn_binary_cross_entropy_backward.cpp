// ACLNN L2 API of BinaryCrossEntropyGrad (the gradient of the loss of probabilities): the checks of
// the other gradients, in their order and with their messages, promotion, and the shared launch.
#include "aclnnop/aclnn_binary_cross_entropy_backward.h"

#include "common/error.h"
#include "opdev/first_phase.h"
#include "opdev/plan_cache.h"
#include "opdev/reducing_launch.h"
#include "opdev/tensor_checks.h"
#include "ops/binary_cross_entropy_grad/op_kernel/binary_cross_entropy_grad.h"
#include "runtime/executor.h"
#include "runtime/tensor.h"

using namespace aclnn_cpu;
using namespace aclnn_cpu::bce_prob_grad;

namespace {

constexpr const char* kFirstPhase = "aclnnBinaryCrossEntropyBackwardGetWorkspaceSize";
constexpr PlanTag kPlans{kFirstPhase};  // Note [Plan cache]

// Memory: out is written element by element, the logits backward's rule (Note [Aliasing]).
aclnnStatus GetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target,
                             const aclTensor* weightOptional, int64_t reduction, aclTensor* out,
                             uint64_t* workspaceSize, aclOpExecutor** executor) {
  const NamedTensor required[] = {{"gradOutput", gradOutput}, {"self", self}, {"target", target}, {"out", out}};
  if (aclnnStatus s = CheckRequired(kFirstPhase, required, workspaceSize, executor)) return s;
  const NamedTensor inputs[] = {
      {"gradOutput", gradOutput}, {"self", self}, {"target", target}, {"weightOptional", weightOptional}};
  const NamedTensor all[] = {
      {"gradOutput", gradOutput}, {"self", self}, {"target", target}, {"weightOptional", weightOptional}, {"out", out}};
  if (aclnnStatus s = CheckLive(kFirstPhase, all)) return s;
  const aclTensor* const tensors[kOperandCount] = {self, target, gradOutput, weightOptional, out};
  const PlanCacheKey key(kPlans, reduction, &ChosenKernelTable(), tensors);
  if (auto cached = FindCachedPlan(key)) return MakeExecutorFor(kFirstPhase, std::move(cached), workspaceSize, executor);
  // 2. dtypes, 3. reduction, 4. dims, 5.-6. shapes, then the memory rules, 7. promotion
  if (aclnnStatus s = CheckFloatDTypes(kFirstPhase, all)) return s;
  if (aclnnStatus s = CheckSameDType(kFirstPhase, {"out", out}, {"self", self})) return s;
  ReductionType reduction_type{};
  if (aclnnStatus s = CheckAclnnReduction(kFirstPhase, reduction, reduction_type)) return s;
  if (aclnnStatus s = CheckDims(kFirstPhase, all)) return s;
  const NamedTensor self_named{"self", self};
  const NamedTensor out_named[] = {{"out", out}};
  if (aclnnStatus s = CheckSameShape(kFirstPhase, out_named, self_named)) return s;
  const NamedTensor broadcast[] = {{"gradOutput", gradOutput}, {"target", target}, {"weightOptional", weightOptional}};
  if (aclnnStatus s = CheckBroadcastsTo(kFirstPhase, broadcast, self_named)) return s;
  if (self->numel != 0) {  // an empty self reads and writes nothing: the memory rules are waived for it
    if (aclnnStatus s = CheckAlignment(kFirstPhase, all)) return s;
    if (aclnnStatus s = CheckOutMemory(kFirstPhase, {"out", out}, inputs)) return s;
  }
  const aclDataType promoted = PromoteInputs({self, target, gradOutput, weightOptional});
  if (aclnnStatus s = CheckCastable(kFirstPhase, promoted, {"out", out})) return s;
  // mean divides by N (PyTorch's division by numel), the tiles' scale.
  const bool divides = reduction_type == ReductionType::kMean && self->numel > 1;
  const auto kernel_for = [&](KernelDType dtype, bool) {
    return ChosenKernelTable().fn[KernelKey(dtype, weightOptional != nullptr, divides)];
  };
  return MakeReducingExecutor<Traits>(kFirstPhase, key, tensors, promoted, ReductionType::kNone,
                                      divides ? static_cast<double>(self->numel) : 1.0, kernel_for, workspaceSize,
                                      executor);
}

}  // namespace

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnBinaryCrossEntropyBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target, const aclTensor* weightOptional,
    int64_t reduction, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  // No C++ exception crosses the C API (Note [No exceptions across the C API]).
  return Guarded(kFirstPhase, ExceptionCodes<aclnnStatus>{ACLNN_ERR_RUNTIME_ERROR, ACLNN_ERR_RUNTIME_ERROR}, [&] {
    return GetWorkspaceSize(gradOutput, self, target, weightOptional, reduction, out, workspaceSize, executor);
  });
}

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnBinaryCrossEntropyBackward(void* workspace, uint64_t workspaceSize,
                                                                        aclOpExecutor* executor, aclrtStream stream) {
  return LaunchExecutor("aclnnBinaryCrossEntropyBackward", workspace, workspaceSize, executor, stream);
}
