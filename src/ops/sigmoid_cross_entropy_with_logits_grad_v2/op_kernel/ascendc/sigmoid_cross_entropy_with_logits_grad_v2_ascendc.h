// The AscendC kernel of SigmoidCrossEntropyWithLogitsGradV2 for Atlas A2 (AI vector cores):
//   gradient = ((t * dout) [* weight]) * globalScale,  t = ((1 - y) * P - lw * Q) / (P + Q)
// with P = exp(min(x, 0)), Q = exp(-max(x, 0)) (one of them 1, the other e = exp(-|x|)) and
// lw = pos_weight * y (y without pos_weight): the library's cancellation-free form (the CPU
// kernel's GradientVectorN, sigmoid_cross_entropy_with_logits_grad_v2_vector-inl.h), not the
// NPU original's p - y. See docs/npu_kernels.md.
//
// Structure of the NPU original: KernelSigmoidCrossEntropyWithLogitsGradV2<T, HAS_WEIGHT,
// HAS_POS_WEIGHT> with Init/Process, CopyIn -> Compute -> CopyOut per tile through TQues, big and
// small cores from GetBlockIdx() (Note [Big and small cores of the AscendC kernel]); operands that
// broadcast are read through their period (Note [Operands read through a period]). fp16 and bf16
// are computed in fp32 and rounded once at the end (CAST_RINT). Only APIs Atlas A2 has.
#ifndef ACLNN_BCE_GRAD_ASCENDC_KERNEL_H
#define ACLNN_BCE_GRAD_ASCENDC_KERNEL_H

#include <cstdint>
#include <type_traits>

#include "kernel_operator.h"
#include "sigmoid_cross_entropy_with_logits_grad_v2_ascendc_tiling_data.h"

namespace bce_grad_ascendc {

using namespace AscendC;

/// Queue depth of the input and output tiles: double buffering, so that the copies of the next
/// tile can overlap the computation of this one on the NPU.
constexpr int32_t BUFFER_NUM = 2;
/// The DMA and vector operand granule of Atlas A2.
constexpr uint32_t BLOCK_BYTES = 32;

// Note [Sign split without a select]
// t's two forms (x >= 0: (1 - y) - lw e; x < 0: (1 - y) e - lw, both over 1 + e) are one
// expression with P = exp(min(x, 0)) and Q = exp(-max(x, 0)): for x >= 0, P = exp(0) = 1 exactly
// and Q = exp(-x) = e; for x < 0, P = exp(x) = e and Q = 1. Both exponents are -|x| or 0, so e
// is the same value the single exp(-|x|) gives, and P + Q = 1 + e. Two Exp instructions instead
// of a Compare and two Selects per operand; the product by 1 is exact.

template <typename T, bool HAS_WEIGHT, bool HAS_POS_WEIGHT>
class KernelSigmoidCrossEntropyWithLogitsGradV2 {
    static constexpr bool IS_FLOAT = std::is_same<T, float>::value;
    static constexpr uint32_t BLOCK_ELEMS = BLOCK_BYTES / sizeof(T);
    static constexpr uint32_t OPERANDS = 3;  // dout, weight, pos_weight
    static constexpr uint32_t DOUT = 0, WEIGHT = 1, POS_WEIGHT = 2;

    /// One of dout, weight, pos_weight: read through its period (Note [Operands read through a period]).
    struct Operand {
        bool present = false;
        bool scalar = false;     ///< period 1: one value for the whole core
        float scalarValue = 0;   ///< that value in fp32
        uint64_t period = 0;
        GlobalTensor<T> gm;
        TQue<QuePosition::VECIN, BUFFER_NUM> que;
        // How the tile in the queue maps to the tile's elements (set by CopyIn for Compute).
        bool gathered = false;   ///< the tile's elements are gathered from the queue's tensor
        float gatherShift = 0;   ///< index = pattern + shift, then + step where index >= threshold
        float gatherStep = 0;
        float gatherThreshold = 0;
    };

public:
    __aicore__ inline KernelSigmoidCrossEntropyWithLogitsGradV2() {}

    __aicore__ inline void Init(GM_ADDR predict, GM_ADDR target, GM_ADDR dout, GM_ADDR weight, GM_ADDR pos_weight,
                                GM_ADDR gradient, const SigmoidCrossEntropyWithLogitsGradV2TilingData& tiling)
    {
        const uint64_t block = static_cast<uint64_t>(GetBlockIdx());
        const bool big = block < tiling.tailBlockNum;
        coreDataNum_ = big ? tiling.bigCoreDataNum : tiling.smallCoreDataNum;
        tileNum_ = big ? tiling.finalBigTileNum : tiling.finalSmallTileNum;
        tailDataNum_ = big ? tiling.bigTailDataNum : tiling.smallTailDataNum;
        tileDataNum_ = tiling.tileDataNum;
        scale_ = tiling.globalScale;
        coreStart_ = block * tiling.bigCoreDataNum;  // the big cores come first
        const uint64_t coreEnd = coreStart_ + coreDataNum_;

        predictGm_.SetGlobalBuffer((__gm__ T*)predict + coreStart_, coreDataNum_);
        targetGm_.SetGlobalBuffer((__gm__ T*)target + coreStart_, coreDataNum_);
        gradientGm_.SetGlobalBuffer((__gm__ T*)gradient + coreStart_, coreDataNum_);
        const uint32_t tileBytes = static_cast<uint32_t>(tileDataNum_ * sizeof(T));
        const uint32_t floatBytes = static_cast<uint32_t>(tileDataNum_ * sizeof(float));
        pipe_.InitBuffer(predictQue_, BUFFER_NUM, tileBytes);
        pipe_.InitBuffer(targetQue_, BUFFER_NUM, tileBytes);
        pipe_.InitBuffer(gradientQue_, BUFFER_NUM, tileBytes);
        pipe_.InitBuffer(expMinBuf_, floatBytes);
        pipe_.InitBuffer(expMaxBuf_, floatBytes);
        pipe_.InitBuffer(denominatorBuf_, floatBytes);
        if constexpr (!IS_FLOAT) {
            pipe_.InitBuffer(predictFloatBuf_, floatBytes);
            pipe_.InitBuffer(targetFloatBuf_, floatBytes);
        }

        const GM_ADDR operandAddr[OPERANDS] = {dout, weight, pos_weight};
        const uint64_t operandNum[OPERANDS] = {tiling.doutDataNum, HAS_WEIGHT ? tiling.weightDataNum : 0,
                                               HAS_POS_WEIGHT ? tiling.posWeightDataNum : 0};
        uint64_t pattern = 0;  // the shared period of the operands whose tiles may wrap on this core
        for (uint32_t k = 0; k < OPERANDS; ++k) {
            Operand& op = operands_[k];
            op.present = operandNum[k] != 0;
            if (!op.present) {
                continue;
            }
            op.period = operandNum[k];
            op.scalar = op.period == 1;
            op.gm.SetGlobalBuffer((__gm__ T*)operandAddr[k], op.period);
            // A tile of a periodic operand holds up to one 32-byte block more than a tile (two
            // pieces of the period, the second one starting on a block boundary).
            pipe_.InitBuffer(op.que, BUFFER_NUM, tileBytes + BLOCK_BYTES);
            pipe_.InitBuffer(operandFloatBuf_[k], floatBytes);
            if (!op.scalar && op.period < coreEnd) {
                pattern = op.period;
            }
        }
        if (pattern != 0) {
            pipe_.InitBuffer(patternBuf_, floatBytes);
            pipe_.InitBuffer(indexBuf_, floatBytes);
            pipe_.InitBuffer(flagBuf_, floatBytes);
            pipe_.InitBuffer(offsetBuf_, floatBytes);
            if constexpr (!IS_FLOAT) {
                pipe_.InitBuffer(gatheredBuf_, tileBytes);
            }
            BuildPattern(pattern);
        }
        for (uint32_t k = 0; k < OPERANDS; ++k) {
            if (operands_[k].present && operands_[k].scalar) {
                operands_[k].scalarValue = LoadScalar(operands_[k]);
            }
        }
    }

    __aicore__ inline void Process()
    {
        for (uint64_t tile = 0; tile < tileNum_; ++tile) {
            const uint32_t count = static_cast<uint32_t>(tile + 1 == tileNum_ ? tailDataNum_ : tileDataNum_);
            CopyIn(tile, count);
            Compute(count);
            CopyOut(tile, count);
        }
    }

private:
    /// pattern[j] = j % period for j < tileDataNum (integers, exact in fp32): the index of a
    /// tile's element j in the period when the tile starts at index 0 of it.
    __aicore__ inline void BuildPattern(uint64_t period)
    {
        LocalTensor<float> pattern = patternBuf_.Get<float>();
        if (period >= tileDataNum_) {
            CreateVecIndex(pattern, 0.0f, static_cast<uint32_t>(tileDataNum_));
            return;
        }
        uint64_t index = 0;
        for (uint64_t j = 0; j < tileDataNum_; ++j) {  // once per core, on the scalar unit
            pattern.SetValue(j, static_cast<float>(index));
            index = index + 1 == period ? 0 : index + 1;
        }
        OrderPipes<HardEvent::S_V>();  // the vector instructions read what the scalar unit wrote
    }

    /// Makes the second pipe of EVENT wait for what the first has issued so far.
    template <HardEvent EVENT>
    __aicore__ inline void OrderPipes()
    {
        const int32_t eventId = static_cast<int32_t>(pipe_.FetchEventID(EVENT));
        SetFlag<EVENT>(eventId);
        WaitFlag<EVENT>(eventId);
    }

    /// The one value of a period-1 operand, in fp32.
    __aicore__ inline float LoadScalar(Operand& op)
    {
        LocalTensor<T> local = op.que.template AllocTensor<T>();
        CopyGmToUb(local, op.gm, 0, 1);
        op.que.EnQue(local);
        local = op.que.template DeQue<T>();
        float value;
        if constexpr (IS_FLOAT) {
            OrderPipes<HardEvent::MTE2_S>();  // DeQue orders the copy for the vector unit only
            value = local.GetValue(0);
        } else {
            LocalTensor<float> widened = expMinBuf_.Get<float>();
            Cast(widened, local, RoundMode::CAST_NONE, 1);
            OrderPipes<HardEvent::V_S>();
            value = widened.GetValue(0);
        }
        op.que.FreeTensor(local);
        return value;
    }

    /// count elements from gm[offset] to the start of local: whole 32-byte blocks with DataCopy,
    /// a ragged count with DataCopyPad (which reads exactly count elements of GM).
    __aicore__ inline void CopyGmToUb(const LocalTensor<T>& local, const GlobalTensor<T>& gm, uint64_t offset,
                                      uint32_t count)
    {
        if (count % BLOCK_ELEMS == 0) {
            DataCopy(local, gm[offset], count);
        } else {
            DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> pad{false, 0, 0, 0};
            DataCopyPad(local, gm[offset], params, pad);
        }
    }

    __aicore__ inline void LoadTile(TQue<QuePosition::VECIN, BUFFER_NUM>& que, const GlobalTensor<T>& gm, uint64_t offset,
                                    uint32_t count)
    {
        LocalTensor<T> local = que.template AllocTensor<T>();
        CopyGmToUb(local, gm, offset, count);
        que.EnQue(local);
    }

    /// The tile's elements of a periodic operand: index (first + j) % period for j < count.
    /// Without a wrap inside the tile, one contiguous copy; with one, the needed part of the
    /// period is copied and Compute gathers (Note [Operands read through a period]).
    __aicore__ inline void LoadPeriodicTile(Operand& op, uint64_t first, uint32_t count)
    {
        const uint64_t start = first % op.period;
        if (start + count <= op.period) {
            op.gathered = false;
            LoadTile(op.que, op.gm, start, count);
            return;
        }
        op.gathered = true;
        LocalTensor<T> local = op.que.template AllocTensor<T>();
        if (op.period <= tileDataNum_) {
            // The whole period fits: copy it; index = (pattern + start) wrapped once.
            CopyGmToUb(local, op.gm, 0, static_cast<uint32_t>(op.period));
            op.gatherShift = static_cast<float>(start);
            op.gatherStep = -static_cast<float>(op.period);
            op.gatherThreshold = static_cast<float>(op.period);
        } else {
            // A period longer than a tile: the tile wraps once. Its first part, [start, period),
            // goes to the start of the buffer, its second, [0, rest), to the next block boundary.
            const uint32_t head = static_cast<uint32_t>(op.period - start);
            const uint32_t headBlocks = (head + BLOCK_ELEMS - 1) / BLOCK_ELEMS * BLOCK_ELEMS;
            CopyGmToUb(local, op.gm, start, head);
            CopyGmToUb(local[headBlocks], op.gm, 0, count - head);
            op.gatherShift = 0;
            op.gatherStep = static_cast<float>(headBlocks - head);
            op.gatherThreshold = static_cast<float>(head);
        }
        op.que.EnQue(local);
    }

    __aicore__ inline void CopyIn(uint64_t tile, uint32_t count)
    {
        const uint64_t offset = tile * tileDataNum_;
        LoadTile(predictQue_, predictGm_, offset, count);
        LoadTile(targetQue_, targetGm_, offset, count);
        for (uint32_t k = 0; k < OPERANDS; ++k) {
            if (operands_[k].present && !operands_[k].scalar) {
                LoadPeriodicTile(operands_[k], coreStart_ + offset, count);
            }
        }
    }

    /// A tile in fp32: the tile itself for fp32 data, else its widening into buf.
    __aicore__ inline LocalTensor<float> Widen(const LocalTensor<T>& tile, TBuf<QuePosition::VECCALC>& buf,
                                               uint32_t count)
    {
        if constexpr (IS_FLOAT) {
            return tile;
        } else {
            LocalTensor<float> widened = buf.Get<float>();
            Cast(widened, tile, RoundMode::CAST_NONE, count);
            return widened;
        }
    }

    /// Byte offsets into the queue's tensor of a wrapped tile: index = pattern + shift, plus step
    /// where index >= threshold, all integers below 2^24 and so exact in fp32. The step's 0/1
    /// flag is clamp(index - threshold + 1, 0, 1), exact for integers.
    __aicore__ inline LocalTensor<uint32_t> GatherOffsets(const Operand& op, uint32_t count)
    {
        LocalTensor<float> index = indexBuf_.Get<float>();
        LocalTensor<float> flag = flagBuf_.Get<float>();
        Adds(index, patternBuf_.Get<float>(), op.gatherShift, count);
        Adds(flag, index, 1.0f - op.gatherThreshold, count);
        Maxs(flag, flag, 0.0f, count);
        Mins(flag, flag, 1.0f, count);
        Muls(flag, flag, op.gatherStep, count);
        Add(index, index, flag, count);
        Muls(index, index, static_cast<float>(sizeof(T)), count);
        LocalTensor<int32_t> offset = offsetBuf_.Get<int32_t>();
        Cast(offset, index, RoundMode::CAST_RINT, count);
        return offset.ReinterpretCast<uint32_t>();
    }

    /// The operand's tile in fp32 (its queue tensor is freed by the caller through `held`).
    __aicore__ inline LocalTensor<float> OperandTile(Operand& op, uint32_t k, LocalTensor<T>& held, uint32_t count)
    {
        held = op.que.template DeQue<T>();
        if (!op.gathered) {
            return Widen(held, operandFloatBuf_[k], count);
        }
        const LocalTensor<uint32_t> offset = GatherOffsets(op, count);
        LocalTensor<float> widened = operandFloatBuf_[k].template Get<float>();
        if constexpr (IS_FLOAT) {
            Gather(widened, held, offset, 0, count);
        } else {
            // 2-byte elements move as uint16_t: the same bytes, a type every A2 Gather takes.
            LocalTensor<T> gathered = gatheredBuf_.Get<T>();
            LocalTensor<uint16_t> gatheredBits = gathered.template ReinterpretCast<uint16_t>();
            Gather(gatheredBits, held.template ReinterpretCast<uint16_t>(), offset, 0, count);
            Cast(widened, gathered, RoundMode::CAST_NONE, count);
        }
        return widened;
    }

    /// acc *= the operand (its tile or its one value), into dst.
    __aicore__ inline void MultiplyBy(const LocalTensor<float>& dst, const LocalTensor<float>& acc, Operand& op,
                                      uint32_t k, LocalTensor<T>& held, uint32_t count)
    {
        if (op.scalar) {
            Muls(dst, acc, op.scalarValue, count);
        } else {
            Mul(dst, acc, OperandTile(op, k, held, count), count);
        }
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<T> predict = predictQue_.template DeQue<T>();
        LocalTensor<T> target = targetQue_.template DeQue<T>();
        LocalTensor<T> held[OPERANDS];
        const LocalTensor<float> x = Widen(predict, predictFloatBuf_, count);
        const LocalTensor<float> y = Widen(target, targetFloatBuf_, count);
        const LocalTensor<float> expMin = expMinBuf_.Get<float>();
        const LocalTensor<float> expMax = expMaxBuf_.Get<float>();
        const LocalTensor<float> denominator = denominatorBuf_.Get<float>();

        // P = exp(min(x, 0)), Q = exp(-max(x, 0)), P + Q = 1 + e (Note [Sign split without a select]).
        Mins(expMin, x, 0.0f, count);
        Exp(expMin, expMin, count);
        Maxs(expMax, x, 0.0f, count);
        Muls(expMax, expMax, -1.0f, count);
        Exp(expMax, expMax, count);
        Add(denominator, expMin, expMax, count);
        // b = lw * Q, lw = pos_weight * y (y without pos_weight).
        if constexpr (HAS_POS_WEIGHT) {
            Operand& op = operands_[POS_WEIGHT];
            const LocalTensor<float> lw = operandFloatBuf_[POS_WEIGHT].template Get<float>();
            if (op.scalar) {
                Muls(lw, y, op.scalarValue, count);
            } else {
                Mul(lw, OperandTile(op, POS_WEIGHT, held[POS_WEIGHT], count), y, count);
            }
            Mul(expMax, lw, expMax, count);
        } else {
            Mul(expMax, y, expMax, count);
        }
        // a = (1 - y) * P, in place on y; t = (a - b) / (1 + e).
        Muls(y, y, -1.0f, count);
        Adds(y, y, 1.0f, count);
        Mul(y, y, expMin, count);
        Sub(y, y, expMax, count);
        Div(y, y, denominator, count);

        // g = ((t * dout) [* weight]) * scale, in this order; fp32 data end in the output tile.
        LocalTensor<T> gradient = gradientQue_.template AllocTensor<T>();
        LocalTensor<float> result;
        if constexpr (IS_FLOAT) {
            result = gradient;
        } else {
            result = y;
        }
        MultiplyBy(result, y, operands_[DOUT], DOUT, held[DOUT], count);
        if constexpr (HAS_WEIGHT) {
            MultiplyBy(result, result, operands_[WEIGHT], WEIGHT, held[WEIGHT], count);
        }
        if (scale_ != 1.0f) {
            Muls(result, result, scale_, count);
        }
        if constexpr (!IS_FLOAT) {
            Cast(gradient, result, RoundMode::CAST_RINT, count);
        }
        gradientQue_.EnQue(gradient);
        predictQue_.FreeTensor(predict);
        targetQue_.FreeTensor(target);
        for (uint32_t k = 0; k < OPERANDS; ++k) {
            if (operands_[k].present && !operands_[k].scalar) {
                operands_[k].que.FreeTensor(held[k]);
            }
        }
    }

    __aicore__ inline void CopyOut(uint64_t tile, uint32_t count)
    {
        LocalTensor<T> gradient = gradientQue_.template DeQue<T>();
        const uint64_t offset = tile * tileDataNum_;
        if (count % BLOCK_ELEMS == 0) {
            DataCopy(gradientGm_[offset], gradient, count);
        } else {
            DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            DataCopyPad(gradientGm_[offset], gradient, params);
        }
        gradientQue_.FreeTensor(gradient);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> predictQue_, targetQue_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> gradientQue_;
    TBuf<QuePosition::VECCALC> expMinBuf_, expMaxBuf_, denominatorBuf_, predictFloatBuf_, targetFloatBuf_;
    TBuf<QuePosition::VECCALC> operandFloatBuf_[OPERANDS];
    TBuf<QuePosition::VECCALC> patternBuf_, indexBuf_, flagBuf_, offsetBuf_, gatheredBuf_;
    GlobalTensor<T> predictGm_, targetGm_, gradientGm_;
    Operand operands_[OPERANDS];
    uint64_t coreStart_ = 0;
    uint64_t coreDataNum_ = 0;
    uint64_t tileNum_ = 0;
    uint64_t tileDataNum_ = 0;
    uint64_t tailDataNum_ = 0;
    float scale_ = 1.0f;
};

/// The kernel for data type T: the variant of the optional inputs the tiling names.
template <typename T>
__aicore__ inline void RunSigmoidCrossEntropyWithLogitsGradV2(GM_ADDR predict, GM_ADDR target, GM_ADDR dout,
                                                              GM_ADDR weight, GM_ADDR pos_weight, GM_ADDR gradient,
                                                              GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(SigmoidCrossEntropyWithLogitsGradV2TilingData, tilingData, tiling);
    if (tilingData.has_weight != 0 && tilingData.has_pos_weight != 0) {
        KernelSigmoidCrossEntropyWithLogitsGradV2<T, true, true> op;
        op.Init(predict, target, dout, weight, pos_weight, gradient, tilingData);
        op.Process();
    } else if (tilingData.has_weight != 0) {
        KernelSigmoidCrossEntropyWithLogitsGradV2<T, true, false> op;
        op.Init(predict, target, dout, weight, pos_weight, gradient, tilingData);
        op.Process();
    } else if (tilingData.has_pos_weight != 0) {
        KernelSigmoidCrossEntropyWithLogitsGradV2<T, false, true> op;
        op.Init(predict, target, dout, weight, pos_weight, gradient, tilingData);
        op.Process();
    } else {
        KernelSigmoidCrossEntropyWithLogitsGradV2<T, false, false> op;
        op.Init(predict, target, dout, weight, pos_weight, gradient, tilingData);
        op.Process();
    }
}

}  // namespace bce_grad_ascendc

/// The entry of every data type, for tests that launch all three from one program.
template <typename T>
__global__ __aicore__ void sigmoid_cross_entropy_with_logits_grad_v2_typed(GM_ADDR predict, GM_ADDR target,
                                                                           GM_ADDR dout, GM_ADDR weight,
                                                                           GM_ADDR pos_weight, GM_ADDR gradient,
                                                                           GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    bce_grad_ascendc::RunSigmoidCrossEntropyWithLogitsGradV2<T>(predict, target, dout, weight, pos_weight, gradient,
                                                                tiling);
}

#endif  // ACLNN_BCE_GRAD_ASCENDC_KERNEL_H
