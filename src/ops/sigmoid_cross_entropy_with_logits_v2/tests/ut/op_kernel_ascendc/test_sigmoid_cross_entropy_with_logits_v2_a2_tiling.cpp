// The Atlas A2 tiling of the loss kernel (op_host/a2): every element covered exactly once, cores
// and tiles 32-byte aligned (and chunk aligned for mean and sum), the ragged tail only on the last
// core, UB within the 910B budget, the tile the largest that fits, the workspace the sum needs,
// and the problems the kernel does not run refused.
#include <string>

#include "gtest/gtest.h"
#include "op_host/a2/sigmoid_cross_entropy_with_logits_v2_a2_tiling.h"

namespace aclnn_cpu::bce_loss::a2 {
namespace {

constexpr uint64_t kUbBudget = 196352;  // 192 KiB less the 256 bytes GetCoreMemSize(UB) leaves out on 910B

A2LossTiling TileOrFail(const A2LossProblem& p)
{
    A2LossTiling tiling;
    std::string error;
    EXPECT_TRUE(TileLossForAtlasA2(AtlasA2Platform(), p, &tiling, &error)) << error;
    return tiling;
}

/// Checks the split of @p p's elements by @p t (Note [Cores and tiles of the loss kernel]).
void ExpectCoversEveryElementOnce(const A2LossProblem& p, const A2LossTiling& t)
{
    const SigmoidCrossEntropyWithLogitsV2TilingData& d = t.data;
    const uint64_t bytes = p.dtype == A2LossDType::kFloat ? 4 : 2;
    const uint64_t unit = p.reduction == BCE_LOSS_REDUCTION_NONE ? kA2LossTileGranule : kA2LossReduceChunkElems;
    ASSERT_EQ(d.totalLength, p.total);
    ASSERT_GT(d.tileLength, 0u);
    ASSERT_EQ(d.tileLength % unit, 0u) << "tile " << d.tileLength;
    ASSERT_EQ(d.tileLength * bytes % 32, 0u);
    const uint64_t capacity = static_cast<uint64_t>(d.tileNum) * d.tileLength;
    ASSERT_GE(capacity * t.block_dim, p.total);
    ASSERT_LT(capacity * (t.block_dim - 1), p.total) << "an idle core";
    ASSERT_LE(t.block_dim, AtlasA2Platform().core_num);
    uint64_t covered = 0;
    for (uint64_t core = 0; core < t.block_dim; ++core) {
        const uint64_t start = core * capacity;
        ASSERT_EQ(start, covered);
        ASSERT_EQ(start * bytes % 32, 0u);
        const uint64_t elements = std::min(capacity, p.total - start);
        ASSERT_GT(elements, 0u);
        if (core + 1 < t.block_dim) {
            ASSERT_EQ(elements, capacity) << "only the last core is small";
        }
        covered += elements;
    }
    ASSERT_EQ(covered, p.total);
    ASSERT_LE(t.ub_bytes, kUbBudget);
    ASSERT_EQ(t.ub_bytes, A2LossUbBytes(p, d.tileLength));
}

TEST(LossA2Tiling, EveryCountIsCoveredOnceWithAlignedCoresAndTiles)
{
    for (A2LossDType dtype : {A2LossDType::kFloat, A2LossDType::kHalf, A2LossDType::kBFloat16}) {
        for (uint32_t reduction : {0u, 1u, 2u}) {
            for (uint64_t n = 1; n <= 4096; ++n) {
                A2LossProblem p{n, dtype, n % 3 == 0 ? n : 0, n % 2 == 0 ? uint64_t{1} : uint64_t{0}, reduction};
                ExpectCoversEveryElementOnce(p, TileOrFail(p));
                if (testing::Test::HasFatalFailure()) return;
            }
        }
    }
}

TEST(LossA2Tiling, LargeCountsSpreadOverTheCoresInWholeTiles)
{
    for (uint64_t n : {uint64_t{1} << 20, uint64_t{64} << 20, uint64_t{4294967295}}) {
        for (uint32_t reduction : {0u, 1u}) {
            A2LossProblem p{n, A2LossDType::kFloat, 0, 0, reduction};
            const A2LossTiling t = TileOrFail(p);
            ExpectCoversEveryElementOnce(p, t);
            // A core's capacity exceeds its share of 48 cores by less than a unit per tile.
            const uint64_t unit = reduction == 0 ? kA2LossTileGranule : kA2LossReduceChunkElems;
            const uint64_t share = (n + 47) / 48;
            EXPECT_LT(uint64_t{t.data.tileNum} * t.data.tileLength - share, t.data.tileNum * unit) << n;
            EXPECT_LE(t.block_dim, 48u);
        }
    }
}

TEST(LossA2Tiling, TheTileIsTheLargestThatFitsTheUb)
{
    for (A2LossDType dtype : {A2LossDType::kFloat, A2LossDType::kHalf}) {
        for (uint32_t reduction : {0u, 2u}) {
            for (uint64_t weight : {uint64_t{0}, uint64_t{1}, uint64_t{1024}, uint64_t{1} << 24}) {
                A2LossProblem p{uint64_t{1} << 24, dtype, weight, uint64_t{1} << 24, reduction};
                const A2LossTiling t = TileOrFail(p);
                const uint64_t unit = reduction == 0 ? kA2LossTileGranule : kA2LossReduceChunkElems;
                EXPECT_LE(t.ub_bytes, kUbBudget);
                EXPECT_GT(A2LossUbBytes(p, t.data.tileLength + unit), kUbBudget) << t.data.tileLength;
            }
        }
    }
}

TEST(LossA2Tiling, MeanScalesByOneOverTheCountRoundedOnce)
{
    A2LossProblem p{(uint64_t{1} << 24) + 1, A2LossDType::kFloat, 0, 0, BCE_LOSS_REDUCTION_MEAN};
    EXPECT_EQ(TileOrFail(p).data.globalScale, static_cast<float>(1.0 / static_cast<double>(p.total)));
    p.reduction = BCE_LOSS_REDUCTION_SUM;
    EXPECT_EQ(TileOrFail(p).data.globalScale, 1.0f);
}

TEST(LossA2Tiling, TheWorkspaceHoldsEveryLevelOfPartials)
{
    EXPECT_EQ(A2LossWorkspaceBytes(5000, BCE_LOSS_REDUCTION_NONE), 0u);
    EXPECT_EQ(A2LossWorkspaceBytes(1, BCE_LOSS_REDUCTION_SUM), 32u);
    EXPECT_EQ(A2LossWorkspaceBytes(1024, BCE_LOSS_REDUCTION_MEAN), 32u);
    EXPECT_EQ(A2LossWorkspaceBytes(1025, BCE_LOSS_REDUCTION_MEAN), (16u + 8u) * 4u);
    // 64 Mi: 65536 chunks (512 Ki partials), then 512 blocks (4096), 4 (32), 1 (8).
    EXPECT_EQ(A2LossWorkspaceBytes(uint64_t{64} << 20, BCE_LOSS_REDUCTION_SUM), (524288u + 4096u + 32u + 8u) * 4u);
    A2LossProblem p{5000, A2LossDType::kHalf, 0, 0, BCE_LOSS_REDUCTION_SUM};
    EXPECT_EQ(TileOrFail(p).workspace_bytes, A2LossWorkspaceBytes(5000, BCE_LOSS_REDUCTION_SUM));
}

TEST(LossA2Tiling, ProblemsTheKernelDoesNotRunAreRefused)
{
    const struct {
        A2LossProblem problem;
        const char* says;
    } cases[] = {
        {{0, A2LossDType::kFloat, 0, 0, 0}, "no elements"},
        {{uint64_t{1} << 32, A2LossDType::kFloat, 0, 0, 0}, "32-bit"},
        {{100, static_cast<A2LossDType>(7), 0, 0, 0}, "dtype_enum 7"},
        {{100, A2LossDType::kFloat, 0, 0, 3}, "reduction 3"},
        {{100, A2LossDType::kFloat, 30, 0, 0}, "weight has 30 elements"},
        {{100, A2LossDType::kFloat, 0, 200, 0}, "pos_weight has 200 elements"},
        {{100, A2LossDType::kFloat, 10, 20, 0}, "repeats every 20"},
    };
    for (const auto& c : cases) {
        A2LossTiling tiling;
        std::string error;
        EXPECT_FALSE(TileLossForAtlasA2(AtlasA2Platform(), c.problem, &tiling, &error)) << c.says;
        EXPECT_NE(error.find(c.says), std::string::npos) << error;
    }
    PlatformInfo tiny = AtlasA2Platform();
    tiny.ub_size = 4096;
    A2LossTiling tiling;
    std::string error;
    EXPECT_FALSE(TileLossForAtlasA2(tiny, {100, A2LossDType::kFloat, 0, 0, 1}, &tiling, &error));
    EXPECT_NE(error.find("holds no tile"), std::string::npos) << error;
}

}  // namespace
}  // namespace aclnn_cpu::bce_loss::a2
