// WholeReduceSum/Max/Min and BlockReduceSum/Max/Min (See Note [Repeat reductions]) against
// references computed here: masks, strides, counter mode in place, the documented half
// saturation, and the findings for arguments out of range and types A2 lacks.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernel_operator.h"
#include "twin_test_util.h"

using namespace AscendC;

namespace {

constexpr uint32_t kIn = 512;   // floats of input: 8 repeats
constexpr uint32_t kOut = 256;  // floats of output
constexpr float kPoison = -777.0f;

struct ReduceTiling {
    uint32_t mode;
};

enum Mode : uint32_t {
    kWholeSumContinuous = 0,
    kWholeMaxBitsValueIndex,
    kWholeMinOnlyIndex,
    kBlockSum,
    kBlockMaxPartialMask,
    kCounterInPlace,
    kRepeatTimeTooLarge,
    kWholeSumStrided,
    kDstTooSmall,
};

}  // namespace

/// out (256 floats, poisoned) = one reduction of x (512 floats) chosen by the mode.
extern "C" __global__ __aicore__ void repeat_reduce_float(GM_ADDR x, GM_ADDR out, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(ReduceTiling, t, tiling);
    GlobalTensor<float> xGm;
    GlobalTensor<float> outGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, kIn);
    outGm.SetGlobalBuffer((__gm__ float*)out, kOut);
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQue;
    TQue<TPosition::VECOUT, 1> outQue;
    pipe.InitBuffer(inQue, 1, kIn * sizeof(float));
    pipe.InitBuffer(outQue, 1, kOut * sizeof(float));
    LocalTensor<float> src = inQue.AllocTensor<float>();
    DataCopy(src, xGm, kIn);
    inQue.EnQue(src);
    src = inQue.DeQue<float>();
    LocalTensor<float> dst = outQue.AllocTensor<float>();
    Duplicate(dst, kPoison, kOut);
    switch (t.mode) {
        case kWholeSumContinuous: WholeReduceSum(dst, src, 50, 3, 1, 1, 8); break;
        case kWholeMaxBitsValueIndex: {
            const uint64_t bits[2] = {0xF0F0F0F0F0F0F0F0ull, 0};
            WholeReduceMax(dst, src, bits, 2, 1, 1, 8);
            break;
        }
        case kWholeMinOnlyIndex: WholeReduceMin(dst, src, 64, 2, 1, 1, 8, ReduceOrder::ORDER_ONLY_INDEX); break;
        case kBlockSum: BlockReduceSum(dst, src, 2, 64, 1, 1, 8); break;
        case kBlockMaxPartialMask: BlockReduceMax(dst, src, 1, 20, 1, 1, 8); break;
        case kCounterInPlace:
            // As ops-nn's softmax kernels sum a row: block sums in place, then the sum of those.
            DataCopy(dst, src, kOut);
            SetMaskCount();
            SetVectorMask<float>(0, 200);
            BlockReduceSum<float, false>(dst, dst, 1, MASK_PLACEHOLDER, 1, 1, 8);
            SetVectorMask<float>(0, 25);
            WholeReduceSum<float, false>(dst, dst, 1, MASK_PLACEHOLDER, 1, 1, 8);
            SetMaskNorm();
            ResetMask();
            break;
        case kRepeatTimeTooLarge: WholeReduceSum(dst, src, 64, 300, 1, 1, 8); break;
        case kWholeSumStrided: WholeReduceSum(dst, src, 16, 2, 2, 2, 16); break;
        case kDstTooSmall: BlockReduceSum(dst[kOut - 8], src, 2, 64, 1, 1, 8); break;
        default: break;
    }
    inQue.FreeTensor(src);
    outQue.EnQue(dst);
    dst = outQue.DeQue<float>();
    DataCopy(outGm, dst, kOut);
    outQue.FreeTensor(dst);
}

/// out (16 halves) = BlockReduceSum (mode 0) or WholeReduceMax, value and index (mode 1), of x.
extern "C" __global__ __aicore__ void repeat_reduce_half(GM_ADDR x, GM_ADDR out, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(ReduceTiling, t, tiling);
    GlobalTensor<half> xGm;
    GlobalTensor<half> outGm;
    xGm.SetGlobalBuffer((__gm__ half*)x, 128);
    outGm.SetGlobalBuffer((__gm__ half*)out, 16);
    TPipe pipe;
    TBuf<TPosition::VECCALC> inBuf;
    TBuf<TPosition::VECCALC> outBuf;
    pipe.InitBuffer(inBuf, 128 * sizeof(half));
    pipe.InitBuffer(outBuf, 16 * sizeof(half));
    LocalTensor<half> src = inBuf.Get<half>();
    LocalTensor<half> dst = outBuf.Get<half>();
    DataCopy(src, xGm, 128);
    PipeBarrier<PIPE_ALL>();
    Duplicate(dst, half(-1.0f), 16);
    if (t.mode == 0) {
        BlockReduceSum(dst, src, 1, 128, 1, 1, 8);
    } else {
        WholeReduceMax(dst, src, 128, 1, 1, 1, 8);
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(outGm, dst, 16);
}

/// WholeReduceSum on int32_t, which A2 does not have.
extern "C" __global__ __aicore__ void repeat_reduce_int32(GM_ADDR out)
{
    GlobalTensor<int32_t> outGm;
    outGm.SetGlobalBuffer((__gm__ int32_t*)out, 64);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64 * sizeof(int32_t));
    LocalTensor<int32_t> t = buf.Get<int32_t>();
    Duplicate(t, 3, 64);
    WholeReduceSum(t, t, 64, 1, 1, 1, 8);
    PipeBarrier<PIPE_ALL>();
    DataCopy(outGm, t, 64);
}

namespace {

/// Inputs whose sums are exact in float in any order: multiples of 1/4 up to a few hundred.
std::vector<float> Input()
{
    std::vector<float> x(kIn);
    for (uint32_t i = 0; i < kIn; ++i) {
        x[i] = static_cast<float>(static_cast<int>((i * 37u + 11u) % 61u) - 30) * 0.25f;
    }
    return x;
}

std::vector<float> RunFloat(uint32_t mode, const std::vector<float>& x)
{
    twin_test::GmArray<float> in(kIn);
    twin_test::GmArray<float> out(kOut);
    twin_test::GmArray<ReduceTiling> tiling(1);
    std::memcpy(in.data(), x.data(), kIn * sizeof(float));
    tiling[0] = ReduceTiling{mode};
    ICPU_RUN_KF(repeat_reduce_float, 1, in.gm(), out.gm(), tiling.gm());
    return std::vector<float>(out.data(), out.data() + kOut);
}

uint32_t BitsOf(float v)
{
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    return bits;
}

TEST(RepeatReduce, WholeReduceSumAddsTheMaskedElementsOfEachRepeat)
{
    const std::vector<float> x = Input();
    const std::vector<float> out = RunFloat(kWholeSumContinuous, x);
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    for (uint32_t r = 0; r < 3; ++r) {
        double sum = 0.0;
        for (uint32_t j = 0; j < 50; ++j) {
            sum += x[r * 64 + j];
        }
        EXPECT_EQ(out[r], static_cast<float>(sum)) << r;
    }
    EXPECT_EQ(out[3], kPoison);
}

TEST(RepeatReduce, WholeReduceSumFollowsBlockAndRepeatStrides)
{
    const std::vector<float> x = Input();
    const std::vector<float> out = RunFloat(kWholeSumStrided, x);
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    for (uint32_t r = 0; r < 2; ++r) {
        double sum = 0.0;
        for (uint32_t j = 0; j < 8; ++j) {
            sum += x[r * 128 + j] + x[r * 128 + 16 + j];  // block 0, then the block 2 blocks on
        }
        EXPECT_EQ(out[r * 2], static_cast<float>(sum)) << r;
        EXPECT_EQ(out[r * 2 + 1], kPoison) << r;
    }
}

TEST(RepeatReduce, WholeReduceMaxGivesTheFirstMaximumAndItsIndexInTheRepeat)
{
    std::vector<float> x = Input();
    x[64 + 2] = 1000.0f;   // masked off (bit 2 clear): ignored
    x[64 + 12] = 500.0f;   // the first of two equal maxima
    x[64 + 60] = 500.0f;
    const std::vector<float> out = RunFloat(kWholeMaxBitsValueIndex, x);
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    for (uint32_t r = 0; r < 2; ++r) {
        float best = -1e30f;
        uint32_t index = 0;
        for (uint32_t j = 0; j < 64; ++j) {
            if (((0xF0F0F0F0F0F0F0F0ull >> j) & 1u) != 0 && x[r * 64 + j] > best) {
                best = x[r * 64 + j];
                index = j;
            }
        }
        EXPECT_EQ(out[2 * r], best) << r;
        EXPECT_EQ(BitsOf(out[2 * r + 1]), index) << r;
    }
    EXPECT_EQ(BitsOf(out[3]), 12u);
    EXPECT_EQ(out[4], kPoison);
}

TEST(RepeatReduce, WholeReduceMinOnlyIndexWritesOneIndexPerRepeat)
{
    std::vector<float> x = Input();
    x[7] = -100.0f;
    x[64 + 63] = -100.0f;
    const std::vector<float> out = RunFloat(kWholeMinOnlyIndex, x);
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    EXPECT_EQ(BitsOf(out[0]), 7u);
    EXPECT_EQ(BitsOf(out[1]), 63u);
    EXPECT_EQ(out[2], kPoison);
}

TEST(RepeatReduce, BlockReduceSumGivesEightSumsPerRepeat)
{
    const std::vector<float> x = Input();
    const std::vector<float> out = RunFloat(kBlockSum, x);
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    for (uint32_t b = 0; b < 16; ++b) {
        double sum = 0.0;
        for (uint32_t j = 0; j < 8; ++j) {
            sum += x[b * 8 + j];
        }
        EXPECT_EQ(out[b], static_cast<float>(sum)) << b;
    }
    EXPECT_EQ(out[16], kPoison);
}

TEST(RepeatReduce, BlockReduceMaxLeavesBlocksWithoutActiveElementsUnwritten)
{
    const std::vector<float> x = Input();
    const std::vector<float> out = RunFloat(kBlockMaxPartialMask, x);
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    for (uint32_t b = 0; b < 3; ++b) {
        float best = -1e30f;
        for (uint32_t j = b * 8; j < std::min(b * 8 + 8, 20u); ++j) {
            best = std::max(best, x[j]);
        }
        EXPECT_EQ(out[b], best) << b;
    }
    for (uint32_t b = 3; b < 8; ++b) {
        EXPECT_EQ(out[b], kPoison) << b;
    }
}

TEST(RepeatReduce, CounterModeBlockThenWholeSumInPlaceSumsTheRow)
{
    const std::vector<float> x = Input();
    const std::vector<float> out = RunFloat(kCounterInPlace, x);
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    double sum = 0.0;
    for (uint32_t i = 0; i < 200; ++i) {
        sum += x[i];
    }
    EXPECT_EQ(out[0], static_cast<float>(sum));
    for (uint32_t b = 1; b < 25; ++b) {  // block sums 1..24 stay where BlockReduceSum put them
        double block = 0.0;
        for (uint32_t j = 0; j < 8; ++j) {
            block += x[b * 8 + j];
        }
        EXPECT_EQ(out[b], static_cast<float>(block)) << b;
    }
}

TEST(RepeatReduce, RepeatTimePast255IsAnInvalidArgumentAndNotExecuted)
{
    const std::vector<float> out = RunFloat(kRepeatTimeTooLarge, Input());
    EXPECT_TRUE(twin_test::OnlyCheck("invalid-argument")) << twin_test::Describe(twin_test::Findings());
    EXPECT_EQ(out[0], kPoison);
}

TEST(RepeatReduce, ResultsPastTheDestinationAreUbOutOfBoundsAndNotExecuted)
{
    const std::vector<float> out = RunFloat(kDstTooSmall, Input());
    EXPECT_TRUE(twin_test::OnlyCheck("ub-out-of-bounds")) << twin_test::Describe(twin_test::Findings());
    EXPECT_EQ(out[kOut - 8], kPoison);
}

TEST(RepeatReduce, BlockReduceSumOfHalfSaturatesEachAdditionAsDocumented)
{
    // The documentation's example: [60000, 60000, -30000, 100] adds in pairs, 60000 + 60000
    // saturating to 65504, then adds the pair sums; the exact sum (90100) fits no half.
    twin_test::GmArray<half> in(128);
    twin_test::GmArray<half> out(16);
    twin_test::GmArray<ReduceTiling> tiling(1);
    for (uint32_t i = 0; i < 128; ++i) {
        const bool counted = i >= 16 && i % 16 != 15;
        in[i] = half(counted ? static_cast<float>(1 + i / 16) : 0.0f);
    }
    in[0] = half(60000.0f);
    in[1] = half(60000.0f);
    in[2] = half(-30000.0f);
    in[3] = half(100.0f);
    tiling[0] = ReduceTiling{0};
    ICPU_RUN_KF(repeat_reduce_half, 1, in.gm(), out.gm(), tiling.gm());
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    const float first_pair = 65504.0f;                               // saturated
    const float second_pair = static_cast<float>(half(-29900.0f));  // -29904: rounded to half
    EXPECT_EQ(static_cast<float>(out[0]), static_cast<float>(half(first_pair + second_pair)));
    EXPECT_EQ(static_cast<float>(out[0]), 35584.0f);
    for (uint32_t b = 1; b < 8; ++b) {
        EXPECT_EQ(static_cast<float>(out[b]), 15.0f * static_cast<float>(b + 1)) << b;
    }
    EXPECT_EQ(static_cast<float>(out[8]), -1.0f);
}

TEST(RepeatReduce, WholeReduceMaxOfHalfStoresTheIndexInTheNextElement)
{
    twin_test::GmArray<half> in(128);
    twin_test::GmArray<half> out(16);
    twin_test::GmArray<ReduceTiling> tiling(1);
    for (uint32_t i = 0; i < 128; ++i) {
        in[i] = half(static_cast<float>(static_cast<int>(i % 50) - 25));
    }
    in[97] = half(300.0f);
    tiling[0] = ReduceTiling{1};
    ICPU_RUN_KF(repeat_reduce_half, 1, in.gm(), out.gm(), tiling.gm());
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    EXPECT_EQ(static_cast<float>(out[0]), 300.0f);
    uint16_t index;
    std::memcpy(&index, &out[1], sizeof(index));
    EXPECT_EQ(index, 97u);
    EXPECT_EQ(static_cast<float>(out[2]), -1.0f);
}

TEST(RepeatReduce, Int32IsUnsupportedOnA2AndNotComputed)
{
    twin_test::GmArray<int32_t> out(64);
    ICPU_RUN_KF(repeat_reduce_int32, 1, out.gm());
    EXPECT_TRUE(twin_test::OnlyCheck("unsupported")) << twin_test::Describe(twin_test::Findings());
    EXPECT_EQ(out[0], 3);
}

}  // namespace
