#include "op_host/a2/sigmoid_cross_entropy_with_logits_v2_a2_tiling.h"

#include <algorithm>
#include <limits>

#include "common/alignment.h"

namespace aclnn_cpu::bce_loss::a2 {
namespace {

// The kernel's constants (sigmoid_cross_entropy_with_logits_v2_ascendc.h), restated: this file
// includes no AscendC header. Every alignment unit here is a power of two (AlignUp's contract).
constexpr uint64_t kBufferNum = 2;    // BUFFER_NUM
constexpr uint64_t kBlockBytes = 32;  // BLOCK_BYTES

uint64_t CeilDiv(uint64_t value, uint64_t unit) { return (value + unit - 1) / unit; }

uint64_t DTypeBytes(A2LossDType dtype) { return dtype == A2LossDType::kFloat ? 4 : 2; }
bool IsKnownDType(A2LossDType dtype) {
  return dtype == A2LossDType::kFloat || dtype == A2LossDType::kHalf || dtype == A2LossDType::kBFloat16;
}
bool IsReducing(uint32_t reduction) { return reduction != BCE_LOSS_REDUCTION_NONE; }

/// Whether @p count is an operand's element count the kernel reads through a pattern.
bool IsBroadcastPeriod(uint64_t count, uint64_t total) { return count > 1 && count < total; }

/// Whether some operand's tiles may wrap around its period (the kernel then builds its pattern).
bool NeedsGather(const A2LossProblem& p) {
  return IsBroadcastPeriod(p.weight_count, p.total) || IsBroadcastPeriod(p.pos_weight_count, p.total);
}

}  // namespace

uint64_t A2LossUbBytes(const A2LossProblem& problem, uint64_t tile_elems) {
  const uint64_t dtype_bytes = DTypeBytes(problem.dtype);
  const uint64_t tile_bytes = AlignUp(tile_elems * dtype_bytes, kBlockBytes);
  const uint64_t float_bytes = AlignUp(tile_elems * sizeof(float), kBlockBytes);
  const bool is_float = problem.dtype == A2LossDType::kFloat;
  uint64_t bytes = 2 * kBufferNum * tile_bytes;                                    // predict, target queues
  bytes += kBufferNum * (IsReducing(problem.reduction) ? float_bytes : tile_bytes);  // the loss queue
  bytes += 4 * float_bytes;                    // softplus(x), softplus(-x), tail, scratch
  if (!is_float) bytes += 2 * float_bytes;     // x and y widened
  for (uint64_t count : {problem.weight_count, problem.pos_weight_count}) {
    if (count == 0) continue;
    bytes += kBufferNum * AlignUp(tile_elems * dtype_bytes + kBlockBytes, kBlockBytes) + float_bytes;
  }
  if (NeedsGather(problem)) {
    bytes += 4 * float_bytes;            // pattern, index, flag, offsets
    if (!is_float) bytes += tile_bytes;  // the gathered tile before widening
  }
  return bytes;
}

uint64_t A2LossWorkspaceBytes(uint64_t total, uint32_t reduction) {
  if (!IsReducing(reduction) || total == 0) return 0;
  uint64_t floats = 0;
  uint64_t level = CeilDiv(total, kA2LossReduceChunkElems) * kA2LossPartialElems;
  floats += level;
  while (level > kA2LossPartialElems) {
    level = CeilDiv(level, kA2LossReduceChunkElems) * kA2LossPartialElems;
    floats += level;
  }
  return floats * sizeof(float);
}

bool TileLossForAtlasA2(const PlatformInfo& platform, const A2LossProblem& problem, A2LossTiling* tiling,
                        std::string* error) {
  const uint64_t total = problem.total;
  if (total == 0) {
    *error = "no elements: nothing to launch";
    return false;
  }
  if (total > std::numeric_limits<uint32_t>::max()) {
    *error = std::to_string(total) + " elements: totalLength is 32-bit";
    return false;
  }
  if (!IsKnownDType(problem.dtype)) {
    *error = "dtype_enum " + std::to_string(static_cast<uint32_t>(problem.dtype)) + ": the kernel takes fp16, fp32, bf16";
    return false;
  }
  if (problem.reduction > BCE_LOSS_REDUCTION_SUM) {
    *error = "reduction " + std::to_string(problem.reduction) + ": not 0 (none), 1 (mean) or 2 (sum)";
    return false;
  }
  uint64_t period = 0;
  const struct {
    const char* name;
    uint64_t count;
  } operands[] = {{"weight", problem.weight_count}, {"pos_weight", problem.pos_weight_count}};
  for (const auto& op : operands) {
    if (op.count == 0) continue;
    if (op.count > total || total % op.count != 0) {
      *error = std::string(op.name) + " has " + std::to_string(op.count) + " elements: not 1, " +
               std::to_string(total) + " or a divisor of it";
      return false;
    }
    if (IsBroadcastPeriod(op.count, total)) {
      if (period != 0 && period != op.count) {
        *error = std::string(op.name) + " repeats every " + std::to_string(op.count) +
                 " elements, the other operand every " + std::to_string(period) + ": the kernel reads one period";
        return false;
      }
      period = op.count;
    }
  }

  // The largest tile of whole units whose buffers fit the UB (A2LossUbBytes is affine in the tile
  // at granule multiples, where every buffer is a whole number of 32-byte blocks).
  const uint64_t unit = IsReducing(problem.reduction) ? kA2LossReduceChunkElems : kA2LossTileGranule;
  const uint64_t budget = platform.ub_size > kA2LossUbReserveBytes ? platform.ub_size - kA2LossUbReserveBytes : 0;
  const uint64_t fixed = A2LossUbBytes(problem, 0);
  const uint64_t per_unit = A2LossUbBytes(problem, unit) - fixed;
  const uint64_t tile_cap = budget > fixed ? (budget - fixed) / per_unit * unit : 0;
  if (tile_cap == 0) {
    *error = "a UB of " + std::to_string(platform.ub_size) + " bytes holds no tile";
    return false;
  }

  // Cores: one per min_bytes_per_core of traffic (reads and writes of the full-size tensors), at
  // most the platform's; each gets a whole number of tiles (Note [Cores and tiles of the loss
  // kernel]), the last one the rest.
  const uint64_t dtype_bytes = DTypeBytes(problem.dtype);
  uint64_t full_tensors = IsReducing(problem.reduction) ? 2 : 3;  // predict, target [, loss]
  for (const auto& op : operands) full_tensors += op.count == total ? 1 : 0;
  const uint64_t traffic = total * dtype_bytes * full_tensors;
  const uint64_t min_bytes = std::max<uint64_t>(platform.min_bytes_per_core, 1);
  const uint64_t wanted = std::clamp<uint64_t>(traffic / min_bytes, 1, std::max<uint64_t>(platform.core_num, 1));
  // The fewest tiles that hold a core's share, then the smallest tile of whole units for them:
  // the cores' capacity exceeds their share by less than one unit per tile.
  const uint64_t per_core = CeilDiv(total, wanted);
  const uint64_t tiles_per_core = CeilDiv(per_core, tile_cap);
  const uint64_t tile = AlignUp(CeilDiv(per_core, tiles_per_core), unit);
  const uint64_t cores = CeilDiv(total, tiles_per_core * tile);

  SigmoidCrossEntropyWithLogitsV2TilingData& d = tiling->data;
  d = SigmoidCrossEntropyWithLogitsV2TilingData{};
  d.totalLength = static_cast<uint32_t>(total);
  d.tileNum = static_cast<uint32_t>(tiles_per_core);
  d.tileLength = static_cast<uint32_t>(tile);
  d.has_weight = problem.weight_count != 0 ? 1 : 0;
  d.has_pos_weight = problem.pos_weight_count != 0 ? 1 : 0;
  d.dtype_enum = static_cast<uint32_t>(problem.dtype);
  d.weightDataNum = static_cast<uint32_t>(problem.weight_count);
  d.posWeightDataNum = static_cast<uint32_t>(problem.pos_weight_count);
  d.reduction = problem.reduction;
  // 1/N rounded once (a float N would round first above 2^24).
  d.globalScale =
      problem.reduction == BCE_LOSS_REDUCTION_MEAN ? static_cast<float>(1.0 / static_cast<double>(total)) : 1.0f;
  tiling->block_dim = static_cast<uint32_t>(cores);
  tiling->ub_bytes = A2LossUbBytes(problem, tile);
  tiling->workspace_bytes = A2LossWorkspaceBytes(total, problem.reduction);
  return true;
}

}  // namespace aclnn_cpu::bce_loss::a2
