// ACLNN L2 API of SigmoidCrossEntropyWithLogitsV2 (the loss) and of the fused loss and gradient:
// checks in the upstream order, dtype promotion, the plan (the shared elementwise plan, the
// tiling, the kernel; for mean and sum a combine stage) and the executor. The two calls share the
// plan; the fused one adds gradOutput and gradInput to it (Note [Names]).
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_fused.h"

#include <memory>

#include "ascendc_route/ascendc_plans.h"
#include "ascendc_route/kernels_mode.h"
#include "common/dtype.h"
#include "common/error.h"
#include "opdev/elementwise_plan.h"
#include "opdev/first_phase.h"
#include "opdev/plan_cache.h"
#include "opdev/reducing_launch.h"
#include "opdev/tensor_checks.h"
#include "platform/platform_info.h"
#include "ops/sigmoid_cross_entropy_with_logits_v2/op_kernel/sigmoid_cross_entropy_with_logits_v2.h"
#include "runtime/executor.h"
#include "runtime/tensor.h"

namespace aclnn_cpu::bce_loss {
namespace {

constexpr const char* kFirstPhase = "aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize";
constexpr const char* kSecondPhase = "aclnnBinaryCrossEntropyWithLogits";
constexpr const char* kFusedFirstPhase = "aclnnBinaryCrossEntropyWithLogitsFusedGetWorkspaceSize";
constexpr const char* kFusedSecondPhase = "aclnnBinaryCrossEntropyWithLogitsFused";
// Each first phase's plans in the plan cache (Note [Plan cache]).
constexpr PlanTag kForwardPlans{kFirstPhase};
constexpr PlanTag kFusedPlans{kFusedFirstPhase};

// Note [Loss aliasing]
// reduction none writes out element by element as the backward does, so it keeps the backward's
// rule (Note [Aliasing]): out must not share memory with itself and may share memory with an
// input only as the very same view. mean and sum write out's one element in the combine stage,
// after every block of the elementwise stage has read all of its inputs: any overlap is safe.

}  // namespace
}  // namespace aclnn_cpu::bce_loss

using namespace aclnn_cpu;
using namespace aclnn_cpu::bce_loss;

namespace {

/// The plan of a checked call over @p tensors (OperandIndex order, absent ones null: dout and the
/// gradient for the forward), cached under @p key, and its executor: the shared reducing launch;
/// its scale is the fused call's gradient scale (1/N for mean, else 1; the backward's globalScale).
aclnnStatus MakeExecutor(const char* phase, const PlanCacheKey& key, const aclTensor* const (&tensors)[kOperandCount],
                         aclDataType promoted, ReductionType reduction, uint64_t* workspaceSize,
                         aclOpExecutor** executor) {
  const int64_t n = tensors[kPredict]->numel;
  const double scale = reduction == ReductionType::kMean && n != 0 ? 1.0 / static_cast<double>(n) : 1.0;
  const auto kernel_for = [&](KernelDType dtype, bool sums) {
    return ChosenKernelTable().fn[MakeLossKernelKey(dtype, tensors[kWeight] != nullptr,
                                                        tensors[kPosWeight] != nullptr, sums,
                                                        tensors[kGradient] != nullptr)];
  };
  return MakeReducingExecutor<LossTraits>(phase, key, tensors, promoted, reduction, scale, kernel_for, workspaceSize,
                                          executor);
}

aclnnStatus GetWorkspaceSize(const aclTensor* self, const aclTensor* target, const aclTensor* weightOptional,
                             const aclTensor* posWeightOptional, int64_t reduction, aclTensor* out,
                             uint64_t* workspaceSize, aclOpExecutor** executor) {
  // 1. required pointers, and handles that are live tensors
  const NamedTensor required[] = {{"self", self}, {"target", target}, {"out", out}};
  if (aclnnStatus s = CheckRequired(kFirstPhase, required, workspaceSize, executor)) return s;
  const NamedTensor all[] = {{"self", self},
                             {"target", target},
                             {"weightOptional", weightOptional},
                             {"posWeightOptional", posWeightOptional},
                             {"out", out}};
  if (aclnnStatus s = CheckLive(kFirstPhase, all)) return s;
  // The same description as this thread's last successful call: its plan (Note [Plan cache]).
  const aclTensor* const described[] = {self, target, weightOptional, posWeightOptional, out};
  const PlanCacheKey key(kForwardPlans, reduction, &ChosenKernelTable(), described);
  if (auto cached = FindCachedPlan(key)) return MakeExecutorFor(kFirstPhase, std::move(cached), workspaceSize, executor);
  // 2. dtypes, 3. reduction, 4. dims, 5.-7. shapes, then the memory rules, 8. promotion
  ReductionType reduction_type{};
  if (aclnnStatus s =
          CheckDTypesReductionDims(kFirstPhase, all, {"out", out}, {"target", target}, reduction, reduction_type)) {
    return s;
  }
  const NamedTensor self_named{"self", self};
  const NamedTensor target_named[] = {{"target", target}};
  if (aclnnStatus s = CheckSameShape(kFirstPhase, target_named, self_named)) return s;
  const NamedTensor broadcast[] = {{"weightOptional", weightOptional}, {"posWeightOptional", posWeightOptional}};
  if (aclnnStatus s = CheckBroadcastsTo(kFirstPhase, broadcast, self_named)) return s;
  if (aclnnStatus s = CheckReducedOutShape(kFirstPhase, self, out, reduction_type)) return s;
  if (self->numel != 0) {  // an empty self reads nothing: the memory rules are waived for it
    if (aclnnStatus s = CheckAlignment(kFirstPhase, all)) return s;
    if (reduction_type == ReductionType::kNone) {
      const NamedTensor inputs[] = {{"self", self},
                                    {"target", target},
                                    {"weightOptional", weightOptional},
                                    {"posWeightOptional", posWeightOptional}};
      if (aclnnStatus s = CheckOutMemory(kFirstPhase, {"out", out}, inputs)) return s;  // Note [Loss aliasing]
    }
  }
  const aclDataType promoted = PromoteInputs({self, target, weightOptional, posWeightOptional});
  if (aclnnStatus s = CheckCastable(kFirstPhase, promoted, {"out", out})) return s;
  // The AscendC kernel on the CPU twin instead, in the ascendc mode (Note [AscendC route]).
  bool use_twin = false;
  if (aclnnStatus s = ascendc_route::ChooseKernels(kFirstPhase, use_twin)) return s;
  if (use_twin && self->numel != 0) {
    std::shared_ptr<const LaunchPlan> twin_plan;
    if (aclnnStatus s = ascendc_route::PlanSigmoidCrossEntropyWithLogitsV2OnTwin(
            kFirstPhase, self, target, weightOptional, posWeightOptional, out, promoted, reduction_type, twin_plan)) {
      return s;
    }
    if (twin_plan != nullptr) return CacheAndMakeExecutor(kFirstPhase, key, std::move(twin_plan), workspaceSize, executor);
  }  // else the CPU kernels: an empty self (no launch; mean's NaN), or fp64, which A2 lacks
  const aclTensor* const tensors[kOperandCount] = {self, target, weightOptional, posWeightOptional, nullptr, out, nullptr};
  return MakeExecutor(kFirstPhase, key, tensors, promoted, reduction_type, workspaceSize, executor);
}

// Note [Fused aliasing]
// The fused call writes gradInput element by element (the backward's rule, Note [Aliasing]: no
// shared elements, and an input only as the very same view) and out as the forward does (Note
// [Loss aliasing]); the two outputs must share no byte, or one result would overwrite the other.
aclnnStatus FusedGetWorkspaceSize(const aclTensor* self, const aclTensor* target, const aclTensor* weightOptional,
                                  const aclTensor* posWeightOptional, const aclTensor* gradOutputOptional,
                                  int64_t reduction, aclTensor* out, aclTensor* gradInput, uint64_t* workspaceSize,
                                  aclOpExecutor** executor) {
  const char* const phase = kFusedFirstPhase;
  // 1. required pointers, and handles that are live tensors
  const NamedTensor required[] = {{"self", self}, {"target", target}, {"out", out}, {"gradInput", gradInput}};
  if (aclnnStatus s = CheckRequired(phase, required, workspaceSize, executor)) return s;
  const NamedTensor all[] = {{"self", self},
                             {"target", target},
                             {"weightOptional", weightOptional},
                             {"posWeightOptional", posWeightOptional},
                             {"gradOutputOptional", gradOutputOptional},
                             {"out", out},
                             {"gradInput", gradInput}};
  if (aclnnStatus s = CheckLive(phase, all)) return s;
  // The same description as this thread's last successful call: its plan (Note [Plan cache]).
  const aclTensor* const described[] = {self, target, weightOptional, posWeightOptional, gradOutputOptional,
                                        out,  gradInput};
  const PlanCacheKey key(kFusedPlans, reduction, &ChosenKernelTable(), described);
  if (auto cached = FindCachedPlan(key)) return MakeExecutorFor(phase, std::move(cached), workspaceSize, executor);
  // 2. dtypes, 3. reduction, 4. dims, 5. shapes, 6. memory, 7. promotion: the forward's order
  if (aclnnStatus s = CheckFloatDTypes(phase, all)) return s;
  if (aclnnStatus s = CheckSameDType(phase, {"out", out}, {"target", target})) return s;
  if (aclnnStatus s = CheckSameDType(phase, {"gradInput", gradInput}, {"target", target})) return s;
  ReductionType reduction_type{};
  if (aclnnStatus s = CheckAclnnReduction(phase, reduction, reduction_type)) return s;
  if (aclnnStatus s = CheckDims(phase, all)) return s;
  const NamedTensor self_named{"self", self};
  const NamedTensor same_shape[] = {{"target", target}, {"gradInput", gradInput}};
  if (aclnnStatus s = CheckSameShape(phase, same_shape, self_named)) return s;
  const NamedTensor broadcast[] = {{"weightOptional", weightOptional},
                                   {"posWeightOptional", posWeightOptional},
                                   {"gradOutputOptional", gradOutputOptional}};
  if (aclnnStatus s = CheckBroadcastsTo(phase, broadcast, self_named)) return s;
  if (gradOutputOptional != nullptr && gradOutputOptional->numel != 1) {
    return Fail(ACLNN_ERR_PARAM_INVALID, phase, ": gradOutputOptional shape ",
                FormatDims(gradOutputOptional->dims.span()),
                " must hold exactly one element (a 0-dim tensor; null means 1)");
  }
  if (aclnnStatus s = CheckReducedOutShape(phase, self, out, reduction_type)) return s;
  if (self->numel != 0) {  // Note [Fused aliasing]
    if (aclnnStatus s = CheckAlignment(phase, all)) return s;
    const NamedTensor inputs[] = {{"self", self},
                                  {"target", target},
                                  {"weightOptional", weightOptional},
                                  {"posWeightOptional", posWeightOptional},
                                  {"gradOutputOptional", gradOutputOptional}};
    if (aclnnStatus s = CheckOutMemory(phase, {"gradInput", gradInput}, inputs)) return s;
    if (reduction_type == ReductionType::kNone) {
      if (aclnnStatus s = CheckOutMemory(phase, {"out", out}, inputs)) return s;
    }
    if (aclnnStatus s = CheckOutputsDisjoint(phase, {"out", out}, {"gradInput", gradInput})) return s;
  }
  const aclDataType promoted = PromoteInputs({self, target, weightOptional, posWeightOptional, gradOutputOptional});
  if (aclnnStatus s = CheckCastable(phase, promoted, {"out", out})) return s;
  if (aclnnStatus s = CheckCastable(phase, promoted, {"gradInput", gradInput})) return s;
  const aclTensor* const tensors[kOperandCount] = {self, target, weightOptional, posWeightOptional,
                                                   gradOutputOptional, out, gradInput};
  return MakeExecutor(phase, key, tensors, promoted, reduction_type, workspaceSize, executor);
}

}  // namespace

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
    const aclTensor* self, const aclTensor* target, const aclTensor* weightOptional,
    const aclTensor* posWeightOptional, int64_t reduction, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  // Out of memory gives ACLNN_ERR_RUNTIME_ERROR and leaves *executor unset; see Note [No
  // exceptions across the C API].
  return Guarded(kFirstPhase, ExceptionCodes<aclnnStatus>{ACLNN_ERR_RUNTIME_ERROR, ACLNN_ERR_RUNTIME_ERROR}, [&] {
    return GetWorkspaceSize(self, target, weightOptional, posWeightOptional, reduction, out, workspaceSize, executor);
  });
}

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnBinaryCrossEntropyWithLogits(void* workspace, uint64_t workspaceSize,
                                                                          aclOpExecutor* executor,
                                                                          aclrtStream stream) {
  return LaunchExecutor(kSecondPhase, workspace, workspaceSize, executor, stream);
}

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnBinaryCrossEntropyWithLogitsFusedGetWorkspaceSize(
    const aclTensor* self, const aclTensor* target, const aclTensor* weightOptional,
    const aclTensor* posWeightOptional, const aclTensor* gradOutputOptional, int64_t reduction, aclTensor* out,
    aclTensor* gradInput, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return Guarded(kFusedFirstPhase, ExceptionCodes<aclnnStatus>{ACLNN_ERR_RUNTIME_ERROR, ACLNN_ERR_RUNTIME_ERROR}, [&] {
    return FusedGetWorkspaceSize(self, target, weightOptional, posWeightOptional, gradOutputOptional, reduction, out,
                                 gradInput, workspaceSize, executor);
  });
}

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnBinaryCrossEntropyWithLogitsFused(void* workspace,
                                                                               uint64_t workspaceSize,
                                                                               aclOpExecutor* executor,
                                                                               aclrtStream stream) {
  return LaunchExecutor(kFusedSecondPhase, workspace, workspaceSize, executor, stream);
}
