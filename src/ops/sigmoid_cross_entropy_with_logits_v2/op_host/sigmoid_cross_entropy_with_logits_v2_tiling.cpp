#include "op_host/sigmoid_cross_entropy_with_logits_v2_tiling.h"

#include <numeric>

#include "op_kernel/sigmoid_cross_entropy_with_logits_v2.h"

namespace aclnn_cpu::bce_loss {

std::optional<ElementwiseTilingResult> ComputeLossTiling(const PlatformInfo& platform, uint64_t total_elems,
                                                         KernelDType kernel_dtype, ReductionType reduction,
                                                         std::span<const OperandTraffic> traffic) {
  const ElementwiseTilingProblem problem = MakeElementwiseProblem(total_elems, kernel_dtype, traffic);
  if (reduction == ReductionType::kNone) return ComputeElementwiseTiling(platform, problem);
  PlatformInfo chunked = platform;
  // Whole chunks, and whole units of the platform's own (a row group's: Note [Row groups]).
  chunked.block_size = std::lcm(platform.block_size, kSumChunkElems * KernelDTypeSize(kernel_dtype));
  return ComputeElementwiseTiling(chunked, problem);
}

}  // namespace aclnn_cpu::bce_loss
