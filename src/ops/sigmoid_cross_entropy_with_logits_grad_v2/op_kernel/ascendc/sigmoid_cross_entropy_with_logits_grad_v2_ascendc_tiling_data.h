// TilingData of the AscendC kernel of SigmoidCrossEntropyWithLogitsGradV2 (Atlas A2): the field
// names of the NPU original's struct, plus the element counts of the operands that may broadcast.
// Plain C++ (no AscendC header): the A2 tiling (op_host/a2) fills it, the kernel reads it.
#ifndef ACLNN_BCE_GRAD_ASCENDC_TILING_DATA_H
#define ACLNN_BCE_GRAD_ASCENDC_TILING_DATA_H

#include <cstdint>

// Note [Big and small cores of the AscendC kernel]
// The first tailBlockNum cores are big: bigCoreDataNum elements each, a multiple of 32 bytes, so
// that every core starts on a 32-byte boundary of GM and every whole tile moves with DataCopy.
// The one core after them is small: smallCoreDataNum elements (1 .. bigCoreDataNum), the rest of
// the tensor, so that no core reads or writes past its end; only its last tile may be ragged, and
// that tile moves through DataCopyPad. The launch has tailBlockNum + 1 cores, and
//   total = tailBlockNum * bigCoreDataNum + smallCoreDataNum.
// (The NPU original rounds the total up to 32 bytes and lets the last core read past the end,
// within the 32 bytes aclrtMalloc adds; this split never does.) A core's tiles are tileDataNum
// elements, the last one finalXTailNum: bigTailDataNum or smallTailDataNum, in 1 .. tileDataNum.

// dout, weight and pos_weight are read through a period: the extension fields give the element
// count P of each (0: absent), and output element i reads the operand's element i % P. See Note
// [Operands read through a period] in src/ops/ascendc_common/bce_periodic_operand_ascendc.h.
struct SigmoidCrossEntropyWithLogitsGradV2TilingData {
  uint64_t smallCoreDataNum;   ///< elements of the small (last) core
  uint64_t bigCoreDataNum;     ///< elements of each big core, a multiple of 32 bytes
  uint64_t finalBigTileNum;    ///< tiles of a big core
  uint64_t finalSmallTileNum;  ///< tiles of the small core
  uint64_t tileDataNum;        ///< elements of a whole tile, a multiple of 32 bytes
  uint64_t smallTailDataNum;   ///< elements of the small core's last tile
  uint64_t bigTailDataNum;     ///< elements of a big core's last tile
  uint64_t tailBlockNum;       ///< big cores (the first ones); the launch has one core more
  float globalScale;           ///< 1/N for reduction mean, else 1
  uint32_t has_weight;         ///< weight present (the kernel variant's template argument)
  uint32_t has_pos_weight;     ///< pos_weight present (the same)
  uint32_t fp32_lite_mode;     ///< 1 for fp32 data: computes on the input tiles, no fp32 copies
  // Extension (Note [Operands read through a period]).
  uint64_t doutDataNum;        ///< elements of dout: 1, the shared period, or total
  uint64_t weightDataNum;      ///< elements of weight: 0 (absent), 1, the shared period, or total
  uint64_t posWeightDataNum;   ///< elements of pos_weight: the same
};

#endif  // ACLNN_BCE_GRAD_ASCENDC_TILING_DATA_H
