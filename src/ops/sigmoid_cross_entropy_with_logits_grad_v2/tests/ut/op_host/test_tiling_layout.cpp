// Tiling layout (docs/contract.md §6): for every size, kernel dtype, optional-input combination and platform,
// the blocks and tiles of ComputeTiling cover the data exactly once and respect the platform.
#include <gtest/gtest.h>

#include <tuple>

#include "tiling_test_util.h"

namespace bce_host_test {
namespace {

using aclnn_cpu::bce_grad::BlockBegin;
using aclnn_cpu::bce_grad::BlockTile;
using aclnn_cpu::bce_grad::BlockTileNum;
using aclnn_cpu::bce_grad::ComputeTiling;
using aclnn_cpu::bce_grad::KernelDTypeSize;
using aclnn_cpu::bce_grad::MakeTilingKey;

// Sizes small enough to count every element's visits.
constexpr uint64_t kElementWalkLimit = 1u << 17;

class TilingLayout : public ::testing::TestWithParam<std::tuple<size_t, KernelDType, bool, bool>> {
 protected:
  PlatformInfo platform() const { return AllPlatforms()[std::get<0>(GetParam())]; }
  KernelDType dtype() const { return std::get<1>(GetParam()); }
  bool has_weight() const { return std::get<2>(GetParam()); }
  bool has_pos_weight() const { return std::get<3>(GetParam()); }
  TilingProblem Problem(uint64_t total) const { return DenseProblem(total, dtype(), has_weight(), has_pos_weight()); }
  TilingResult Tile(uint64_t total) const {
    const auto result = ComputeTiling(platform(), Problem(total));
    EXPECT_TRUE(result.has_value()) << total << " elements";
    return result.value_or(TilingResult{});
  }
};

TEST_P(TilingLayout, TilesCoverEveryElementOnceInOrder) {
  for (uint64_t total : kTilingSizes) {
    const TilingResult r = Tile(total);
    EXPECT_EQ(r.data.totalDataNum, total);
    EXPECT_TRUE(TilesCoverDataOnceInOrder(r.data)) << total << " elements";
  }
}

TEST_P(TilingLayout, EveryElementOfASmallProblemIsVisitedExactlyOnce) {
  for (uint64_t total : kTilingSizes) {
    if (total > kElementWalkLimit) continue;
    EXPECT_TRUE(EveryElementVisitedOnce(Tile(total).data)) << total << " elements";
  }
}

TEST_P(TilingLayout, BlockDimIsAtLeastOneAndAtMostCoreNum) {
  for (uint64_t total : kTilingSizes) {
    const TilingResult r = Tile(total);
    EXPECT_GE(r.data.blockDim, 1u) << total;
    EXPECT_LE(r.data.blockDim, platform().core_num) << total;
    EXPECT_LT(r.data.tailBlockNum, r.data.blockDim) << total;
  }
}

TEST_P(TilingLayout, BigBlocksHoldOneAlignmentUnitMoreThanSmallBlocks) {
  const uint64_t unit = UnitElems(platform(), dtype());
  for (uint64_t total : kTilingSizes) {
    const auto& t = Tile(total).data;
    EXPECT_EQ(t.bigCoreDataNum, t.smallCoreDataNum + unit) << total;
    EXPECT_GE(t.smallCoreDataNum, unit) << total << ": every block gets at least one unit";
    // tailBlockNum big blocks and the rest small hold the data rounded up to a whole unit.
    const uint64_t capacity = t.tailBlockNum * t.bigCoreDataNum + (t.blockDim - t.tailBlockNum) * t.smallCoreDataNum;
    EXPECT_GE(capacity, total) << total;
    EXPECT_LT(capacity - total, unit) << total;
  }
}

TEST_P(TilingLayout, BlocksAndTilesStartOnBlockSizeBoundaries) {
  const uint64_t elem_bytes = KernelDTypeSize(dtype());
  const uint64_t block_bytes = platform().block_size;
  for (uint64_t total : kTilingSizes) {
    const auto& t = Tile(total).data;
    EXPECT_EQ(t.tileDataNum * elem_bytes % block_bytes, 0u) << total;
    EXPECT_EQ(t.smallCoreDataNum * elem_bytes % block_bytes, 0u) << total;
    for (uint64_t b = 0; b < t.blockDim; ++b) {
      EXPECT_EQ(BlockBegin(t, b) * elem_bytes % block_bytes, 0u) << total << " block " << b;
      // Only the very end of the data may cut a unit short.
      const uint64_t last = BlockTileNum(t, b) - 1;
      const uint64_t end = BlockTile(t, b, last).end;
      if (end != total) {
        EXPECT_EQ(end * elem_bytes % block_bytes, 0u) << total << " block " << b;
      }
    }
  }
}

TEST_P(TilingLayout, TileBuffersFitTheUbBudget) {
  for (uint64_t total : kTilingSizes) {
    const TilingProblem problem = Problem(total);
    const auto& t = Tile(total).data;
    EXPECT_LE(t.tileDataNum * problem.ub_bytes_per_element, platform().ub_size) << total;
    EXPECT_LE(t.tileDataNum, t.bigCoreDataNum) << total << ": a tile is never larger than a block";
  }
}

TEST_P(TilingLayout, TileOfALargeProblemUsesMostOfTheUbBudget) {
  // A tile smaller than half the budget would mean more tiles (per-tile overhead) than needed.
  const TilingProblem problem = Problem((uint64_t{1} << 31) + 5);
  const auto& t = Tile(problem.total_elems).data;
  ASSERT_GT(t.finalSmallTileNum, 1u) << "the blocks should not fit one tile";
  EXPECT_GT(2 * t.tileDataNum * problem.ub_bytes_per_element, platform().ub_size);
}

TEST_P(TilingLayout, FlagsAndTilingKeyDescribeTheProblem) {
  for (uint64_t total : kTilingSizes) {
    const TilingResult r = Tile(total);
    EXPECT_EQ(r.data.has_weight, has_weight() ? 1u : 0u);
    EXPECT_EQ(r.data.has_pos_weight, has_pos_weight() ? 1u : 0u);
    EXPECT_EQ(r.tiling_key, MakeTilingKey(dtype(), has_weight(), has_pos_weight()));
  }
}

// The coverage checks above must be able to fail: a tiling with a gap, an overlap or a short
// end is caught both by the range walk and by the element count. A wrong tileDataNum moves a tile
// boundary only inside a block of several tiles, so the problem is sized from the platform's UB
// (a fixed size does not do: 100000 fp32 elements on 3 cores are one tile per block on a CPU
// with 2 MiB of L2 per core).
TEST(TilingCoverageCheck, CatchesGapsOverlapsAndShortEnds) {
  constexpr uint64_t kCores = 3;
  for (const PlatformInfo& platform : TestCpuPlatforms(kCores)) {
    SCOPED_TRACE(platform.name);
    const uint64_t unit = UnitElems(platform, KernelDType::kFloat);
    const uint64_t ub_bytes_per_element = DenseProblem(1, KernelDType::kFloat, false, false).ub_bytes_per_element;
    const uint64_t tile_elems = platform.ub_size / ub_bytes_per_element;
    // Two and a half tiles per block, plus a few elements: partial last tiles, one big block and
    // a short last unit.
    const uint64_t total = kCores * tile_elems * 5 / 2 + 5;
    auto tiling = ComputeTiling(platform, DenseProblem(total, KernelDType::kFloat, false, false));
    ASSERT_TRUE(tiling.has_value());
    ASSERT_EQ(tiling->data.blockDim, kCores);
    ASSERT_GT(tiling->data.finalSmallTileNum, 1u);
    ASSERT_TRUE(TilesCoverDataOnceInOrder(tiling->data));
    ASSERT_TRUE(EveryElementVisitedOnce(tiling->data));
    auto gap = tiling->data;
    gap.tileDataNum -= unit;  // the tiles of a block no longer reach the next block
    EXPECT_FALSE(TilesCoverDataOnceInOrder(gap));
    EXPECT_FALSE(EveryElementVisitedOnce(gap));
    auto overlap = tiling->data;
    overlap.tileDataNum += unit;  // the tiles of a block run into the next block
    EXPECT_FALSE(TilesCoverDataOnceInOrder(overlap));
    EXPECT_FALSE(EveryElementVisitedOnce(overlap));
    auto short_end = tiling->data;
    short_end.totalDataNum += unit;  // the last tile ends before the data
    EXPECT_FALSE(TilesCoverDataOnceInOrder(short_end));
    EXPECT_FALSE(EveryElementVisitedOnce(short_end));
  }
}

std::string LayoutCaseName(const ::testing::TestParamInfo<TilingLayout::ParamType>& info) {
  const auto& [platform_index, dtype, has_weight, has_pos_weight] = info.param;
  return PlatformLabel(AllPlatforms()[platform_index]) + "_" + KernelDTypeLabel(dtype) +
         (has_weight ? "_Weight" : "") + (has_pos_weight ? "_PosWeight" : "");
}

INSTANTIATE_TEST_SUITE_P(AllPlatformsDTypesAndOptionalInputs, TilingLayout,
                         ::testing::Combine(::testing::Range<size_t>(0, AllPlatforms().size()),
                                            ::testing::ValuesIn(kAllKernelDTypes), ::testing::Bool(),
                                            ::testing::Bool()),
                         LayoutCaseName);

}  // namespace
}  // namespace bce_host_test
