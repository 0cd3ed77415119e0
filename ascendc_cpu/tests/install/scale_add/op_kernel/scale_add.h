// scale_add: z = alpha * x + y, an elementwise kernel in the layout and style of ops-nn's
// experimental kernels (written here to test the twin's install). DTYPE_X is float, half or
// bfloat16_t; half and bfloat16_t are computed in float.
#ifndef SCALE_ADD_H
#define SCALE_ADD_H

#include "kernel_operator.h"
#include "scale_add_tiling_data.h"
#include "scale_add_tiling_key.h"

namespace NsScaleAdd {

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelScaleAdd {
public:
    __aicore__ inline KernelScaleAdd() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const ScaleAddTilingData& tiling)
    {
        ASSERT(GetBlockNum() != 0 && "block dim can not be zero!");
        const uint32_t first = tiling.coreLength * static_cast<uint32_t>(GetBlockIdx());
        const bool last = GetBlockIdx() == GetBlockNum() - 1;
        length_ = first >= tiling.totalLength ? 0
                  : last                      ? tiling.totalLength - first
                                              : tiling.coreLength;
        tile_ = tiling.tileLength;
        alpha_ = tiling.alpha;
        xGm_.SetGlobalBuffer((__gm__ T*)x + first, length_);
        yGm_.SetGlobalBuffer((__gm__ T*)y + first, length_);
        zGm_.SetGlobalBuffer((__gm__ T*)z + first, length_);
        pipe_.InitBuffer(inQueueX_, BUFFER_NUM, tile_ * sizeof(T));
        pipe_.InitBuffer(inQueueY_, BUFFER_NUM, tile_ * sizeof(T));
        pipe_.InitBuffer(outQueueZ_, BUFFER_NUM, tile_ * sizeof(T));
        if constexpr (!Std::is_same<T, float>::value) {
            pipe_.InitBuffer(calcBuf_, 2 * tile_ * sizeof(float));
        }
    }

    __aicore__ inline void Process()
    {
        for (uint32_t done = 0, i = 0; done < length_; done += tile_, ++i) {
            const uint32_t count = length_ - done < tile_ ? length_ - done : tile_;
            CopyIn(i, count);
            Compute(count);
            CopyOut(i, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t i, uint32_t count)
    {
        LocalTensor<T> x = inQueueX_.AllocTensor<T>();
        LocalTensor<T> y = inQueueY_.AllocTensor<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        DataCopyPad(x, xGm_[i * tile_], params, pad);
        DataCopyPad(y, yGm_[i * tile_], params, pad);
        inQueueX_.EnQue(x);
        inQueueY_.EnQue(y);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<T> x = inQueueX_.DeQue<T>();
        LocalTensor<T> y = inQueueY_.DeQue<T>();
        LocalTensor<T> z = outQueueZ_.AllocTensor<T>();
        if constexpr (Std::is_same<T, float>::value) {
            Muls(z, x, alpha_, count);
            Add(z, z, y, count);
        } else {
            LocalTensor<float> xf = calcBuf_.Get<float>();
            LocalTensor<float> yf = xf[tile_];
            Cast(xf, x, RoundMode::CAST_NONE, count);
            Cast(yf, y, RoundMode::CAST_NONE, count);
            Muls(xf, xf, alpha_, count);
            Add(xf, xf, yf, count);
            Cast(z, xf, RoundMode::CAST_RINT, count);
        }
        outQueueZ_.EnQue<T>(z);
        inQueueX_.FreeTensor(x);
        inQueueY_.FreeTensor(y);
    }

    __aicore__ inline void CopyOut(uint32_t i, uint32_t count)
    {
        LocalTensor<T> z = outQueueZ_.DeQue<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        DataCopyPad(zGm_[i * tile_], z, params);
        outQueueZ_.FreeTensor(z);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX_, inQueueY_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ_;
    TBuf<QuePosition::VECCALC> calcBuf_;
    GlobalTensor<T> xGm_, yGm_, zGm_;
    uint32_t length_ = 0;
    uint32_t tile_ = 0;
    float alpha_ = 1.0f;
};

}  // namespace NsScaleAdd

#endif  // SCALE_ADD_H
