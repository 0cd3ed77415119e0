// The launch of each AscendC kernel on the twin (a TwinLaunchFn each, one translation unit each,
// compiled with the twin): ICPU_RUN_KF of the kernel's typed entry with the GM arguments in the
// entry's order. Named in the table of twin_kernels.cpp.
#pragma once

#include <cstdint>

#include "ascendc_route/twin_interface.h"

// ACLNN_TWIN_LAUNCH_TYPED(entry, args...): ICPU_RUN_KF of entry<float>, entry<half> or
// entry<bfloat16_t> as `dtype` says, on `block_dim` cores (both in scope). A macro, so that the
// findings name the entry with its type, as ICPU_RUN_KF writes its first argument's text.
#define ACLNN_TWIN_LAUNCH_TYPED(entry, ...)                             \
  do {                                                                  \
    switch (dtype) {                                                    \
      case ::aclnn_cpu::ascendc_route::TwinDType::kFloat:               \
        ICPU_RUN_KF(entry<float>, block_dim, __VA_ARGS__);              \
        break;                                                          \
      case ::aclnn_cpu::ascendc_route::TwinDType::kFloat16:             \
        ICPU_RUN_KF(entry<half>, block_dim, __VA_ARGS__);               \
        break;                                                          \
      case ::aclnn_cpu::ascendc_route::TwinDType::kBFloat16:            \
        ICPU_RUN_KF(entry<bfloat16_t>, block_dim, __VA_ARGS__);         \
        break;                                                          \
    }                                                                   \
  } while (0)

namespace aclnn_cpu::ascendc_route {

/// SigmoidCrossEntropyWithLogitsGradV2: gm = predict, target, dout, weight, pos_weight, gradient,
/// workspace, tiling (the entry's order).
void LaunchSigmoidCrossEntropyWithLogitsGradV2(TwinDType dtype, uint32_t block_dim, uint8_t* const* gm);
/// Its variant of the gradient with respect to the target: the same arguments (target unused).
void LaunchSigmoidCrossEntropyWithLogitsGradV2OfTarget(TwinDType dtype, uint32_t block_dim, uint8_t* const* gm);

/// SigmoidCrossEntropyWithLogitsV2 (the loss): gm = predict, target, weight, pos_weight, loss,
/// workspace, tiling (the entry's order).
void LaunchSigmoidCrossEntropyWithLogitsV2(TwinDType dtype, uint32_t block_dim, uint8_t* const* gm);

}  // namespace aclnn_cpu::ascendc_route
