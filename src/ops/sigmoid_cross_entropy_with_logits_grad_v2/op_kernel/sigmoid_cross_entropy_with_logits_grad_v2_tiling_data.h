// TilingData of SigmoidCrossEntropyWithLogitsGradV2: what the host tiling hands the kernel.
// The shared elementwise split (the NPU original's fields plus totalDataNum and blockDim, so that
// the kernel can clip the last block to the real element count), plus this operator's scale.
#pragma once

#include <cstdint>

#include "opdev/elementwise_tiling.h"

namespace aclnn_cpu::bce_grad {

struct SigmoidCrossEntropyWithLogitsGradV2TilingData : ElementwiseTilingData {
  float globalScale = 1.0f;        ///< 1/N for reduction mean, else 1
  double globalScaleDouble = 1.0;  ///< the same for fp64 compute (1/N rounded once to double,
                                   ///< which globalScale's float cannot give back)
  /// The seed's flags of the optional inputs. The kernel variant is chosen by the tiling key,
  /// which encodes the same two facts (as on the NPU), so the kernel never reads these.
  uint32_t has_weight = 0;
  uint32_t has_pos_weight = 0;
};

// The block and tile arithmetic is the shared elementwise tiling's.
using ::aclnn_cpu::BlockBegin;
using ::aclnn_cpu::BlockTile;
using ::aclnn_cpu::BlockTileNum;
using ::aclnn_cpu::TileRange;

}  // namespace aclnn_cpu::bce_grad
