#include "opdev/reducing_launch.h"

namespace aclnn_cpu {

std::optional<ElementwiseTilingResult> ComputeReducingTiling(const PlatformInfo& platform,
                                                             const ElementwiseTilingProblem& problem,
                                                             ReductionType reduction) {
  if (reduction == ReductionType::kNone) return ComputeElementwiseTiling(platform, problem);
  PlatformInfo chunked = platform;
  const uint64_t chunk_bytes = kSumChunkElems * KernelDTypeSize(problem.kernel_dtype);
  chunked.block_size = std::lcm(platform.block_size, chunk_bytes);
  if (problem.ub_bytes_per_element != 0 && !UnitFitsTile(chunked, problem.kernel_dtype, problem.ub_bytes_per_element)) {
    chunked.block_size = chunk_bytes;
  }
  return ComputeElementwiseTiling(chunked, problem);
}

}  // namespace aclnn_cpu
