// The route's table of AscendC kernels: each AscendcKernel's name and launch on the twin
// (Note [Plugging in an AscendC kernel], ascendc_route/ascendc_plans.h). Compiled with the twin.
#include "ascendc_route/twin/twin_launches.h"
#include "ascendc_route/twin_interface.h"

namespace aclnn_cpu::ascendc_route {

TwinKernelEntry FindTwinKernel(AscendcKernel kernel) {
  switch (kernel) {
    case AscendcKernel::kSigmoidCrossEntropyWithLogitsGradV2:
      return {"sigmoid_cross_entropy_with_logits_grad_v2", &LaunchSigmoidCrossEntropyWithLogitsGradV2};
    case AscendcKernel::kSigmoidCrossEntropyWithLogitsGradV2OfTarget:
      return {"sigmoid_cross_entropy_with_logits_grad_v2_of_target",
              &LaunchSigmoidCrossEntropyWithLogitsGradV2OfTarget};
    case AscendcKernel::kSigmoidCrossEntropyWithLogitsV2:
      return {"sigmoid_cross_entropy_with_logits_v2", &LaunchSigmoidCrossEntropyWithLogitsV2};
    case AscendcKernel::kCount:
      break;
  }
  return {};
}

}  // namespace aclnn_cpu::ascendc_route
