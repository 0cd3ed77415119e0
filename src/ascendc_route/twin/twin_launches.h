// The launch of each AscendC kernel on the twin (a TwinLaunchFn each, one translation unit each,
// compiled with the twin): ICPU_RUN_KF of the kernel's typed entry with the GM arguments in the
// entry's order. Named in the table of twin_kernels.cpp.
#pragma once

#include <cstdint>

#include "ascendc_route/twin_interface.h"

namespace aclnn_cpu::ascendc_route {

/// SigmoidCrossEntropyWithLogitsGradV2: gm = predict, target, dout, weight, pos_weight, gradient,
/// workspace, tiling (the entry's order).
void LaunchSigmoidCrossEntropyWithLogitsGradV2(TwinDType dtype, uint32_t block_dim, uint8_t* const* gm);

}  // namespace aclnn_cpu::ascendc_route
