#include "fault_kernels.h"

using namespace AscendC;

namespace {

constexpr uint32_t kTile = 64;  // floats: 256 bytes, whole 32-byte blocks

/// GM -> UB -> GM through a VECIN->VECOUT queue, `count` floats (a multiple of 8).
__aicore__ inline void CopyThrough(GlobalTensor<float>& src, GlobalTensor<float>& dst, uint32_t count)
{
    TPipe pipe;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> que;
    pipe.InitBuffer(que, 1, count * sizeof(float));
    LocalTensor<float> local = que.AllocTensor<float>();
    DataCopy(local, src, count);
    que.EnQue(local);
    local = que.DeQue<float>();
    DataCopy(dst, local, count);
    que.FreeTensor(local);
}

}  // namespace

extern "C" __global__ __aicore__ void copy_tiles(GM_ADDR x, GM_ADDR out, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(FaultTiling, t, tiling);
    const uint64_t first = GetBlockIdx() * t.stride;
    GlobalTensor<float> src;
    GlobalTensor<float> dst;
    src.SetGlobalBuffer((__gm__ float*)x + first, t.count);
    dst.SetGlobalBuffer((__gm__ float*)out + first, t.count);
    CopyThrough(src, dst, t.count);
}

extern "C" __global__ __aicore__ void neighbour_exchange(GM_ADDR buf, GM_ADDR out, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(FaultTiling, t, tiling);
    const int64_t core = GetBlockIdx();
    const int64_t right = (core + 1) % GetBlockNum();
    GlobalTensor<float> mine;
    GlobalTensor<float> theirs;
    GlobalTensor<float> result;
    mine.SetGlobalBuffer((__gm__ float*)buf + core * t.count, t.count);
    theirs.SetGlobalBuffer((__gm__ float*)buf + right * t.count, t.count);
    result.SetGlobalBuffer((__gm__ float*)out + core * t.count, t.count);
    {
        TPipe pipe;
        TQue<TPosition::VECOUT, 1> que;
        pipe.InitBuffer(que, 1, t.count * sizeof(float));
        LocalTensor<float> local = que.AllocTensor<float>();
        Duplicate(local, static_cast<float>(core + 1), t.count);
        que.EnQue(local);
        local = que.DeQue<float>();
        DataCopy(mine, local, t.count);
        que.FreeTensor(local);
    }
    if (t.flag != 0) {
        SyncAll();
    }
    CopyThrough(theirs, result, t.count);
}

extern "C" __global__ __aicore__ void ub_overflow(GM_ADDR x, GM_ADDR tiling)
{
    (void)x;
    GET_TILING_DATA_WITH_STRUCT(FaultTiling, t, tiling);
    TPipe pipe;
    if (t.mode == 0) {
        TBuf<TPosition::VECCALC> big;
        pipe.InitBuffer(big, 200 * 1024);
    } else if (t.mode == 1) {
        TQue<TPosition::VECIN, 1> queues[5];
        for (auto& que : queues) {
            pipe.InitBuffer(que, 13, 256);  // 5 x 13 = 65 buffers
        }
    } else {
        TBuf<TPosition::VECCALC> most;
        pipe.InitBuffer(most, ascendc_cpu::kUbBudgetBytes + 32);
    }
}

extern "C" __global__ __aicore__ void ub_misaligned(GM_ADDR out, GM_ADDR tiling)
{
    (void)out;
    (void)tiling;
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, kTile * sizeof(float));
    LocalTensor<float> t = buf.Get<float>();
    Duplicate(t, 1.0f, kTile);
    Add(t[3], t[3], t[3], 16);  // 12 bytes into the buffer
}

extern "C" __global__ __aicore__ void datacopy_unaligned(GM_ADDR x, GM_ADDR out, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(FaultTiling, t, tiling);
    GlobalTensor<float> src;
    GlobalTensor<float> dst;
    src.SetGlobalBuffer((__gm__ float*)x, kTile);
    dst.SetGlobalBuffer((__gm__ float*)out, kTile);
    TPipe pipe;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> que;
    pipe.InitBuffer(que, 1, kTile * sizeof(float));
    LocalTensor<float> local = que.AllocTensor<float>();
    DataCopy(local, src, t.count);
    que.EnQue(local);
    local = que.DeQue<float>();
    DataCopy(dst, local, t.count);
    que.FreeTensor(local);
}

extern "C" __global__ __aicore__ void queue_misuse(GM_ADDR x, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(FaultTiling, t, tiling);
    GlobalTensor<float> src;
    src.SetGlobalBuffer((__gm__ float*)x, kTile);
    TPipe pipe;
    TQue<TPosition::VECIN, 1> in;
    TQue<TPosition::VECIN, 1> other;
    pipe.InitBuffer(in, 1, kTile * sizeof(float));
    pipe.InitBuffer(other, 1, kTile * sizeof(float));
    LocalTensor<float> a = in.AllocTensor<float>();
    DataCopy(a, src, kTile);
    in.EnQue(a);
    switch (t.mode) {
        case 0: {
            LocalTensor<float> b = in.AllocTensor<float>();  // the only buffer is in the queue
            (void)b;
            a = in.DeQue<float>();
            in.FreeTensor(a);
            break;
        }
        case 1:
            a = in.DeQue<float>();
            a = in.DeQue<float>();  // nothing left to DeQue
            break;
        case 2:
            a = in.DeQue<float>();
            other.FreeTensor(a);  // a belongs to `in`
            in.FreeTensor(a);
            break;
        case 3:
            a = in.DeQue<float>();
            in.FreeTensor(a);
            in.FreeTensor(a);
            break;
        default:
            a = in.DeQue<float>();  // never freed
            break;
    }
}

extern "C" __global__ __aicore__ void use_after_free(GM_ADDR out, GM_ADDR tiling)
{
    (void)out;
    (void)tiling;
    TPipe pipe;
    TQue<TPosition::VECOUT, 1> que;
    pipe.InitBuffer(que, 1, kTile * sizeof(float));
    LocalTensor<float> a = que.AllocTensor<float>();
    Duplicate(a, 2.0f, kTile);
    que.FreeTensor(a);
    Adds(a, a, 1.0f, kTile);
}

extern "C" __global__ __aicore__ void ub_out_of_bounds(GM_ADDR out, GM_ADDR tiling)
{
    (void)out;
    GET_TILING_DATA_WITH_STRUCT(FaultTiling, t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, kTile * sizeof(float));
    Duplicate(buf.Get<float>(), 0.0f, t.count);
}

extern "C" __global__ __aicore__ void uninitialized(GM_ADDR out, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(FaultTiling, t, tiling);
    GlobalTensor<float> dst;
    dst.SetGlobalBuffer((__gm__ float*)out, kTile);
    TPipe pipe;
    TQue<TPosition::VECOUT, 1> que;
    pipe.InitBuffer(que, 1, kTile * sizeof(float));
    LocalTensor<float> a = que.AllocTensor<float>();
    Duplicate(a, 3.0f, t.count);
    que.EnQue(a);
    a = que.DeQue<float>();
    DataCopy(dst, a, kTile);
    que.FreeTensor(a);
}

extern "C" __global__ __aicore__ void missing_sync(GM_ADDR x, GM_ADDR out, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(FaultTiling, t, tiling);
    GlobalTensor<float> src;
    GlobalTensor<float> dst;
    src.SetGlobalBuffer((__gm__ float*)x, kTile);
    dst.SetGlobalBuffer((__gm__ float*)out, kTile);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, kTile * sizeof(float));
    LocalTensor<float> local = buf.Get<float>();
    DataCopy(local, src, kTile);
    if (t.flag != 0) {
        const TEventID id = GetTPipePtr()->FetchEventID(HardEvent::MTE2_V);
        SetFlag<HardEvent::MTE2_V>(id);
        WaitFlag<HardEvent::MTE2_V>(id);
    }
    Muls(local, local, 2.0f, kTile);
    const TEventID out_id = GetTPipePtr()->FetchEventID(HardEvent::V_MTE3);
    SetFlag<HardEvent::V_MTE3>(out_id);
    WaitFlag<HardEvent::V_MTE3>(out_id);
    DataCopy(dst, local, kTile);
}

extern "C" __global__ __aicore__ void unsupported(GM_ADDR out, GM_ADDR tiling)
{
    (void)out;
    GET_TILING_DATA_WITH_STRUCT(FaultTiling, t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 3 * kTile * sizeof(float));
    if (t.mode == 0) {
        LocalTensor<half> h = buf.Get<half>();
        LocalTensor<float> f = buf.Get<float>()[kTile];
        Duplicate(h, half(1.5f), kTile);
        Cast(f, h, RoundMode::CAST_RINT, kTile);
    } else {
        LocalTensor<bfloat16_t> b = buf.Get<bfloat16_t>();
        Duplicate(b, bfloat16_t(1.5f), kTile);
        Add(b, b, b, kTile);
    }
}

extern "C" __global__ __aicore__ void invalid_argument(GM_ADDR x, GM_ADDR tiling)
{
    (void)tiling;
    GlobalTensor<float> src;
    src.SetGlobalBuffer((__gm__ float*)x, kTile);
    TPipe pipe;
    TQue<TPosition::VECIN, 1> que;
    pipe.InitBuffer(que, 1, kTile * sizeof(float));
    LocalTensor<float> local = que.AllocTensor<float>();
    DataCopyExtParams params{1, 6, 0, 0, 0};  // 6 bytes: one and a half floats
    DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
    DataCopyPad(local, src, params, pad);
    que.EnQue(local);
    local = que.DeQue<float>();
    que.FreeTensor(local);
}

extern "C" __global__ __aicore__ void atomic_sum(GM_ADDR out, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(FaultTiling, t, tiling);
    GlobalTensor<float> dst;
    dst.SetGlobalBuffer((__gm__ float*)out, 8);
    TPipe pipe;
    TQue<TPosition::VECOUT, 1> que;
    pipe.InitBuffer(que, 1, 8 * sizeof(float));
    LocalTensor<float> a = que.AllocTensor<float>();
    Duplicate(a, static_cast<float>(GetBlockIdx() + 1), 8);
    que.EnQue(a);
    a = que.DeQue<float>();
    if (t.flag != 0) {
        SetAtomicAdd<float>();
    }
    DataCopy(dst, a, 8);
    if (t.flag != 0) {
        SetAtomicNone();
    }
    que.FreeTensor(a);
}
