// DMA atomics (SetAtomicAdd/Max/Min, SetAtomicType, SetAtomicNone, DisableDmaAtomic): every core
// copies its row into the same GM row in the atomic mode; the row ends as the sum, maximum or
// minimum of its first value and every core's row, computed in the element type. A type A2 has no
// atomics for is reported and its copies dropped.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernel_operator.h"
#include "twin_test_util.h"

using namespace AscendC;

namespace {

constexpr uint32_t kRow = 64;  // elements per row: whole 32-byte blocks for every type

enum AtomicMode : uint32_t { kAdd = 1, kMax, kMin, kMinThenType };

struct AtomicTiling {
    uint32_t mode;
};

template <typename T>
__aicore__ inline void SetMode(uint32_t mode)
{
    switch (mode) {
        case kAdd: SetAtomicAdd<T>(); break;
        case kMax: SetAtomicMax<T>(); break;
        case kMin: SetAtomicMin<T>(); break;
        default:
            SetAtomicMin<int8_t>();  // any type, then the real one (as the documentation shows)
            SetAtomicType<T>();
            break;
    }
}

}  // namespace

/// Core i copies row i of `rows` into `out` in the atomic mode of tiling.mode.
template <typename T>
__global__ __aicore__ void atomic_rows(GM_ADDR rows, GM_ADDR out, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(AtomicTiling, t, tiling);
    GlobalTensor<T> rowsGm;
    GlobalTensor<T> outGm;
    rowsGm.SetGlobalBuffer((__gm__ T*)rows + GetBlockIdx() * kRow, kRow);
    outGm.SetGlobalBuffer((__gm__ T*)out, kRow);
    TPipe pipe;
    TQue<TPosition::VECIN, 1> que;
    pipe.InitBuffer(que, 1, kRow * sizeof(T));
    LocalTensor<T> row = que.AllocTensor<T>();
    DataCopy(row, rowsGm, kRow);
    que.EnQue(row);
    row = que.DeQue<T>();
    PipeBarrier<PIPE_ALL>();  // MTE2 -> MTE3: the row has landed
    SetMode<T>(t.mode);
    DataCopy(outGm, row, kRow);
    if (t.mode == kMinThenType) {
        DisableDmaAtomic();
    } else {
        SetAtomicNone();
    }
    que.FreeTensor(row);
}

namespace {

using twin_test::Describe;
using twin_test::Findings;
using twin_test::GmArray;

constexpr uint32_t kCores = 5;

/// Runs atomic_rows<T> over `rows` (kCores rows) onto `first`; returns the row as double.
template <typename T>
std::vector<double> RunRows(uint32_t mode, const std::vector<double>& rows, const std::vector<double>& first)
{
    GmArray<T> rowsGm(kCores * kRow);
    GmArray<T> out(kRow);
    GmArray<AtomicTiling> tiling(1);
    tiling[0].mode = mode;
    for (uint32_t i = 0; i < kCores * kRow; ++i) {
        rowsGm[i] = static_cast<T>(rows[i]);
    }
    for (uint32_t i = 0; i < kRow; ++i) {
        out[i] = static_cast<T>(first[i]);
    }
    ICPU_RUN_KF(atomic_rows<T>, kCores, rowsGm.gm(), out.gm(), tiling.gm());
    EXPECT_TRUE(Findings().empty()) << Describe(Findings());
    std::vector<double> result(kRow);
    for (uint32_t i = 0; i < kRow; ++i) {
        result[i] = static_cast<double>(static_cast<float>(out[i]));
    }
    return result;
}

/// Random small integers (exact in every type, sums of kCores + 1 of them too) with both signs.
std::vector<double> SmallIntegers(uint32_t count, uint32_t seed)
{
    std::mt19937 generator(seed);
    std::uniform_int_distribution<int> value(-20, 20);
    std::vector<double> v(count);
    for (double& x : v) {
        x = value(generator);
    }
    return v;
}

template <typename T>
class Atomic : public testing::Test {};

using AtomicTypes = testing::Types<float, half, bfloat16_t, int8_t, int16_t, int32_t>;
TYPED_TEST_SUITE(Atomic, AtomicTypes);

TYPED_TEST(Atomic, AddMaxMinCombineEveryCoreWithGm)
{
    const std::vector<double> rows = SmallIntegers(kCores * kRow, 3);
    const std::vector<double> first = SmallIntegers(kRow, 4);
    for (uint32_t mode : {kAdd, kMax, kMin, kMinThenType}) {
        const std::vector<double> got = RunRows<TypeParam>(mode, rows, first);
        for (uint32_t i = 0; i < kRow; ++i) {
            double want = first[i];
            for (uint32_t c = 0; c < kCores; ++c) {
                const double v = rows[c * kRow + i];
                want = mode == kAdd ? want + v : (mode == kMax ? std::max(want, v) : std::min(want, v));
            }
            ASSERT_EQ(got[i], want) << "mode " << mode << ", element " << i;
        }
    }
}

TEST(AtomicRounding, Bfloat16AddsRoundInBfloat16AndInt8Wraps)
{
    // 256 + 1 is not a bfloat16 (8 significant bits): each add rounds back to 256 (a tie, to even).
    std::vector<double> rows(kCores * kRow, 1.0);
    std::vector<double> first(kRow, 256.0);
    const std::vector<double> bf = RunRows<bfloat16_t>(kAdd, rows, first);
    EXPECT_EQ(bf[0], 256.0);
    // Adding 3 five times: each sum is odd, halfway between two bfloat16 (spaced 2 apart in
    // [256, 512)), and goes to the even significand: 259 -> 260, 263 -> 264, 267 -> 268,
    // 271 -> 272, 275 -> 276 (as half, 256 + 15 = 271 would be exact).
    std::fill(rows.begin(), rows.end(), 3.0);
    const std::vector<double> bf3 = RunRows<bfloat16_t>(kAdd, rows, first);
    EXPECT_EQ(bf3[0], 276.0);
    // int8_t wraps: 100 + 5 * 30 = 250 = -6 modulo 256.
    std::fill(rows.begin(), rows.end(), 30.0);
    std::fill(first.begin(), first.end(), 100.0);
    const std::vector<double> s8 = RunRows<int8_t>(kAdd, rows, first);
    EXPECT_EQ(s8[0], -6.0);
}

TEST(AtomicRounding, MaxAndMinGiveANaNOperand)
{
    std::vector<double> rows = SmallIntegers(kCores * kRow, 5);
    const std::vector<double> first = SmallIntegers(kRow, 6);
    rows[2 * kRow + 7] = std::nan("");
    for (uint32_t mode : {kMax, kMin}) {
        const std::vector<double> got = RunRows<float>(mode, rows, first);
        EXPECT_TRUE(std::isnan(got[7])) << mode;
        EXPECT_FALSE(std::isnan(got[8])) << mode;
    }
}

TEST(AtomicUnsupported, AnUnsupportedTypeIsReportedAndItsCopiesDropped)
{
    GmArray<uint32_t> rows(kCores * kRow);
    GmArray<uint32_t> out(kRow);
    GmArray<AtomicTiling> tiling(1);
    tiling[0].mode = kAdd;
    for (uint32_t i = 0; i < kCores * kRow; ++i) {
        rows[i] = 7;
    }
    for (uint32_t i = 0; i < kRow; ++i) {
        out[i] = 100;
    }
    ICPU_RUN_KF(atomic_rows<uint32_t>, kCores, rows.gm(), out.gm(), tiling.gm());
    EXPECT_TRUE(twin_test::HasFinding("unsupported", 0, ""));
    EXPECT_TRUE(twin_test::HasFinding("unsupported", 0, "out.gm()"));
    EXPECT_TRUE(twin_test::OnlyCheck("unsupported")) << Describe(Findings());
    for (uint32_t i = 0; i < kRow; ++i) {
        ASSERT_EQ(out[i], 100u) << i;
    }
}

}  // namespace
