// The AscendC route of aclnnBinaryCrossEntropyWithLogitsBackward and of its target gradient: the GM
// arguments of the kernels SigmoidCrossEntropyWithLogitsGradV2 and ..._of_target in their entries'
// order (the same for both), and their A2 tiling (docs/npu_kernels.md).
#include <string>

#include "ascendc_route/ascendc_plans.h"
#include "ascendc_route/twin_plan.h"
#include "common/dtype.h"
#include "common/error.h"
#include "op_host/a2/sigmoid_cross_entropy_with_logits_grad_v2_a2_tiling.h"
#include "platform/platform_info.h"

namespace aclnn_cpu::ascendc_route {
namespace {

/// The plan of either gradient: the target gradient's kernel reads no target (its GM argument is
/// null) and its tiling knows it (A2GradProblem::of_target: other work buffers).
aclnnStatus PlanGradientOnTwin(bool of_target, const char* api, const aclTensor* self, const aclTensor* target,
                               const aclTensor* grad_output, const aclTensor* weight, const aclTensor* pos_weight,
                               const aclTensor* out, aclDataType promoted, ReductionType reduction,
                               std::shared_ptr<const LaunchPlan>& plan) {
  if (!TwinComputes(promoted)) return ACLNN_SUCCESS;
  TwinLaunchBuilder launch(of_target ? AscendcKernel::kSigmoidCrossEntropyWithLogitsGradV2OfTarget
                                     : AscendcKernel::kSigmoidCrossEntropyWithLogitsGradV2,
                           promoted, self->dims);
  launch.Input(self, TwinInputForm::kTotal);  // predict
  launch.Input(of_target ? nullptr : target, TwinInputForm::kTotal);
  const size_t dout = launch.Input(grad_output, TwinInputForm::kPeriodic);
  const size_t weight_arg = launch.Input(weight, TwinInputForm::kPeriodic);
  const size_t pos_weight_arg = launch.Input(pos_weight, TwinInputForm::kPeriodic);
  const size_t gradient = launch.Output(out);

  bce_grad::a2::A2GradProblem problem;
  problem.total = launch.Elements(gradient);
  problem.dtype_bytes = static_cast<uint32_t>(DTypeSize(promoted));
  problem.dout_count = launch.Elements(dout);
  problem.weight_count = launch.Elements(weight_arg);
  problem.pos_weight_count = launch.Elements(pos_weight_arg);
  problem.of_target = of_target;
  // As the CPU kernels' tiling: 1/N rounded once to fp32.
  problem.scale =
      reduction == ReductionType::kMean ? static_cast<float>(1.0 / static_cast<double>(problem.total)) : 1.0f;
  bce_grad::a2::A2GradTiling tiling;
  std::string error;
  if (!bce_grad::a2::TileGradForAtlasA2(AtlasA2Platform(), problem, &tiling, &error)) {
    return Fail(ACLNN_ERR_INNER_TILING_ERROR, api, ": the A2 tiling of the AscendC kernel failed: ", error);
  }
  launch.Workspace(0);
  launch.Tiling(&tiling.data, sizeof(tiling.data));
  plan = launch.Finish(tiling.block_dim);
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus PlanSigmoidCrossEntropyWithLogitsGradV2OnTwin(const char* api, const aclTensor* self,
                                                          const aclTensor* target, const aclTensor* grad_output,
                                                          const aclTensor* weight, const aclTensor* pos_weight,
                                                          const aclTensor* out, aclDataType promoted,
                                                          ReductionType reduction,
                                                          std::shared_ptr<const LaunchPlan>& plan) {
  return PlanGradientOnTwin(false, api, self, target, grad_output, weight, pos_weight, out, promoted, reduction, plan);
}

aclnnStatus PlanSigmoidCrossEntropyWithLogitsGradV2OfTargetOnTwin(const char* api, const aclTensor* self,
                                                                  const aclTensor* target,
                                                                  const aclTensor* grad_output,
                                                                  const aclTensor* weight,
                                                                  const aclTensor* pos_weight, const aclTensor* out,
                                                                  aclDataType promoted, ReductionType reduction,
                                                                  std::shared_ptr<const LaunchPlan>& plan) {
  return PlanGradientOnTwin(true, api, self, target, grad_output, weight, pos_weight, out, promoted, reduction, plan);
}

}  // namespace aclnn_cpu::ascendc_route
