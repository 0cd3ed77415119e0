// The BCE gradient test kernel for float, half and bfloat16_t (one entry point per type, as the
// NPU build makes one per DTYPE_PREDICT).
#include "bce_grad_kernel.h"

namespace {

template <typename T>
__aicore__ inline void RunBceGrad(GM_ADDR predict, GM_ADDR target, GM_ADDR dout, GM_ADDR gradient, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(BceGradTiling);
    GET_TILING_DATA(tiling_data, tiling);
    bce_grad::BceGradKernel<T> op;
    op.Init(predict, target, dout, gradient, tiling_data);
    op.Process();
}

}  // namespace

extern "C" __global__ __aicore__ void bce_grad_float(GM_ADDR predict, GM_ADDR target, GM_ADDR dout,
                                                     GM_ADDR gradient, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    RunBceGrad<float>(predict, target, dout, gradient, tiling);
}

extern "C" __global__ __aicore__ void bce_grad_half(GM_ADDR predict, GM_ADDR target, GM_ADDR dout,
                                                    GM_ADDR gradient, GM_ADDR tiling)
{
    RunBceGrad<half>(predict, target, dout, gradient, tiling);
}

extern "C" __global__ __aicore__ void bce_grad_bfloat16(GM_ADDR predict, GM_ADDR target, GM_ADDR dout,
                                                        GM_ADDR gradient, GM_ADDR tiling)
{
    RunBceGrad<bfloat16_t>(predict, target, dout, gradient, tiling);
}
