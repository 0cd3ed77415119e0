// Sort32 and MrgSort: (score, index) structures of 8 bytes, largest score first, equal scores in position
// order, each repeat on its own; against a hand-worked group and a reference sort written here;
// NaN and repeatTime findings.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernel_operator.h"
#include "twin_test_util.h"

using namespace AscendC;

namespace {

constexpr uint32_t kMaxRepeats = 4;
constexpr uint32_t kScores = kMaxRepeats * 32;

struct SortTiling {
    int32_t repeats;
};

}  // namespace

/// out = Sort32(scores, indices) for tiling.repeats groups of 32.
template <typename T>
__global__ __aicore__ void sort32_kernel(GM_ADDR scores, GM_ADDR indices, GM_ADDR out, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(SortTiling, t, tiling);
    constexpr uint32_t kOutElements = kScores * 8 / sizeof(T);
    GlobalTensor<T> scoresGm;
    GlobalTensor<uint32_t> indicesGm;
    GlobalTensor<T> outGm;
    scoresGm.SetGlobalBuffer((__gm__ T*)scores, kScores);
    indicesGm.SetGlobalBuffer((__gm__ uint32_t*)indices, kScores);
    outGm.SetGlobalBuffer((__gm__ T*)out, kOutElements);
    TPipe pipe;
    TBuf<TPosition::VECCALC> s;
    TBuf<TPosition::VECCALC> i;
    TBuf<TPosition::VECCALC> o;
    pipe.InitBuffer(s, kScores * sizeof(T));
    pipe.InitBuffer(i, kScores * sizeof(uint32_t));
    pipe.InitBuffer(o, kOutElements * sizeof(T));
    LocalTensor<T> sl = s.Get<T>();
    LocalTensor<uint32_t> il = i.Get<uint32_t>();
    LocalTensor<T> ol = o.Get<T>();
    DataCopy(sl, scoresGm, kScores);
    DataCopy(il, indicesGm, kScores);
    Duplicate(ol, static_cast<T>(-1), kOutElements);
    PipeBarrier<PIPE_ALL>();
    Sort32<T>(ol, sl, il, t.repeats);
    PipeBarrier<PIPE_ALL>();
    DataCopy(outGm, ol, kOutElements);
}

namespace {

constexpr uint32_t kStructures = 256;  // 8-byte (score, index) structures in the merge tests

struct MrgTiling {
    uint16_t lengths[4];
    uint32_t starts[4];  // each queue's first structure
    uint32_t valid_bit;
    uint32_t repeats;
    uint32_t suspend;
};

}  // namespace

/// out = MrgSort of the queues of `structures` described by the tiling; counts = GetMrgSortResult.
template <typename T>
__global__ __aicore__ void mrgsort_kernel(GM_ADDR structures, GM_ADDR out, GM_ADDR counts, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(MrgTiling, t, tiling);
    constexpr uint32_t kElements = kStructures * 8 / sizeof(T);
    GlobalTensor<T> inGm;
    GlobalTensor<T> outGm;
    GlobalTensor<uint16_t> countsGm;
    inGm.SetGlobalBuffer((__gm__ T*)structures, kElements);
    outGm.SetGlobalBuffer((__gm__ T*)out, kElements);
    countsGm.SetGlobalBuffer((__gm__ uint16_t*)counts, 16);
    TPipe pipe;
    TBuf<TPosition::VECCALC> a;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(a, kElements * sizeof(T));
    pipe.InitBuffer(b, kElements * sizeof(T));
    LocalTensor<T> in = a.Get<T>();
    LocalTensor<T> dst = b.Get<T>();
    DataCopy(in, inGm, kElements);
    Duplicate(dst, static_cast<T>(-1), kElements);
    PipeBarrier<PIPE_ALL>();
    constexpr uint32_t kPerStructure = 8 / sizeof(T);
    MrgSortSrcList<T> list(in[t.starts[0] * kPerStructure], in[t.starts[1] * kPerStructure],
                           in[t.starts[2] * kPerStructure], in[t.starts[3] * kPerStructure]);
    MrgSort4Info params(t.lengths, t.suspend != 0, static_cast<uint16_t>(t.valid_bit),
                        static_cast<uint16_t>(t.repeats));
    MrgSort<T>(dst, list, params);
    PipeBarrier<PIPE_ALL>();
    DataCopy(outGm, dst, kElements);
    uint16_t c[4];
    GetMrgSortResult(c[0], c[1], c[2], c[3]);
    for (int i = 0; i < 4; ++i) {
        countsGm.SetValue(i, c[i]);
    }
}

namespace {

using twin_test::Describe;
using twin_test::Findings;
using twin_test::GmArray;

struct Pair {
    float score;
    uint32_t index;
    uint16_t reserved;  // half only: bytes 2-3
};

template <typename T>
std::vector<Pair> Sort(const std::vector<float>& scores, const std::vector<uint32_t>& indices, int32_t repeats)
{
    GmArray<T> s(kScores);
    GmArray<uint32_t> idx(kScores);
    GmArray<uint8_t> out(kScores * 8);
    GmArray<SortTiling> tiling(1);
    tiling[0].repeats = repeats;
    for (uint32_t i = 0; i < kScores; ++i) {
        s[i] = static_cast<T>(i < scores.size() ? scores[i] : 0.0f);
        idx[i] = i < indices.size() ? indices[i] : 0;
    }
    ICPU_RUN_KF(sort32_kernel<T>, 1, s.gm(), idx.gm(), out.gm(), tiling.gm());
    std::vector<Pair> pairs(kScores);
    for (uint32_t k = 0; k < kScores; ++k) {
        T score;
        std::memcpy(&score, out.data() + k * 8, sizeof(T));
        pairs[k].score = static_cast<float>(score);
        std::memcpy(&pairs[k].index, out.data() + k * 8 + 4, 4);
        pairs[k].reserved = 0;
        if (sizeof(T) == 2) {
            std::memcpy(&pairs[k].reserved, out.data() + k * 8 + 2, 2);
        }
    }
    return pairs;
}

TEST(Sort32, AHandWorkedGroupWithTies)
{
    // Scores 5, 7, 5, 9, 7, then 0 (27 times); indices 100 + position.
    std::vector<float> scores(32, 0.0f);
    const float head[] = {5, 7, 5, 9, 7};
    std::copy(std::begin(head), std::end(head), scores.begin());
    std::vector<uint32_t> indices(32);
    for (uint32_t i = 0; i < 32; ++i) {
        indices[i] = 100 + i;
    }
    const std::vector<Pair> got = Sort<float>(scores, indices, 1);
    ASSERT_TRUE(Findings().empty()) << Describe(Findings());
    const float want_score[] = {9, 7, 7, 5, 5, 0, 0};
    const uint32_t want_index[] = {103, 101, 104, 100, 102, 105, 106};
    for (uint32_t k = 0; k < 7; ++k) {
        EXPECT_EQ(got[k].score, want_score[k]) << k;
        EXPECT_EQ(got[k].index, want_index[k]) << k;
    }
    EXPECT_EQ(got[31].index, 131u);
    EXPECT_EQ(got[32].score, -1.0f);  // the second group was not sorted: dst as it was
}

template <typename T>
class Sort32Typed : public testing::Test {};
using SortTypes = testing::Types<float, half>;
TYPED_TEST_SUITE(Sort32Typed, SortTypes);

TYPED_TEST(Sort32Typed, EveryRepeatSortsItsOwnGroupStably)
{
    std::mt19937 generator(9);
    std::uniform_int_distribution<int> value(-6, 6);  // many ties
    std::vector<float> scores(kScores);
    std::vector<uint32_t> indices(kScores);
    for (uint32_t i = 0; i < kScores; ++i) {
        scores[i] = static_cast<float>(value(generator)) * 0.5f;
        indices[i] = static_cast<uint32_t>(generator());
    }
    const std::vector<Pair> got = Sort<TypeParam>(scores, indices, kMaxRepeats);
    ASSERT_TRUE(Findings().empty()) << Describe(Findings());
    for (uint32_t r = 0; r < kMaxRepeats; ++r) {
        std::vector<uint32_t> order(32);
        for (uint32_t i = 0; i < 32; ++i) {
            order[i] = r * 32 + i;
        }
        // Largest first; equal scores: the lower position first.
        std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            return scores[a] != scores[b] ? scores[a] > scores[b] : a < b;
        });
        for (uint32_t k = 0; k < 32; ++k) {
            ASSERT_EQ(got[r * 32 + k].score, scores[order[k]]) << r << " " << k;
            ASSERT_EQ(got[r * 32 + k].index, indices[order[k]]) << r << " " << k;
            ASSERT_EQ(got[r * 32 + k].reserved, 0u);
        }
    }
}

struct Merged {
    std::vector<float> scores;
    std::vector<uint32_t> indices;
    uint16_t counts[4];
};

/// Runs mrgsort_kernel<float> on structures (scores[i], index 1000 + i).
Merged Merge(const std::vector<float>& scores, const MrgTiling& tiling)
{
    GmArray<uint8_t> in(kStructures * 8);
    GmArray<uint8_t> out(kStructures * 8);
    GmArray<uint16_t> counts(16);
    GmArray<MrgTiling> t(1);
    t[0] = tiling;
    for (uint32_t i = 0; i < kStructures; ++i) {
        const float score = i < scores.size() ? scores[i] : 0.0f;
        const uint32_t index = 1000 + i;
        std::memcpy(in.data() + i * 8, &score, 4);
        std::memcpy(in.data() + i * 8 + 4, &index, 4);
    }
    ICPU_RUN_KF(mrgsort_kernel<float>, 1, in.gm(), out.gm(), counts.gm(), t.gm());
    Merged m{std::vector<float>(kStructures), std::vector<uint32_t>(kStructures), {}};
    for (uint32_t i = 0; i < kStructures; ++i) {
        std::memcpy(&m.scores[i], out.data() + i * 8, 4);
        std::memcpy(&m.indices[i], out.data() + i * 8 + 4, 4);
    }
    for (int q = 0; q < 4; ++q) {
        m.counts[q] = counts[q];
    }
    return m;
}

TEST(MrgSort, TwoQueuesByHandWithTiesAndSuspension)
{
    // Queue 1 at 0: 9 6 6 1 0; queue 2 at 8: 7 6 2. Equal scores: queue 1 first.
    std::vector<float> scores(16, -5.0f);
    const float q1[] = {9, 6, 6, 1, 0};
    const float q2[] = {7, 6, 2};
    std::copy(std::begin(q1), std::end(q1), scores.begin());
    std::copy(std::begin(q2), std::end(q2), scores.begin() + 8);
    const Merged all = Merge(scores, MrgTiling{{5, 3, 0, 0}, {0, 8, 0, 0}, 3, 1, 0});
    ASSERT_TRUE(Findings().empty()) << Describe(Findings());
    const float want[] = {9, 7, 6, 6, 6, 2, 1, 0};
    const uint32_t want_index[] = {1000, 1008, 1001, 1002, 1009, 1010, 1003, 1004};
    for (uint32_t k = 0; k < 8; ++k) {
        EXPECT_EQ(all.scores[k], want[k]) << k;
        EXPECT_EQ(all.indices[k], want_index[k]) << k;
    }
    EXPECT_EQ(all.scores[8], -1.0f);  // dst past the merge as it was
    EXPECT_EQ(all.counts[0], 5);
    EXPECT_EQ(all.counts[1], 3);
    // Suspended: queue 2 runs out after 9 7 6 6 6 2 (its 2 is the last of it).
    const Merged part = Merge(scores, MrgTiling{{5, 3, 0, 0}, {0, 8, 0, 0}, 3, 1, 1});
    ASSERT_TRUE(Findings().empty()) << Describe(Findings());
    EXPECT_EQ(part.counts[0], 3);
    EXPECT_EQ(part.counts[1], 3);
    EXPECT_EQ(part.scores[5], 2.0f);
    EXPECT_EQ(part.scores[6], -1.0f);
}

TEST(MrgSort, FourQueuesRepeatedAsDocumented)
{
    // The documented use: Sort32 output of 8 groups, four queues of 32 one after another,
    // repeatTimes 2: each half of the output is its 128 structures, largest first.
    std::mt19937 generator(21);
    std::uniform_int_distribution<int> value(0, 40);
    std::vector<float> scores(kStructures);
    for (uint32_t g = 0; g < kStructures / 32; ++g) {
        std::vector<float> group(32);
        for (float& v : group) {
            v = static_cast<float>(value(generator));
        }
        std::stable_sort(group.begin(), group.end(), [](float a, float b) { return a > b; });
        std::copy(group.begin(), group.end(), scores.begin() + g * 32);
    }
    const Merged m = Merge(scores, MrgTiling{{32, 32, 32, 32}, {0, 32, 64, 96}, 15, 2, 0});
    ASSERT_TRUE(Findings().empty()) << Describe(Findings());
    for (uint32_t r = 0; r < 2; ++r) {
        std::vector<uint32_t> order(128);
        for (uint32_t i = 0; i < 128; ++i) {
            order[i] = r * 128 + i;
        }
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return scores[a] > scores[b]; });
        for (uint32_t k = 0; k < 128; ++k) {
            ASSERT_EQ(m.scores[r * 128 + k], scores[order[k]]) << r << " " << k;
            ASSERT_EQ(m.indices[r * 128 + k], 1000 + order[k]) << r << " " << k;
        }
    }
}

TEST(MrgSort, OutOfRangeParametersAreReported)
{
    const std::vector<float> scores(16, 1.0f);
    for (const MrgTiling& bad : {MrgTiling{{4, 4, 0, 0}, {0, 8, 0, 0}, 5, 1, 0},
                                 MrgTiling{{4, 4, 0, 0}, {0, 8, 0, 0}, 3, 0, 0},
                                 MrgTiling{{4096, 4, 0, 0}, {0, 8, 0, 0}, 3, 1, 0}}) {
        const Merged m = Merge(scores, bad);
        EXPECT_TRUE(twin_test::OnlyCheck("invalid-argument")) << Describe(Findings());
        EXPECT_EQ(m.scores[0], -1.0f);
    }
}

TEST(Sort32, NaNScoresAreReportedAndRepeatTimeIsChecked)
{
    std::vector<float> scores(32, 1.0f);
    scores[3] = std::nan("");
    const std::vector<Pair> got = Sort<float>(scores, std::vector<uint32_t>(32, 7), 1);
    EXPECT_TRUE(twin_test::HasFinding("unsupported", 0, "", ascendc_cpu::Severity::kWarning)) << Describe(Findings());
    EXPECT_TRUE(std::isnan(got[0].score));
    for (int32_t bad : {-1, 256}) {
        const std::vector<Pair> none = Sort<float>(scores, std::vector<uint32_t>(32, 7), bad);
        EXPECT_TRUE(twin_test::OnlyCheck("invalid-argument")) << bad << Describe(Findings());
        EXPECT_EQ(none[0].score, -1.0f);
    }
}

}  // namespace
