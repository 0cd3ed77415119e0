// The element loops of vector instructions run as baseline, AVX2 or AVX-512 code
// (ASCENDC_CPU_SIMD; README "Running"): every level gives the same bits, NaN payloads included,
// over random bit patterns of float (normal, subnormal, infinite, NaN) for the instructions whose
// element functions are the most intricate (Exp's polynomial, conversions, division, roots).
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "twin_test_util.h"

using namespace AscendC;

namespace {

constexpr uint32_t kSimdN = 4096;  // floats: 16 KiB

enum SimdMode : uint32_t {
    kModeExp,
    kModeLn,
    kModeSqrt,
    kModeRsqrt,
    kModeReciprocal,
    kModeDiv,
    kModeMulsAdds,
    kModeBfloat16RoundTrip,
    kModeHalfRoundTrip,
    kModeHalfExp,
    kModeCount,
};

struct SimdTiling {
    uint32_t mode;
};

}  // namespace

/// out = op(x) (or op(x, y)) for kSimdN floats, one instruction per step, as tiling.mode says.
extern "C" __global__ __aicore__ void simd_ops(GM_ADDR x, GM_ADDR y, GM_ADDR out, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(SimdTiling, t, tiling);
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    GlobalTensor<float> outGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, kSimdN);
    yGm.SetGlobalBuffer((__gm__ float*)y, kSimdN);
    outGm.SetGlobalBuffer((__gm__ float*)out, kSimdN);
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inX;
    TQue<TPosition::VECIN, 1> inY;
    TQue<TPosition::VECOUT, 1> outQue;
    TBuf<TPosition::VECCALC> narrow;
    pipe.InitBuffer(inX, 1, kSimdN * sizeof(float));
    pipe.InitBuffer(inY, 1, kSimdN * sizeof(float));
    pipe.InitBuffer(outQue, 1, kSimdN * sizeof(float));
    pipe.InitBuffer(narrow, kSimdN * sizeof(half));
    LocalTensor<float> a = inX.AllocTensor<float>();
    LocalTensor<float> b = inY.AllocTensor<float>();
    DataCopy(a, xGm, kSimdN);
    DataCopy(b, yGm, kSimdN);
    inX.EnQue(a);
    inY.EnQue(b);
    a = inX.DeQue<float>();
    b = inY.DeQue<float>();
    LocalTensor<float> r = outQue.AllocTensor<float>();
    LocalTensor<half> h = narrow.Get<half>();
    LocalTensor<bfloat16_t> bf = narrow.Get<bfloat16_t>();
    switch (t.mode) {
        case kModeExp: Exp(r, a, kSimdN); break;
        case kModeLn: Ln(r, a, kSimdN); break;
        case kModeSqrt: Sqrt(r, a, kSimdN); break;
        case kModeRsqrt: Rsqrt(r, a, kSimdN); break;
        case kModeReciprocal: Reciprocal(r, a, kSimdN); break;
        case kModeDiv: Div(r, a, b, kSimdN); break;
        case kModeMulsAdds:
            Muls(r, a, 0.3f, kSimdN);
            Adds(r, r, -1.7f, kSimdN);
            Mul(r, r, b, kSimdN);
            Sub(r, r, a, kSimdN);
            break;
        case kModeBfloat16RoundTrip:
            Cast(bf, a, RoundMode::CAST_RINT, kSimdN);
            Cast(r, bf, RoundMode::CAST_NONE, kSimdN);
            break;
        case kModeHalfRoundTrip:
            Cast(h, a, RoundMode::CAST_NONE, kSimdN);
            Cast(r, h, RoundMode::CAST_NONE, kSimdN);
            break;
        default:
            Cast(h, a, RoundMode::CAST_ODD, kSimdN);
            Exp(h, h, kSimdN);
            Cast(r, h, RoundMode::CAST_NONE, kSimdN);
            break;
    }
    outQue.EnQue(r);
    r = outQue.DeQue<float>();
    DataCopy(outGm, r, kSimdN);
    outQue.FreeTensor(r);
    inX.FreeTensor(a);
    inY.FreeTensor(b);
}

namespace {

using twin_test::Describe;
using twin_test::Findings;
using twin_test::GmArray;

/// Random bit patterns: a quarter of them in exp's interesting range [-104, 89], the rest any
/// float (subnormals, infinities and NaNs with payloads included).
std::vector<uint32_t> Patterns(uint32_t seed)
{
    std::mt19937 generator(seed);
    std::uniform_real_distribution<float> moderate(-104.0f, 89.0f);
    std::vector<uint32_t> bits(kSimdN);
    for (uint32_t i = 0; i < kSimdN; ++i) {
        if (i % 4 == 0) {
            const float v = moderate(generator);
            std::memcpy(&bits[i], &v, sizeof(v));
        } else {
            bits[i] = static_cast<uint32_t>(generator());
        }
    }
    return bits;
}

std::vector<uint32_t> RunSimdOps(uint32_t mode)
{
    const std::vector<uint32_t> x = Patterns(7 + mode);
    const std::vector<uint32_t> y = Patterns(1000 + mode);
    GmArray<uint32_t> xGm(kSimdN);
    GmArray<uint32_t> yGm(kSimdN);
    GmArray<uint32_t> outGm(kSimdN);
    GmArray<SimdTiling> tiling(1);
    tiling[0].mode = mode;
    std::memcpy(xGm.data(), x.data(), kSimdN * sizeof(uint32_t));
    std::memcpy(yGm.data(), y.data(), kSimdN * sizeof(uint32_t));
    ICPU_RUN_KF(simd_ops, 1, xGm.gm(), yGm.gm(), outGm.gm(), tiling.gm());
    EXPECT_TRUE(Findings().empty()) << Describe(Findings());
    return std::vector<uint32_t>(outGm.data(), outGm.data() + kSimdN);
}

TEST(Simd, EveryLevelGivesTheSameBits)
{
    for (uint32_t mode = 0; mode < kModeCount; ++mode) {
        std::vector<uint32_t> baseline;
        {
            twin_test::ScopedEnv env("ASCENDC_CPU_SIMD", "baseline");
            baseline = RunSimdOps(mode);
        }
        for (const char* level : {"avx2", "avx512", "auto"}) {
            twin_test::ScopedEnv env("ASCENDC_CPU_SIMD", level);
            const std::vector<uint32_t> again = RunSimdOps(mode);
            for (uint32_t i = 0; i < kSimdN; ++i) {
                ASSERT_EQ(baseline[i], again[i]) << "mode " << mode << ", " << level << ", element " << i;
            }
        }
    }
}

TEST(Simd, ExpOnTheVectorPathMatchesTheHost)
{
    // The element loop in use computes exp correctly rounded except within 1e-13 of a tie
    // (README, "Numbers"): compare with the host's double exp rounded to float.
    const std::vector<uint32_t> out = RunSimdOps(kModeExp);
    const std::vector<uint32_t> in = Patterns(7 + kModeExp);
    uint32_t compared = 0;
    for (uint32_t i = 0; i < kSimdN; i += 4) {
        float x;
        float got;
        std::memcpy(&x, &in[i], sizeof(x));
        std::memcpy(&got, &out[i], sizeof(got));
        const float want = static_cast<float>(std::exp(static_cast<double>(x)));
        ASSERT_EQ(got, want) << "exp(" << x << ")";
        ++compared;
    }
    EXPECT_EQ(compared, kSimdN / 4);
}

}  // namespace
