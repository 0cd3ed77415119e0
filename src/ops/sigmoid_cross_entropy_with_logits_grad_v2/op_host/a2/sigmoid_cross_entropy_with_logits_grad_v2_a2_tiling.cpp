#include "op_host/a2/sigmoid_cross_entropy_with_logits_grad_v2_a2_tiling.h"

#include <algorithm>

namespace aclnn_cpu::bce_grad::a2 {
namespace {

// The kernel's constants (sigmoid_cross_entropy_with_logits_grad_v2_ascendc.h), restated: this
// file includes no AscendC header.
constexpr uint64_t kBufferNum = 2;   // BUFFER_NUM
constexpr uint64_t kBlockBytes = 32;  // BLOCK_BYTES

uint64_t AlignUp(uint64_t value, uint64_t unit) { return (value + unit - 1) / unit * unit; }
uint64_t CeilDiv(uint64_t value, uint64_t unit) { return (value + unit - 1) / unit; }

/// Whether @p count is an operand's element count the kernel reads (see the header).
bool IsBroadcastPeriod(uint64_t count, uint64_t total) { return count > 1 && count < total; }

/// Whether some operand's tiles may wrap around its period (the kernel then builds its pattern).
bool NeedsGather(const A2GradProblem& p) {
  return IsBroadcastPeriod(p.dout_count, p.total) || IsBroadcastPeriod(p.weight_count, p.total) ||
         IsBroadcastPeriod(p.pos_weight_count, p.total);
}

}  // namespace

uint64_t A2GradUbBytes(const A2GradProblem& problem, uint64_t tile_elems) {
  const uint64_t tile_bytes = AlignUp(tile_elems * problem.dtype_bytes, kBlockBytes);
  const uint64_t float_bytes = AlignUp(tile_elems * sizeof(float), kBlockBytes);
  const bool is_float = problem.dtype_bytes == sizeof(float);
  uint64_t bytes = 0;
  if (problem.of_target) {
    bytes += 2 * kBufferNum * tile_bytes;                        // predict, gradient queues
    if (problem.pos_weight_count != 0) bytes += 4 * float_bytes;  // L, exp(-|x|), two temporaries
    if (!is_float) bytes += float_bytes;                          // x widened
  } else {
    bytes += 3 * kBufferNum * tile_bytes;  // predict, target, gradient queues
    bytes += 3 * float_bytes;              // P, Q, 1 + e
    if (!is_float) bytes += 2 * float_bytes;  // x and y widened
  }
  for (uint64_t count : {problem.dout_count, problem.weight_count, problem.pos_weight_count}) {
    if (count == 0) continue;
    bytes += kBufferNum * AlignUp(tile_elems * problem.dtype_bytes + kBlockBytes, kBlockBytes) + float_bytes;
  }
  if (NeedsGather(problem)) {
    bytes += 4 * float_bytes;                // pattern, index, flag, offsets
    if (!is_float) bytes += tile_bytes;      // the gathered tile before widening
  }
  return bytes;
}

bool TileGradForAtlasA2(const PlatformInfo& platform, const A2GradProblem& problem, A2GradTiling* tiling,
                        std::string* error) {
  const uint64_t total = problem.total;
  if (total == 0) {
    *error = "no elements: nothing to launch";
    return false;
  }
  if (problem.dtype_bytes != 2 && problem.dtype_bytes != 4) {
    *error = "dtype of " + std::to_string(problem.dtype_bytes) + " bytes: the kernel takes fp32, fp16 and bf16";
    return false;
  }
  uint64_t period = 0;
  const struct {
    const char* name;
    uint64_t count;
    bool optional;
  } operands[] = {{"dout", problem.dout_count, false},
                  {"weight", problem.weight_count, true},
                  {"pos_weight", problem.pos_weight_count, true}};
  for (const auto& op : operands) {
    if (op.count == 0 && op.optional) continue;
    if (op.count == 0 || op.count > total || total % op.count != 0) {
      *error = std::string(op.name) + " has " + std::to_string(op.count) + " elements: not 1, " +
               std::to_string(total) + " or a divisor of it";
      return false;
    }
    if (IsBroadcastPeriod(op.count, total)) {
      if (period != 0 && period != op.count) {
        *error = std::string(op.name) + " repeats every " + std::to_string(op.count) +
                 " elements, another operand every " + std::to_string(period) + ": the kernel reads one period";
        return false;
      }
      period = op.count;
    }
  }

  // The largest tile whose buffers fit the UB (A2GradUbBytes is affine in the tile at granule
  // multiples, where every buffer is a whole number of 32-byte blocks).
  const uint64_t budget = platform.ub_size > kA2UbReserveBytes ? platform.ub_size - kA2UbReserveBytes : 0;
  const uint64_t fixed = A2GradUbBytes(problem, 0);
  const uint64_t per_granule = A2GradUbBytes(problem, kA2TileGranule) - fixed;
  const uint64_t tile_cap = budget > fixed ? (budget - fixed) / per_granule * kA2TileGranule : 0;
  if (tile_cap == 0) {
    *error = "a UB of " + std::to_string(platform.ub_size) + " bytes holds no tile";
    return false;
  }

  // Cores: one per min_bytes_per_core of traffic (reads and writes of the full-size tensors),
  // at most the platform's. Big cores get a whole number of 32-byte blocks, the last core the
  // rest (Note [Big and small cores of the AscendC kernel]).
  const uint64_t block_elems = kBlockBytes / problem.dtype_bytes;
  uint64_t full_tensors = problem.of_target ? 2 : 3;  // predict, [target,] gradient
  for (const auto& op : operands) full_tensors += op.count == total ? 1 : 0;
  const uint64_t traffic = total * problem.dtype_bytes * full_tensors;
  const uint64_t min_bytes = std::max<uint64_t>(platform.min_bytes_per_core, 1);
  const uint64_t wanted = std::clamp<uint64_t>(traffic / min_bytes, 1, std::max<uint64_t>(platform.core_num, 1));
  const uint64_t big_elems = AlignUp(CeilDiv(total, wanted), block_elems);
  const uint64_t cores = CeilDiv(total, big_elems);
  const uint64_t small_elems = total - (cores - 1) * big_elems;
  const uint64_t tile = std::min(tile_cap, big_elems);

  SigmoidCrossEntropyWithLogitsGradV2TilingData& d = tiling->data;
  d = SigmoidCrossEntropyWithLogitsGradV2TilingData{};
  d.bigCoreDataNum = big_elems;
  d.smallCoreDataNum = small_elems;
  d.tileDataNum = tile;
  d.finalBigTileNum = CeilDiv(big_elems, tile);
  d.finalSmallTileNum = CeilDiv(small_elems, tile);
  d.bigTailDataNum = big_elems - (d.finalBigTileNum - 1) * tile;
  d.smallTailDataNum = small_elems - (d.finalSmallTileNum - 1) * tile;
  d.tailBlockNum = cores - 1;
  d.globalScale = problem.scale;
  d.has_weight = problem.weight_count != 0 ? 1 : 0;
  d.has_pos_weight = problem.pos_weight_count != 0 ? 1 : 0;
  d.fp32_lite_mode = problem.dtype_bytes == sizeof(float) ? 1 : 0;
  d.doutDataNum = problem.dout_count;
  d.weightDataNum = problem.weight_count;
  d.posWeightDataNum = problem.pos_weight_count;
  tiling->block_dim = static_cast<uint32_t>(cores);
  tiling->ub_bytes = A2GradUbBytes(problem, tile);
  return true;
}

}  // namespace aclnn_cpu::bce_grad::a2
