// The launch of the AscendC kernel of SigmoidCrossEntropyWithLogitsV2 (the loss) on the twin
// (op_kernel/ascendc/, docs/npu_kernels.md). The arguments' names are the ones the twin's findings
// give the GM buffers ('predict', 'loss', ...).
#include "ascendc_route/twin/twin_launches.h"
#include "op_kernel/ascendc/sigmoid_cross_entropy_with_logits_v2_ascendc.h"
#include "tikicpulib.h"

namespace aclnn_cpu::ascendc_route {

void LaunchSigmoidCrossEntropyWithLogitsV2(TwinDType dtype, uint32_t block_dim, uint8_t* const* gm) {
  uint8_t* predict = gm[0];
  uint8_t* target = gm[1];
  uint8_t* weight = gm[2];
  uint8_t* pos_weight = gm[3];
  uint8_t* loss = gm[4];
  uint8_t* workspace = gm[5];
  uint8_t* tiling = gm[6];
  ACLNN_TWIN_LAUNCH_TYPED(sigmoid_cross_entropy_with_logits_v2_typed, predict, target, weight, pos_weight, loss,
                          workspace, tiling);
}

}  // namespace aclnn_cpu::ascendc_route
