// One part of the loss's kernel table for one SIMD target: compiled once per (target, part) by
// aclnn_add_kernel_parts (Note [One target per translation unit], src/simd/kernel_parts.h).
#include "simd/one_target.h"

#if ACLNN_KERNEL_TARGET_ENABLED
#include "ops/sigmoid_cross_entropy_with_logits_v2/op_kernel/sigmoid_cross_entropy_with_logits_v2-inl.h"
ACLNN_KERNEL_PART_INSTANCE(aclnn_cpu::bce_loss, FillLossKernelPart, LossKernelTable)
#endif  // ACLNN_KERNEL_TARGET_ENABLED
