// The AscendC route of aclnnBinaryCrossEntropyWithLogits: the GM arguments of the kernel
// SigmoidCrossEntropyWithLogitsV2 in its entry's order, its A2 tiling and the workspace of its
// cross-core sum (docs/npu_kernels.md).
#include <string>

#include "ascendc_route/ascendc_plans.h"
#include "ascendc_route/twin_plan.h"
#include "common/error.h"
#include "op_host/a2/sigmoid_cross_entropy_with_logits_v2_a2_tiling.h"
#include "platform/platform_info.h"

namespace aclnn_cpu::ascendc_route {

aclnnStatus PlanSigmoidCrossEntropyWithLogitsV2OnTwin(const char* api, const aclTensor* self, const aclTensor* target,
                                                      const aclTensor* weight, const aclTensor* pos_weight,
                                                      const aclTensor* out, aclDataType promoted,
                                                      ReductionType reduction,
                                                      std::shared_ptr<const LaunchPlan>& plan) {
  namespace a2 = bce_loss::a2;
  if (!TwinComputes(promoted)) return ACLNN_SUCCESS;
  TwinLaunchBuilder launch(AscendcKernel::kSigmoidCrossEntropyWithLogitsV2, promoted, self->dims);
  launch.Input(self, TwinInputForm::kTotal);  // predict
  launch.Input(target, TwinInputForm::kTotal);
  const size_t weight_arg = launch.Input(weight, TwinInputForm::kPeriodic);
  const size_t pos_weight_arg = launch.Input(pos_weight, TwinInputForm::kPeriodic);
  launch.Output(out);  // self's shape (none) or one element (mean, sum)

  a2::A2LossProblem problem;
  problem.total = static_cast<uint64_t>(self->numel);
  problem.dtype = promoted == ACL_FLOAT16 ? a2::A2LossDType::kHalf
                  : promoted == ACL_BF16  ? a2::A2LossDType::kBFloat16
                                          : a2::A2LossDType::kFloat;
  problem.weight_count = launch.Elements(weight_arg);
  problem.pos_weight_count = launch.Elements(pos_weight_arg);
  problem.reduction = reduction == ReductionType::kMean  ? BCE_LOSS_REDUCTION_MEAN
                      : reduction == ReductionType::kSum ? BCE_LOSS_REDUCTION_SUM
                                                         : BCE_LOSS_REDUCTION_NONE;
  a2::A2LossTiling tiling;
  std::string error;
  if (!a2::TileLossForAtlasA2(AtlasA2Platform(), problem, &tiling, &error)) {
    return Fail(ACLNN_ERR_INNER_TILING_ERROR, api, ": the A2 tiling of the AscendC kernel failed: ", error);
  }
  launch.Workspace(tiling.workspace_bytes);  // the partial sums of mean and sum (0 for none)
  launch.Tiling(&tiling.data, sizeof(tiling.data));
  plan = launch.Finish(tiling.block_dim);
  return ACLNN_SUCCESS;
}

}  // namespace aclnn_cpu::ascendc_route
