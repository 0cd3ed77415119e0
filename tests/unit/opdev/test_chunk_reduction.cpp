// opdev/chunk_reduction.h: the pieces of the deterministic reduction (Note [Deterministic
// reduction]) that any operator with mean or sum uses: compensated chunk sums of fp64 values, and
// the combine that adds chunk sums in order and finishes mean or sum.
#include "opdev/chunk_reduction.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace aclnn_cpu {
namespace {

TEST(SumChunk, KeepsWhatPlainAdditionWouldDrop) {
  const double values[] = {1e16, 1, -1e16};
  const ChunkSum s = SumChunk(values, 3);
  EXPECT_EQ(s.hi + s.lo, 1.0);
}

TEST(SumChunk, AnInfiniteValueGivesAnInfiniteSumNotNaN) {
  const double values[] = {1, std::numeric_limits<double>::infinity(), 2};
  const ChunkSum s = SumChunk(values, 3);
  EXPECT_EQ(s.hi + s.lo, std::numeric_limits<double>::infinity());
}

TEST(ChunkSumTotal, DoesNotDependOnHowTheChunksAreSplitBetweenBlocks) {
  const std::vector<ChunkSum> chunks = {{1e16, 0}, {1, 0.25}, {-1e16, 0}, {3, -0.125}};
  ChunkSumTotal whole, split;
  whole.Add(chunks);
  split.Add(std::span<const ChunkSum>(chunks).first(1));
  split.Add(std::span<const ChunkSum>(chunks).subspan(1, 2));
  split.Add(std::span<const ChunkSum>(chunks).last(1));
  EXPECT_EQ(whole.Result(ReductionType::kSum, 4), split.Result(ReductionType::kSum, 4));
  EXPECT_EQ(whole.Result(ReductionType::kSum, 4), 4.125);
}

TEST(ChunkSumTotal, MeanDividesByTheElementCount) {
  ChunkSumTotal total;
  const ChunkSum chunks[] = {{6, 0}, {3, 0}};
  total.Add(chunks);
  EXPECT_EQ(total.Result(ReductionType::kMean, 4), 2.25);
  EXPECT_EQ(total.Result(ReductionType::kSum, 4), 9.0);
}

TEST(ChunkSumTotal, MeanOfNoElementsIsNaNAndSumIsZero) {
  const ChunkSumTotal total;
  EXPECT_TRUE(std::isnan(total.Result(ReductionType::kMean, 0)));
  EXPECT_EQ(total.Result(ReductionType::kSum, 0), 0.0);
}

}  // namespace
}  // namespace aclnn_cpu
