// GatherMask: built-in patterns 1..7 and user patterns, normal and counter mode, block and repeat
// strides, rsvdCnt, against references computed here from the documented rule; and its findings.
// Gatherb: the documented example and strided repeats.
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernel_operator.h"
#include "twin_test_util.h"

using namespace AscendC;

namespace {

constexpr uint32_t kSrc = 512;      // source elements
constexpr uint32_t kPattern = 64;   // pattern words
constexpr uint32_t kOut = 512;      // destination elements

struct GatherMaskTiling {
    uint32_t pattern;  // 1..7 built-in (0, 8: out of range); 100: the user pattern
    uint32_t reduce_mode;
    uint32_t mask;
    uint32_t block_stride;
    uint32_t repeats;
    uint32_t repeat_stride;
    uint32_t pattern_repeat_stride;
    uint32_t wrong_pattern_type;  // 1: a uint8_t pattern tensor
};

constexpr uint32_t kUserPattern = 100;

}  // namespace

/// out[0..kOut) = GatherMask(src, pattern) over a zeroed destination; count[0] = rsvdCnt.
template <typename T>
__global__ __aicore__ void gather_mask_kernel(GM_ADDR src, GM_ADDR pattern, GM_ADDR out, GM_ADDR count,
                                              GM_ADDR tiling)
{
    using U = std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>;
    GET_TILING_DATA_WITH_STRUCT(GatherMaskTiling, t, tiling);
    GlobalTensor<T> srcGm;
    GlobalTensor<U> patternGm;
    GlobalTensor<T> outGm;
    GlobalTensor<uint64_t> countGm;
    srcGm.SetGlobalBuffer((__gm__ T*)src, kSrc);
    patternGm.SetGlobalBuffer((__gm__ U*)pattern, kPattern);
    outGm.SetGlobalBuffer((__gm__ T*)out, kOut);
    countGm.SetGlobalBuffer((__gm__ uint64_t*)count, 1);
    TPipe pipe;
    TBuf<TPosition::VECCALC> srcBuf;
    TBuf<TPosition::VECCALC> patternBuf;
    TBuf<TPosition::VECCALC> outBuf;
    pipe.InitBuffer(srcBuf, kSrc * sizeof(T));
    pipe.InitBuffer(patternBuf, kPattern * sizeof(U));
    pipe.InitBuffer(outBuf, kOut * sizeof(T));
    LocalTensor<T> s = srcBuf.Get<T>();
    LocalTensor<U> p = patternBuf.Get<U>();
    LocalTensor<T> d = outBuf.Get<T>();
    DataCopy(s, srcGm, kSrc);
    DataCopy(p, patternGm, kPattern);
    Duplicate(d, static_cast<T>(0), kOut);
    PipeBarrier<PIPE_ALL>();
    const GatherMaskParams params{static_cast<uint8_t>(t.block_stride), static_cast<uint16_t>(t.repeats),
                                  static_cast<uint16_t>(t.repeat_stride), static_cast<uint8_t>(t.pattern_repeat_stride)};
    uint64_t kept = 12345;
    if (t.wrong_pattern_type != 0) {
        GatherMask(d, s, patternBuf.Get<uint8_t>(), t.reduce_mode != 0, t.mask, params, kept);
    } else if (t.pattern == kUserPattern) {
        GatherMask(d, s, p, t.reduce_mode != 0, t.mask, params, kept);
    } else {
        GatherMask(d, s, static_cast<uint8_t>(t.pattern), t.reduce_mode != 0, t.mask, params, kept);
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(outGm, d, kOut);
    countGm.SetValue(0, kept);
}

namespace {

struct GatherbTiling {
    uint32_t repeats;
    uint32_t block_stride;
    uint32_t repeat_stride;
};

constexpr uint32_t kGatherbBytes = 4096;

}  // namespace

/// out = Gatherb(src, offsets) over a zeroed destination.
template <typename T>
__global__ __aicore__ void gatherb_kernel(GM_ADDR src, GM_ADDR offsets, GM_ADDR out, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(GatherbTiling, t, tiling);
    constexpr uint32_t kN = kGatherbBytes / sizeof(T);
    GlobalTensor<T> srcGm;
    GlobalTensor<uint32_t> offsetsGm;
    GlobalTensor<T> outGm;
    srcGm.SetGlobalBuffer((__gm__ T*)src, kN);
    offsetsGm.SetGlobalBuffer((__gm__ uint32_t*)offsets, 64);
    outGm.SetGlobalBuffer((__gm__ T*)out, kN);
    TPipe pipe;
    TBuf<TPosition::VECCALC> a;
    TBuf<TPosition::VECCALC> o;
    TBuf<TPosition::VECCALC> d;
    pipe.InitBuffer(a, kGatherbBytes);
    pipe.InitBuffer(o, 64 * sizeof(uint32_t));
    pipe.InitBuffer(d, kGatherbBytes);
    LocalTensor<T> s = a.Get<T>();
    LocalTensor<uint32_t> off = o.Get<uint32_t>();
    LocalTensor<T> dst = d.Get<T>();
    DataCopy(s, srcGm, kN);
    DataCopy(off, offsetsGm, 64);
    Duplicate(dst.template ReinterpretCast<uint16_t>(), static_cast<uint16_t>(0), kGatherbBytes / 2);
    PipeBarrier<PIPE_ALL>();
    Gatherb<T>(dst, s, off, static_cast<uint8_t>(t.repeats),
               GatherRepeatParams{static_cast<uint8_t>(t.block_stride), static_cast<uint8_t>(t.repeat_stride)});
    PipeBarrier<PIPE_ALL>();
    DataCopy(outGm, dst, kN);
}

namespace {

using twin_test::Describe;
using twin_test::Findings;
using twin_test::GmArray;

struct Result {
    std::vector<uint32_t> out;  // the destination's elements (as their index bits)
    uint64_t count;
};

/// Runs the kernel with src[i] = i + 1 and the given pattern words.
template <typename T>
Result RunGatherMask(const GatherMaskTiling& tiling, const std::vector<uint32_t>& pattern_words)
{
    using U = std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>;
    GmArray<T> src(kSrc);
    GmArray<U> pattern(kPattern);
    GmArray<T> out(kOut);
    GmArray<uint64_t> count(1);
    GmArray<GatherMaskTiling> t(1);
    t[0] = tiling;
    for (uint32_t i = 0; i < kSrc; ++i) {
        src[i] = static_cast<T>(i + 1);
    }
    for (uint32_t i = 0; i < kPattern; ++i) {
        pattern[i] = static_cast<U>(i < pattern_words.size() ? pattern_words[i] : 0);
    }
    ICPU_RUN_KF(gather_mask_kernel<T>, 1, src.gm(), pattern.gm(), out.gm(), count.gm(), t.gm());
    Result r{std::vector<uint32_t>(kOut), count[0]};
    for (uint32_t i = 0; i < kOut; ++i) {
        r.out[i] = static_cast<uint32_t>(static_cast<float>(out[i]));
    }
    return r;
}

/// The documented selection, element by element: what the destination must hold.
std::vector<uint32_t> Reference(const GatherMaskTiling& t, uint32_t element_bytes,
                                const std::vector<uint32_t>& pattern_words)
{
    const uint32_t per_block = 32 / element_bytes;
    const uint32_t per_repeat = t.reduce_mode != 0 ? t.mask : 256 / element_bytes;
    const uint32_t word_bits = element_bytes * 8;
    std::vector<uint32_t> kept;
    for (uint32_t r = 0; r < t.repeats; ++r) {
        for (uint32_t j = 0; j < per_repeat; ++j) {
            bool take = false;
            if (t.pattern == kUserPattern) {
                const uint32_t bit = r * t.pattern_repeat_stride * 256 + j;
                const uint32_t word = pattern_words[bit / word_bits] & (word_bits == 16 ? 0xffffu : 0xffffffffu);
                take = ((word >> (bit % word_bits)) & 1u) != 0;
            } else {
                const uint32_t p = t.pattern;
                take = p == 7 || (p == 1 && j % 2 == 0) || (p == 2 && j % 2 == 1) || (p >= 3 && j % 4 == p - 3);
            }
            if (take) {
                const uint32_t element =
                    (r * t.repeat_stride + (j / per_block) * t.block_stride) * per_block + j % per_block;
                kept.push_back(element + 1);  // src[i] = i + 1
            }
        }
    }
    return kept;
}

template <typename T>
void ExpectMatches(const GatherMaskTiling& t, const std::vector<uint32_t>& words)
{
    const Result r = RunGatherMask<T>(t, words);
    ASSERT_TRUE(Findings().empty()) << Describe(Findings());
    const std::vector<uint32_t> want = Reference(t, sizeof(T), words);
    ASSERT_EQ(r.count, want.size());
    for (uint32_t i = 0; i < kOut; ++i) {
        ASSERT_EQ(r.out[i], i < want.size() ? want[i] : 0u) << "element " << i;
    }
}

TEST(GatherMask, DocumentedBuiltInExample)
{
    // uint16_t [1..128], pattern 2, normal mode, {1, 1, 0, 0}: [2, 4, ..., 128] and rsvdCnt 64.
    const Result r = RunGatherMask<uint16_t>(GatherMaskTiling{2, 0, 0, 1, 1, 0, 0, 0}, {});
    ASSERT_TRUE(Findings().empty()) << Describe(Findings());
    EXPECT_EQ(r.count, 64u);
    for (uint32_t i = 0; i < 64; ++i) {
        ASSERT_EQ(r.out[i], 2 * (i + 1)) << i;
    }
    EXPECT_EQ(r.out[64], 0u);
}

TEST(GatherMask, EveryBuiltInPatternNormalModeWithStrides)
{
    for (uint32_t p = 1; p <= 7; ++p) {
        ExpectMatches<float>(GatherMaskTiling{p, 0, 0, 1, 3, 8, 0, 0}, {});
        ExpectMatches<half>(GatherMaskTiling{p, 0, 0, 2, 1, 0, 0, 0}, {});  // every other block
        ExpectMatches<int32_t>(GatherMaskTiling{p, 0, 0, 1, 2, 4, 0, 0}, {});  // repeats overlap
    }
}

TEST(GatherMask, UserPatternCounterModeAsDocumented)
{
    // The documentation's uint32_t example: mask 70, {1, 2, 4, 0}: 70 elements per repeat, the
    // second repeat from element 32, the same pattern bits for both.
    std::vector<uint32_t> words(kPattern);
    for (uint32_t i = 0; i < kPattern; ++i) {
        words[i] = 0x9e3779b9u * (i + 1);
    }
    ExpectMatches<uint32_t>(GatherMaskTiling{kUserPattern, 1, 70, 1, 2, 4, 0, 0}, words);
    ExpectMatches<float>(GatherMaskTiling{kUserPattern, 0, 0, 1, 3, 8, 1, 0}, words);   // pattern advances
    ExpectMatches<bfloat16_t>(GatherMaskTiling{kUserPattern, 0, 0, 1, 2, 8, 2, 0}, words);
    ExpectMatches<int16_t>(GatherMaskTiling{kUserPattern, 1, 37, 3, 2, 16, 1, 0}, words);
}

TEST(GatherMask, OutOfRangeArgumentsAreReportedAndNothingRuns)
{
    for (uint32_t p : {0u, 8u}) {
        const Result r = RunGatherMask<float>(GatherMaskTiling{p, 0, 0, 1, 1, 8, 0, 0}, {});
        EXPECT_TRUE(twin_test::HasFinding("invalid-argument", 0, "")) << p << Describe(Findings());
        EXPECT_EQ(r.count, 0u);
        EXPECT_EQ(r.out[0], 0u);
    }
    const Result counter = RunGatherMask<float>(GatherMaskTiling{7, 1, 0, 1, 1, 8, 0, 0}, {});  // counter mode, mask 0
    EXPECT_TRUE(twin_test::OnlyCheck("invalid-argument")) << Describe(Findings());
    EXPECT_EQ(counter.count, 0u);
    const Result wrong = RunGatherMask<float>(GatherMaskTiling{kUserPattern, 0, 0, 1, 1, 8, 0, 1}, {});  // uint8_t pattern
    EXPECT_TRUE(twin_test::OnlyCheck("invalid-argument")) << Describe(Findings());
    EXPECT_EQ(wrong.count, 0u);
    // A source read past its buffer: 3 repeats 300 blocks apart.
    const Result past = RunGatherMask<float>(GatherMaskTiling{7, 0, 0, 1, 3, 300, 0, 0}, {});
    EXPECT_TRUE(twin_test::OnlyCheck("ub-out-of-bounds")) << Describe(Findings());
    EXPECT_EQ(past.count, 0u);
}

}  // namespace

namespace {

template <typename T>
std::vector<uint32_t> RunGatherb(const GatherbTiling& tiling, const std::vector<uint32_t>& offsets)
{
    constexpr uint32_t kN = kGatherbBytes / sizeof(T);
    GmArray<T> src(kN);
    GmArray<uint32_t> off(64);
    GmArray<T> out(kN);
    GmArray<GatherbTiling> t(1);
    t[0] = tiling;
    for (uint32_t i = 0; i < kN; ++i) {
        src[i] = static_cast<T>(i);
    }
    for (uint32_t i = 0; i < 64; ++i) {
        off[i] = i < offsets.size() ? offsets[i] : 0;
    }
    ICPU_RUN_KF(gatherb_kernel<T>, 1, src.gm(), off.gm(), out.gm(), t.gm());
    return std::vector<uint32_t>(out.data(), out.data() + kN);
}

TEST(Gatherb, DocumentedExample)
{
    // uint16_t [0..127], offsets [224 192 ... 0], params {1, 8}, one repeat: the blocks reversed.
    const std::vector<uint32_t> out = RunGatherb<uint16_t>(GatherbTiling{1, 1, 8}, {224, 192, 160, 128, 96, 64, 32, 0});
    ASSERT_TRUE(Findings().empty()) << Describe(Findings());
    for (uint32_t j = 0; j < 8; ++j) {
        for (uint32_t e = 0; e < 16; ++e) {
            ASSERT_EQ(out[j * 16 + e], (7 - j) * 16 + e) << j << " " << e;
        }
    }
    EXPECT_EQ(out[128], 0u);
}

TEST(Gatherb, StridedRepeatsOfUint32)
{
    std::vector<uint32_t> offsets(24);
    for (uint32_t b = 0; b < 24; ++b) {
        offsets[b] = ((b * 7) % 32) * 32;  // blocks in a scrambled order
    }
    const GatherbTiling tiling{3, 2, 20};  // blocks 2 apart, repeats 20 blocks apart
    const std::vector<uint32_t> out = RunGatherb<uint32_t>(tiling, offsets);
    ASSERT_TRUE(Findings().empty()) << Describe(Findings());
    std::vector<uint32_t> want(kGatherbBytes / 4, 0);
    for (uint32_t r = 0; r < 3; ++r) {
        for (uint32_t j = 0; j < 8; ++j) {
            for (uint32_t e = 0; e < 8; ++e) {
                want[(r * 20 + j * 2) * 8 + e] = offsets[r * 8 + j] / 4 + e;
            }
        }
    }
    for (uint32_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(out[i], want[i]) << i;
    }
}

TEST(Gatherb, MisalignedOffsetsAndOtherTypesAreReported)
{
    const std::vector<uint32_t> out = RunGatherb<uint16_t>(GatherbTiling{1, 1, 8}, {0, 34, 64, 96, 128, 160, 192, 224});
    EXPECT_TRUE(twin_test::OnlyCheck("invalid-argument")) << Describe(Findings());
    EXPECT_EQ(out[0], 0u);
    RunGatherb<int16_t>(GatherbTiling{1, 1, 8}, {0, 32, 64, 96, 128, 160, 192, 224});
    EXPECT_TRUE(twin_test::OnlyCheck("unsupported")) << Describe(Findings());
}

}  // namespace
