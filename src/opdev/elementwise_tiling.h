// The tiling every elementwise operator shares: a pure function of (platform, problem) that
// splits a linear element range into blocks ("cores") and tiles. An operator's TilingData derives
// from ElementwiseTilingData and adds its own fields (as mainline ops-nn embeds its elementwise
// base tiling), and its tiling wraps ComputeElementwiseTiling.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "opdev/kernel_dtype.h"
#include "platform/platform_info.h"

namespace aclnn_cpu {

/// The split of an elementwise launch, with the NPU original's field names.
struct ElementwiseTilingData {
  uint64_t totalDataNum = 0;       ///< elements of the iteration space
  uint64_t blockDim = 0;           ///< blocks ("cores") the work is split into
  uint64_t smallCoreDataNum = 0;   ///< elements of a small block (b >= tailBlockNum)
  uint64_t bigCoreDataNum = 0;     ///< elements of a big block (b < tailBlockNum): one unit more
  uint64_t finalBigTileNum = 0;    ///< tiles of a big block
  uint64_t finalSmallTileNum = 0;  ///< tiles of a small block
  uint64_t tileDataNum = 0;        ///< elements of a full tile
  uint64_t smallTailDataNum = 0;   ///< elements of a small block's last tile
  uint64_t bigTailDataNum = 0;     ///< elements of a big block's last tile
  uint64_t tailBlockNum = 0;       ///< how many blocks are big
  /// Write the outputs with non-temporal (streaming) stores: the problem is larger than the
  /// last-level cache, so the output lines would only evict inputs (and cost a read for ownership).
  uint32_t nonTemporalOut = 0;
};

/// What the elementwise tiling is asked to split.
struct ElementwiseTilingProblem {
  uint64_t total_elems = 0;  ///< elements of the iteration space, > 0
  KernelDType kernel_dtype = KernelDType::kFloat;
  /// Bytes of global memory the operator moves per element (inputs read plus outputs written;
  /// a broadcast operand counts by what it really reads). Drives the core count.
  uint64_t bytes_per_element = 0;
  /// Bytes of fast memory one element of a tile occupies (its operand buffers and compute
  /// buffers). Drives the tile size.
  uint64_t ub_bytes_per_element = 0;
};

/// How one present operand (input or output) loads memory, for the cost model.
struct OperandTraffic {
  uint64_t dtype_bytes = 0;       ///< its element size in global memory
  bool broadcast_scalar = false;  ///< one value for all elements: no per-element traffic
};

/// The problem of a call with these operands: each non-scalar operand moves its dtype's bytes per
/// element, and each occupies one kernel-dtype slot of a tile.
ElementwiseTilingProblem MakeElementwiseProblem(uint64_t total_elems, KernelDType kernel_dtype,
                                                std::span<const OperandTraffic> operands);

struct ElementwiseTilingResult {
  ElementwiseTilingData data;
  /// Run on the launching thread when its stream is idle (see PlatformInfo::inline_launch_max_bytes).
  bool run_inline_if_idle = false;
};

/// Whether one alignment unit of @p platform (block_size bytes of @p kernel_dtype, at least one
/// element) fits a tile at @p ub_bytes_per_element (> 0): what ComputeElementwiseTiling requires.
bool UnitFitsTile(const PlatformInfo& platform, KernelDType kernel_dtype, uint64_t ub_bytes_per_element);

/// Splits the problem into blocks and tiles (see Note [Tiling cost model]); nullopt when the
/// problem or platform is malformed (no elements, zero sizes, not one alignment unit fits).
std::optional<ElementwiseTilingResult> ComputeElementwiseTiling(const PlatformInfo& platform,
                                                                const ElementwiseTilingProblem& problem);

/// Element range [begin, end) of one tile; the last block's end is clipped to totalDataNum (the
/// tiling counts whole alignment units, so the last unit may extend past the data).
struct TileRange {
  uint64_t begin = 0;
  uint64_t end = 0;
};

/// First element of block @p block.
inline uint64_t BlockBegin(const ElementwiseTilingData& t, uint64_t block) {
  return block < t.tailBlockNum ? block * t.bigCoreDataNum
                                : t.tailBlockNum * t.bigCoreDataNum + (block - t.tailBlockNum) * t.smallCoreDataNum;
}

/// Number of tiles of block @p block.
inline uint64_t BlockTileNum(const ElementwiseTilingData& t, uint64_t block) {
  return block < t.tailBlockNum ? t.finalBigTileNum : t.finalSmallTileNum;
}

/// Tile @p tile of block @p block, clipped to the data (empty when it lies wholly past it).
inline TileRange BlockTile(const ElementwiseTilingData& t, uint64_t block, uint64_t tile) {
  const bool big = block < t.tailBlockNum;
  const uint64_t tiles = big ? t.finalBigTileNum : t.finalSmallTileNum;
  const uint64_t tail = big ? t.bigTailDataNum : t.smallTailDataNum;
  TileRange r;
  r.begin = BlockBegin(t, block) + tile * t.tileDataNum;
  r.end = r.begin + (tile + 1 == tiles ? tail : t.tileDataNum);
  if (r.end > t.totalDataNum) r.end = t.totalDataNum;
  if (r.begin > r.end) r.begin = r.end;
  return r;
}

}  // namespace aclnn_cpu
