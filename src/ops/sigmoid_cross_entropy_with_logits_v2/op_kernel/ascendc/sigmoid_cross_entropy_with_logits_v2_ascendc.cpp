// The kernel entry, with the NPU original's signature: one translation unit per data type
// (-DDTYPE_PREDICT=float, half or bfloat16_t), as the AscendC build compiles it.
#include "sigmoid_cross_entropy_with_logits_v2_ascendc.h"

#ifndef DTYPE_PREDICT
#define DTYPE_PREDICT float
#endif

extern "C" __global__ __aicore__ void sigmoid_cross_entropy_with_logits_v2(GM_ADDR predict, GM_ADDR target,
                                                                           GM_ADDR weight, GM_ADDR posWeight,
                                                                           GM_ADDR loss, GM_ADDR workspace,
                                                                           GM_ADDR tiling)
{
    bce_loss_ascendc::RunSigmoidCrossEntropyWithLogitsV2<DTYPE_PREDICT>(predict, target, weight, posWeight, loss,
                                                                        workspace, tiling);
}
