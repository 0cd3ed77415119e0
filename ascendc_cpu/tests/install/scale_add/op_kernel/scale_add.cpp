// scale_add kernel entry: a templated __global__ kernel, as ops-nn's template-argument kernels.
#include "scale_add.h"

using namespace AscendC;

template <uint32_t schMode>
__global__ __aicore__ void scale_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    REGISTER_TILING_DEFAULT(ScaleAddTilingData);
    GET_TILING_DATA_WITH_STRUCT(ScaleAddTilingData, tilingData, tiling);
    (void)workspace;
    if (TILING_KEY_IS(SCALE_ADD_TPL_SCH_MODE_0)) {
        NsScaleAdd::KernelScaleAdd<DTYPE_X> op;
        op.Init(x, y, z, tilingData);
        op.Process();
    }
}
