// The loss's kernel table of each SIMD target, from the parts compiled apart (Note [One target
// per translation unit], src/simd/kernel_parts.h), and the run-time dispatch to the best.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/sigmoid_cross_entropy_with_logits_v2/op_kernel/sigmoid_cross_entropy_with_logits_v2_kernel.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "ops/sigmoid_cross_entropy_with_logits_v2/op_kernel/sigmoid_cross_entropy_with_logits_v2.h"
#include "simd/kernel_table-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu {
namespace bce_loss {
namespace HWY_NAMESPACE {

// Defined in the -inl.h; instantiated, one part each, in the part files.
template <size_t kPart>
bool FillLossKernelPart(LossKernelTable& table);

const LossKernelTable* GetLossKernelTable() {
  static const LossKernelTable table = aclnn_cpu::HWY_NAMESPACE::BuildKernelTable<LossKernelTable>(
      [](LossKernelTable& t, auto part) { FillLossKernelPart<decltype(part)::value>(t); });
  return &table;
}

}  // namespace HWY_NAMESPACE
}  // namespace bce_loss
}  // namespace aclnn_cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace aclnn_cpu::bce_loss {

HWY_EXPORT(GetLossKernelTable);

const LossKernelTable& ChosenLossKernelTable() { return *HWY_DYNAMIC_DISPATCH(GetLossKernelTable)(); }

}  // namespace aclnn_cpu::bce_loss
#endif  // HWY_ONCE
