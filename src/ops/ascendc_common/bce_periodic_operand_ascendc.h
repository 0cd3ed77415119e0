// Operands of an AscendC elementwise kernel read through a period, and the copies every such
// kernel makes: shared by the BCE kernels for Atlas A2 (the gradient of self and of the target,
// the forward loss). Only APIs Atlas A2 has; plain kernel code, compiled by the AscendC build or
// by the CPU twin (ascendc_cpu/).
//
// Contract
//   PeriodicOperand<T>: one input of element count P read at index i % P for output element i
//   (Note [Operands read through a period]). P = total is the same shape, P = 1 one value (read
//   once per core, applied with Muls), 1 < P < total a tensor of the last dims. Never read past
//   its P elements in GM; never materialised.
//   PeriodicOperandReader<T>: owns the index pattern and the gather buffers of a core's operands;
//   all of a core's operands whose tiles may wrap share one period. Per tile: LoadTiles (MTE2),
//   then Tile / MultiplyBy (vector unit, the operand's tile in fp32), then FreeTiles.
//   CopyGmToUb / CopyUbToGm: count elements, whole 32-byte blocks by DataCopy, a ragged count by
//   DataCopyPad with its exact byte count (never past a tensor's end).
//   Widen: a tile in fp32 (Cast CAST_NONE from half/bfloat16_t; fp32 tiles as they are).
// APIs: DataCopy, DataCopyPad (DataCopyExtParams, DataCopyPadExtParams), Cast, Adds, Muls, Maxs,
// Mins, Add, Mul, CreateVecIndex (float), Gather (uint32_t byte offsets, float / uint16_t
// elements), GetValue, SetValue, SetFlag / WaitFlag, TPipe::FetchEventID.
#ifndef ACLNN_BCE_PERIODIC_OPERAND_ASCENDC_H
#define ACLNN_BCE_PERIODIC_OPERAND_ASCENDC_H

#include <cstdint>
#include <type_traits>

#include "kernel_operator.h"

namespace bce_ascendc {

using namespace AscendC;

// Note [Operands read through a period]
// An input of an elementwise kernel may broadcast to the output (aclnn checks that it does): the
// kernel's TilingData gives its element count P (0: absent), and output element i reads the
// operand's element i % P. P = total is the same-shape case, P = 1 a 0-dim or [1] tensor, and
// 1 < P < total a tensor of the last dims of self ([C] over [N, C]: P = C). The operand is read
// in place from GM (never materialised) and never past its P elements: a tile whose elements wrap
// around the period is gathered in UB (Gather with byte offsets). All operands with
// 1 < P < total share one P (the A2 tiling checks it), so the kernel builds one index pattern.

/// Queue depth of the input and output tiles: double buffering, so that the copies of the next
/// tile can overlap the computation of this one on the NPU.
constexpr int32_t BUFFER_NUM = 2;
/// The DMA and vector operand granule of Atlas A2.
constexpr uint32_t BLOCK_BYTES = 32;

template <typename T>
constexpr uint32_t BlockElems()
{
    return BLOCK_BYTES / sizeof(T);
}

/// count elements from gm[offset] to the start of local: whole 32-byte blocks with DataCopy,
/// a ragged count with DataCopyPad (which reads exactly count elements of GM).
template <typename T>
__aicore__ inline void CopyGmToUb(const LocalTensor<T>& local, const GlobalTensor<T>& gm, uint64_t offset,
                                  uint32_t count)
{
    if (count % BlockElems<T>() == 0) {
        DataCopy(local, gm[offset], count);
    } else {
        DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        DataCopyPad(local, gm[offset], params, pad);
    }
}

/// count elements from the start of local to gm[offset]: the same split as CopyGmToUb (a ragged
/// count writes exactly its bytes).
template <typename T>
__aicore__ inline void CopyUbToGm(const GlobalTensor<T>& gm, uint64_t offset, const LocalTensor<T>& local,
                                  uint32_t count)
{
    if (count % BlockElems<T>() == 0) {
        DataCopy(gm[offset], local, count);
    } else {
        DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        DataCopyPad(gm[offset], local, params);
    }
}

/// count elements from gm[offset] into a new tensor of que, enqueued for the vector unit.
template <typename T, typename Que>
__aicore__ inline void LoadTile(Que& que, const GlobalTensor<T>& gm, uint64_t offset, uint32_t count)
{
    LocalTensor<T> local = que.template AllocTensor<T>();
    CopyGmToUb(local, gm, offset, count);
    que.EnQue(local);
}

/// A tile in fp32: the tile itself for fp32 data, else its widening into buf.
template <typename T>
__aicore__ inline LocalTensor<float> Widen(const LocalTensor<T>& tile, TBuf<QuePosition::VECCALC>& buf,
                                           uint32_t count)
{
    if constexpr (std::is_same<T, float>::value) {
        return tile;
    } else {
        LocalTensor<float> widened = buf.Get<float>();
        Cast(widened, tile, RoundMode::CAST_NONE, count);
        return widened;
    }
}

/// Makes the second pipe of EVENT wait for what the first has issued so far.
template <HardEvent EVENT>
__aicore__ inline void OrderPipes(TPipe& pipe)
{
    const int32_t eventId = static_cast<int32_t>(pipe.FetchEventID(EVENT));
    SetFlag<EVENT>(eventId);
    WaitFlag<EVENT>(eventId);
}

/// One input read through its period (Note [Operands read through a period]).
template <typename T>
struct PeriodicOperand {
    bool present = false;
    bool scalar = false;    ///< period 1: one value for the whole core
    float scalarValue = 0;  ///< that value in fp32
    uint64_t period = 0;
    GlobalTensor<T> gm;
    TQue<QuePosition::VECIN, BUFFER_NUM> que;
    TBuf<QuePosition::VECCALC> floatBuf;  ///< the tile in fp32 (widened or gathered); free for the caller otherwise
    LocalTensor<T> held;                  ///< the tile dequeued by Tile, freed by FreeTiles
    // How the tile in the queue maps to the tile's elements (set by LoadTiles for Tile).
    bool gathered = false;  ///< the tile's elements are gathered from the queue's tensor
    float gatherShift = 0;  ///< index = pattern + shift, then + step where index >= threshold
    float gatherStep = 0;
    float gatherThreshold = 0;
};

/// The operands of one core: their buffers, the shared index pattern, the per-tile loads.
template <typename T>
class PeriodicOperandReader {
    static constexpr bool IS_FLOAT = std::is_same<T, float>::value;
    static constexpr uint32_t MAX_OPERANDS = 4;

public:
    __aicore__ inline PeriodicOperandReader() {}

    /// The core's tiles hold tileDataNum elements; its elements end at coreEnd (exclusive).
    __aicore__ inline void Init(TPipe* pipe, uint64_t tileDataNum, uint64_t coreEnd)
    {
        pipe_ = pipe;
        tileDataNum_ = tileDataNum;
        coreEnd_ = coreEnd;
    }

    /// An operand of count elements at addr (count 0: absent). Allocates its queue (a tile plus
    /// one 32-byte block: two pieces of the period, the second on a block boundary) and its fp32
    /// buffer.
    __aicore__ inline void AddOperand(PeriodicOperand<T>& op, GM_ADDR addr, uint64_t count)
    {
        op.present = count != 0;
        if (!op.present) {
            return;
        }
        op.period = count;
        op.scalar = op.period == 1;
        op.gm.SetGlobalBuffer((__gm__ T*)addr, op.period);
        const uint32_t tileBytes = static_cast<uint32_t>(tileDataNum_ * sizeof(T));
        pipe_->InitBuffer(op.que, BUFFER_NUM, tileBytes + BLOCK_BYTES);
        pipe_->InitBuffer(op.floatBuf, static_cast<uint32_t>(tileDataNum_ * sizeof(float)));
        if (!op.scalar && op.period < coreEnd_) {
            pattern_ = op.period;  // its tiles may wrap on this core
        }
        operands_[operandNum_++] = &op;
    }

    /// After the last AddOperand: the gather buffers and the index pattern if some tile may
    /// wrap, and the one value of each period-1 operand.
    __aicore__ inline void Prepare()
    {
        if (pattern_ != 0) {
            const uint32_t floatBytes = static_cast<uint32_t>(tileDataNum_ * sizeof(float));
            pipe_->InitBuffer(patternBuf_, floatBytes);
            pipe_->InitBuffer(indexBuf_, floatBytes);
            pipe_->InitBuffer(flagBuf_, floatBytes);
            pipe_->InitBuffer(offsetBuf_, floatBytes);
            if constexpr (!IS_FLOAT) {
                pipe_->InitBuffer(gatheredBuf_, static_cast<uint32_t>(tileDataNum_ * sizeof(T)));
            }
            BuildPattern(pattern_);
        }
        for (uint32_t k = 0; k < operandNum_; ++k) {
            if (operands_[k]->scalar) {
                operands_[k]->scalarValue = LoadScalar(*operands_[k]);
            }
        }
    }

    /// Starts the copies of the tile of count elements whose first element is index first of
    /// the output, for every operand not read as one value.
    __aicore__ inline void LoadTiles(uint64_t first, uint32_t count)
    {
        offsetsCached_ = false;  // a new tile: its offsets are computed again
        for (uint32_t k = 0; k < operandNum_; ++k) {
            if (!operands_[k]->scalar) {
                LoadPeriodicTile(*operands_[k], first, count);
            }
        }
    }

    /// The operand's tile in fp32 (a non-scalar operand; once per tile, before FreeTiles).
    __aicore__ inline LocalTensor<float> Tile(PeriodicOperand<T>& op, uint32_t count)
    {
        op.held = op.que.template DeQue<T>();
        if (!op.gathered) {
            return Widen(op.held, op.floatBuf, count);
        }
        const LocalTensor<uint32_t> offset = GatherOffsets(op, count);
        LocalTensor<float> widened = op.floatBuf.template Get<float>();
        if constexpr (IS_FLOAT) {
            Gather(widened, op.held, offset, 0, count);
        } else {
            // 2-byte elements move as uint16_t: the same bytes, a type every A2 Gather takes.
            LocalTensor<T> gathered = gatheredBuf_.Get<T>();
            LocalTensor<uint16_t> gatheredBits = gathered.template ReinterpretCast<uint16_t>();
            Gather(gatheredBits, op.held.template ReinterpretCast<uint16_t>(), offset, 0, count);
            Cast(widened, gathered, RoundMode::CAST_NONE, count);
        }
        return widened;
    }

    /// dst = acc * the operand (its tile or its one value).
    __aicore__ inline void MultiplyBy(const LocalTensor<float>& dst, const LocalTensor<float>& acc,
                                      PeriodicOperand<T>& op, uint32_t count)
    {
        if (op.scalar) {
            Muls(dst, acc, op.scalarValue, count);
        } else {
            Mul(dst, acc, Tile(op, count), count);
        }
    }

    /// Frees the queue tensors of the tiles Tile dequeued (every non-scalar operand's).
    __aicore__ inline void FreeTiles()
    {
        for (uint32_t k = 0; k < operandNum_; ++k) {
            if (!operands_[k]->scalar) {
                operands_[k]->que.FreeTensor(operands_[k]->held);
            }
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
        OrderPipes<HardEvent::S_V>(*pipe_);  // the vector instructions read what the scalar unit wrote
    }

    /// The one value of a period-1 operand, in fp32 (widened in the operand's fp32 buffer).
    __aicore__ inline float LoadScalar(PeriodicOperand<T>& op)
    {
        LocalTensor<T> local = op.que.template AllocTensor<T>();
        CopyGmToUb(local, op.gm, 0, 1);
        op.que.EnQue(local);
        local = op.que.template DeQue<T>();
        float value;
        if constexpr (IS_FLOAT) {
            OrderPipes<HardEvent::MTE2_S>(*pipe_);  // DeQue orders the copy for the vector unit only
            value = local.GetValue(0);
        } else {
            LocalTensor<float> widened = op.floatBuf.template Get<float>();
            Cast(widened, local, RoundMode::CAST_NONE, 1);
            OrderPipes<HardEvent::V_S>(*pipe_);
            value = widened.GetValue(0);
        }
        op.que.FreeTensor(local);
        return value;
    }

    /// The tile's elements of a periodic operand: index (first + j) % period for j < count.
    /// Without a wrap inside the tile, one contiguous copy; with one, the needed part of the
    /// period is copied and Tile gathers (Note [Operands read through a period]).
    __aicore__ inline void LoadPeriodicTile(PeriodicOperand<T>& op, uint64_t first, uint32_t count)
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
            const uint32_t headBlocks = (head + BlockElems<T>() - 1) / BlockElems<T>() * BlockElems<T>();
            CopyGmToUb(local, op.gm, start, head);
            CopyGmToUb(local[headBlocks], op.gm, 0, count - head);
            op.gatherShift = 0;
            op.gatherStep = static_cast<float>(headBlocks - head);
            op.gatherThreshold = static_cast<float>(head);
        }
        op.que.EnQue(local);
    }

    /// Byte offsets into the queue's tensor of a wrapped tile: index = pattern + shift, plus step
    /// where index >= threshold, all integers below 2^24 and so exact in fp32. The step's 0/1
    /// flag is clamp(index - threshold + 1, 0, 1), exact for integers.
    /// Operands that wrap alike in a tile (weight and pos_weight of one period) share the offsets:
    /// they are computed once per tile (offsetBuf_ is written here only).
    __aicore__ inline LocalTensor<uint32_t> GatherOffsets(const PeriodicOperand<T>& op, uint32_t count)
    {
        LocalTensor<int32_t> offset = offsetBuf_.Get<int32_t>();
        if (offsetsCached_ && op.gatherShift == cachedShift_ && op.gatherStep == cachedStep_ &&
            op.gatherThreshold == cachedThreshold_) {
            return offset.ReinterpretCast<uint32_t>();
        }
        offsetsCached_ = true;
        cachedShift_ = op.gatherShift;
        cachedStep_ = op.gatherStep;
        cachedThreshold_ = op.gatherThreshold;
        LocalTensor<float> index = indexBuf_.Get<float>();
        LocalTensor<float> flag = flagBuf_.Get<float>();
        Adds(index, patternBuf_.Get<float>(), op.gatherShift, count);
        Adds(flag, index, 1.0f - op.gatherThreshold, count);
        Maxs(flag, flag, 0.0f, count);
        Mins(flag, flag, 1.0f, count);
        Muls(flag, flag, op.gatherStep, count);
        Add(index, index, flag, count);
        Muls(index, index, static_cast<float>(sizeof(T)), count);
        Cast(offset, index, RoundMode::CAST_RINT, count);
        return offset.ReinterpretCast<uint32_t>();
    }

    TPipe* pipe_ = nullptr;
    uint64_t tileDataNum_ = 0;
    uint64_t coreEnd_ = 0;
    uint64_t pattern_ = 0;  ///< the shared period of the operands whose tiles may wrap on this core
    PeriodicOperand<T>* operands_[MAX_OPERANDS] = {};
    uint32_t operandNum_ = 0;
    bool offsetsCached_ = false;  ///< offsetBuf_ holds this tile's offsets for the cached mapping
    float cachedShift_ = 0, cachedStep_ = 0, cachedThreshold_ = 0;
    TBuf<QuePosition::VECCALC> patternBuf_, indexBuf_, flagBuf_, offsetBuf_, gatheredBuf_;
};

}  // namespace bce_ascendc

#endif  // ACLNN_BCE_PERIODIC_OPERAND_ASCENDC_H
