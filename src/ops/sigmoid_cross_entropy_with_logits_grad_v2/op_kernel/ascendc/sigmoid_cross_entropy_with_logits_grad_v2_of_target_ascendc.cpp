// The kernel entry of the gradient with respect to the target, with the backward's signature (target
// is not read): one translation unit per data type (-DDTYPE_PREDICT=float, half or bfloat16_t),
// as the AscendC build compiles it.
#include "sigmoid_cross_entropy_with_logits_grad_v2_ascendc.h"

#ifndef DTYPE_PREDICT
#define DTYPE_PREDICT float
#endif

extern "C" __global__ __aicore__ void sigmoid_cross_entropy_with_logits_grad_v2_of_target(
    GM_ADDR predict, GM_ADDR target, GM_ADDR dout, GM_ADDR weight, GM_ADDR pos_weight, GM_ADDR gradient,
    GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    bce_grad_ascendc::RunSigmoidCrossEntropyWithLogitsGradV2<DTYPE_PREDICT, true>(predict, target, dout, weight,
                                                                                  pos_weight, gradient, tiling);
}
