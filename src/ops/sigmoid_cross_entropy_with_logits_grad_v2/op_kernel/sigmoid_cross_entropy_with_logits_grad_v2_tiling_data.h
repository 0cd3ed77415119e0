// TilingData of SigmoidCrossEntropyWithLogitsGradV2: what the host tiling hands the kernel.
// The fields of the NPU original, plus totalDataNum and blockDim so that the kernel can clip the
// last block to the real element count, plus the fp64 scale.
#pragma once

#include <cstdint>

namespace aclnn_cpu::bce_grad {

struct SigmoidCrossEntropyWithLogitsGradV2TilingData {
  uint64_t totalDataNum = 0;       ///< elements of predict (numel)
  uint64_t blockDim = 0;           ///< blocks ("cores") the work is split into
  uint64_t smallCoreDataNum = 0;   ///< elements of a small block (b >= tailBlockNum)
  uint64_t bigCoreDataNum = 0;     ///< elements of a big block (b < tailBlockNum): one unit more
  uint64_t finalBigTileNum = 0;    ///< tiles of a big block
  uint64_t finalSmallTileNum = 0;  ///< tiles of a small block
  uint64_t tileDataNum = 0;        ///< elements of a full tile
  uint64_t smallTailDataNum = 0;   ///< elements of a small block's last tile
  uint64_t bigTailDataNum = 0;     ///< elements of a big block's last tile
  uint64_t tailBlockNum = 0;       ///< how many blocks are big
  float globalScale = 1.0f;        ///< 1/N for reduction mean, else 1
  double globalScaleDouble = 1.0;  ///< the same for fp64 compute (1/N rounded once to double,
                                   ///< which globalScale's float cannot give back)
  /// The seed's flags of the optional inputs. The kernel variant is chosen by the tiling key,
  /// which encodes the same two facts (as on the NPU), so the kernel never reads these.
  uint32_t has_weight = 0;
  uint32_t has_pos_weight = 0;
  /// Write the output with non-temporal (streaming) stores: the problem is larger than the
  /// last-level cache, so the output lines would only evict inputs (and cost a read for ownership).
  uint32_t nonTemporalOut = 0;
};

/// Element range [begin, end) of one tile; the last block's end is clipped to totalDataNum (the
/// tiling counts whole alignment units, so the last unit may extend past the data).
struct TileRange {
  uint64_t begin = 0;
  uint64_t end = 0;
};

/// First element of block @p block.
inline uint64_t BlockBegin(const SigmoidCrossEntropyWithLogitsGradV2TilingData& t, uint64_t block) {
  return block < t.tailBlockNum ? block * t.bigCoreDataNum
                                : t.tailBlockNum * t.bigCoreDataNum + (block - t.tailBlockNum) * t.smallCoreDataNum;
}

/// Number of tiles of block @p block.
inline uint64_t BlockTileNum(const SigmoidCrossEntropyWithLogitsGradV2TilingData& t, uint64_t block) {
  return block < t.tailBlockNum ? t.finalBigTileNum : t.finalSmallTileNum;
}

/// Tile @p tile of block @p block, clipped to the data (empty when it lies wholly past it).
inline TileRange BlockTile(const SigmoidCrossEntropyWithLogitsGradV2TilingData& t, uint64_t block,
                           uint64_t tile) {
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

}  // namespace aclnn_cpu::bce_grad
