// The API's documented semantics on small kernels: Cast in each RoundMode, Compare/CompareScalar
// with Select, reductions, DataCopyPad's padding, scalar access, tiling data, lazy GM.
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "kernel_operator.h"
#include "twin_test_util.h"

using namespace AscendC;

namespace {

constexpr uint32_t kN = 256;  // floats: 1 KiB, whole 256-byte repeats

struct ApiTiling {
    uint32_t mode;
    uint32_t count;
};

/// Loads kN floats of x into a VECIN tensor (EnQue/DeQue done).
template <typename Que>
__aicore__ inline LocalTensor<float> LoadAll(Que& que, GlobalTensor<float>& x)
{
    LocalTensor<float> t = que.template AllocTensor<float>();
    DataCopy(t, x, kN);
    que.EnQue(t);
    return que.template DeQue<float>();
}

template <typename T, typename Que>
__aicore__ inline void StoreAll(Que& que, LocalTensor<T>& t, GlobalTensor<T>& out, uint32_t count)
{
    que.EnQue(t);
    LocalTensor<T> done = que.template DeQue<T>();
    DataCopy(out, done, count);
    que.FreeTensor(done);
}

}  // namespace

/// out (half) = Cast(x, mode) for kN floats.
extern "C" __global__ __aicore__ void cast_to_half(GM_ADDR x, GM_ADDR out, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(ApiTiling, t, tiling);
    GlobalTensor<float> xGm;
    GlobalTensor<half> outGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, kN);
    outGm.SetGlobalBuffer((__gm__ half*)out, kN);
    TPipe pipe;
    TQue<TPosition::VECIN, 1> in;
    TQue<TPosition::VECOUT, 1> outQue;
    pipe.InitBuffer(in, 1, kN * sizeof(float));
    pipe.InitBuffer(outQue, 1, kN * sizeof(half));
    LocalTensor<float> src = LoadAll(in, xGm);
    LocalTensor<half> dst = outQue.AllocTensor<half>();
    Cast(dst, src, static_cast<RoundMode>(t.mode), kN);
    StoreAll(outQue, dst, outGm, kN);
    in.FreeTensor(src);
}

/// out (int32) = Cast(x, mode).
extern "C" __global__ __aicore__ void cast_to_int32(GM_ADDR x, GM_ADDR out, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(ApiTiling, t, tiling);
    GlobalTensor<float> xGm;
    GlobalTensor<int32_t> outGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, kN);
    outGm.SetGlobalBuffer((__gm__ int32_t*)out, kN);
    TPipe pipe;
    TQue<TPosition::VECIN, 1> in;
    TQue<TPosition::VECOUT, 1> outQue;
    pipe.InitBuffer(in, 1, kN * sizeof(float));
    pipe.InitBuffer(outQue, 1, kN * sizeof(int32_t));
    LocalTensor<float> src = LoadAll(in, xGm);
    LocalTensor<int32_t> dst = outQue.AllocTensor<int32_t>();
    Cast(dst, src, static_cast<RoundMode>(t.mode), kN);
    StoreAll(outQue, dst, outGm, kN);
    in.FreeTensor(src);
}

/// mode 0: out = relu(x) through CompareScalar(GT 0) + Select(tensor, scalar);
/// mode 1: out = min(x, y) through Compare(LT) + Select(tensor, tensor).
extern "C" __global__ __aicore__ void compare_select(GM_ADDR x, GM_ADDR y, GM_ADDR out, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(ApiTiling, t, tiling);
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    GlobalTensor<float> outGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, kN);
    yGm.SetGlobalBuffer((__gm__ float*)y, kN);
    outGm.SetGlobalBuffer((__gm__ float*)out, kN);
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inX;
    TQue<TPosition::VECIN, 1> inY;
    TQue<TPosition::VECOUT, 1> outQue;
    TBuf<TPosition::VECCALC> maskBuf;
    pipe.InitBuffer(inX, 1, kN * sizeof(float));
    pipe.InitBuffer(inY, 1, kN * sizeof(float));
    pipe.InitBuffer(outQue, 1, kN * sizeof(float));
    pipe.InitBuffer(maskBuf, kN / 8);
    LocalTensor<float> a = LoadAll(inX, xGm);
    LocalTensor<float> b = LoadAll(inY, yGm);
    LocalTensor<uint8_t> mask = maskBuf.Get<uint8_t>();
    LocalTensor<float> dst = outQue.AllocTensor<float>();
    if (t.mode == 0) {
        CompareScalar(mask, a, 0.0f, CMPMODE::GT, kN);
        Select(dst, mask, a, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, kN);
    } else {
        Compare(mask, a, b, CMPMODE::LT, kN);
        Select(dst, mask, a, b, SELMODE::VSEL_TENSOR_TENSOR_MODE, kN);
    }
    StoreAll(outQue, dst, outGm, kN);
    inX.FreeTensor(a);
    inY.FreeTensor(b);
}

/// out[0] = sum(x[0..count)), out[8..10) = max and its index (as int bits), out[16] = min.
extern "C" __global__ __aicore__ void reductions(GM_ADDR x, GM_ADDR out, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(ApiTiling, t, tiling);
    GlobalTensor<float> xGm;
    GlobalTensor<float> outGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, kN);
    outGm.SetGlobalBuffer((__gm__ float*)out, 24);
    TPipe pipe;
    TQue<TPosition::VECIN, 1> in;
    TQue<TPosition::VECOUT, 1> outQue;
    TBuf<TPosition::VECCALC> work;
    pipe.InitBuffer(in, 1, kN * sizeof(float));
    pipe.InitBuffer(outQue, 1, 24 * sizeof(float));
    pipe.InitBuffer(work, kN * sizeof(float));
    LocalTensor<float> src = LoadAll(in, xGm);
    LocalTensor<float> dst = outQue.AllocTensor<float>();
    Duplicate(dst, 0.0f, 24);
    ReduceSum(dst, src, work.Get<float>(), t.count);
    ReduceMax(dst[8], src, work.Get<float>(), t.count, true);
    ReduceMin(dst[16], src, work.Get<float>(), t.count);
    StoreAll(outQue, dst, outGm, 24);
    in.FreeTensor(src);
}

/// DataCopyPad of `count` floats from x with 2 floats of left and 3 of right padding (value 7 when
/// mode 1, undefined when mode 0); the whole padded block goes to out with DataCopy.
extern "C" __global__ __aicore__ void pad_copy(GM_ADDR x, GM_ADDR out, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(ApiTiling, t, tiling);
    GlobalTensor<float> xGm;
    GlobalTensor<float> outGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, kN);
    outGm.SetGlobalBuffer((__gm__ float*)out, kN);
    TPipe pipe;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> que;
    pipe.InitBuffer(que, 1, kN * sizeof(float));
    LocalTensor<float> local = que.AllocTensor<float>();
    DataCopyExtParams params{1, static_cast<uint32_t>(t.count * sizeof(float)), 0, 0, 0};
    DataCopyPadExtParams<float> pad{t.mode == 1, 2, 3, 7.0f};
    DataCopyPad(local, xGm, params, pad);
    que.EnQue(local);
    local = que.DeQue<float>();
    DataCopy(outGm, local, (2 + t.count + 3 + 7) / 8 * 8);
    que.FreeTensor(local);
}

/// Scalar access: out[i] = x[i] * 2 through LocalTensor/GlobalTensor GetValue/SetValue, then a
/// vector op on what SetValue wrote.
extern "C" __global__ __aicore__ void scalar_access(GM_ADDR x, GM_ADDR out, GM_ADDR tiling)
{
    (void)tiling;
    GlobalTensor<float> xGm;
    GlobalTensor<float> outGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 16);
    outGm.SetGlobalBuffer((__gm__ float*)out, 16);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 16 * sizeof(float));
    LocalTensor<float> t = buf.Get<float>();
    for (uint32_t i = 0; i < 8; ++i) {
        t.SetValue(i, xGm.GetValue(i) * 2.0f);
    }
    Muls(t, t, 1.0f, 8);  // the compiler's automatic S -> V synchronisation orders this
    for (uint32_t i = 0; i < 8; ++i) {
        outGm.SetValue(i, t.GetValue(i));
    }
    outGm.SetValue(8, static_cast<float>(t.GetSize()));
}

/// Writes 1.0 to the last float of a huge workspace.
extern "C" __global__ __aicore__ void touch_last(GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(ApiTiling, t, tiling);
    GlobalTensor<float> ws;
    ws.SetGlobalBuffer((__gm__ float*)workspace);
    ws.SetValue(static_cast<uint64_t>(t.count) * 1024 * 1024 / sizeof(float) - 1, 1.0f);
}

/// Traps on core 1 before writing; the others write their core index.
extern "C" __global__ __aicore__ void trap_on_one(GM_ADDR out, GM_ADDR tiling)
{
    (void)tiling;
    GlobalTensor<float> outGm;
    outGm.SetGlobalBuffer((__gm__ float*)out, 8);
    if (GetBlockIdx() == 1) {
        Trap();
    }
    outGm.SetValue(GetBlockIdx(), static_cast<float>(GetBlockIdx() + 10));
}

namespace {

using ascendc_cpu::numbers::Decompose;
using ascendc_cpu::numbers::Rounding;
using twin_test::Describe;
using twin_test::Findings;
using twin_test::GmArray;

std::vector<float> Ramp(float step, float offset)
{
    std::vector<float> v(kN);
    for (uint32_t i = 0; i < kN; ++i) {
        v[i] = offset + step * static_cast<float>(i);
    }
    return v;
}

TEST(Api, CastToHalfRoundsInEachMode)
{
    const std::vector<float> values = Ramp(0.000731f, -0.0937f);
    const std::pair<RoundMode, Rounding> modes[] = {
        {RoundMode::CAST_NONE, Rounding::kNearestEven}, {RoundMode::CAST_RINT, Rounding::kNearestEven},
        {RoundMode::CAST_FLOOR, Rounding::kFloor},      {RoundMode::CAST_CEIL, Rounding::kCeil},
        {RoundMode::CAST_ROUND, Rounding::kNearestAway}, {RoundMode::CAST_TRUNC, Rounding::kTowardZero},
        {RoundMode::CAST_ODD, Rounding::kOdd}};
    for (const auto& mode : modes) {
        GmArray<float> x(kN);
        GmArray<half> out(kN);
        GmArray<ApiTiling> tiling(1);
        std::memcpy(x.data(), values.data(), kN * sizeof(float));
        tiling[0] = ApiTiling{static_cast<uint32_t>(mode.first), kN};
        uint8_t* tl = tiling.gm();
        ICPU_RUN_KF(cast_to_half, 1, x.gm(), out.gm(), tl);
        ASSERT_TRUE(Findings().empty()) << Describe(Findings());
        for (uint32_t i = 0; i < kN; ++i) {
            const uint64_t expected = ascendc_cpu::numbers::RoundToFormat<10, 5>(Decompose(values[i]), mode.second);
            ASSERT_EQ(out[i].bits, expected) << "mode " << static_cast<int>(mode.first) << " element " << i;
        }
    }
}

TEST(Api, CastToInt32RoundsAndSaturates)
{
    std::vector<float> values = Ramp(0.25f, -32.0f);
    values[0] = 3.0e9f;
    values[1] = -3.0e9f;
    values[2] = std::nanf("");
    GmArray<float> x(kN);
    GmArray<int32_t> out(kN);
    GmArray<ApiTiling> tiling(1);
    std::memcpy(x.data(), values.data(), kN * sizeof(float));
    tiling[0] = ApiTiling{static_cast<uint32_t>(RoundMode::CAST_FLOOR), kN};
    uint8_t* tl = tiling.gm();
    ICPU_RUN_KF(cast_to_int32, 1, x.gm(), out.gm(), tl);
    ASSERT_TRUE(Findings().empty()) << Describe(Findings());
    EXPECT_EQ(out[0], INT32_MAX);
    EXPECT_EQ(out[1], INT32_MIN);
    EXPECT_EQ(out[2], 0);
    for (uint32_t i = 3; i < kN; ++i) {
        ASSERT_EQ(out[i], static_cast<int32_t>(std::floor(values[i]))) << i;
    }
}

TEST(Api, CastWithoutAnA2RoundModeIsRejected)
{
    GmArray<float> x(kN);
    GmArray<int32_t> out(kN);
    GmArray<ApiTiling> tiling(1);
    tiling[0] = ApiTiling{static_cast<uint32_t>(RoundMode::CAST_NONE), kN};  // float->int32 needs a mode
    uint8_t* tl = tiling.gm();
    ICPU_RUN_KF(cast_to_int32, 1, x.gm(), out.gm(), tl);
    EXPECT_TRUE(twin_test::HasFinding("unsupported", 0, "")) << Describe(Findings());
}

TEST(Api, CompareScalarAndSelectMakeRelu)
{
    const std::vector<float> values = Ramp(0.5f, -64.0f);
    GmArray<float> x(kN);
    GmArray<float> y(kN);
    GmArray<float> out(kN);
    GmArray<ApiTiling> tiling(1);
    std::memcpy(x.data(), values.data(), kN * sizeof(float));
    tiling[0] = ApiTiling{0, kN};
    uint8_t* tl = tiling.gm();
    ICPU_RUN_KF(compare_select, 1, x.gm(), y.gm(), out.gm(), tl);
    ASSERT_TRUE(Findings().empty()) << Describe(Findings());
    for (uint32_t i = 0; i < kN; ++i) {
        ASSERT_EQ(out[i], values[i] > 0.0f ? values[i] : 0.0f) << i;
    }
}

TEST(Api, CompareAndSelectMakeMin)
{
    const std::vector<float> a = Ramp(1.0f, -100.0f);
    const std::vector<float> b = Ramp(-1.0f, 100.0f);
    GmArray<float> x(kN);
    GmArray<float> y(kN);
    GmArray<float> out(kN);
    GmArray<ApiTiling> tiling(1);
    std::memcpy(x.data(), a.data(), kN * sizeof(float));
    std::memcpy(y.data(), b.data(), kN * sizeof(float));
    tiling[0] = ApiTiling{1, kN};
    uint8_t* tl = tiling.gm();
    ICPU_RUN_KF(compare_select, 1, x.gm(), y.gm(), out.gm(), tl);
    ASSERT_TRUE(Findings().empty()) << Describe(Findings());
    for (uint32_t i = 0; i < kN; ++i) {
        ASSERT_EQ(out[i], std::min(a[i], b[i])) << i;
    }
}

TEST(Api, ReductionsGiveSumMaxWithFirstIndexAndMin)
{
    std::vector<float> values = Ramp(0.0f, 1.0f);
    values[37] = 9.0f;
    values[90] = 9.0f;  // a second maximum: the first index is reported
    values[100] = -4.0f;
    GmArray<float> x(kN);
    GmArray<float> out(24);
    GmArray<ApiTiling> tiling(1);
    std::memcpy(x.data(), values.data(), kN * sizeof(float));
    tiling[0] = ApiTiling{0, 200};
    uint8_t* tl = tiling.gm();
    ICPU_RUN_KF(reductions, 1, x.gm(), out.gm(), tl);
    ASSERT_TRUE(Findings().empty()) << Describe(Findings());
    EXPECT_EQ(out[0], 197.0f + 9.0f + 9.0f - 4.0f);
    EXPECT_EQ(out[8], 9.0f);
    uint32_t index;
    std::memcpy(&index, &out[9], sizeof(index));
    EXPECT_EQ(index, 37u);
    EXPECT_EQ(out[16], -4.0f);
}

TEST(Api, DataCopyPadFillsPaddingWithTheValueGiven)
{
    const std::vector<float> values = Ramp(1.0f, 1.0f);
    GmArray<float> x(kN);
    GmArray<float> out(kN);
    GmArray<ApiTiling> tiling(1);
    std::memcpy(x.data(), values.data(), kN * sizeof(float));
    tiling[0] = ApiTiling{1, 5};  // 2 + 5 + 3 = 10 floats, filled to 16
    uint8_t* tl = tiling.gm();
    ICPU_RUN_KF(pad_copy, 1, x.gm(), out.gm(), tl);
    ASSERT_TRUE(Findings().empty()) << Describe(Findings());
    const float expected[16] = {7, 7, 1, 2, 3, 4, 5, 7, 7, 7, 7, 7, 7, 7, 7, 7};
    for (int i = 0; i < 16; ++i) {
        EXPECT_EQ(out[i], expected[i]) << i;
    }
}

TEST(Api, DataCopyPadWithoutAValueLeavesPaddingUndefined)
{
    GmArray<float> x(kN);
    GmArray<float> out(kN);
    GmArray<ApiTiling> tiling(1);
    tiling[0] = ApiTiling{0, 5};
    uint8_t* tl = tiling.gm();
    ICPU_RUN_KF(pad_copy, 1, x.gm(), out.gm(), tl);
    EXPECT_TRUE(twin_test::OnlyCheck("uninitialized")) << Describe(Findings());
    EXPECT_TRUE(std::isnan(out[0]));  // undefined padding reads as NaN
}

TEST(Api, ScalarGetValueAndSetValueOnGmAndUb)
{
    GmArray<float> x(16);
    GmArray<float> out(16);
    GmArray<ApiTiling> tiling(1);
    for (int i = 0; i < 16; ++i) {
        x[i] = static_cast<float>(i) + 0.5f;
    }
    uint8_t* tl = tiling.gm();
    ICPU_RUN_KF(scalar_access, 1, x.gm(), out.gm(), tl);
    ASSERT_TRUE(Findings().empty()) << Describe(Findings());
    for (int i = 0; i < 8; ++i) {
        EXPECT_EQ(out[i], 2.0f * x[i]);
    }
    EXPECT_EQ(out[8], 16.0f);  // GetSize of the TBuf's tensor
}

TEST(Api, LargeGmAllocCostsNothingUntilTouched)
{
    const uint32_t mebibytes = 4096;  // 4 GiB, as ops-nn UTs allocate workspaces of 1 GiB
    GmArray<uint8_t> workspace(static_cast<size_t>(mebibytes) << 20);
    GmArray<ApiTiling> tiling(1);
    tiling[0] = ApiTiling{0, mebibytes};
    uint8_t* tl = tiling.gm();
    ICPU_RUN_KF(touch_last, 1, workspace.gm(), tl);
    ASSERT_TRUE(Findings().empty()) << Describe(Findings());
    float last;
    std::memcpy(&last, workspace.data() + (static_cast<size_t>(mebibytes) << 20) - 4, sizeof(last));
    EXPECT_EQ(last, 1.0f);
}

TEST(Api, TilingBufferSmallerThanTheStructIsOutOfBounds)
{
    GmArray<float> x(kN);
    GmArray<half> out(kN);
    GmArray<uint8_t> tiling(4);  // ApiTiling has 8 bytes
    uint8_t* tl = tiling.gm();
    ICPU_RUN_KF(cast_to_half, 1, x.gm(), out.gm(), tl);
    EXPECT_TRUE(twin_test::HasFinding("gm-out-of-bounds", 0, "tl")) << Describe(Findings());
}

TEST(Api, TrapStopsOnlyItsCore)
{
    GmArray<float> out(8);
    GmArray<ApiTiling> tiling(1);
    uint8_t* tl = tiling.gm();
    ICPU_RUN_KF(trap_on_one, 3, out.gm(), tl);
    EXPECT_TRUE(twin_test::HasFinding("invalid-argument", 1, "")) << Describe(Findings());
    EXPECT_EQ(out[0], 10.0f);
    EXPECT_EQ(out[1], 0.0f);
    EXPECT_EQ(out[2], 12.0f);
}

TEST(Api, PointerArgumentsMustComeFromGmAlloc)
{
    std::vector<float> host(kN);
    GmArray<half> out(kN);
    GmArray<ApiTiling> tiling(1);
    uint8_t* tl = tiling.gm();
    uint8_t* not_gm = reinterpret_cast<uint8_t*>(host.data());
    ICPU_RUN_KF(cast_to_half, 1, not_gm, out.gm(), tl);
    EXPECT_TRUE(twin_test::HasFinding("invalid-argument", -1, "not_gm")) << Describe(Findings());
    EXPECT_TRUE(twin_test::HasFinding("gm-out-of-bounds", 0, "no GmAlloc buffer")) << Describe(Findings());
}

}  // namespace

/// Duplicate, SetValue on its result, DataCopyPad out: the compiler's V -> S and S -> MTE3
/// synchronisation orders the copy after the Duplicate (no flags needed).
extern "C" __global__ __aicore__ void scalar_orders_vector_and_dma(GM_ADDR out, GM_ADDR tiling)
{
    (void)tiling;
    GlobalTensor<float> outGm;
    outGm.SetGlobalBuffer((__gm__ float*)out, 8);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 8 * sizeof(float));
    LocalTensor<float> t = buf.Get<float>();
    Duplicate(t, 2.0f, 8);
    t.SetValue(0, 5.0f);
    DataCopyExtParams params{1, 8 * sizeof(float), 0, 0, 0};
    DataCopyPad(outGm, t, params);
}

namespace {

TEST(Api, ScalarAccessOrdersVectorBeforeLaterDma)
{
    twin_test::GmArray<float> out(8);
    twin_test::GmArray<ApiTiling> tiling(1);
    uint8_t* tl = tiling.gm();
    ICPU_RUN_KF(scalar_orders_vector_and_dma, 1, out.gm(), tl);
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    EXPECT_EQ(out[0], 5.0f);
    EXPECT_EQ(out[7], 2.0f);
}

}  // namespace

/// The mask/repeat forms on 128 floats of 1.0: mode 0: Adds 1 under a 40-element mask, 2 repeats;
/// mode 1: Muls 3 under a bit mask (elements 0 and 2 of each repeat); mode 2: Muls 2 in counter
/// mode over the first 100 elements (the mask registers, isSetMask = false).
extern "C" __global__ __aicore__ void masked_ops(GM_ADDR out, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(ApiTiling, t, tiling);
    GlobalTensor<float> outGm;
    outGm.SetGlobalBuffer((__gm__ float*)out, 128);
    TPipe pipe;
    TQue<TPosition::VECOUT, 1> que;
    pipe.InitBuffer(que, 1, 128 * sizeof(float));
    LocalTensor<float> x = que.AllocTensor<float>();
    Duplicate(x, 1.0f, 128);
    const UnaryRepeatParams params{1, 1, 8, 8};
    if (t.mode == 0) {
        Adds(x, x, 1.0f, 40, 2, params);
    } else if (t.mode == 1) {
        const uint64_t bits[2] = {0x5, 0};
        Muls(x, x, 3.0f, bits, 2, params);
    } else {
        SetMaskCount();
        SetVectorMask<float>(0, 100);
        Muls<float, false>(x, x, 2.0f, MASK_PLACEHOLDER, 1, params);
        SetMaskNorm();
        ResetMask();
    }
    StoreAll(que, x, outGm, 128);
}

namespace {

std::vector<float> RunMasked(uint32_t mode)
{
    twin_test::GmArray<float> out(128);
    twin_test::GmArray<ApiTiling> tiling(1);
    tiling[0] = ApiTiling{mode, 0};
    uint8_t* tl = tiling.gm();
    ICPU_RUN_KF(masked_ops, 1, out.gm(), tl);
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    return std::vector<float>(out.data(), out.data() + 128);
}

TEST(Api, ContinuousMaskSelectsTheFirstElementsOfEachRepeat)
{
    const std::vector<float> out = RunMasked(0);
    for (int i = 0; i < 128; ++i) {
        EXPECT_EQ(out[i], i % 64 < 40 ? 2.0f : 1.0f) << i;
    }
}

TEST(Api, BitMaskSelectsItsElementsOfEachRepeat)
{
    const std::vector<float> out = RunMasked(1);
    for (int i = 0; i < 128; ++i) {
        EXPECT_EQ(out[i], (i % 64 == 0 || i % 64 == 2) ? 3.0f : 1.0f) << i;
    }
}

TEST(Api, CounterModeCountsElementsOverAllRepeats)
{
    const std::vector<float> out = RunMasked(2);
    for (int i = 0; i < 128; ++i) {
        EXPECT_EQ(out[i], i < 100 ? 2.0f : 1.0f) << i;
    }
}

}  // namespace

namespace {
// A queue configured as ops-nn's kernels configure theirs: `TQue<pos, depth, &config>`.
constexpr TPosition kNoConsumers[8] = {TPosition::MAX, TPosition::MAX, TPosition::MAX, TPosition::MAX,
                                       TPosition::MAX, TPosition::MAX, TPosition::MAX, TPosition::MAX};
constexpr TQueConfig kQueueConfig = {false, false, false, 0, 1, 0,
                                     {kNoConsumers[1], kNoConsumers[2], kNoConsumers[3], kNoConsumers[4],
                                      kNoConsumers[5], kNoConsumers[6], kNoConsumers[7]}};
}  // namespace

/// out = x + 1 through queues declared with a TQueConfig.
extern "C" __global__ __aicore__ void configured_queues(GM_ADDR x, GM_ADDR out)
{
    GlobalTensor<float> xGm;
    GlobalTensor<float> outGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, kN);
    outGm.SetGlobalBuffer((__gm__ float*)out, kN);
    TPipe pipe;
    TQue<TPosition::VECIN, 1, &kQueueConfig> in;
    TQue<TPosition::VECOUT, 1, &kQueueConfig> outQue;
    pipe.InitBuffer(in, 1, kN * sizeof(float));
    pipe.InitBuffer(outQue, 1, kN * sizeof(float));
    LocalTensor<float> src = LoadAll(in, xGm);
    LocalTensor<float> dst = outQue.AllocTensor<float>();
    Adds(dst, src, 1.0f, kN);
    in.FreeTensor(src);
    StoreAll(outQue, dst, outGm, kN);
}

namespace {

TEST(Api, QueuesDeclaredWithATQueConfigWorkAsPlainQueues)
{
    twin_test::GmArray<float> x(kN);
    twin_test::GmArray<float> out(kN);
    for (uint32_t i = 0; i < kN; ++i) {
        x[i] = static_cast<float>(i) * 0.5f - 7.0f;
    }
    ICPU_RUN_KF(configured_queues, 1, x.gm(), out.gm());
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    for (uint32_t i = 0; i < kN; ++i) {
        EXPECT_EQ(out[i], x[i] + 1.0f) << i;
    }
}

}  // namespace

namespace {

TEST(Api, GetSystemCycleCountsFiftyCyclesAMicrosecond)
{
    const int64_t before = GetSystemCycle();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const int64_t after = GetSystemCycle();
    EXPECT_GE(after - before, 2000 * 50);                // at least the 2 ms slept
    EXPECT_LT(after - before, 60 * 1000 * 1000 * 50LL);  // and not a minute, even on a loaded machine
}

}  // namespace
