// MulAddDst (dst = src0 * src1 + dst, two roundings), Axpy (dst = src * scalar + dst, two
// roundings), Floor (advanced API) and
// GetDataBlockSizeInBytes and Power against references computed here, and their findings (Divs: not on A2).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernel_operator.h"
#include "twin_test_util.h"

using namespace AscendC;

namespace {

constexpr uint32_t kN = 256;

struct ExtraTiling {
    uint32_t mode;
};

enum Mode : uint32_t {
    kMulAddDstFloat = 0,
    kMulAddDstHalfIntoFloat,
    kFloorInPlace,
    kFloorHalfWithTmpBuffer,
    kFloorPastTheBuffer,
    kDivsIsNotOnA2,
    kPowerTensorTensor,
    kPowerTensorScalarInPlace,
    kPowerScalarTensor,
    kAxpyFloat,
};

/// Axpy's scalar: 3 + 2^-22 makes most products need rounding.
constexpr float kAxpyScalar = 3.0000002384185791015625f;

static_assert(GetDataBlockSizeInBytes() == 32, "A2's data block");

}  // namespace

/// out = f(a, b, c) over kN floats, f chosen by the mode (halves are converted here, exactly).
extern "C" __global__ __aicore__ void mul_add_floor(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR out, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(ExtraTiling, t, tiling);
    GlobalTensor<float> aGm;
    GlobalTensor<float> bGm;
    GlobalTensor<float> cGm;
    GlobalTensor<float> outGm;
    aGm.SetGlobalBuffer((__gm__ float*)a, kN);
    bGm.SetGlobalBuffer((__gm__ float*)b, kN);
    cGm.SetGlobalBuffer((__gm__ float*)c, kN);
    outGm.SetGlobalBuffer((__gm__ float*)out, kN);
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufA;
    TBuf<TPosition::VECCALC> bufB;
    TBuf<TPosition::VECCALC> bufC;
    TBuf<TPosition::VECCALC> bufHalf;
    TBuf<TPosition::VECCALC> bufTmp;
    pipe.InitBuffer(bufA, kN * sizeof(float));
    pipe.InitBuffer(bufB, kN * sizeof(float));
    pipe.InitBuffer(bufC, kN * sizeof(float));
    pipe.InitBuffer(bufHalf, 2 * kN * sizeof(half));
    pipe.InitBuffer(bufTmp, 1024);
    LocalTensor<float> x = bufA.Get<float>();
    LocalTensor<float> y = bufB.Get<float>();
    LocalTensor<float> z = bufC.Get<float>();
    LocalTensor<half> h = bufHalf.Get<half>();
    LocalTensor<uint8_t> tmp = bufTmp.Get<uint8_t>();
    DataCopy(x, aGm, kN);
    DataCopy(y, bGm, kN);
    DataCopy(z, cGm, kN);
    PipeBarrier<PIPE_ALL>();
    switch (t.mode) {
        case kMulAddDstFloat: MulAddDst(z, x, y, kN); break;
        case kMulAddDstHalfIntoFloat:
            Cast(h, x, RoundMode::CAST_RINT, kN);
            Cast(h[kN], y, RoundMode::CAST_RINT, kN);
            MulAddDst(z, h, h[kN], kN);
            break;
        case kFloorInPlace: Floor(z, z, kN); break;
        case kFloorHalfWithTmpBuffer:
            Cast(h, z, RoundMode::CAST_RINT, kN);
            Floor(h[kN], h, tmp, kN);
            Cast(z, h[kN], RoundMode::CAST_NONE, kN);
            break;
        case kFloorPastTheBuffer: Floor(z[8], z, kN); break;
        case kDivsIsNotOnA2: Divs(z, x, 2.0f, kN); break;
        case kPowerTensorTensor: Power(z, x, y, tmp, kN); break;
        case kPowerTensorScalarInPlace: Power(z, z, 3.0f); break;  // all of z's elements
        case kPowerScalarTensor: Power(z, 2.0f, y, kN); break;
        case kAxpyFloat: Axpy(z, x, kAxpyScalar, kN); break;
        default: break;
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(outGm, z, kN);
}

/// Power (kPower) or MulAddDst on int32_t: A2 has Power on int32_t, with integer semantics the
/// documentation does not give, and no MulAddDst on int32_t; the twin reports both.
template <bool kPower>
__global__ __aicore__ void int32_op(GM_ADDR out)
{
    GlobalTensor<int32_t> outGm;
    outGm.SetGlobalBuffer((__gm__ int32_t*)out, 64);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64 * sizeof(int32_t));
    LocalTensor<int32_t> v = buf.Get<int32_t>();
    Duplicate(v, 3, 64);
    if constexpr (kPower) {
        Power(v, v, v, 64);
    } else {
        MulAddDst(v, v, v, 64);
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(outGm, v, 64);
}

namespace {

struct Inputs {
    std::vector<float> a, b, c;
};

/// Values whose products and sums need rounding: a product rounded first and a fused
/// multiply-add differ on many of them.
Inputs MakeInputs()
{
    Inputs in{std::vector<float>(kN), std::vector<float>(kN), std::vector<float>(kN)};
    for (uint32_t i = 0; i < kN; ++i) {
        in.a[i] = 1.0f + static_cast<float>(i) * 0.0078125f + 1.1920929e-7f * static_cast<float>(i % 7);
        in.b[i] = 3.0f - static_cast<float>(i) * 0.01171875f + 2.3841858e-7f * static_cast<float>(i % 5);
        in.c[i] = static_cast<float>(static_cast<int>(i % 41) - 20) * 0.37f;
    }
    return in;
}

std::vector<float> RunMode(uint32_t mode, const Inputs& in)
{
    twin_test::GmArray<float> a(kN);
    twin_test::GmArray<float> b(kN);
    twin_test::GmArray<float> c(kN);
    twin_test::GmArray<float> out(kN);
    twin_test::GmArray<ExtraTiling> tiling(1);
    std::memcpy(a.data(), in.a.data(), kN * sizeof(float));
    std::memcpy(b.data(), in.b.data(), kN * sizeof(float));
    std::memcpy(c.data(), in.c.data(), kN * sizeof(float));
    for (uint32_t i = 0; i < kN; ++i) {
        out[i] = -12345.0f;  // poison: every element must be overwritten
    }
    tiling[0] = ExtraTiling{mode};
    ICPU_RUN_KF(mul_add_floor, 1, a.gm(), b.gm(), c.gm(), out.gm(), tiling.gm());
    return std::vector<float>(out.data(), out.data() + kN);
}

TEST(MulAddFloor, MulAddDstRoundsTheProductThenTheSum)
{
    const Inputs in = MakeInputs();
    const std::vector<float> out = RunMode(kMulAddDstFloat, in);
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    uint32_t differs_from_fused = 0;
    for (uint32_t i = 0; i < kN; ++i) {
        const float product = static_cast<float>(static_cast<double>(in.a[i]) * in.b[i]);
        const float expected = static_cast<float>(static_cast<double>(product) + in.c[i]);
        EXPECT_EQ(out[i], expected) << i;
        differs_from_fused += std::fma(in.a[i], in.b[i], in.c[i]) != expected ? 1 : 0;
    }
    EXPECT_GT(differs_from_fused, 0u);  // the data tells the two roundings from one
}

TEST(MulAddFloor, AxpyRoundsTheProductThenTheSum)
{
    const Inputs in = MakeInputs();
    const std::vector<float> out = RunMode(kAxpyFloat, in);
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    uint32_t differs_from_fused = 0;
    for (uint32_t i = 0; i < kN; ++i) {
        const float product = static_cast<float>(static_cast<double>(in.a[i]) * kAxpyScalar);
        const float expected = static_cast<float>(static_cast<double>(product) + in.c[i]);
        EXPECT_EQ(out[i], expected) << i;
        differs_from_fused += std::fma(in.a[i], kAxpyScalar, in.c[i]) != expected ? 1 : 0;
    }
    EXPECT_GT(differs_from_fused, 0u);  // the data tells the two roundings from one
}

TEST(MulAddFloor, MulAddDstOfHalvesAccumulatesIntoFloat)
{
    const Inputs in = MakeInputs();
    const std::vector<float> out = RunMode(kMulAddDstHalfIntoFloat, in);
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    for (uint32_t i = 0; i < kN; ++i) {
        const double product = static_cast<double>(static_cast<float>(half(in.a[i]))) *
                               static_cast<float>(half(in.b[i]));  // exact in float too
        EXPECT_EQ(out[i], static_cast<float>(static_cast<float>(product) + static_cast<double>(in.c[i]))) << i;
    }
}

TEST(MulAddFloor, FloorRoundsTowardMinusInfinityInPlace)
{
    const Inputs in = MakeInputs();
    const std::vector<float> out = RunMode(kFloorInPlace, in);
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    for (uint32_t i = 0; i < kN; ++i) {
        EXPECT_EQ(out[i], std::floor(in.c[i])) << i;
    }
    EXPECT_EQ(out[1], -8.0f);  // floor(-7.03), as the documentation has Floor(-3.9) = -4
}

TEST(MulAddFloor, FloorOfHalfTakesASharedTmpBuffer)
{
    const Inputs in = MakeInputs();
    const std::vector<float> out = RunMode(kFloorHalfWithTmpBuffer, in);
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    for (uint32_t i = 0; i < kN; ++i) {
        EXPECT_EQ(out[i], std::floor(static_cast<float>(half(in.c[i])))) << i;
    }
}

TEST(MulAddFloor, FloorPastTheDestinationIsUbOutOfBoundsAndNotExecuted)
{
    const Inputs in = MakeInputs();
    const std::vector<float> out = RunMode(kFloorPastTheBuffer, in);
    EXPECT_TRUE(twin_test::OnlyCheck("ub-out-of-bounds")) << twin_test::Describe(twin_test::Findings());
    EXPECT_EQ(out[8], in.c[8]);
}

TEST(MulAddFloor, PowerOfTwoTensorsIsPowInDoubleRoundedOnce)
{
    const Inputs in = MakeInputs();
    const std::vector<float> out = RunMode(kPowerTensorTensor, in);
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    for (uint32_t i = 0; i < kN; ++i) {
        EXPECT_EQ(out[i], static_cast<float>(std::pow(static_cast<double>(in.a[i]), static_cast<double>(in.b[i])))) << i;
    }
}

TEST(MulAddFloor, PowerByAScalarOverAllElementsCubesInPlace)
{
    // The c values include negatives: an integral exponent keeps their sign.
    const Inputs in = MakeInputs();
    const std::vector<float> out = RunMode(kPowerTensorScalarInPlace, in);
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    for (uint32_t i = 0; i < kN; ++i) {
        EXPECT_EQ(out[i], static_cast<float>(std::pow(static_cast<double>(in.c[i]), 3.0))) << i;
    }
}

TEST(MulAddFloor, PowerOfAScalarBaseRaisesItToEachExponent)
{
    const Inputs in = MakeInputs();
    const std::vector<float> out = RunMode(kPowerScalarTensor, in);
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    for (uint32_t i = 0; i < kN; ++i) {
        EXPECT_EQ(out[i], static_cast<float>(std::exp2(static_cast<double>(in.b[i])))) << i;
    }
}

TEST(MulAddFloor, PowerOnInt32IsReportedNotComputed)
{
    twin_test::GmArray<int32_t> out(64);
    ICPU_RUN_KF(int32_op<true>, 1, out.gm());
    EXPECT_TRUE(twin_test::OnlyCheck("unsupported")) << twin_test::Describe(twin_test::Findings());
    EXPECT_EQ(out[0], 3);
}

TEST(MulAddFloor, DivsIsUnsupportedOnA2AndNotComputed)
{
    const Inputs in = MakeInputs();
    const std::vector<float> out = RunMode(kDivsIsNotOnA2, in);
    EXPECT_TRUE(twin_test::OnlyCheck("unsupported")) << twin_test::Describe(twin_test::Findings());
    EXPECT_EQ(out[0], in.c[0]);
}

TEST(MulAddFloor, MulAddDstOnInt32IsUnsupportedOnA2)
{
    twin_test::GmArray<int32_t> out(64);
    ICPU_RUN_KF(int32_op<false>, 1, out.gm());
    EXPECT_TRUE(twin_test::OnlyCheck("unsupported")) << twin_test::Describe(twin_test::Findings());
    EXPECT_EQ(out[0], 3);
}

}  // namespace
