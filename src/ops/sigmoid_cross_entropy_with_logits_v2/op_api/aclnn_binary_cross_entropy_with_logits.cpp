// ACLNN L2 API of SigmoidCrossEntropyWithLogitsV2 (the loss): checks in the upstream order, dtype
// promotion, the plan (the shared elementwise plan, the tiling, the kernel; for mean and sum a
// combine stage) and the executor.
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"

#include <memory>

#include "common/dtype.h"
#include "common/error.h"
#include "opdev/elementwise_plan.h"
#include "opdev/kernel_dtype.h"
#include "opdev/tensor_checks.h"
#include "platform/platform_info.h"
#include "op_host/sigmoid_cross_entropy_with_logits_v2_tiling.h"
#include "op_kernel/sigmoid_cross_entropy_with_logits_v2.h"
#include "runtime/executor.h"
#include "runtime/tensor.h"
#include "runtime/thread_pool.h"

namespace aclnn_cpu::bce_loss {
namespace {

constexpr const char* kFirstPhase = "aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize";
constexpr const char* kSecondPhase = "aclnnBinaryCrossEntropyWithLogits";

aclnnStatus CheckNotNull(const aclTensor* self, const aclTensor* target, const aclTensor* out,
                         const uint64_t* workspaceSize, aclOpExecutor* const* executor) {
  const NamedTensor required[] = {{"self", self}, {"target", target}, {"out", out}};
  for (const auto& t : required) {
    if (t.tensor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, kFirstPhase, ": ", t.name, " must not be null");
  }
  if (workspaceSize == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, kFirstPhase, ": workspaceSize must not be null");
  if (executor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, kFirstPhase, ": executor must not be null");
  return ACLNN_SUCCESS;
}

/// out's shape: self's for none, one element ([] or [1]) for mean and sum.
aclnnStatus CheckOutShape(const aclTensor* self, const aclTensor* out, ReductionType reduction) {
  if (reduction == ReductionType::kNone) {
    const NamedTensor same_shape[] = {{"out", out}};
    return CheckSameShape(kFirstPhase, same_shape, {"self", self});
  }
  const bool scalar = out->dims.rank == 0 || (out->dims.rank == 1 && out->dims.v[0] == 1);
  if (!scalar) {
    return Fail(ACLNN_ERR_PARAM_INVALID, kFirstPhase, ": out shape ", FormatDims(out->dims.span()),
                " must be [] or [1] for reduction ", reduction == ReductionType::kMean ? "mean (1)" : "sum (2)");
  }
  return ACLNN_SUCCESS;
}

// Note [Loss aliasing]
// reduction none writes out element by element as the backward does, so it keeps the backward's
// rule (Note [Aliasing]): out must not share memory with itself and may share memory with an
// input only as the very same view. mean and sum write out's one element in the combine stage,
// after every block of the elementwise stage has read all of its inputs: any overlap is safe.

/// The launch plan of one call: the elementwise stage and, for mean and sum, the combine.
class LossPlan final : public LaunchPlan {
 public:
  LossLaunch launch;
  LaunchStage stages[2];
  size_t stage_count = 0;
  bool has_elementwise_stage = false;  ///< false for an empty self: then stage 0 is the combine
  bool run_inline_if_idle = true;
  std::span<const LaunchStage> Stages() const override { return {stages, stage_count}; }
  bool RunInlineIfIdle() const override { return run_inline_if_idle; }
  void RunBlock(size_t stage, uint64_t block, char* workspace) const override {
    if (stage == 0 && has_elementwise_stage) {
      RunElementwiseStageBlock(launch, block, BlockWorkspace(workspace, 0, block));
    } else {
      RunCombine(launch, BlockWorkspace(workspace, 0, 0));
    }
  }
};

/// Builds the plan of a checked call.
aclnnStatus BuildLaunch(const aclTensor* const (&tensors)[kOperandCount], aclDataType promoted,
                        ReductionType reduction, LossPlan& plan) {
  LossLaunch& launch = plan.launch;
  const aclTensor* self = tensors[kPredict];
  const aclTensor* out = tensors[kLoss];
  launch.reduction = reduction;
  launch.total_elems = static_cast<uint64_t>(self->numel);
  launch.result = out->first_element();
  launch.result_dtype = out->dtype;
  const bool sums = reduction != ReductionType::kNone;
  plan.stage_count = 0;
  if (self->numel != 0) {
    const aclDataType kernel_acl_dtype =
        sums ? ChooseKernelDType(std::span<const aclTensor* const>(tensors, kInputCount), promoted)
             : ChooseKernelDType(tensors, promoted);
    launch.kernel_dtype = KernelDTypeOf(kernel_acl_dtype);
    OperandTraffic traffic[kOperandCount];
    size_t traffic_count = 0;
    if (sums) {
      const aclTensor* const inputs[kInputCount] = {tensors[0], tensors[1], tensors[2], tensors[3]};
      GlobalOperand planned[kInputCount];
      PlanElementwise<SumTraits>(self->dims, inputs, kernel_acl_dtype, launch.space, planned);
      for (size_t o = 0; o < kInputCount; ++o) launch.operands[o] = planned[o];
      traffic_count = OperandTrafficOf(std::span<const GlobalOperand>(launch.operands, kInputCount), traffic);
    } else {
      PlanElementwise<LossTraits>(self->dims, tensors, kernel_acl_dtype, launch.space, launch.operands);
      traffic_count = OperandTrafficOf(launch.operands, traffic);
    }
    const PlatformInfo platform = CpuPlatform(static_cast<uint64_t>(ThreadPool::Instance().NumThreads()));
    const auto tiling = ComputeLossTiling(platform, launch.total_elems, launch.kernel_dtype, reduction,
                                          std::span<const OperandTraffic>(traffic, traffic_count));
    if (!tiling) return Fail(ACLNN_ERR_INNER_TILING_ERROR, kFirstPhase, ": tiling failed for ", self->numel, " elements");
    launch.tiling = tiling->data;
    plan.run_inline_if_idle = tiling->run_inline_if_idle;
    launch.compute = ChosenLossKernelTable().compute[MakeLossKernelKey(
        launch.kernel_dtype, tensors[kWeight] != nullptr, tensors[kPosWeight] != nullptr, sums)];
    plan.stages[plan.stage_count++] = LaunchStage{launch.tiling.blockDim, ElementwiseBlockWorkspaceBytes(launch)};
    plan.has_elementwise_stage = true;
  }
  // mean and sum write their one element even for an empty self (NaN and 0).
  if (sums) plan.stages[plan.stage_count++] = LaunchStage{1, 0};
  return ACLNN_SUCCESS;
}

}  // namespace
}  // namespace aclnn_cpu::bce_loss

using namespace aclnn_cpu;
using namespace aclnn_cpu::bce_loss;

namespace {
aclnnStatus GetWorkspaceSize(const aclTensor* self, const aclTensor* target, const aclTensor* weightOptional,
                             const aclTensor* posWeightOptional, int64_t reduction, aclTensor* out,
                             uint64_t* workspaceSize, aclOpExecutor** executor) {
  // 1. required pointers, and handles that are live tensors
  if (aclnnStatus s = CheckNotNull(self, target, out, workspaceSize, executor)) return s;
  const NamedTensor all[] = {{"self", self},
                             {"target", target},
                             {"weightOptional", weightOptional},
                             {"posWeightOptional", posWeightOptional},
                             {"out", out}};
  if (aclnnStatus s = CheckLive(kFirstPhase, all)) return s;
  // 2. dtypes, 3. reduction, 4. dims, 5.-7. shapes, then the memory rules, 8. promotion
  if (aclnnStatus s = CheckFloatDTypes(kFirstPhase, all)) return s;
  if (aclnnStatus s = CheckSameDType(kFirstPhase, {"out", out}, {"target", target})) return s;
  const auto reduction_type = FromAclnnReduction(reduction);
  if (!reduction_type) {
    return Fail(ACLNN_ERR_PARAM_INVALID, kFirstPhase, ": reduction ", reduction,
                " must be 0 (none), 1 (mean) or 2 (sum)");
  }
  if (aclnnStatus s = CheckDims(kFirstPhase, all)) return s;
  const NamedTensor self_named{"self", self};
  const NamedTensor target_named[] = {{"target", target}};
  if (aclnnStatus s = CheckSameShape(kFirstPhase, target_named, self_named)) return s;
  const NamedTensor broadcast[] = {{"weightOptional", weightOptional}, {"posWeightOptional", posWeightOptional}};
  if (aclnnStatus s = CheckBroadcastsTo(kFirstPhase, broadcast, self_named)) return s;
  if (aclnnStatus s = CheckOutShape(self, out, *reduction_type)) return s;
  if (self->numel != 0) {  // an empty self reads nothing: the memory rules are waived for it
    if (aclnnStatus s = CheckAlignment(kFirstPhase, all)) return s;
    if (*reduction_type == ReductionType::kNone) {
      const NamedTensor inputs[] = {{"self", self},
                                    {"target", target},
                                    {"weightOptional", weightOptional},
                                    {"posWeightOptional", posWeightOptional}};
      if (aclnnStatus s = CheckOutMemory(kFirstPhase, {"out", out}, inputs)) return s;  // Note [Loss aliasing]
    }
  }
  aclDataType promoted = PromoteFloat(self->dtype, target->dtype);
  if (weightOptional != nullptr) promoted = PromoteFloat(promoted, weightOptional->dtype);
  if (posWeightOptional != nullptr) promoted = PromoteFloat(promoted, posWeightOptional->dtype);
  if (!CanCast(promoted, out->dtype)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, kFirstPhase, ": promoted dtype ", DTypeName(promoted),
                " cannot be cast to out dtype ", DTypeName(out->dtype));
  }

  auto plan = std::make_shared<LossPlan>();  // std::bad_alloc: see the guard below
  const aclTensor* const tensors[kOperandCount] = {self, target, weightOptional, posWeightOptional, out};
  if (aclnnStatus s = BuildLaunch(tensors, promoted, *reduction_type, *plan)) return s;
  aclOpExecutor* e = CreateExecutor(plan);
  if (e == nullptr) return Fail(ACLNN_ERR_RUNTIME_ERROR, kFirstPhase, ": out of memory");
  *workspaceSize = plan->WorkspaceSize();
  *executor = e;
  return ACLNN_SUCCESS;
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
