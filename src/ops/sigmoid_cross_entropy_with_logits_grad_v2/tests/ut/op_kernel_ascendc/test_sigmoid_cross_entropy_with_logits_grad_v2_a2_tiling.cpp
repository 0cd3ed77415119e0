// The Atlas A2 tiling of the AscendC gradient kernels (of self, of the target): every element
// covered exactly once, 32-byte aligned cores and tiles, tails in range, UB within the 910B budget,
// bad operand counts refused.
#include <cstdint>
#include <string>

#include "gtest/gtest.h"
#include "op_host/a2/sigmoid_cross_entropy_with_logits_grad_v2_a2_tiling.h"

namespace aclnn_cpu::bce_grad::a2 {
namespace {

A2GradProblem SameShape(uint64_t total, uint32_t dtype_bytes, bool weight, bool pos_weight, bool of_target = false) {
  A2GradProblem p;
  p.of_target = of_target;
  p.total = total;
  p.dtype_bytes = dtype_bytes;
  p.dout_count = total;
  p.weight_count = weight ? total : 0;
  p.pos_weight_count = pos_weight ? total : 0;
  return p;
}

/// The invariants of Note [Big and small cores of the AscendC kernel], for one problem.
void ExpectValidSplit(const PlatformInfo& platform, const A2GradProblem& p) {
  A2GradTiling t;
  std::string error;
  ASSERT_TRUE(TileGradForAtlasA2(platform, p, &t, &error)) << error;
  const auto& d = t.data;
  const uint64_t block_elems = 32 / p.dtype_bytes;
  SCOPED_TRACE(std::string(p.of_target ? "of target, " : "") + "total " + std::to_string(p.total) + ", dtype bytes " +
               std::to_string(p.dtype_bytes));
  EXPECT_EQ(d.tailBlockNum * d.bigCoreDataNum + d.smallCoreDataNum, p.total);
  EXPECT_EQ(t.block_dim, d.tailBlockNum + 1);
  EXPECT_LE(t.block_dim, platform.core_num);
  EXPECT_GE(d.smallCoreDataNum, 1u);
  EXPECT_LE(d.smallCoreDataNum, d.bigCoreDataNum);
  EXPECT_EQ(d.bigCoreDataNum % block_elems, 0u);
  EXPECT_EQ(d.tileDataNum % block_elems, 0u);
  EXPECT_EQ((d.finalBigTileNum - 1) * d.tileDataNum + d.bigTailDataNum, d.bigCoreDataNum);
  EXPECT_EQ((d.finalSmallTileNum - 1) * d.tileDataNum + d.smallTailDataNum, d.smallCoreDataNum);
  EXPECT_GE(d.bigTailDataNum, 1u);
  EXPECT_LE(d.bigTailDataNum, d.tileDataNum);
  EXPECT_GE(d.smallTailDataNum, 1u);
  EXPECT_LE(d.smallTailDataNum, d.tileDataNum);
  EXPECT_LE(t.ub_bytes, platform.ub_size - kA2UbReserveBytes);
  EXPECT_EQ(d.fp32_lite_mode, p.dtype_bytes == 4 ? 1u : 0u);
}

TEST(A2GradTiling, EveryCountUpTo4096IsCoveredExactlyOnce) {
  const PlatformInfo a2 = AtlasA2Platform();
  for (bool of_target : {false, true}) {
    for (uint32_t bytes : {4u, 2u}) {
      for (uint64_t n = 1; n <= 4096; ++n) {
        ExpectValidSplit(a2, SameShape(n, bytes, n % 2 == 0, n % 3 == 0, of_target));
      }
    }
  }
}

TEST(A2GradTiling, LargeCountsUseEveryCoreAndWholeTiles) {
  const PlatformInfo a2 = AtlasA2Platform();
  for (uint64_t n : {uint64_t{1} << 20, (uint64_t{1} << 24) + 3, uint64_t{3000000007}}) {
    for (uint32_t bytes : {4u, 2u}) {
      for (bool of_target : {false, true}) {
        ExpectValidSplit(a2, SameShape(n, bytes, true, true, of_target));
        A2GradTiling t;
        std::string error;
        ASSERT_TRUE(TileGradForAtlasA2(a2, SameShape(n, bytes, true, true, of_target), &t, &error));
        EXPECT_EQ(t.block_dim, a2.core_num);
        EXPECT_EQ(t.data.tileDataNum % kA2TileGranule, 0u);
      }
    }
  }
}

TEST(A2GradTiling, TheTileFillsTheUbWithoutPassingIt) {
  const PlatformInfo a2 = AtlasA2Platform();
  for (uint32_t bytes : {4u, 2u}) {
    for (bool of_target : {false, true}) {
      for (bool pos_weight : {false, true}) {
        A2GradProblem p = SameShape(uint64_t{1} << 26, bytes, true, pos_weight, of_target);
        p.weight_count = 1024;  // a broadcast period: the gather buffers too
        A2GradTiling t;
        std::string error;
        ASSERT_TRUE(TileGradForAtlasA2(a2, p, &t, &error)) << error;
        EXPECT_LE(t.ub_bytes, a2.ub_size - kA2UbReserveBytes);
        EXPECT_GT(A2GradUbBytes(p, t.data.tileDataNum + kA2TileGranule), a2.ub_size - kA2UbReserveBytes);
      }
    }
  }
}

/// The target gradient reads no target and, without pos_weight, needs no fp32 work buffer but
/// x's widening: its tiles are larger than the backward's for the same problem.
TEST(A2GradTiling, TheTargetGradientHasLargerTiles) {
  for (uint32_t bytes : {4u, 2u}) {
    for (bool pos_weight : {false, true}) {
      A2GradTiling self, target;
      std::string error;
      ASSERT_TRUE(TileGradForAtlasA2(AtlasA2Platform(), SameShape(1 << 24, bytes, true, pos_weight), &self, &error));
      ASSERT_TRUE(
          TileGradForAtlasA2(AtlasA2Platform(), SameShape(1 << 24, bytes, true, pos_weight, true), &target, &error));
      EXPECT_GT(target.data.tileDataNum, self.data.tileDataNum);
    }
  }
}

TEST(A2GradTiling, BroadcastCountsAreRecordedForTheKernel) {
  A2GradProblem p = SameShape(600, 2, true, true);
  p.dout_count = 1;
  p.weight_count = 30;
  p.pos_weight_count = 30;
  A2GradTiling t;
  std::string error;
  ASSERT_TRUE(TileGradForAtlasA2(AtlasA2Platform(), p, &t, &error)) << error;
  EXPECT_EQ(t.data.doutDataNum, 1u);
  EXPECT_EQ(t.data.weightDataNum, 30u);
  EXPECT_EQ(t.data.posWeightDataNum, 30u);
  EXPECT_EQ(t.data.has_weight, 1u);
  EXPECT_EQ(t.data.has_pos_weight, 1u);
}

TEST(A2GradTiling, RefusesCountsThatDoNotDivideTheTotal) {
  A2GradProblem p = SameShape(600, 4, true, false);
  p.weight_count = 7;
  A2GradTiling t;
  std::string error;
  EXPECT_FALSE(TileGradForAtlasA2(AtlasA2Platform(), p, &t, &error));
  EXPECT_NE(error.find("weight"), std::string::npos) << error;
}

TEST(A2GradTiling, RefusesTwoDifferentPeriods) {
  A2GradProblem p = SameShape(600, 4, true, true);
  p.weight_count = 30;
  p.pos_weight_count = 60;
  A2GradTiling t;
  std::string error;
  EXPECT_FALSE(TileGradForAtlasA2(AtlasA2Platform(), p, &t, &error));
}

TEST(A2GradTiling, RefusesAnEmptyProblemAndOtherDtypeSizes) {
  A2GradTiling t;
  std::string error;
  EXPECT_FALSE(TileGradForAtlasA2(AtlasA2Platform(), SameShape(0, 4, false, false), &t, &error));
  EXPECT_FALSE(TileGradForAtlasA2(AtlasA2Platform(), SameShape(10, 8, false, false), &t, &error));
}

}  // namespace
}  // namespace aclnn_cpu::bce_grad::a2
