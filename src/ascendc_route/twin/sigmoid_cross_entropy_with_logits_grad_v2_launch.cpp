// The launches of the AscendC kernels of SigmoidCrossEntropyWithLogitsGradV2 and of its target
// gradient on the twin (op_kernel/ascendc/, docs/npu_kernels.md). The arguments' names are the
// ones the twin's findings give the GM buffers ('predict', 'dout', ...).
#include "ascendc_route/twin/twin_launches.h"
#include "op_kernel/ascendc/sigmoid_cross_entropy_with_logits_grad_v2_ascendc.h"
#include "tikicpulib.h"

namespace aclnn_cpu::ascendc_route {

void LaunchSigmoidCrossEntropyWithLogitsGradV2(TwinDType dtype, uint32_t block_dim, uint8_t* const* gm) {
  uint8_t* predict = gm[0];
  uint8_t* target = gm[1];
  uint8_t* dout = gm[2];
  uint8_t* weight = gm[3];
  uint8_t* pos_weight = gm[4];
  uint8_t* gradient = gm[5];
  uint8_t* workspace = gm[6];
  uint8_t* tiling = gm[7];
  ACLNN_TWIN_LAUNCH_TYPED(sigmoid_cross_entropy_with_logits_grad_v2_typed, predict, target, dout, weight, pos_weight,
                          gradient, workspace, tiling);
}

void LaunchSigmoidCrossEntropyWithLogitsGradV2OfTarget(TwinDType dtype, uint32_t block_dim, uint8_t* const* gm) {
  uint8_t* predict = gm[0];
  uint8_t* target = gm[1];  // not read (null)
  uint8_t* dout = gm[2];
  uint8_t* weight = gm[3];
  uint8_t* pos_weight = gm[4];
  uint8_t* grad_target = gm[5];
  uint8_t* workspace = gm[6];
  uint8_t* tiling = gm[7];
  ACLNN_TWIN_LAUNCH_TYPED(sigmoid_cross_entropy_with_logits_grad_v2_of_target_typed, predict, target, dout, weight,
                          pos_weight, grad_target, workspace, tiling);
}

}  // namespace aclnn_cpu::ascendc_route
