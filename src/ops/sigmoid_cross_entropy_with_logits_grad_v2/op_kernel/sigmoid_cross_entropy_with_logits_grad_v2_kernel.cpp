// The gradient's kernel table of each SIMD target, from the parts compiled apart (Note [One
// target per translation unit], src/simd/kernel_parts.h), and the run-time dispatch to the best.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_kernel.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2.h"
#include "simd/kernel_table-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu {
namespace bce_grad {
namespace HWY_NAMESPACE {

// Defined in the -inl.h; instantiated, one part each, in the part files.
template <size_t kPart>
bool FillKernelPart(KernelTable& table);

const KernelTable* GetKernelTable() {
  static const KernelTable table = aclnn_cpu::HWY_NAMESPACE::BuildKernelTable<KernelTable>(
      [](KernelTable& t, auto part) { FillKernelPart<decltype(part)::value>(t); });
  return &table;
}

}  // namespace HWY_NAMESPACE
}  // namespace bce_grad
}  // namespace aclnn_cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace aclnn_cpu {
namespace bce_grad {

HWY_EXPORT(GetKernelTable);

const KernelTable& ChosenKernelTable() { return *HWY_DYNAMIC_DISPATCH(GetKernelTable)(); }

}  // namespace bce_grad
}  // namespace aclnn_cpu
#endif  // HWY_ONCE
