// The kernel table of each SIMD target, from the parts compiled apart (Note [One target per
// translation unit], src/simd/kernel_parts.h), and the run-time dispatch to the best.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/binary_cross_entropy/op_kernel/binary_cross_entropy_kernel.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "ops/binary_cross_entropy/op_kernel/binary_cross_entropy.h"
#include "simd/kernel_table-inl.h"

ACLNN_KERNEL_TABLE_OF_TARGET(aclnn_cpu::bce_prob, KernelTable, FillKernelPart, GetKernelTable);

#if HWY_ONCE
ACLNN_KERNEL_TABLE_DISPATCH(aclnn_cpu::bce_prob, KernelTable, GetKernelTable, ChosenKernelTable)
#endif  // HWY_ONCE
