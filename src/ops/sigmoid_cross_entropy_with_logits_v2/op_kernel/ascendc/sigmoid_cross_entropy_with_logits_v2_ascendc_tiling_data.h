// TilingData of the AscendC kernel of SigmoidCrossEntropyWithLogitsV2 (the loss, Atlas A2): the
// field names of the NPU original's struct, plus what broadcasting and the reductions need.
// Plain C++ (no AscendC header): the A2 tiling (op_host/a2) fills it, the kernel reads it.
#ifndef ACLNN_BCE_LOSS_ASCENDC_TILING_DATA_H
#define ACLNN_BCE_LOSS_ASCENDC_TILING_DATA_H

#include <cstdint>

/// dtype_enum: the NPU original's tiling keys.
#define TILING_KEY_HALF 0
#define TILING_KEY_FLOAT 1
#define TILING_KEY_BFLOAT16 2

/// reduction: ACLNN's encoding (0 none, 1 mean, 2 sum).
#define BCE_LOSS_REDUCTION_NONE 0
#define BCE_LOSS_REDUCTION_MEAN 1
#define BCE_LOSS_REDUCTION_SUM 2

// Note [Cores and tiles of the loss kernel]
// As in the NPU original, every core owns tileNum * tileLength consecutive elements, core b from
// b * tileNum * tileLength, and the last core the rest (1 .. tileNum * tileLength elements): the
// launch has ceil(totalLength / (tileNum * tileLength)) cores, every core but the last is "big"
// (tileNum whole tiles), the last one "small" (its last tile may be ragged). tileLength is a
// multiple of 64 elements (256 bytes of fp32, so that every core and tile starts 32-byte aligned
// in GM and whole tiles move with DataCopy) and, for mean and sum, of the reduction's chunk
// (Note [Deterministic sum across cores]). Only the small core's last tile may be ragged; it
// moves through DataCopyPad with its exact byte count, so no core reads or writes past a
// tensor's end (the original lets the last core read up to 31 bytes past it).

// Note [Loss operands read through a period]
// weight and pos_weight may broadcast to self (aclnn checks it). weightDataNum and
// posWeightDataNum give each one's element count P (0: absent); element i reads the operand's
// element i % P: P = totalLength is the same shape, P = 1 a 0-dim or [1] tensor (read once per
// core), 1 < P < totalLength the last dims of self ([C] over [N, C]). Read in place, never
// materialised, never past its P elements (the backward's machinery, see its TilingData header's
// Note [Operands read through a period]); both operands with 1 < P < totalLength share one P.
struct SigmoidCrossEntropyWithLogitsV2TilingData {
  uint32_t totalLength;   ///< elements of predict (= target; = loss for reduction none)
  uint32_t tileNum;       ///< tiles of every core but the last
  uint32_t tileLength;    ///< elements of a whole tile (Note [Cores and tiles of the loss kernel])
  uint8_t has_weight;     ///< weight present (the kernel variant's template argument)
  uint8_t has_pos_weight; ///< pos_weight present (the same)
  uint32_t dtype_enum;    ///< TILING_KEY_HALF, TILING_KEY_FLOAT or TILING_KEY_BFLOAT16
  // Extension: broadcasting (Note [Loss operands read through a period]).
  uint32_t weightDataNum;     ///< elements of weight: 0 (absent), 1, the shared period, or totalLength
  uint32_t posWeightDataNum;  ///< elements of pos_weight: the same
  // Extension: the reductions (Note [Deterministic sum across cores]).
  uint32_t reduction;     ///< BCE_LOSS_REDUCTION_NONE, _MEAN or _SUM
  float globalScale;      ///< 1/totalLength (rounded to fp32) for mean, else 1: scales the sum
};

#endif  // ACLNN_BCE_LOSS_ASCENDC_TILING_DATA_H
