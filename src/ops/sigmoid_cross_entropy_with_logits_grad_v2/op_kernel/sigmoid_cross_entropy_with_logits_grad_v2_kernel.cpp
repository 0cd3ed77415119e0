// Instantiates the kernel once per SIMD target and dispatches to the best one at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_kernel.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "aclnn/aclnn_cpu.h"
#include "hwy/highway.h"
#include "op_kernel/sigmoid_cross_entropy_with_logits_grad_v2-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu {
namespace bce_grad {
namespace HWY_NAMESPACE {

const KernelTable* GetKernelTable() {
  static const KernelTable table = [] {
    KernelTable t{};
    FillKernels<float>(t, KernelDType::kFloat);
    FillKernels<hwy::float16_t>(t, KernelDType::kFloat16);
#if ACLNN_CPU_HAVE_NATIVE_BF16_STORE
    if (CpuHasAvx512Bf16()) {  // Note [Native bf16 stores] (src/simd/convert-inl.h)
      FillKernels<NativeBFloat16>(t, KernelDType::kBFloat16);
    } else {
      FillKernels<hwy::bfloat16_t>(t, KernelDType::kBFloat16);
    }
#else
    FillKernels<hwy::bfloat16_t>(t, KernelDType::kBFloat16);
#endif
    FillKernels<double>(t, KernelDType::kDouble);
    t.target_name = hwy::TargetName(HWY_TARGET);
    return t;
  }();
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

extern "C" ACL_FUNC_VISIBILITY const char* aclnnCpuSimdTargetName(void) {
  return aclnn_cpu::bce_grad::ChosenKernelTable().target_name;
}
#endif  // HWY_ONCE
