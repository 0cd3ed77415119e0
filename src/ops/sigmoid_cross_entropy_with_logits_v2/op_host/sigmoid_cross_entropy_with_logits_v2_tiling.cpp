#include "ops/sigmoid_cross_entropy_with_logits_v2/op_host/sigmoid_cross_entropy_with_logits_v2_tiling.h"

#include <numeric>

#include "ops/sigmoid_cross_entropy_with_logits_v2/op_kernel/sigmoid_cross_entropy_with_logits_v2.h"

namespace aclnn_cpu::bce_loss {

std::optional<ElementwiseTilingResult> ComputeLossTiling(const PlatformInfo& platform, uint64_t total_elems,
                                                         KernelDType kernel_dtype, ReductionType reduction,
                                                         std::span<const OperandTraffic> traffic) {
  const ElementwiseTilingProblem problem = MakeElementwiseProblem(total_elems, kernel_dtype, traffic);
  if (reduction == ReductionType::kNone) return ComputeElementwiseTiling(platform, problem);
  PlatformInfo chunked = platform;
  // Whole chunks, and whole units of the platform's own (a row group's: Note [Row groups]) where
  // both together fit a tile; whole chunks alone where they do not.
  const uint64_t chunk_bytes = kSumChunkElems * KernelDTypeSize(kernel_dtype);
  chunked.block_size = std::lcm(platform.block_size, chunk_bytes);
  if (problem.ub_bytes_per_element != 0 && !UnitFitsTile(chunked, kernel_dtype, problem.ub_bytes_per_element)) {
    chunked.block_size = chunk_bytes;
  }
  return ComputeElementwiseTiling(chunked, problem);
}

}  // namespace aclnn_cpu::bce_loss
