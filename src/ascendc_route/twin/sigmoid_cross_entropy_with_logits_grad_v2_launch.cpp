// The launch of the AscendC kernel of SigmoidCrossEntropyWithLogitsGradV2 on the twin
// (op_kernel/ascendc/, docs/npu_kernels.md). The arguments' names are the ones the twin's
// findings give the GM buffers ('predict', 'dout', ...).
#include "ascendc_route/twin/twin_launches.h"
#include "op_kernel/ascendc/sigmoid_cross_entropy_with_logits_grad_v2_ascendc.h"
#include "tikicpulib.h"

namespace aclnn_cpu::ascendc_route {

// One ICPU_RUN_KF per type, so that the findings name the entry with its type.
void LaunchSigmoidCrossEntropyWithLogitsGradV2(TwinDType dtype, uint32_t block_dim, uint8_t* const* gm) {
  uint8_t* predict = gm[0];
  uint8_t* target = gm[1];
  uint8_t* dout = gm[2];
  uint8_t* weight = gm[3];
  uint8_t* pos_weight = gm[4];
  uint8_t* gradient = gm[5];
  uint8_t* workspace = gm[6];
  uint8_t* tiling = gm[7];
  switch (dtype) {
    case TwinDType::kFloat:
      ICPU_RUN_KF(sigmoid_cross_entropy_with_logits_grad_v2_typed<float>, block_dim, predict, target, dout, weight,
                  pos_weight, gradient, workspace, tiling);
      break;
    case TwinDType::kFloat16:
      ICPU_RUN_KF(sigmoid_cross_entropy_with_logits_grad_v2_typed<half>, block_dim, predict, target, dout, weight,
                  pos_weight, gradient, workspace, tiling);
      break;
    case TwinDType::kBFloat16:
      ICPU_RUN_KF(sigmoid_cross_entropy_with_logits_grad_v2_typed<bfloat16_t>, block_dim, predict, target, dout,
                  weight, pos_weight, gradient, workspace, tiling);
      break;
  }
}

}  // namespace aclnn_cpu::ascendc_route
