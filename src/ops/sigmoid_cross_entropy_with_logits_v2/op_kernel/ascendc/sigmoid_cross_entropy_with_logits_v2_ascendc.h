// The AscendC kernel of SigmoidCrossEntropyWithLogitsV2 (the loss, aclnnBinaryCrossEntropyWithLogits)
// for Atlas A2 (AI vector cores):
//   loss = (lw * softplus(-x) + (1 - y) * softplus(x)) [* weight],  lw = pos_weight * y (y without)
//   softplus(+-x) = max(+-x, 0) + log1p(exp(-|x|))
// the library's form (the CPU kernel's LossFromTailN, sigmoid_cross_entropy_with_logits_v2-inl.h):
// both terms >= 0 for labels in [0, 1] and weights >= 0, so nothing cancels (the NPU original's
// (1 - y) x + (...) log(...) cancels for y = 0, x << 0). reduction none writes the losses; mean
// and sum write one value, the fp32 sum of the fp32 losses in a fixed tree, the same bits for any
// core count (Note [Deterministic sum across cores]). See docs/npu_kernels.md.
//
// Structure of the NPU original: KernelSigmoidCrossEntropyWithLogitsV2<T, HAS_WEIGHT,
// HAS_POS_WEIGHT> with Init/Process, CopyIn -> Compute -> CopyOut per tile through TQues, big and
// small cores from GetBlockIdx() (Note [Cores and tiles of the loss kernel]); weight and
// pos_weight read through their period (Note [Loss operands read through a period]). fp16 and
// bf16 are computed in fp32 and rounded once at the end (CAST_RINT). Only APIs Atlas A2 has.
#ifndef ACLNN_BCE_LOSS_ASCENDC_KERNEL_H
#define ACLNN_BCE_LOSS_ASCENDC_KERNEL_H

#include <cstdint>
#include <type_traits>

#include "kernel_operator.h"
#include "ascendc_common/bce_kernel_variant_ascendc.h"
#include "ascendc_common/bce_periodic_operand_ascendc.h"
#include "ascendc_common/bce_softplus_ascendc.h"
#include "sigmoid_cross_entropy_with_logits_v2_ascendc_tiling_data.h"

namespace bce_loss_ascendc {

using namespace AscendC;

using bce_ascendc::BLOCK_BYTES;
using bce_ascendc::BUFFER_NUM;  // double buffering, as the NPU original's forward
/// fp32 values in one 32-byte block: a chunk's partial sum (Note [Deterministic sum across cores]).
constexpr uint32_t PARTIAL_ELEMS = BLOCK_BYTES / sizeof(float);
/// Elements of one chunk of the sum (Note [Deterministic sum across cores]); the A2 tiling
/// restates it (kA2LossReduceChunkElems).
constexpr uint32_t REDUCE_CHUNK_ELEMS = 1024;

// Note [Deterministic sum across cores]
// mean and sum add the fp32 losses in one fixed tree that depends on totalLength only:
//  1. The losses are cut into chunks of REDUCE_CHUNK_ELEMS at fixed global indices (every core's
//     first element and every tile's is a multiple of the chunk: the tiling makes tileLength one),
//     the last chunk padded with zeros. Each chunk is folded in halves (Add of its upper half onto
//     its lower half, 1024 -> 512 -> ... -> 8) into one 32-byte block of 8 partial sums, lane j the
//     pairwise sum of the elements j mod 8, and the block goes to the workspace at 8 * chunk.
//  2. SyncAll; then core 0 folds the workspace's partials the same way, chunks of
//     REDUCE_CHUNK_ELEMS floats into one block each, level after level (each level after the
//     previous one in the workspace), until one block of 8 is left, and adds those 8 on the
//     scalar unit in the same halving order ((v0 + v4) + (v2 + v6)) + ((v1 + v5) + (v3 + v7)).
//  3. mean multiplies by globalScale (1/N in fp32); the value is rounded once to T (CAST_RINT).
// Every addition is an IEEE fp32 Add of two values whose places in the tree are fixed by their
// global index, so the result is the same bits for any core count, tile length and run order.
// Each loss passes through D = 7 K + 3 additions, K = 1 + ceil(log_128(ceil(N / 1024))) the fold
// levels; the fp32 sum is within gamma_D = D u / (1 - D u) (u = 2^-24) times the sum of the
// losses' magnitudes of their exact sum (Note [Bound of the fp32 sum] in the tests' harness).
// Workspace: the partials of every level, A2LossWorkspaceBytes (op_host/a2).

template <typename T, bool HAS_WEIGHT, bool HAS_POS_WEIGHT>
class KernelSigmoidCrossEntropyWithLogitsV2 {
    static constexpr bool IS_FLOAT = std::is_same<T, float>::value;

public:
    __aicore__ inline KernelSigmoidCrossEntropyWithLogitsV2() {}

    __aicore__ inline void Init(GM_ADDR predict, GM_ADDR target, GM_ADDR weight, GM_ADDR pos_weight, GM_ADDR loss,
                                GM_ADDR workspace, const SigmoidCrossEntropyWithLogitsV2TilingData& tiling)
    {
        const uint64_t block = static_cast<uint64_t>(GetBlockIdx());
        const uint64_t total = tiling.totalLength;
        const uint64_t capacity = static_cast<uint64_t>(tiling.tileNum) * tiling.tileLength;
        tileDataNum_ = tiling.tileLength;
        reducing_ = tiling.reduction != BCE_LOSS_REDUCTION_NONE;
        scale_ = tiling.globalScale;
        coreStart_ = block * capacity;
        coreDataNum_ = coreStart_ >= total ? 0 : (total - coreStart_ < capacity ? total - coreStart_ : capacity);
        tileNum_ = (coreDataNum_ + tileDataNum_ - 1) / tileDataNum_;
        tailDataNum_ = coreDataNum_ - (tileNum_ == 0 ? 0 : (tileNum_ - 1) * tileDataNum_);
        totalLength_ = total;

        predictGm_.SetGlobalBuffer((__gm__ T*)predict + coreStart_, coreDataNum_);
        targetGm_.SetGlobalBuffer((__gm__ T*)target + coreStart_, coreDataNum_);
        if (reducing_) {
            workspaceGm_.SetGlobalBuffer((__gm__ float*)GetUserWorkspace(workspace));
            lossGm_.SetGlobalBuffer((__gm__ T*)loss, 1);
        } else {
            lossGm_.SetGlobalBuffer((__gm__ T*)loss + coreStart_, coreDataNum_);
        }
        const uint32_t tileBytes = static_cast<uint32_t>(tileDataNum_ * sizeof(T));
        const uint32_t floatBytes = static_cast<uint32_t>(tileDataNum_ * sizeof(float));
        pipe_.InitBuffer(predictQue_, BUFFER_NUM, tileBytes);
        pipe_.InitBuffer(targetQue_, BUFFER_NUM, tileBytes);
        // mean and sum keep the fp32 losses for the fold; none writes them as T.
        pipe_.InitBuffer(lossQue_, BUFFER_NUM, reducing_ ? floatBytes : tileBytes);
        pipe_.InitBuffer(softplusBuf_, floatBytes);
        pipe_.InitBuffer(softplusNegBuf_, floatBytes);
        pipe_.InitBuffer(tailBuf_, floatBytes);
        pipe_.InitBuffer(scratchBuf_, floatBytes);
        if constexpr (!IS_FLOAT) {
            pipe_.InitBuffer(predictFloatBuf_, floatBytes);
            pipe_.InitBuffer(targetFloatBuf_, floatBytes);
        }

        operands_.Init(&pipe_, tileDataNum_, coreStart_ + coreDataNum_);
        operands_.AddOperand(weight_, weight, HAS_WEIGHT ? tiling.weightDataNum : 0);
        operands_.AddOperand(posWeight_, pos_weight, HAS_POS_WEIGHT ? tiling.posWeightDataNum : 0);
        operands_.Prepare();
    }

    __aicore__ inline void Process()
    {
        for (uint64_t tile = 0; tile < tileNum_; ++tile) {
            const uint32_t count = static_cast<uint32_t>(tile + 1 == tileNum_ ? tailDataNum_ : tileDataNum_);
            CopyIn(tile, count);
            Compute(count);
            CopyOut(tile, count);
        }
        if (reducing_) {
            PipeBarrier<PIPE_ALL>();  // this core's partial copies have landed in the workspace
            SyncAll();                // and every other core's
            if (GetBlockIdx() == 0) {
                FinishSum();
            }
        }
    }

private:
    /// Makes the second pipe of EVENT wait for what the first has issued so far.
    template <HardEvent EVENT>
    __aicore__ inline void OrderPipes()
    {
        bce_ascendc::OrderPipes<EVENT>(pipe_);
    }

    __aicore__ inline void CopyIn(uint64_t tile, uint32_t count)
    {
        const uint64_t offset = tile * tileDataNum_;
        bce_ascendc::LoadTile(predictQue_, predictGm_, offset, count);
        bce_ascendc::LoadTile(targetQue_, targetGm_, offset, count);
        operands_.LoadTiles(coreStart_ + offset, count);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<T> predict = predictQue_.template DeQue<T>();
        LocalTensor<T> target = targetQue_.template DeQue<T>();
        const LocalTensor<float> x = bce_ascendc::Widen(predict, predictFloatBuf_, count);
        const LocalTensor<float> y = bce_ascendc::Widen(target, targetFloatBuf_, count);
        const LocalTensor<float> softplus = softplusBuf_.Get<float>();
        const LocalTensor<float> softplusNeg = softplusNegBuf_.Get<float>();
        const LocalTensor<float> tail = tailBuf_.Get<float>();
        const LocalTensor<float> scratch = scratchBuf_.Get<float>();

        // softplus(x) and softplus(-x) from one tail = log1p(exp(-|x|)) (bce_softplus_ascendc.h;
        // exp(-|x|) and the temporaries in the buffers the softplus fill next).
        bce_ascendc::SoftplusTail(tail, x, softplus, softplusNeg, scratch, count);
        bce_ascendc::Softplus(softplus, x, tail, count);
        bce_ascendc::SoftplusOfNegative(softplusNeg, x, tail, count);
        // pos = lw * softplus(-x), lw = pos_weight * y (y without pos_weight).
        if constexpr (HAS_POS_WEIGHT) {
            operands_.MultiplyBy(scratch, y, posWeight_, count);
            Mul(softplusNeg, scratch, softplusNeg, count);
        } else {
            Mul(softplusNeg, y, softplusNeg, count);
        }
        // neg = (1 - y) * softplus(x), in place on y.
        Muls(y, y, -1.0f, count);
        Adds(y, y, 1.0f, count);
        Mul(softplus, y, softplus, count);

        // loss = (pos + neg) [* weight]: fp32 losses end in the output tile (fp32 data, or the
        // sums' fp32 losses), 2-byte ones are rounded into it once.
        LocalTensor<T> lossTile = lossQue_.template AllocTensor<T>();
        LocalTensor<float> result;
        if constexpr (IS_FLOAT) {
            result = lossTile;
        } else {
            result = reducing_ ? lossTile.template ReinterpretCast<float>() : scratch;
        }
        Add(result, softplusNeg, softplus, count);
        if constexpr (HAS_WEIGHT) {
            operands_.MultiplyBy(result, result, weight_, count);
        }
        if (reducing_) {
            FoldTile(result, count);
        } else if constexpr (!IS_FLOAT) {
            Cast(lossTile, result, RoundMode::CAST_RINT, count);
        }
        lossQue_.EnQue(lossTile);
        predictQue_.FreeTensor(predict);
        targetQue_.FreeTensor(target);
        operands_.FreeTiles();
    }

    /// Pads the tile's last chunk with zeros after its count values, then folds every chunk into
    /// its first block (Note [Deterministic sum across cores]).
    __aicore__ inline void FoldTile(const LocalTensor<float>& values, uint32_t count)
    {
        const uint32_t chunks = (count + REDUCE_CHUNK_ELEMS - 1) / REDUCE_CHUNK_ELEMS;
        const uint32_t blockEnd = (count + PARTIAL_ELEMS - 1) / PARTIAL_ELEMS * PARTIAL_ELEMS;
        if (blockEnd != count) {
            // The ragged block's rest, on the scalar unit: a vector operand starts 32-byte aligned.
            OrderPipes<HardEvent::V_S>();
            for (uint32_t i = count; i < blockEnd; ++i) {
                values.SetValue(i, 0.0f);
            }
            OrderPipes<HardEvent::S_V>();
        }
        Duplicate(values[blockEnd], 0.0f, static_cast<int32_t>(chunks * REDUCE_CHUNK_ELEMS - blockEnd));
        FoldChunks(values, chunks);
    }

    /// Folds each of the first `chunks` chunks of `values` into its first block: lane j of the
    /// block becomes the pairwise sum of the chunk's elements j mod 8.
    __aicore__ inline void FoldChunks(const LocalTensor<float>& values, uint32_t chunks)
    {
        for (uint32_t c = 0; c < chunks; ++c) {
            const LocalTensor<float> chunk = values[c * REDUCE_CHUNK_ELEMS];
            for (uint32_t half = REDUCE_CHUNK_ELEMS / 2; half >= PARTIAL_ELEMS; half /= 2) {
                Add(chunk, chunk, chunk[half], static_cast<int32_t>(half));
            }
        }
    }

    /// The first block of each of `chunks` folded chunks of `values` to gm, one after another.
    __aicore__ inline void CopyPartials(const GlobalTensor<float>& gm, const LocalTensor<float>& values,
                                        uint32_t chunks)
    {
        const uint16_t gapBlocks = static_cast<uint16_t>(REDUCE_CHUNK_ELEMS / PARTIAL_ELEMS - 1);
        DataCopyParams params{static_cast<uint16_t>(chunks), 1, gapBlocks, 0};
        DataCopy(gm, values, params);
    }

    __aicore__ inline void CopyOut(uint64_t tile, uint32_t count)
    {
        LocalTensor<T> lossTile = lossQue_.template DeQue<T>();
        const uint64_t offset = tile * tileDataNum_;
        if (reducing_) {
            const uint64_t firstChunk = (coreStart_ + offset) / REDUCE_CHUNK_ELEMS;
            const uint32_t chunks = (count + REDUCE_CHUNK_ELEMS - 1) / REDUCE_CHUNK_ELEMS;
            CopyPartials(workspaceGm_[firstChunk * PARTIAL_ELEMS], lossTile.template ReinterpretCast<float>(), chunks);
        } else {
            bce_ascendc::CopyUbToGm(lossGm_, offset, lossTile, count);
        }
        lossQue_.FreeTensor(lossTile);
    }

    /// Core 0, after SyncAll: folds the workspace's partials level by level into one block, adds
    /// its 8 values, scales and writes the result (Note [Deterministic sum across cores]).
    __aicore__ inline void FinishSum()
    {
        LocalTensor<float> values = lossQue_.template AllocTensor<float>();
        uint64_t levelStart = 0;
        uint64_t levelNum = (totalLength_ + REDUCE_CHUNK_ELEMS - 1) / REDUCE_CHUNK_ELEMS * PARTIAL_ELEMS;
        OrderPipes<HardEvent::MTE3_MTE2>();  // this core's own partials have landed
        while (levelNum > PARTIAL_ELEMS) {
            const uint64_t nextStart = levelStart + levelNum;
            for (uint64_t start = 0; start < levelNum; start += tileDataNum_) {
                const uint32_t count = static_cast<uint32_t>(
                    levelNum - start < tileDataNum_ ? levelNum - start : tileDataNum_);  // a multiple of 8
                const uint32_t chunks = (count + REDUCE_CHUNK_ELEMS - 1) / REDUCE_CHUNK_ELEMS;
                DataCopy(values, workspaceGm_[levelStart + start], count);
                OrderPipes<HardEvent::MTE2_V>();
                Duplicate(values[count], 0.0f, static_cast<int32_t>(chunks * REDUCE_CHUNK_ELEMS - count));
                FoldChunks(values, chunks);
                OrderPipes<HardEvent::V_MTE3>();
                CopyPartials(workspaceGm_[nextStart + start / REDUCE_CHUNK_ELEMS * PARTIAL_ELEMS], values, chunks);
                OrderPipes<HardEvent::MTE3_MTE2>();  // the next load reuses the buffer, reads this level
            }
            levelStart = nextStart;
            levelNum = (levelNum + REDUCE_CHUNK_ELEMS - 1) / REDUCE_CHUNK_ELEMS * PARTIAL_ELEMS;
        }
        DataCopy(values, workspaceGm_[levelStart], PARTIAL_ELEMS);
        OrderPipes<HardEvent::MTE2_S>();
        float lane[PARTIAL_ELEMS];
        for (uint32_t j = 0; j < PARTIAL_ELEMS; ++j) {
            lane[j] = values.GetValue(j);
        }
        for (uint32_t half = PARTIAL_ELEMS / 2; half >= 1; half /= 2) {
            for (uint32_t j = 0; j < half; ++j) {
                lane[j] = lane[j] + lane[j + half];
            }
        }
        values.SetValue(0, lane[0] * scale_);
        OrderPipes<HardEvent::S_V>();
        LocalTensor<T> result = values.template ReinterpretCast<T>();
        if constexpr (!IS_FLOAT) {
            result = values[PARTIAL_ELEMS].template ReinterpretCast<T>();
            Cast(result, values, RoundMode::CAST_RINT, 1);
        }
        OrderPipes<HardEvent::V_MTE3>();
        bce_ascendc::CopyUbToGm(lossGm_, 0, result, 1);
        lossQue_.FreeTensor(values);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> predictQue_, targetQue_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> lossQue_;
    TBuf<QuePosition::VECCALC> softplusBuf_, softplusNegBuf_, tailBuf_, scratchBuf_, predictFloatBuf_,
        targetFloatBuf_;
    GlobalTensor<T> predictGm_, targetGm_, lossGm_;
    GlobalTensor<float> workspaceGm_;
    bce_ascendc::PeriodicOperand<T> weight_, posWeight_;
    bce_ascendc::PeriodicOperandReader<T> operands_;
    uint64_t coreStart_ = 0;
    uint64_t coreDataNum_ = 0;
    uint64_t tileNum_ = 0;
    uint64_t tileDataNum_ = 0;
    uint64_t tailDataNum_ = 0;
    uint64_t totalLength_ = 0;
    bool reducing_ = false;
    float scale_ = 1.0f;
};

/// The kernel for data type T: the variant of the optional inputs the tiling names.
template <typename T>
__aicore__ inline void RunSigmoidCrossEntropyWithLogitsV2(GM_ADDR predict, GM_ADDR target, GM_ADDR weight,
                                                          GM_ADDR pos_weight, GM_ADDR loss, GM_ADDR workspace,
                                                          GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(SigmoidCrossEntropyWithLogitsV2TilingData, tilingData, tiling);
    bce_ascendc::RunKernelVariant<KernelSigmoidCrossEntropyWithLogitsV2, T>(
        tilingData.has_weight != 0, tilingData.has_pos_weight != 0, predict, target, weight, pos_weight, loss,
        workspace, tilingData);
}

}  // namespace bce_loss_ascendc

/// The entry of every data type, for tests and the ACLNN route that launch all three from one program.
template <typename T>
__global__ __aicore__ void sigmoid_cross_entropy_with_logits_v2_typed(GM_ADDR predict, GM_ADDR target, GM_ADDR weight,
                                                                      GM_ADDR pos_weight, GM_ADDR loss,
                                                                      GM_ADDR workspace, GM_ADDR tiling)
{
    bce_loss_ascendc::RunSigmoidCrossEntropyWithLogitsV2<T>(predict, target, weight, pos_weight, loss, workspace,
                                                            tiling);
}

#endif  // ACLNN_BCE_LOSS_ASCENDC_KERNEL_H
