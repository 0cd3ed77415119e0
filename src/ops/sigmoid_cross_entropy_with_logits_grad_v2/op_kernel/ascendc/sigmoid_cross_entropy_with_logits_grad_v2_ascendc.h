// The AscendC kernels of SigmoidCrossEntropyWithLogitsGradV2 for Atlas A2 (AI vector cores):
//   gradient = ((t * dout) [* weight]) * globalScale,  t = ((1 - y) * P - lw * Q) / (P + Q)
// with P = exp(min(x, 0)), Q = exp(-max(x, 0)) (one of them 1, the other e = exp(-|x|)) and
// lw = pos_weight * y (y without pos_weight): the library's cancellation-free form (the CPU
// kernel's GradientVectorN, sigmoid_cross_entropy_with_logits_grad_v2_vector-inl.h), not the
// NPU original's p - y. See docs/npu_kernels.md.
// OF_TARGET: the gradient with respect to the target (aclnnBinaryCrossEntropyWithLogitsTarget
// Backward), which reads no target: t = -x without pos_weight, else
//   t = (pw - 1) * L - (max(x, 0) + pw * min(x, 0)),  L = log1p(exp(-|x|))
// (the CPU kernel's TargetGradientVectorN; Note [Target gradient on the vector unit]).
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

#include "bce_kernel_variant_ascendc.h"
#include "bce_periodic_operand_ascendc.h"
#include "bce_softplus_ascendc.h"
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

// Note [Target gradient on the vector unit]
// d loss / d y = pw softplus(-x) - softplus(x), with the linear parts split off so that the two
// softplus never subtract: (pw - 1) L - (x < 0 ? pw x : x), L = log1p(exp(-|x|)) (the library's
// form; its reference bounds the error, Note [Target error bound]). The select by the sign of x
// is max(x, 0) + pw min(x, 0): one of the two terms is exactly 0, so the sum is exact and gives
// the library's bits (pw = 0: 0 for x < 0, the limit, as the library's select) without a
// Compare/Select (whose count form works on whole 256-byte repeats). L comes from SoftplusTail
// (bce_softplus_ascendc.h: Exp and a log1p without Ln, 1.86 ULP on the twin). Differences from
// the library: x = -inf with pw = 0 gives NaN (0 * -inf) where the library gives 0, and the sign
// of a zero result may differ; NaN propagation on A2 is not claimed (as for the backward).

template <typename T, bool HAS_WEIGHT, bool HAS_POS_WEIGHT, bool OF_TARGET = false>
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
        gradientGm_.SetGlobalBuffer((__gm__ T*)gradient + coreStart_, coreDataNum_);
        const uint32_t tileBytes = static_cast<uint32_t>(tileDataNum_ * sizeof(T));
        const uint32_t floatBytes = static_cast<uint32_t>(tileDataNum_ * sizeof(float));
        pipe_.InitBuffer(predictQue_, BUFFER_NUM, tileBytes);
        if constexpr (!OF_TARGET) {
            targetGm_.SetGlobalBuffer((__gm__ T*)target + coreStart_, coreDataNum_);
            pipe_.InitBuffer(targetQue_, BUFFER_NUM, tileBytes);
        }
        pipe_.InitBuffer(gradientQue_, BUFFER_NUM, tileBytes);
        // The fp32 work buffers (A2GradUbBytes restates this list): the backward's P, Q, 1 + e;
        // the target gradient's L, exp(-|x|) and two temporaries with pos_weight, none without.
        if constexpr (!OF_TARGET || HAS_POS_WEIGHT) {
            pipe_.InitBuffer(expMinBuf_, floatBytes);
            pipe_.InitBuffer(expMaxBuf_, floatBytes);
            pipe_.InitBuffer(denominatorBuf_, floatBytes);
        }
        if constexpr (OF_TARGET && HAS_POS_WEIGHT) {
            pipe_.InitBuffer(targetFloatBuf_, floatBytes);
        }
        if constexpr (!IS_FLOAT) {
            pipe_.InitBuffer(predictFloatBuf_, floatBytes);
            if constexpr (!OF_TARGET) {
                pipe_.InitBuffer(targetFloatBuf_, floatBytes);
            }
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
        if constexpr (!OF_TARGET) {
            LoadTile(targetQue_, targetGm_, offset, count);
        }
        reader_.LoadTiles(coreStart_ + offset, count);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        if constexpr (OF_TARGET) {
            ComputeOfTarget(count);
        } else {
            ComputeOfSelf(count);
        }
    }

    /// t of the target gradient (Note [Target gradient on the vector unit]), then Finish.
    __aicore__ inline void ComputeOfTarget(uint32_t count)
    {
        LocalTensor<T> predict = predictQue_.template DeQue<T>();
        const LocalTensor<float> x = Widen(predict, predictFloatBuf_, count);
        if constexpr (HAS_POS_WEIGHT) {
            const LocalTensor<float> tail = expMinBuf_.Get<float>();
            const LocalTensor<float> scaled = expMaxBuf_.Get<float>();
            const LocalTensor<float> linear = denominatorBuf_.Get<float>();
            const LocalTensor<float> tmp = targetFloatBuf_.Get<float>();
            bce_ascendc::SoftplusTail(tail, x, scaled, linear, tmp, count);  // L
            // linear = max(x, 0) + pw * min(x, 0); c = (pw - 1) * L; t = c - linear, into tail.
            Mins(scaled, x, 0.0f, count);
            if (posWeight_.scalar) {
                Muls(scaled, scaled, posWeight_.scalarValue, count);
                Maxs(linear, x, 0.0f, count);
                Add(linear, linear, scaled, count);
                Muls(tail, tail, posWeight_.scalarValue - 1.0f, count);
            } else {
                const LocalTensor<float> pw = reader_.Tile(posWeight_, count);
                Mul(scaled, pw, scaled, count);
                Maxs(linear, x, 0.0f, count);
                Add(linear, linear, scaled, count);
                Adds(scaled, pw, -1.0f, count);
                Mul(tail, scaled, tail, count);
            }
            Sub(tail, tail, linear, count);
            Finish(tail, count);
        } else {
            Muls(x, x, -1.0f, count);  // t = -x, in place (the fp32 tile or its widening)
            Finish(x, count);
        }
        predictQue_.FreeTensor(predict);
        reader_.FreeTiles();
    }

    __aicore__ inline void ComputeOfSelf(uint32_t count)
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
        Finish(y, count);
        predictQue_.FreeTensor(predict);
        targetQue_.FreeTensor(target);
        reader_.FreeTiles();
    }

    /// g = ((t * dout) [* weight]) * scale, in this order, into a new output tile (fp32 data end
    /// there directly, others are rounded once with CAST_RINT; t is overwritten for those).
    __aicore__ inline void Finish(const LocalTensor<float>& t, uint32_t count)
    {
        LocalTensor<T> gradient = gradientQue_.template AllocTensor<T>();
        LocalTensor<float> result;
        if constexpr (IS_FLOAT) {
            result = gradient;
        } else {
            result = t;
        }
        reader_.MultiplyBy(result, t, dout_, count);
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

template <typename T, bool HAS_WEIGHT, bool HAS_POS_WEIGHT>
using KernelOfSelf = KernelSigmoidCrossEntropyWithLogitsGradV2<T, HAS_WEIGHT, HAS_POS_WEIGHT, false>;
template <typename T, bool HAS_WEIGHT, bool HAS_POS_WEIGHT>
using KernelOfTarget = KernelSigmoidCrossEntropyWithLogitsGradV2<T, HAS_WEIGHT, HAS_POS_WEIGHT, true>;

/// The kernel for data type T (the gradient of self, or OF_TARGET of the target): the variant of
/// the optional inputs the tiling names.
template <typename T, bool OF_TARGET = false>
__aicore__ inline void RunSigmoidCrossEntropyWithLogitsGradV2(GM_ADDR predict, GM_ADDR target, GM_ADDR dout,
                                                              GM_ADDR weight, GM_ADDR pos_weight, GM_ADDR gradient,
                                                              GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(SigmoidCrossEntropyWithLogitsGradV2TilingData, tilingData, tiling);
    const bool hasWeight = tilingData.has_weight != 0;
    const bool hasPosWeight = tilingData.has_pos_weight != 0;
    if constexpr (OF_TARGET) {
        bce_ascendc::RunKernelVariant<KernelOfTarget, T>(hasWeight, hasPosWeight, predict, target, dout, weight,
                                                         pos_weight, gradient, tilingData);
    } else {
        bce_ascendc::RunKernelVariant<KernelOfSelf, T>(hasWeight, hasPosWeight, predict, target, dout, weight,
                                                       pos_weight, gradient, tilingData);
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

/// The gradient with respect to the target (aclnnBinaryCrossEntropyWithLogitsTargetBackward), every
/// data type: the backward's signature and TilingData (tiled by TileGradForAtlasA2 with of_target);
/// target is not read and may be null.
template <typename T>
__global__ __aicore__ void sigmoid_cross_entropy_with_logits_grad_v2_of_target_typed(GM_ADDR predict, GM_ADDR target,
                                                                                     GM_ADDR dout, GM_ADDR weight,
                                                                                     GM_ADDR pos_weight,
                                                                                     GM_ADDR gradient,
                                                                                     GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    bce_grad_ascendc::RunSigmoidCrossEntropyWithLogitsGradV2<T, true>(predict, target, dout, weight, pos_weight,
                                                                      gradient, tiling);
}

#endif  // ACLNN_BCE_GRAD_ASCENDC_KERNEL_H
