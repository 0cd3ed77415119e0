// A BCE-with-logits gradient kernel written in the style of ops-nn's elementwise kernels, to test
// the twin with: gradient = (sigmoid(predict) - target) * dout * scale, computed in float.
//   - the elements are split over the cores, the first `big_cores` taking one element more;
//   - each core walks its elements in tiles through double-buffered queues (CopyIn -> Compute ->
//     CopyOut), whole tiles with DataCopy, the tail with DataCopyPad;
//   - half and bfloat16_t inputs are cast to float, the result cast back (bfloat16_t: CAST_RINT).
#ifndef ASCENDC_CPU_TESTS_BCE_GRAD_KERNEL_H
#define ASCENDC_CPU_TESTS_BCE_GRAD_KERNEL_H

#include <cstdint>
#include <type_traits>

#include "kernel_operator.h"

struct BceGradTiling {
    uint64_t small_core_elements;  // elements of a core past the first big_cores
    uint64_t big_cores;            // cores with small_core_elements + 1 elements
    uint32_t tile_elements;        // a multiple of 16 (whole 32-byte blocks of half and float)
    float scale;                   // 1/N for reduction=mean, else 1
};

/// The tiling for `elements` elements on `cores` cores with tiles of `tile_elements`.
inline BceGradTiling MakeBceGradTiling(uint64_t elements, uint64_t cores, uint32_t tile_elements, float scale)
{
    return BceGradTiling{elements / cores, elements % cores, tile_elements, scale};
}

namespace bce_grad {

using namespace AscendC;

constexpr int32_t kBufferNum = 2;
constexpr int32_t kWorkTiles = 4;  // x, y and dout in float, and one temporary

template <typename T>
class BceGradKernel {
public:
    __aicore__ inline BceGradKernel() {}

    __aicore__ inline void Init(GM_ADDR predict, GM_ADDR target, GM_ADDR dout, GM_ADDR gradient,
                                const BceGradTiling& tiling)
    {
        const uint64_t core = GetBlockIdx();
        const bool big = core < tiling.big_cores;
        core_elements_ = tiling.small_core_elements + (big ? 1 : 0);
        const uint64_t first =
            core * tiling.small_core_elements + (big ? core : tiling.big_cores);
        tile_ = tiling.tile_elements;
        scale_ = tiling.scale;
        predictGm_.SetGlobalBuffer((__gm__ T*)predict + first, core_elements_);
        targetGm_.SetGlobalBuffer((__gm__ T*)target + first, core_elements_);
        doutGm_.SetGlobalBuffer((__gm__ T*)dout + first, core_elements_);
        gradGm_.SetGlobalBuffer((__gm__ T*)gradient + first, core_elements_);
        pipe_.InitBuffer(predictQue_, kBufferNum, tile_ * sizeof(T));
        pipe_.InitBuffer(targetQue_, kBufferNum, tile_ * sizeof(T));
        pipe_.InitBuffer(doutQue_, kBufferNum, tile_ * sizeof(T));
        pipe_.InitBuffer(gradQue_, kBufferNum, tile_ * sizeof(T));
        pipe_.InitBuffer(work_, kWorkTiles * tile_ * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        const uint64_t tiles = (core_elements_ + tile_ - 1) / tile_;
        for (uint64_t t = 0; t < tiles; ++t) {
            const uint64_t remaining = core_elements_ - t * tile_;
            const uint32_t count = static_cast<uint32_t>(remaining < tile_ ? remaining : tile_);
            CopyIn(t, count);
            Compute(count);
            CopyOut(t, count);
        }
    }

private:
    __aicore__ inline void Load(TQue<QuePosition::VECIN, kBufferNum>& que, GlobalTensor<T>& gm, uint64_t t,
                                uint32_t count)
    {
        LocalTensor<T> local = que.template AllocTensor<T>();
        if (count == tile_) {
            DataCopy(local, gm[t * tile_], count);
        } else {
            DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> pad{false, 0, 0, 0};
            DataCopyPad(local, gm[t * tile_], params, pad);
        }
        que.EnQue(local);
    }

    __aicore__ inline void CopyIn(uint64_t t, uint32_t count)
    {
        Load(predictQue_, predictGm_, t, count);
        Load(targetQue_, targetGm_, t, count);
        Load(doutQue_, doutGm_, t, count);
    }

    /// The input in float: the tensor itself for float, else a cast into `slot` of the work buffer.
    __aicore__ inline LocalTensor<float> AsFloat(const LocalTensor<T>& in, uint32_t slot, uint32_t count)
    {
        if constexpr (std::is_same<T, float>::value) {
            return in;
        } else {
            LocalTensor<float> out = work_.Get<float>()[slot * tile_];
            Cast(out, in, RoundMode::CAST_NONE, count);
            return out;
        }
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<T> predict = predictQue_.template DeQue<T>();
        LocalTensor<T> target = targetQue_.template DeQue<T>();
        LocalTensor<T> dout = doutQue_.template DeQue<T>();
        LocalTensor<float> x = AsFloat(predict, 0, count);
        LocalTensor<float> y = AsFloat(target, 1, count);
        LocalTensor<float> d = AsFloat(dout, 2, count);
        LocalTensor<float> sig = work_.Get<float>()[3 * tile_];
        Muls(sig, x, -1.0f, count);
        Exp(sig, sig, count);
        Adds(sig, sig, 1.0f, count);
        Reciprocal(sig, sig, count);  // sigmoid(x) = 1 / (1 + exp(-x))
        Sub(sig, sig, y, count);
        Mul(sig, sig, d, count);
        if (scale_ != 1.0f) {
            Muls(sig, sig, scale_, count);
        }
        LocalTensor<T> grad = gradQue_.template AllocTensor<T>();
        if constexpr (std::is_same<T, float>::value) {
            DataCopy(grad, sig, (count + 7) / 8 * 8);  // whole blocks; the tail is cut by DataCopyPad
        } else if constexpr (std::is_same<T, bfloat16_t>::value) {
            Cast(grad, sig, RoundMode::CAST_RINT, count);
        } else {
            Cast(grad, sig, RoundMode::CAST_NONE, count);
        }
        gradQue_.EnQue(grad);
        predictQue_.FreeTensor(predict);
        targetQue_.FreeTensor(target);
        doutQue_.FreeTensor(dout);
    }

    __aicore__ inline void CopyOut(uint64_t t, uint32_t count)
    {
        LocalTensor<T> grad = gradQue_.template DeQue<T>();
        if (count == tile_) {
            DataCopy(gradGm_[t * tile_], grad, count);
        } else {
            DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
            DataCopyPad(gradGm_[t * tile_], grad, params);
        }
        gradQue_.FreeTensor(grad);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, kBufferNum> predictQue_, targetQue_, doutQue_;
    TQue<QuePosition::VECOUT, kBufferNum> gradQue_;
    TBuf<QuePosition::VECCALC> work_;
    GlobalTensor<T> predictGm_, targetGm_, doutGm_, gradGm_;
    uint64_t core_elements_ = 0;
    uint32_t tile_ = 0;
    float scale_ = 1.0f;
};

}  // namespace bce_grad

extern "C" __global__ __aicore__ void bce_grad_float(GM_ADDR predict, GM_ADDR target, GM_ADDR dout,
                                                     GM_ADDR gradient, GM_ADDR tiling);
extern "C" __global__ __aicore__ void bce_grad_half(GM_ADDR predict, GM_ADDR target, GM_ADDR dout,
                                                    GM_ADDR gradient, GM_ADDR tiling);
extern "C" __global__ __aicore__ void bce_grad_bfloat16(GM_ADDR predict, GM_ADDR target, GM_ADDR dout,
                                                        GM_ADDR gradient, GM_ADDR tiling);

#endif  // ASCENDC_CPU_TESTS_BCE_GRAD_KERNEL_H
