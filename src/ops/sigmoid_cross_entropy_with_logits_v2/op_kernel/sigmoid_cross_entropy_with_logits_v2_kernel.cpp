// Instantiates the loss kernel once per SIMD target and dispatches to the best one at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "op_kernel/sigmoid_cross_entropy_with_logits_v2_kernel.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "op_kernel/sigmoid_cross_entropy_with_logits_v2-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu {
namespace bce_loss {
namespace HWY_NAMESPACE {

const LossKernelTable* GetLossKernelTable() {
  static const LossKernelTable table = [] {
    LossKernelTable t{};
    FillLossKernels<float>(t.compute, KernelDType::kFloat);
    FillLossKernels<hwy::float16_t>(t.compute, KernelDType::kFloat16);
#if ACLNN_CPU_HAVE_NATIVE_BF16_STORE
    if (CpuHasAvx512Bf16()) {  // Note [Native bf16 stores] (src/simd/convert-inl.h)
      FillLossKernels<NativeBFloat16>(t.compute, KernelDType::kBFloat16);
    } else {
      FillLossKernels<hwy::bfloat16_t>(t.compute, KernelDType::kBFloat16);
    }
#else
    FillLossKernels<hwy::bfloat16_t>(t.compute, KernelDType::kBFloat16);
#endif
    FillLossKernels<double>(t.compute, KernelDType::kDouble);
    t.sum_chunk_float = &SumChunksFloat;
    t.target_name = hwy::TargetName(HWY_TARGET);
    return t;
  }();
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
