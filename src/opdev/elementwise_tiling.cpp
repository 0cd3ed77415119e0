#include "opdev/elementwise_tiling.h"

#include <algorithm>

namespace aclnn_cpu {

// Note [Tiling cost model]
// The NPU original picks core counts and UB reserves from hand-tuned shape bands. Here one model
// covers every shape and platform:
//  * Work is counted in alignment units of block_size bytes (a cache line on the CPU, 32 bytes on
//    the NPU), so that blocks never share a unit.
//  * Cores: each core must move at least min_bytes_per_core of traffic to pay for its start,
//    cores = clamp(ceil(total_bytes / min_bytes_per_core), 1, min(core_num, units)).
//  * Units are dealt evenly: tailBlockNum "big" blocks get one unit more than the others.
//  * Tile: as many units as fit the per-core budget ub_size at ub_bytes_per_element, capped at a
//    block's share; a block's last tile takes the remainder.
//  * The last unit may run past the data; the kernel clips ranges to totalDataNum.
//  * A problem whose traffic exceeds the last-level cache streams its output (non-temporal
//    stores): nothing of it would survive in cache, and plain stores first read every line.

ElementwiseTilingProblem MakeElementwiseProblem(uint64_t total_elems, KernelDType kernel_dtype,
                                                std::span<const OperandTraffic> operands) {
  ElementwiseTilingProblem p;
  p.total_elems = total_elems;
  p.kernel_dtype = kernel_dtype;
  for (const OperandTraffic& op : operands) {
    if (!op.broadcast_scalar) p.bytes_per_element += op.dtype_bytes;
    p.ub_bytes_per_element += KernelDTypeSize(kernel_dtype);
  }
  return p;
}

namespace {
uint64_t CeilDiv(uint64_t a, uint64_t b) { return a / b + (a % b != 0 ? 1 : 0); }
}  // namespace

bool UnitFitsTile(const PlatformInfo& platform, KernelDType kernel_dtype, uint64_t ub_bytes_per_element) {
  const uint64_t unit_elems = std::max<uint64_t>(platform.block_size / KernelDTypeSize(kernel_dtype), 1);
  return platform.ub_size / ub_bytes_per_element >= unit_elems;
}

std::optional<ElementwiseTilingResult> ComputeElementwiseTiling(const PlatformInfo& platform,
                                                                const ElementwiseTilingProblem& problem) {
  const uint64_t elem_bytes = KernelDTypeSize(problem.kernel_dtype);
  if (problem.total_elems == 0 || elem_bytes == 0 || platform.core_num == 0 || platform.block_size == 0 ||
      problem.ub_bytes_per_element == 0) {
    return std::nullopt;
  }
  const uint64_t unit_elems = std::max<uint64_t>(platform.block_size / elem_bytes, 1);
  const uint64_t units = CeilDiv(problem.total_elems, unit_elems);
  if (!UnitFitsTile(platform, problem.kernel_dtype, problem.ub_bytes_per_element)) return std::nullopt;

  // Saturating: total bytes only decides how many cores are worth starting.
  const uint64_t bytes_per_element = std::max<uint64_t>(problem.bytes_per_element, 1);
  const uint64_t total_bytes = problem.total_elems > UINT64_MAX / bytes_per_element
                                   ? UINT64_MAX
                                   : problem.total_elems * bytes_per_element;
  const uint64_t wanted_cores = platform.min_bytes_per_core == 0 ? platform.core_num
                                                                  : CeilDiv(total_bytes, platform.min_bytes_per_core);
  const uint64_t cores = std::clamp<uint64_t>(wanted_cores, 1, std::min(platform.core_num, units));

  const uint64_t small_units = units / cores;
  const uint64_t tail_blocks = units % cores;
  const uint64_t big_units = small_units + (tail_blocks != 0 ? 1 : 0);
  const uint64_t budget_units = std::max<uint64_t>(platform.ub_size / (problem.ub_bytes_per_element * unit_elems), 1);
  const uint64_t tile_units = std::min(budget_units, big_units);

  ElementwiseTilingResult r;
  auto& d = r.data;
  d.totalDataNum = problem.total_elems;
  d.blockDim = cores;
  d.tailBlockNum = tail_blocks;
  d.tileDataNum = tile_units * unit_elems;
  d.smallCoreDataNum = small_units * unit_elems;
  d.bigCoreDataNum = (small_units + 1) * unit_elems;
  d.finalSmallTileNum = CeilDiv(small_units, tile_units);
  d.smallTailDataNum = d.smallCoreDataNum - (d.finalSmallTileNum - 1) * d.tileDataNum;
  d.finalBigTileNum = CeilDiv(small_units + 1, tile_units);
  d.bigTailDataNum = d.bigCoreDataNum - (d.finalBigTileNum - 1) * d.tileDataNum;
  d.nonTemporalOut = platform.llc_bytes != 0 && total_bytes > platform.llc_bytes ? 1 : 0;
  r.run_inline_if_idle = total_bytes < platform.inline_launch_max_bytes;
  return r;
}

}  // namespace aclnn_cpu
