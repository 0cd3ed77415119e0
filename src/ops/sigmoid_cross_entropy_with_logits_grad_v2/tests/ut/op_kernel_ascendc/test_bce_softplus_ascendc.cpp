// The shared log1p and softplus of the AscendC BCE kernels (src/ops/ascendc_common/
// bce_softplus_ascendc.h) on the twin, against long double: Log1pUnit over (0, 1], the tail
// log1p(exp(-|x|)) and both softplus over x in [-20, 20] and beyond. The quick part takes every
// 251st float of (0, 1] (and every binade edge) and every 1021st of the x range; with
// BCE_ASCENDC_FULL_SWEEP=1, every float of (0, 1] (the contract's measured maximum).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bce_periodic_operand_ascendc.h"
#include "bce_softplus_ascendc.h"
#include "gtest/gtest.h"
#include "kernel_operator.h"
#include "tikicpulib.h"

namespace bce_softplus_ascendc_test {
namespace {

using namespace AscendC;

// A twin finding ends the program, as in a CI run of CANN's CPU mode.
const bool kFatalChecks = (setenv("ASCENDC_CPU_FATAL", "1", 0), true);

bool FullSweep()
{
    const char* value = std::getenv("BCE_ASCENDC_FULL_SWEEP");
    return value != nullptr && value[0] == '1';
}

enum Function : int { kLog1pUnit, kSoftplusTail, kSoftplus, kSoftplusOfNegative };

struct TestTiling {
    uint64_t count;
};

/// Elements of a tile: a multiple of 64 (whole repeats), a few tiles per launch.
constexpr uint32_t kTile = 4096;

/// out[i] = FUNCTION(in[i]) for i < count, one core, tiles of kTile through queues.
template <int FUNCTION>
class FunctionKernel {
public:
    __aicore__ inline void Init(GM_ADDR in, GM_ADDR out, uint64_t count)
    {
        count_ = count;
        inGm_.SetGlobalBuffer((__gm__ float*)in, count);
        outGm_.SetGlobalBuffer((__gm__ float*)out, count);
        pipe_.InitBuffer(inQue_, bce_ascendc::BUFFER_NUM, kTile * sizeof(float));
        pipe_.InitBuffer(outQue_, bce_ascendc::BUFFER_NUM, kTile * sizeof(float));
        pipe_.InitBuffer(uBuf_, kTile * sizeof(float));
        pipe_.InitBuffer(tmp0Buf_, kTile * sizeof(float));
        pipe_.InitBuffer(tmp1Buf_, kTile * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        for (uint64_t first = 0; first < count_; first += kTile) {
            const uint32_t n = static_cast<uint32_t>(count_ - first < kTile ? count_ - first : kTile);
            bce_ascendc::LoadTile(inQue_, inGm_, first, n);
            LocalTensor<float> in = inQue_.DeQue<float>();
            LocalTensor<float> out = outQue_.AllocTensor<float>();
            const LocalTensor<float> u = uBuf_.Get<float>();
            const LocalTensor<float> tmp0 = tmp0Buf_.Get<float>();
            const LocalTensor<float> tmp1 = tmp1Buf_.Get<float>();
            if constexpr (FUNCTION == kLog1pUnit) {
                bce_ascendc::Log1pUnit(out, in, tmp0, tmp1, n);
            } else {
                bce_ascendc::SoftplusTail(out, in, u, tmp0, tmp1, n);
                if constexpr (FUNCTION == kSoftplus) {
                    bce_ascendc::Softplus(u, in, out, n);
                    Muls(out, u, 1.0f, n);  // exact
                } else if constexpr (FUNCTION == kSoftplusOfNegative) {
                    bce_ascendc::SoftplusOfNegative(u, in, out, n);
                    Muls(out, u, 1.0f, n);  // exact
                }
            }
            outQue_.EnQue(out);
            inQue_.FreeTensor(in);
            out = outQue_.DeQue<float>();
            bce_ascendc::CopyUbToGm(outGm_, first, out, n);
            outQue_.FreeTensor(out);
        }
    }

private:
    TPipe pipe_;
    TQue<QuePosition::VECIN, bce_ascendc::BUFFER_NUM> inQue_;
    TQue<QuePosition::VECOUT, bce_ascendc::BUFFER_NUM> outQue_;
    TBuf<QuePosition::VECCALC> uBuf_, tmp0Buf_, tmp1Buf_;
    GlobalTensor<float> inGm_, outGm_;
    uint64_t count_ = 0;
};

template <int FUNCTION>
__global__ __aicore__ void function_kernel(GM_ADDR in, GM_ADDR out, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(TestTiling, tilingData, tiling);
    FunctionKernel<FUNCTION> op;
    op.Init(in, out, tilingData.count);
    op.Process();
}

/// One ULP of float at |value| (the subnormal step below the smallest normal).
double UlpOf(long double value)
{
    const long double magnitude = std::fabs(value);
    if (magnitude < 0x1p-126L) return 0x1p-149;
    int exponent = 0;
    std::frexp(static_cast<double>(magnitude), &exponent);
    return std::ldexp(1.0, exponent - 24);
}

long double Exact(int function, float v)
{
    const long double x = v;
    switch (function) {
        case kLog1pUnit: return std::log1p(x);
        case kSoftplusTail: return std::log1p(std::exp(-std::fabs(x)));
        case kSoftplus: return (x > 0 ? x : 0) + std::log1p(std::exp(-std::fabs(x)));
        default: return (x < 0 ? -x : 0) + std::log1p(std::exp(-std::fabs(x)));
    }
}

struct UlpStats {
    double max_ulp = 0;
    float worst_input = 0;
    uint64_t values = 0;
};

/// Runs FUNCTION over inputs on the twin (exact-size GM buffers) and folds the ULP errors into stats.
template <int FUNCTION>
void RunChunk(const std::vector<float>& inputs, UlpStats* stats)
{
    const uint64_t n = inputs.size();
    float* in = static_cast<float*>(GmAlloc(n * sizeof(float)));
    float* out = static_cast<float*>(GmAlloc(n * sizeof(float)));
    auto* tiling = static_cast<TestTiling*>(GmAlloc(sizeof(TestTiling)));
    std::memcpy(in, inputs.data(), n * sizeof(float));
    tiling->count = n;
    uint8_t* in_gm = reinterpret_cast<uint8_t*>(in);
    uint8_t* out_gm = reinterpret_cast<uint8_t*>(out);
    uint8_t* tiling_gm = reinterpret_cast<uint8_t*>(tiling);
    ICPU_RUN_KF(function_kernel<FUNCTION>, 1, in_gm, out_gm, tiling_gm);
    EXPECT_TRUE(ascendc_cpu::LastRunFindings().empty());
    for (uint64_t i = 0; i < n; ++i) {
        const long double exact = Exact(FUNCTION, inputs[i]);
        const double ulp = static_cast<double>(std::fabs(static_cast<long double>(out[i]) - exact)) / UlpOf(exact);
        if (!(ulp <= stats->max_ulp)) {  // NaN results count as worst
            stats->max_ulp = std::isnan(ulp) ? INFINITY : ulp;
            stats->worst_input = inputs[i];
        }
    }
    stats->values += n;
    GmFree(in);
    GmFree(out);
    GmFree(tiling);
}

/// The bit patterns first, first + stride, ... up to last, and every power of two and its
/// neighbours in between, run in chunks.
template <int FUNCTION>
UlpStats Walk(uint32_t first_bits, uint32_t last_bits, uint32_t stride)
{
    constexpr size_t kChunk = size_t{1} << 24;
    UlpStats stats;
    std::vector<float> chunk;
    auto push = [&](uint32_t bits) {
        float value;
        std::memcpy(&value, &bits, sizeof(value));
        chunk.push_back(value);
        if (chunk.size() == kChunk) {
            RunChunk<FUNCTION>(chunk, &stats);
            chunk.clear();
        }
    };
    for (uint64_t bits = first_bits; bits <= last_bits; bits += stride) push(static_cast<uint32_t>(bits));
    for (uint32_t edge = first_bits & 0xff800000u; edge <= last_bits; edge += 0x00800000u) {
        for (uint32_t bits : {edge - 1, edge, edge + 1}) {
            if (bits >= first_bits && bits <= last_bits) push(bits);
        }
    }
    if (!chunk.empty()) RunChunk<FUNCTION>(chunk, &stats);
    return stats;
}

void Report(const char* what, const UlpStats& stats)
{
    std::printf("[ stats    ] %s: %llu values, max %.3f ULP at %a\n", what,
                static_cast<unsigned long long>(stats.values), stats.max_ulp, static_cast<double>(stats.worst_input));
}

constexpr uint32_t kOneBits = 0x3f800000u;     // 1.0f
constexpr uint32_t kTwentyBits = 0x41a00000u;  // 20.0f
constexpr uint32_t kSignBit = 0x80000000u;

class BceSoftplusAscendc : public testing::Test {
protected:
    void SetUp() override { SetKernelMode(KernelMode::AIV_MODE); }
};

TEST_F(BceSoftplusAscendc, Log1pUnitWithinContractOverZeroToOne)
{
    const UlpStats stats = Walk<kLog1pUnit>(1, kOneBits, FullSweep() ? 1 : 251);
    Report("Log1pUnit on (0, 1]", stats);
    EXPECT_LE(stats.max_ulp, 1.3) << "at " << stats.worst_input;
}

TEST_F(BceSoftplusAscendc, Log1pUnitOfZeroIsZeroAndOfOneIsLn2)
{
    UlpStats stats;
    RunChunk<kLog1pUnit>({0.0f, 1.0f}, &stats);
    EXPECT_LE(stats.max_ulp, 1.3);
}

TEST_F(BceSoftplusAscendc, SoftplusTailWithinTwoUlp)
{
    const uint32_t stride = FullSweep() ? 17 : 1021;
    UlpStats stats = Walk<kSoftplusTail>(0, kTwentyBits, stride);
    const UlpStats negative = Walk<kSoftplusTail>(kSignBit, kSignBit | kTwentyBits, stride);
    Report("SoftplusTail on [0, 20]", stats);
    Report("SoftplusTail on [-20, -0]", negative);
    EXPECT_LE(stats.max_ulp, 2.0) << "at " << stats.worst_input;
    EXPECT_LE(negative.max_ulp, 2.0) << "at " << negative.worst_input;
}

TEST_F(BceSoftplusAscendc, SoftplusOfBothSignsWithinTwoUlp)
{
    const uint32_t stride = FullSweep() ? 17 : 1021;
    const uint32_t limit = 0x42c80000u;  // 100.0f: beyond it exp(-|x|) underflows in part
    for (uint32_t sign : {0u, kSignBit}) {
        const UlpStats plus = Walk<kSoftplus>(sign, sign | limit, stride);
        const UlpStats minus = Walk<kSoftplusOfNegative>(sign, sign | limit, stride);
        Report(sign == 0 ? "Softplus(x), x in [0, 100]" : "Softplus(x), x in [-100, -0]", plus);
        Report(sign == 0 ? "Softplus(-x), x in [0, 100]" : "Softplus(-x), x in [-100, -0]", minus);
        EXPECT_LE(plus.max_ulp, 2.0) << "at " << plus.worst_input;
        EXPECT_LE(minus.max_ulp, 2.0) << "at " << minus.worst_input;
    }
}

}  // namespace
}  // namespace bce_softplus_ascendc_test
