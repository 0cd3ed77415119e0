// ACLNN L2 API of SigmoidCrossEntropyWithLogitsGradV2 and of its sibling, the gradient with respect
// to the target: checks (docs/contract.md §3), dtype promotion, the plan (iteration space, operand
// access, tiling, kernel) and the executor. The two calls share all of it but the tile compute.
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_target_backward.h"

#include <memory>

#include "ascendc_route/ascendc_plans.h"
#include "ascendc_route/kernels_mode.h"
#include "common/dtype.h"
#include "common/error.h"
#include "opdev/elementwise_plan.h"
#include "opdev/first_phase.h"
#include "opdev/kernel_dtype.h"
#include "opdev/plan_cache.h"
#include "opdev/tensor_checks.h"
#include "platform/platform_info.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_host/sigmoid_cross_entropy_with_logits_grad_v2_def.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_host/sigmoid_cross_entropy_with_logits_grad_v2_tiling.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2.h"
#include "runtime/executor.h"
#include "runtime/tensor.h"

namespace aclnn_cpu::bce_grad {
namespace {

/// The plan of a call on its AscendC kernel (Note [AscendC route]; ascendc_route/ascendc_plans.h).
using TwinPlanFn = aclnnStatus (*)(const char* api, const aclTensor* self, const aclTensor* target,
                                   const aclTensor* grad_output, const aclTensor* weight, const aclTensor* pos_weight,
                                   const aclTensor* out, aclDataType promoted, ReductionType reduction,
                                   std::shared_ptr<const LaunchPlan>& plan);

/// Which gradient a call computes, with the names its messages use.
struct GradientCall {
  const char* first_phase;
  const char* second_phase;
  const char* out_name;  ///< "out" (backward) or "gradTarget"
  bool of_target;
  TwinPlanFn twin_plan;  ///< null: no AscendC kernel (the CPU kernels in every mode)
};
constexpr GradientCall kInputGradient{"aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize",
                                      "aclnnBinaryCrossEntropyWithLogitsBackward", "out", false,
                                      &ascendc_route::PlanSigmoidCrossEntropyWithLogitsGradV2OnTwin};
constexpr GradientCall kTargetGradient{"aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize",
                                       "aclnnBinaryCrossEntropyWithLogitsTargetBackward", "gradTarget", true,
                                       &ascendc_route::PlanSigmoidCrossEntropyWithLogitsGradV2OfTargetOnTwin};
// Each first phase's plans in the plan cache (Note [Plan cache]).
constexpr PlanTag kInputGradientPlans{kInputGradient.first_phase};
constexpr PlanTag kTargetGradientPlans{kTargetGradient.first_phase};

// Note [Aliasing]
// out is written element by element while the inputs are read, so out must not share memory with
// itself, and it may share memory with an input only as the very same view (in place). That is
// safe for every input, not only self and gradOutput: each out element depends only on the inputs
// at its own index, and every path reads an element's inputs before it writes the element (a
// kDirect or kRowDirect chunk is loaded before it is stored, a partial chunk is copied into a
// buffer first, kStaged inputs are gathered before the tile is computed and out is scattered
// after it, a kConstant input is read once per block, and an identical view of an input is
// classified like out or both are staged). Any other overlap would make results depend on the
// order and timing of the blocks, so it is refused, as PyTorch does (CheckOutMemory).

/// The launch plan of one call: one stage of tiling.blockDim blocks, each running RunBlock.
class BcePlan final : public LaunchPlan {
 public:
  KernelLaunch launch;
  LaunchStage stage;  ///< no blocks for an empty problem
  bool run_inline_if_idle = true;
  std::span<const LaunchStage> Stages() const override { return {&stage, 1}; }
  bool RunInlineIfIdle() const override { return run_inline_if_idle; }
  void RunBlock(size_t stage_index, uint64_t block, char* workspace) const override {
    bce_grad::RunBlock(launch, block, BlockWorkspace(workspace, stage_index, block));
  }
};

/// Builds the plan of a checked, non-empty call: the shared elementwise plan of the six operands
/// (Note [Staging]; the target gradient leaves out the target, which it does not read), then this
/// operator's tiling and kernel.
aclnnStatus BuildLaunch(const GradientCall& call, const aclTensor* const (&tensors)[kOperandCount],
                        aclDataType promoted, ReductionType reduction, BcePlan& plan) {
  KernelLaunch& launch = plan.launch;
  const aclTensor* self = tensors[kPredict];
  const auto operands = PlanOperands<GradTraits>(self->dims, tensors, promoted, launch.space, launch.operands);
  const KernelDType kernel_dtype = operands.kernel_dtype;
  const TilingProblem problem =
      MakeTilingProblem(static_cast<uint64_t>(self->numel), kernel_dtype, tensors[kWeight] != nullptr,
                        tensors[kPosWeight] != nullptr, reduction, operands.Traffic());
  const PlatformInfo platform =
      LaunchPlatform(launch.space, launch.operands, kernel_dtype, problem.ub_bytes_per_element);
  const auto tiling = ComputeTiling(platform, problem);
  if (!tiling) {
    return Fail(ACLNN_ERR_INNER_TILING_ERROR, call.first_phase, ": tiling failed for ", self->numel, " elements");
  }

  launch.tiling = tiling->data;
  plan.run_inline_if_idle = tiling->run_inline_if_idle;
  launch.tiling_key = tiling->tiling_key;
  const KernelTable& kernels = ChosenKernelTable();
  launch.compute = kernels.fn[KernelVariantKey(tiling->tiling_key, call.of_target)];
  plan.stage.blocks = launch.tiling.blockDim;
  plan.stage.workspace_bytes_per_block = BlockWorkspaceBytes(launch);
  return ACLNN_SUCCESS;
}

}  // namespace
}  // namespace aclnn_cpu::bce_grad

using namespace aclnn_cpu;
using namespace aclnn_cpu::bce_grad;

namespace {
aclnnStatus GetWorkspaceSize(const GradientCall& call, const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target,
                             const aclTensor* weightOptional, const aclTensor* posWeightOptional, int64_t reduction,
                             aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  // 1. required pointers
  const char* const kFirstPhase = call.first_phase;
  const NamedTensor required[] = {{"gradOutput", gradOutput}, {"self", self}, {"target", target}, {call.out_name, out}};
  if (aclnnStatus s = CheckRequired(kFirstPhase, required, workspaceSize, executor)) return s;
  const NamedTensor all[] = {{"gradOutput", gradOutput},   {"self", self},
                             {"target", target},           {"weightOptional", weightOptional},
                             {"posWeightOptional", posWeightOptional}, {call.out_name, out}};
  if (aclnnStatus s = CheckLive(kFirstPhase, all)) return s;
  // The same description as this thread's last successful call: its plan (Note [Plan cache]).
  const aclTensor* const described[] = {gradOutput, self, target, weightOptional, posWeightOptional, out};
  const PlanCacheKey key(call.of_target ? kTargetGradientPlans : kInputGradientPlans, reduction,
                         &ChosenKernelTable(), described);
  if (auto cached = FindCachedPlan(key)) return MakeExecutorFor(kFirstPhase, std::move(cached), workspaceSize, executor);
  // 2. dims, 3. dtypes, 4. formats, 5. shapes and memory, 6. reduction (docs/contract.md §3)
  if (aclnnStatus s = CheckDims(kFirstPhase, all)) return s;
  if (aclnnStatus s = CheckFloatDTypes(kFirstPhase, all)) return s;
  if (aclnnStatus s = CheckSameDType(kFirstPhase, {call.out_name, out}, {"target", target})) return s;
  const NamedTensor self_named{"self", self};
  if (aclnnStatus s = CheckSameFormat(kFirstPhase, {"target", target}, self_named)) return s;
  if (aclnnStatus s = CheckSameFormat(kFirstPhase, {call.out_name, out}, self_named)) return s;
  // An empty self reads and writes nothing: the shape and memory rules are waived for it.
  if (self->numel != 0) {
    const NamedTensor same_shape[] = {{"target", target}, {call.out_name, out}};
    const NamedTensor broadcast[] = {{"gradOutput", gradOutput},
                                     {"weightOptional", weightOptional},
                                     {"posWeightOptional", posWeightOptional}};
    const NamedTensor inputs[] = {{"gradOutput", gradOutput}, {"self", self}, {"target", target},
                                  {"weightOptional", weightOptional}, {"posWeightOptional", posWeightOptional}};
    if (aclnnStatus s = CheckSameShape(kFirstPhase, same_shape, self_named)) return s;
    if (aclnnStatus s = CheckBroadcastsTo(kFirstPhase, broadcast, self_named)) return s;
    if (aclnnStatus s = CheckAlignment(kFirstPhase, all)) return s;
    if (aclnnStatus s = CheckOutMemory(kFirstPhase, {call.out_name, out}, inputs)) return s;  // Note [Aliasing]
  }
  ReductionType reduction_type{};
  if (aclnnStatus s = CheckAclnnReduction(kFirstPhase, reduction, reduction_type)) return s;
  // Promotion (PyTorch rules), then castable to out.
  const aclDataType promoted = PromoteInputs({self, target, gradOutput, weightOptional, posWeightOptional});
  if (aclnnStatus s = CheckCastable(kFirstPhase, promoted, {call.out_name, out})) return s;

  // The AscendC kernel on the CPU twin instead, in the ascendc mode (Note [AscendC route]).
  if (call.twin_plan != nullptr) {
    bool use_twin = false;
    if (aclnnStatus s = ascendc_route::ChooseKernels(kFirstPhase, use_twin)) return s;
    if (use_twin && self->numel != 0) {
      std::shared_ptr<const LaunchPlan> twin_plan;
      if (aclnnStatus s = call.twin_plan(kFirstPhase, self, target, gradOutput, weightOptional, posWeightOptional, out,
                                         promoted, reduction_type, twin_plan)) {
        return s;
      }
      if (twin_plan != nullptr) {
        return CacheAndMakeExecutor(kFirstPhase, key, std::move(twin_plan), workspaceSize, executor);
      }  // else fp64, which A2 lacks: the CPU kernels
    }
  }
  auto plan = std::make_shared<BcePlan>();  // std::bad_alloc: see the guard below
  if (self->numel != 0) {
    const aclTensor* planned_target = call.of_target ? nullptr : target;
    const aclTensor* const tensors[kOperandCount] = {self,           planned_target,    gradOutput,
                                                     weightOptional, posWeightOptional, out};
    if (aclnnStatus s = BuildLaunch(call, tensors, promoted, reduction_type, *plan)) return s;
  }
  return CacheAndMakeExecutor(kFirstPhase, key, std::move(plan), workspaceSize, executor);
}
}  // namespace

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target, const aclTensor* weightOptional,
    const aclTensor* posWeightOptional, int64_t reduction, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  // Out of memory (the plan, the executor's registry) gives ACLNN_ERR_RUNTIME_ERROR and leaves
  // *executor unset; see Note [No exceptions across the C API].
  return Guarded(kInputGradient.first_phase, ExceptionCodes<aclnnStatus>{ACLNN_ERR_RUNTIME_ERROR, ACLNN_ERR_RUNTIME_ERROR},
                 [&] {
                   return GetWorkspaceSize(kInputGradient, gradOutput, self, target, weightOptional,
                                           posWeightOptional, reduction, out, workspaceSize, executor);
                 });
}

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnBinaryCrossEntropyWithLogitsBackward(void* workspace,
                                                                                  uint64_t workspaceSize,
                                                                                  aclOpExecutor* executor,
                                                                                  aclrtStream stream) {
  return LaunchExecutor(kInputGradient.second_phase, workspace, workspaceSize, executor, stream);
}

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target, const aclTensor* weightOptional,
    const aclTensor* posWeightOptional, int64_t reduction, aclTensor* gradTarget, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  return Guarded(kTargetGradient.first_phase,
                 ExceptionCodes<aclnnStatus>{ACLNN_ERR_RUNTIME_ERROR, ACLNN_ERR_RUNTIME_ERROR}, [&] {
                   return GetWorkspaceSize(kTargetGradient, gradOutput, self, target, weightOptional,
                                           posWeightOptional, reduction, gradTarget, workspaceSize, executor);
                 });
}

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnBinaryCrossEntropyWithLogitsTargetBackward(void* workspace,
                                                                                        uint64_t workspaceSize,
                                                                                        aclOpExecutor* executor,
                                                                                        aclrtStream stream) {
  return LaunchExecutor(kTargetGradient.second_phase, workspace, workspaceSize, executor, stream);
}
