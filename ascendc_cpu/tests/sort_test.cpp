// Sort32: (score, index) structures of 8 bytes, largest score first, equal scores in position
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
