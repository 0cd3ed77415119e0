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

#include "bce_periodic_operand_ascendc.h"
#include "kernel_operator.h"
#include "sigmoid_cross_entropy_with_logits_grad_v2_ascendc_tiling_data.h"

namespace bce_grad_ascendc {

using namespace AscendC;
using bce_ascendc::BUFFER_NUM;
using bce_ascendc::CopyUbToGm;
using bce_ascendc::LoadTile;
using bce_ascendc::PeriodicOperand;
using bce_ascendc::PeriodicOperandReader;
using bce_ascendc::Widen;

// Note [Sign split without a select]
// t's two forms (x >= 0: (1 - y) - lw e; x < 0: (1 - y) e - lw, both over 1 + e) are one
// expression with P = exp(min(x, 0)) and Q = exp(-max(x, 0)): for x >= 0, P = exp(0) = 1 exactly
// and Q = exp(-x) = e; for x < 0, P = exp(x) = e and Q = 1. Both exponents are -|x| or 0, so e
// is the same value the single exp(-|x|) gives, and P + Q = 1 + e. Two Exp instructions instead
// of a Compare and two Selects per operand; the product by 1 is exact.

template <typename T, bool HAS_WEIGHT, bool HAS_POS_WEIGHT>
class KernelSigmoidCrossEntropyWithLogitsGradV2 {
    static constexpr bool IS_FLOAT = std::is_same<T, float>::value;

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

        reader_.Init(&pipe_, tileDataNum_, coreStart_ + coreDataNum_);
        reader_.AddOperand(dout_, dout, tiling.doutDataNum);
        reader_.AddOperand(weight_, weight, HAS_WEIGHT ? tiling.weightDataNum : 0);
        reader_.AddOperand(posWeight_, pos_weight, HAS_POS_WEIGHT ? tiling.posWeightDataNum : 0);
        reader_.Prepare();
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
    __aicore__ inline void CopyIn(uint64_t tile, uint32_t count)
    {
        const uint64_t offset = tile * tileDataNum_;
        LoadTile(predictQue_, predictGm_, offset, count);
        LoadTile(targetQue_, targetGm_, offset, count);
        reader_.LoadTiles(coreStart_ + offset, count);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<T> predict = predictQue_.template DeQue<T>();
        LocalTensor<T> target = targetQue_.template DeQue<T>();
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
            const LocalTensor<float> lw = posWeight_.floatBuf.template Get<float>();
            if (posWeight_.scalar) {
                Muls(lw, y, posWeight_.scalarValue, count);
            } else {
                Mul(lw, reader_.Tile(posWeight_, count), y, count);
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
        reader_.MultiplyBy(result, y, dout_, count);
        if constexpr (HAS_WEIGHT) {
            reader_.MultiplyBy(result, result, weight_, count);
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
        reader_.FreeTiles();
    }

    __aicore__ inline void CopyOut(uint64_t tile, uint32_t count)
    {
        LocalTensor<T> gradient = gradientQue_.template DeQue<T>();
        CopyUbToGm(gradientGm_, tile * tileDataNum_, gradient, count);
        gradientQue_.FreeTensor(gradient);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> predictQue_, targetQue_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> gradientQue_;
    TBuf<QuePosition::VECCALC> expMinBuf_, expMaxBuf_, denominatorBuf_, predictFloatBuf_, targetFloatBuf_;
    GlobalTensor<T> predictGm_, targetGm_, gradientGm_;
    PeriodicOperand<T> dout_, weight_, posWeight_;
    PeriodicOperandReader<T> reader_;
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
