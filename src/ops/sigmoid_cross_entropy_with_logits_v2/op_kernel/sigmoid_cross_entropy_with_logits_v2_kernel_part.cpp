// One part of the loss's kernel table for one SIMD target: compiled once per (target, part) by
// aclnn_add_kernel_parts (Note [One target per translation unit], src/simd/kernel_parts.h).
#include "simd/one_target.h"

#if ACLNN_KERNEL_TARGET_ENABLED
#include "hwy/highway.h"
#include "ops/sigmoid_cross_entropy_with_logits_v2/op_kernel/sigmoid_cross_entropy_with_logits_v2-inl.h"

// No HWY_BEFORE_NAMESPACE: the instantiation takes the target attributes of the template's
// definition in the -inl.h, and clang rejects a target region that declares no function.
namespace aclnn_cpu::bce_loss::HWY_NAMESPACE {
static_assert(ACLNN_KERNEL_PART < kKernelPartCount, "aclnn_add_kernel_parts: PARTS too large");
template bool FillLossKernelPart<ACLNN_KERNEL_PART>(LossKernelTable& table);
}  // namespace aclnn_cpu::bce_loss::HWY_NAMESPACE
#endif  // ACLNN_KERNEL_TARGET_ENABLED
