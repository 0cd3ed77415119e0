// The kernel variant of a launch's optional inputs (weight, pos_weight), chosen at run time from
// its TilingData's flags: the BCE kernels are class templates Kernel<T, HAS_WEIGHT,
// HAS_POS_WEIGHT> (the NPU original's structure), so that an absent input gets no queue and no
// copy. Any AscendC kernel with Init(args...) and Process() of that shape can use it.
#ifndef ACLNN_BCE_KERNEL_VARIANT_ASCENDC_H
#define ACLNN_BCE_KERNEL_VARIANT_ASCENDC_H

#include "kernel_operator.h"

namespace bce_ascendc {

/// Runs Kernel<T, hasWeight, hasPosWeight>: Init(args...), then Process().
template <template <typename, bool, bool> class Kernel, typename T, typename... InitArgs>
__aicore__ inline void RunKernelVariant(bool hasWeight, bool hasPosWeight, const InitArgs&... args)
{
    if (hasWeight && hasPosWeight) {
        Kernel<T, true, true> op;
        op.Init(args...);
        op.Process();
    } else if (hasWeight) {
        Kernel<T, true, false> op;
        op.Init(args...);
        op.Process();
    } else if (hasPosWeight) {
        Kernel<T, false, true> op;
        op.Init(args...);
        op.Process();
    } else {
        Kernel<T, false, false> op;
        op.Init(args...);
        op.Process();
    }
}

}  // namespace bce_ascendc

#endif  // ACLNN_BCE_KERNEL_VARIANT_ASCENDC_H
