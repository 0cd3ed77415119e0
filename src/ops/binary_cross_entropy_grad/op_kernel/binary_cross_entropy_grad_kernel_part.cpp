// One part of the kernel table for one SIMD target (Note [One target per translation unit]).
#include "simd/one_target.h"

#if ACLNN_KERNEL_TARGET_ENABLED
#include "ops/binary_cross_entropy_grad/op_kernel/binary_cross_entropy_grad-inl.h"
ACLNN_KERNEL_PART_INSTANCE(aclnn_cpu::bce_prob_grad, FillKernelPart, KernelTable)
#endif  // ACLNN_KERNEL_TARGET_ENABLED
