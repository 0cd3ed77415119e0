#include "ops/sigmoid_cross_entropy_with_logits_v2/op_host/sigmoid_cross_entropy_with_logits_v2_tiling.h"

#include "ops/sigmoid_cross_entropy_with_logits_v2/op_kernel/sigmoid_cross_entropy_with_logits_v2.h"

namespace aclnn_cpu::bce_loss {

std::optional<ElementwiseTilingResult> ComputeLossTiling(const PlatformInfo& platform, uint64_t total_elems,
                                                         KernelDType kernel_dtype, ReductionType reduction,
                                                         std::span<const OperandTraffic> traffic) {
  return ComputeReducingTiling(platform, MakeElementwiseProblem(total_elems, kernel_dtype, traffic), reduction);
}

}  // namespace aclnn_cpu::bce_loss
