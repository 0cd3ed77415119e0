// The loss's kernel table of each SIMD target, from the parts compiled apart (Note [One target
// per translation unit], src/simd/kernel_parts.h), and the run-time dispatch to the best.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/sigmoid_cross_entropy_with_logits_v2/op_kernel/sigmoid_cross_entropy_with_logits_v2_kernel.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "ops/sigmoid_cross_entropy_with_logits_v2/op_kernel/sigmoid_cross_entropy_with_logits_v2.h"
#include "simd/kernel_table-inl.h"

ACLNN_KERNEL_TABLE_OF_TARGET(aclnn_cpu::bce_loss, LossKernelTable, FillLossKernelPart, GetLossKernelTable);

#if HWY_ONCE
ACLNN_KERNEL_TABLE_DISPATCH(aclnn_cpu::bce_loss, LossKernelTable, GetLossKernelTable, ChosenLossKernelTable)
#endif  // HWY_ONCE
