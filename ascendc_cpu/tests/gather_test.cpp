// CreateVecIndex, Gather and Brcb against references computed here, their findings, and the
// securec.h memcpy_s/memset_s that kernels' CPU-debug tiling macros use.
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernel_operator.h"
#include "securec.h"
#include "twin_test_util.h"

using namespace AscendC;

namespace {

constexpr uint32_t kN = 128;  // elements gathered
constexpr uint32_t kTable = 64;  // floats in the gathered-from table

struct GatherTiling {
    uint32_t mode;
    uint32_t base;  // srcBaseAddr in bytes
};

enum Mode : uint32_t {
    kGatherFloat = 0,
    kGatherMisaligned,
    kGatherPastTheSource,
    kIndexFloat,
    kIndexHalf,
    kIndexInt16Wraps,
    kBrcbContiguous,
    kBrcbStrided,
    kBrcbOverlapping,
};

}  // namespace

/// out (kN floats or their bits) from a table of kTable floats and kN byte offsets.
extern "C" __global__ __aicore__ void gather_kernel(GM_ADDR table, GM_ADDR offsets, GM_ADDR out, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(GatherTiling, t, tiling);
    GlobalTensor<float> tableGm;
    GlobalTensor<uint32_t> offsetsGm;
    GlobalTensor<float> outGm;
    tableGm.SetGlobalBuffer((__gm__ float*)table, kTable);
    offsetsGm.SetGlobalBuffer((__gm__ uint32_t*)offsets, kN);
    outGm.SetGlobalBuffer((__gm__ float*)out, kN);
    TPipe pipe;
    TBuf<TPosition::VECCALC> tableBuf;
    TBuf<TPosition::VECCALC> offsetsBuf;
    TBuf<TPosition::VECCALC> outBuf;
    pipe.InitBuffer(tableBuf, kTable * sizeof(float));
    pipe.InitBuffer(offsetsBuf, kN * sizeof(uint32_t));
    pipe.InitBuffer(outBuf, kN * sizeof(float));
    LocalTensor<float> src = tableBuf.Get<float>();
    LocalTensor<uint32_t> offs = offsetsBuf.Get<uint32_t>();
    LocalTensor<float> dst = outBuf.Get<float>();
    DataCopy(src, tableGm, kTable);
    DataCopy(offs, offsetsGm, kN);
    PipeBarrier<PIPE_ALL>();
    Duplicate(dst, -5.0f, kN);
    switch (t.mode) {
        case kGatherFloat:
        case kGatherMisaligned:
        case kGatherPastTheSource: Gather(dst, src, offs, t.base, kN); break;
        case kIndexFloat: CreateVecIndex(dst, 2.5f, kN); break;
        case kIndexHalf: {
            LocalTensor<half> h = dst.ReinterpretCast<half>();
            CreateVecIndex(h, half(2040.0f), 2 * kN);  // past 2048 halves step by 2: rounded
            break;
        }
        case kIndexInt16Wraps: {
            LocalTensor<int16_t> s = dst.ReinterpretCast<int16_t>();
            CreateVecIndex(s, static_cast<int16_t>(32700), 2 * kN);
            break;
        }
        case kBrcbContiguous: Brcb(dst, src, 2, BrcbRepeatParams(1, 8)); break;
        case kBrcbStrided: Brcb(dst, src, 1, BrcbRepeatParams(2, 16)); break;
        case kBrcbOverlapping: Brcb(src, src, 1, BrcbRepeatParams(1, 8)); break;
        default: break;
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(outGm, dst, kN);
}

namespace {

struct GatherRun {
    std::vector<float> table;
    std::vector<uint32_t> offsets;
    std::vector<float> out;
};

GatherRun RunGather(uint32_t mode, uint32_t base, uint32_t bad_offset = 0)
{
    GatherRun run{std::vector<float>(kTable), std::vector<uint32_t>(kN), {}};
    for (uint32_t i = 0; i < kTable; ++i) {
        run.table[i] = 100.0f + static_cast<float>(i) * 1.5f;
    }
    for (uint32_t i = 0; i < kN; ++i) {
        run.offsets[i] = ((i * 29u + 7u) % (kTable - base / sizeof(float))) * sizeof(float);  // a permutation-like walk
    }
    if (bad_offset != 0) {
        run.offsets[kN / 2] = bad_offset;
    }
    twin_test::GmArray<float> table(kTable);
    twin_test::GmArray<uint32_t> offsets(kN);
    twin_test::GmArray<float> out(kN);
    twin_test::GmArray<GatherTiling> tiling(1);
    std::memcpy(table.data(), run.table.data(), kTable * sizeof(float));
    std::memcpy(offsets.data(), run.offsets.data(), kN * sizeof(uint32_t));
    tiling[0] = GatherTiling{mode, base};
    ICPU_RUN_KF(gather_kernel, 1, table.gm(), offsets.gm(), out.gm(), tiling.gm());
    run.out.assign(out.data(), out.data() + kN);
    return run;
}

TEST(Gather, GathersTheElementAtBaseAddressPlusEachByteOffset)
{
    const uint32_t base = 8 * sizeof(float);
    const GatherRun run = RunGather(kGatherFloat, base);
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    for (uint32_t i = 0; i < kN; ++i) {
        EXPECT_EQ(run.out[i], run.table[(base + run.offsets[i]) / sizeof(float)]) << i;
    }
}

TEST(Gather, AnOffsetNotAMultipleOfTheElementSizeIsAnInvalidArgument)
{
    const GatherRun run = RunGather(kGatherMisaligned, 0, 6);
    EXPECT_TRUE(twin_test::OnlyCheck("invalid-argument")) << twin_test::Describe(twin_test::Findings());
    EXPECT_EQ(run.out[0], -5.0f);  // not executed
}

TEST(Gather, AnOffsetPastTheSourceBufferIsUbOutOfBoundsAndNotExecuted)
{
    const GatherRun run = RunGather(kGatherPastTheSource, 0, kTable * sizeof(float));
    EXPECT_TRUE(twin_test::OnlyCheck("ub-out-of-bounds")) << twin_test::Describe(twin_test::Findings());
    EXPECT_EQ(run.out[0], -5.0f);
}

TEST(CreateVecIndex, CountsUpFromTheFirstValue)
{
    const GatherRun run = RunGather(kIndexFloat, 0);
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    for (uint32_t i = 0; i < kN; ++i) {
        EXPECT_EQ(run.out[i], 2.5f + static_cast<float>(i)) << i;
    }
}

TEST(CreateVecIndex, HalfValuesAreRoundedToHalf)
{
    const GatherRun run = RunGather(kIndexHalf, 0);
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    half values[2 * kN];
    std::memcpy(values, run.out.data(), sizeof(values));
    for (uint32_t i = 0; i < 2 * kN; ++i) {
        EXPECT_EQ(static_cast<float>(values[i]), static_cast<float>(half(2040.0 + i))) << i;
    }
    EXPECT_EQ(static_cast<float>(values[9]), 2048.0f);   // 2049 ties to even
    EXPECT_EQ(static_cast<float>(values[11]), 2052.0f);  // 2051 ties to even
}

TEST(CreateVecIndex, Int16WrapsAround)
{
    const GatherRun run = RunGather(kIndexInt16Wraps, 0);
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    int16_t values[2 * kN];
    std::memcpy(values, run.out.data(), sizeof(values));
    for (uint32_t i = 0; i < 2 * kN; ++i) {
        EXPECT_EQ(values[i], static_cast<int16_t>(static_cast<uint16_t>(32700u + i))) << i;
    }
    EXPECT_EQ(values[68], -32768);
}

TEST(Brcb, EachElementFillsOneBlock)
{
    const GatherRun run = RunGather(kBrcbContiguous, 0);
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    for (uint32_t i = 0; i < kN; ++i) {
        EXPECT_EQ(run.out[i], run.table[i / 8]) << i;  // 8 floats a block, 16 blocks over 2 repeats
    }
}

TEST(Brcb, BlockStrideSkipsBlocks)
{
    const GatherRun run = RunGather(kBrcbStrided, 0);
    EXPECT_TRUE(twin_test::Findings().empty()) << twin_test::Describe(twin_test::Findings());
    for (uint32_t i = 0; i < kN; ++i) {
        const uint32_t block = i / 8;
        EXPECT_EQ(run.out[i], block % 2 == 0 ? run.table[block / 2] : -5.0f) << i;
    }
}

TEST(Brcb, OverlappingOperandsAreAnInvalidArgument)
{
    RunGather(kBrcbOverlapping, 0);
    EXPECT_TRUE(twin_test::OnlyCheck("invalid-argument")) << twin_test::Describe(twin_test::Findings());
}

TEST(Securec, MemcpySCopiesWithinTheDestinationSize)
{
    const uint8_t src[4] = {1, 2, 3, 4};
    uint8_t dst[4] = {9, 9, 9, 9};
    EXPECT_EQ(memcpy_s(dst, sizeof(dst), src, 3), EOK);
    EXPECT_EQ(dst[2], 3);
    EXPECT_EQ(dst[3], 9);
}

TEST(Securec, MemcpySPastTheDestinationFailsAndZeroesIt)
{
    const uint8_t src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint8_t dst[4] = {9, 9, 9, 9};
    EXPECT_NE(memcpy_s(dst, sizeof(dst), src, sizeof(src)), EOK);
    EXPECT_EQ(dst[0], 0);
    EXPECT_EQ(dst[3], 0);
    EXPECT_NE(memcpy_s(nullptr, 4, src, 1), EOK);
    EXPECT_NE(memcpy_s(dst, sizeof(dst), dst + 1, 2), EOK);  // overlap
}

TEST(Securec, MemsetSFillsWithinTheDestinationSize)
{
    uint8_t dst[4] = {9, 9, 9, 9};
    EXPECT_EQ(memset_s(dst, sizeof(dst), 7, 2), EOK);
    EXPECT_EQ(dst[1], 7);
    EXPECT_EQ(dst[2], 9);
    EXPECT_NE(memset_s(dst, sizeof(dst), 0, 5), EOK);
}

}  // namespace
