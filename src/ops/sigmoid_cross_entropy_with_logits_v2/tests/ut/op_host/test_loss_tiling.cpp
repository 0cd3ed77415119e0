// The loss tiling (op_host/sigmoid_cross_entropy_with_logits_v2_tiling.h) on described machines:
// for mean and sum every block and every tile starts on a sum-chunk boundary, whatever the core
// count (Note [Deterministic reduction]), and the blocks cover the elements exactly once.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "ops/sigmoid_cross_entropy_with_logits_v2/op_host/sigmoid_cross_entropy_with_logits_v2_tiling.h"
#include "ops/sigmoid_cross_entropy_with_logits_v2/op_kernel/sigmoid_cross_entropy_with_logits_v2.h"

namespace aclnn_cpu::bce_loss {
namespace {

std::vector<PlatformInfo> Platforms() {
  std::vector<PlatformInfo> p;
  for (const uint64_t cores : {1, 2, 3, 7, 16, 64}) {
    p.push_back(DescribeCpuPlatform(CpuCaches{uint64_t{1} << 20, uint64_t{32} << 20}, cores));   // EPYC Zen 5
    p.push_back(DescribeCpuPlatform(CpuCaches{uint64_t{2} << 20, uint64_t{260} << 20}, cores));  // Xeon
  }
  p.push_back(AtlasA2Platform());
  return p;
}

TEST(LossTiling, SumsAlignEveryBlockAndTileToAChunkAndCoverEveryElementOnce) {
  const OperandTraffic four_inputs[] = {{4, false}, {4, false}, {4, false}, {4, true}};
  for (const PlatformInfo& platform : Platforms()) {
    for (const KernelDType dtype : {KernelDType::kFloat, KernelDType::kBFloat16, KernelDType::kDouble}) {
      for (const uint64_t n : {uint64_t{1}, uint64_t{1000}, uint64_t{1024}, uint64_t{1025}, uint64_t{300007},
                               uint64_t{1} << 24, (uint64_t{1} << 24) + 5}) {
        for (const ReductionType reduction : {ReductionType::kMean, ReductionType::kSum}) {
          SCOPED_TRACE(::testing::Message() << platform.name << " cores " << platform.core_num << " dtype "
                                            << KernelDTypeLabel(dtype) << " n " << n);
          const auto tiling = ComputeLossTiling(platform, n, dtype, reduction, four_inputs);
          ASSERT_TRUE(tiling.has_value());
          const ElementwiseTilingData& t = tiling->data;
          EXPECT_EQ(t.tileDataNum % kSumChunkElems, 0u);
          uint64_t next = 0;
          for (uint64_t b = 0; b < t.blockDim; ++b) {
            EXPECT_EQ(BlockBegin(t, b) % kSumChunkElems, 0u) << "block " << b;
            for (uint64_t k = 0; k < BlockTileNum(t, b); ++k) {
              const TileRange r = BlockTile(t, b, k);
              if (r.begin == r.end) continue;
              EXPECT_EQ(r.begin % kSumChunkElems, 0u) << "block " << b << " tile " << k;
              EXPECT_EQ(r.begin, next) << "block " << b << " tile " << k;
              next = r.end;
            }
          }
          EXPECT_EQ(next, n);
        }
      }
    }
  }
}

TEST(LossTiling, AUnitOfWholeRowGroupsStillAlignsToChunks) {
  // A platform whose unit was widened to groups of 16 rows (Note [Row groups]): 16 x 96 fp32
  // elements, 6144 bytes, which no chunk (1024 elements) divides. Blocks and tiles must start on
  // both: on multiples of their least common multiple, 3072 elements.
  const OperandTraffic four_inputs[] = {{4, false}, {4, false}, {4, false}, {4, true}};
  for (const uint64_t cores : {1, 2, 3, 5, 7}) {
    PlatformInfo platform = DescribeCpuPlatform(CpuCaches{uint64_t{1} << 20, uint64_t{32} << 20}, cores);
    platform.block_size = 16 * 96 * 4;
    for (const uint64_t n : {uint64_t{96} * 1024, uint64_t{96} * 1000 + 5}) {
      SCOPED_TRACE(::testing::Message() << "cores " << cores << " n " << n);
      const auto tiling = ComputeLossTiling(platform, n, KernelDType::kFloat, ReductionType::kMean, four_inputs);
      ASSERT_TRUE(tiling.has_value());
      const ElementwiseTilingData& t = tiling->data;
      EXPECT_EQ(t.tileDataNum % 3072, 0u);
      uint64_t next = 0;
      for (uint64_t b = 0; b < t.blockDim; ++b) {
        EXPECT_EQ(BlockBegin(t, b) % 3072, 0u) << "block " << b;
        for (uint64_t k = 0; k < BlockTileNum(t, b); ++k) {
          const TileRange r = BlockTile(t, b, k);
          if (r.begin == r.end) continue;
          EXPECT_EQ(r.begin % 3072, 0u) << "block " << b << " tile " << k;
          EXPECT_EQ(r.begin, next) << "block " << b << " tile " << k;
          next = r.end;
        }
      }
      EXPECT_EQ(next, n);
    }
  }
}

TEST(LossTiling, AUnitOfRowGroupsThatFitsATileOnlyWithoutChunksGivesWayToChunks) {
  // Groups of 16 rows of 1000 fp32 (64000 bytes) fit the 512 KiB budget at 16 bytes an element,
  // but their least common multiple with a chunk (512000 elements) does not: whole chunks alone.
  const OperandTraffic four_inputs[] = {{4, false}, {4, false}, {4, false}, {4, false}};
  for (const uint64_t cores : {1, 2, 3}) {
    PlatformInfo platform = DescribeCpuPlatform(CpuCaches{uint64_t{1} << 20, uint64_t{32} << 20}, cores);
    platform.block_size = 16 * 1000 * 4;
    SCOPED_TRACE(::testing::Message() << "cores " << cores);
    const auto tiling = ComputeLossTiling(platform, 64000, KernelDType::kFloat, ReductionType::kMean, four_inputs);
    ASSERT_TRUE(tiling.has_value());
    const ElementwiseTilingData& t = tiling->data;
    EXPECT_EQ(t.tileDataNum % kSumChunkElems, 0u);
    for (uint64_t b = 0; b < t.blockDim; ++b) EXPECT_EQ(BlockBegin(t, b) % kSumChunkElems, 0u) << "block " << b;
  }
}

TEST(LossTiling, ReductionNoneIsTheSharedElementwiseTiling) {
  const OperandTraffic five[] = {{4, false}, {4, false}, {4, false}, {4, false}, {4, false}};
  const PlatformInfo platform = DescribeCpuPlatform(CpuCaches{uint64_t{1} << 20, uint64_t{32} << 20}, 4);
  const auto loss = ComputeLossTiling(platform, 1 << 20, KernelDType::kFloat, ReductionType::kNone, five);
  const auto shared =
      ComputeElementwiseTiling(platform, MakeElementwiseProblem(1 << 20, KernelDType::kFloat, five));
  ASSERT_TRUE(loss && shared);
  EXPECT_EQ(loss->data.tileDataNum, shared->data.tileDataNum);
  EXPECT_EQ(loss->data.blockDim, shared->data.blockDim);
  EXPECT_EQ(loss->data.bigCoreDataNum, shared->data.bigCoreDataNum);
}

}  // namespace
}  // namespace aclnn_cpu::bce_loss
