// ReorderDims and CoalesceDims (the plan's iteration space) on hand-built spaces: the walk keeps
// every operand's element of every position, row-major problems are left alone, and operands
// that share one permutation of a dense block come out dense.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "opdev/strided_iter.h"
#include "permuted_strides.h"

namespace {

using aclnn_cpu::CoalesceDims;
using aclnn_cpu::IsDense;
using aclnn_cpu::IterSpace;
using aclnn_cpu::ReorderDims;
using aclnn_cpu::StridedOperand;

IterSpace Space(const std::vector<int64_t>& sizes) {
  IterSpace s;
  s.ndim = static_cast<int>(sizes.size());
  std::copy(sizes.begin(), sizes.end(), s.sizes);
  return s;
}

StridedOperand Operand(const std::vector<int64_t>& strides) {
  StridedOperand op;
  std::copy(strides.begin(), strides.end(), op.strides);
  return op;
}

using test_support::PermutedDense;

std::vector<int64_t> Sizes(const IterSpace& s) { return {s.sizes, s.sizes + s.ndim}; }
std::vector<int64_t> Strides(const IterSpace& s, const StridedOperand& op) { return {op.strides, op.strides + s.ndim}; }

/// The element offsets of every operand at each position of the row-major walk of @p space.
std::vector<std::vector<int64_t>> Walk(const IterSpace& space, const std::vector<StridedOperand>& operands) {
  int64_t numel = 1;
  for (int k = 0; k < space.ndim; ++k) numel *= space.sizes[k];
  std::vector<std::vector<int64_t>> walk;
  for (int64_t i = 0; i < numel; ++i) {
    std::vector<int64_t> offsets(operands.size(), 0);
    int64_t rest = i;
    for (int k = space.ndim - 1; k >= 0; --k) {
      const int64_t index = rest % space.sizes[k];
      rest /= space.sizes[k];
      for (size_t o = 0; o < operands.size(); ++o) offsets[o] += index * operands[o].strides[k];
    }
    walk.push_back(offsets);
  }
  return walk;
}

/// Reorders (and optionally coalesces) the space of @p operands in place, in their priority order.
void Plan(IterSpace& space, std::vector<StridedOperand>& operands, bool coalesce) {
  std::vector<StridedOperand*> pointers;
  for (StridedOperand& op : operands) pointers.push_back(&op);
  ReorderDims(space, pointers);
  if (coalesce) CoalesceDims(space, pointers);
}

TEST(ReorderDims, RowMajorOperandsKeepTheirOrder) {
  IterSpace space = Space({2, 3, 4});
  std::vector<StridedOperand> ops = {Operand({12, 4, 1}), Operand({0, 4, 1}), Operand({0, 0, 0})};
  Plan(space, ops, false);
  EXPECT_EQ(Sizes(space), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(Strides(space, ops[0]), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(Strides(space, ops[1]), (std::vector<int64_t>{0, 4, 1}));
}

TEST(ReorderDims, OperandsSharingOnePermutationOfADenseBlockBecomeOneDenseRun) {
  const std::vector<int64_t> sizes = {4, 5, 6, 3};
  std::vector<int> order = {0, 1, 2, 3};
  do {
    IterSpace space = Space(sizes);
    const std::vector<int64_t> strides = PermutedDense(sizes, order);
    std::vector<StridedOperand> ops(6, Operand(strides));
    Plan(space, ops, true);
    ASSERT_EQ(space.ndim, 1) << "storage order " << order[0] << order[1] << order[2] << order[3];
    EXPECT_EQ(space.sizes[0], 360);
    for (const StridedOperand& op : ops) EXPECT_TRUE(IsDense(space, op));
  } while (std::next_permutation(order.begin(), order.end()));
}

TEST(ReorderDims, TheFirstOperandDecidesWhereOperandsDisagree) {
  const std::vector<int64_t> row_major = {5, 1}, transposed = {1, 4};
  {
    IterSpace space = Space({4, 5});
    std::vector<StridedOperand> ops = {Operand(row_major), Operand(transposed)};
    Plan(space, ops, false);
    EXPECT_EQ(Sizes(space), (std::vector<int64_t>{4, 5}));
    EXPECT_EQ(Strides(space, ops[0]), row_major);
  }
  {
    IterSpace space = Space({4, 5});
    std::vector<StridedOperand> ops = {Operand(transposed), Operand(row_major)};
    Plan(space, ops, false);
    EXPECT_EQ(Sizes(space), (std::vector<int64_t>{5, 4}));
    EXPECT_EQ(Strides(space, ops[0]), (std::vector<int64_t>{4, 1}));
    EXPECT_EQ(Strides(space, ops[1]), (std::vector<int64_t>{1, 5}));
  }
}

TEST(ReorderDims, ABroadcastStrideNeverDecidesTheNextOperandDoes) {
  // Operand 0 is broadcast along dim 1, so it cannot order dims 0 and 1; operand 1 can.
  IterSpace space = Space({3, 7});
  std::vector<StridedOperand> ops = {Operand({1, 0}), Operand({1, 3})};
  Plan(space, ops, false);
  EXPECT_EQ(Sizes(space), (std::vector<int64_t>{7, 3}));
  EXPECT_EQ(Strides(space, ops[0]), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(Strides(space, ops[1]), (std::vector<int64_t>{3, 1}));
}

TEST(ReorderDims, DimsNoOperandTellsApartKeepTheirOrder) {
  IterSpace space = Space({3, 4, 5});
  std::vector<StridedOperand> ops = {Operand({0, 0, 0}), Operand({2, 2, 2})};
  Plan(space, ops, false);
  EXPECT_EQ(Sizes(space), (std::vector<int64_t>{3, 4, 5}));
  EXPECT_EQ(Strides(space, ops[1]), (std::vector<int64_t>{2, 2, 2}));
}

TEST(ReorderDims, ADimMovesInwardsPastASizeOneDim) {
  // [3, 1, 4] stored as [4, 1, 3]: dim 0 must jump over the size-1 dim to get inside dim 2.
  IterSpace space = Space({3, 1, 4});
  std::vector<StridedOperand> ops = {Operand({1, 999, 3})};
  Plan(space, ops, true);
  ASSERT_EQ(space.ndim, 1);
  EXPECT_EQ(space.sizes[0], 12);
  EXPECT_TRUE(IsDense(space, ops[0]));
}

TEST(ReorderDims, AnyWalkKeepsEveryOperandsElementOfEveryPosition) {
  // Random spaces of up to 5 dims with a permuted dense first operand and operands of random
  // strides (some 0): the walk after reordering and coalescing visits the same offset tuples,
  // and the first operand's offsets rise by one at each step.
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int ndim = 1 + static_cast<int>(rng() % 5);
    std::vector<int64_t> sizes(static_cast<size_t>(ndim));
    for (int64_t& s : sizes) s = 1 + static_cast<int64_t>(rng() % 4);
    std::vector<int> order(static_cast<size_t>(ndim));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<StridedOperand> ops = {Operand(PermutedDense(sizes, order))};
    for (int extra = 0; extra < 3; ++extra) {
      std::vector<int64_t> strides(static_cast<size_t>(ndim));
      for (int64_t& s : strides) s = static_cast<int64_t>(rng() % 3) * static_cast<int64_t>(1 + rng() % 20);
      ops.push_back(Operand(strides));
    }
    IterSpace space = Space(sizes);
    std::vector<std::vector<int64_t>> before = Walk(space, ops);
    Plan(space, ops, true);
    std::vector<std::vector<int64_t>> after = Walk(space, ops);
    for (size_t i = 0; i < after.size(); ++i) ASSERT_EQ(after[i][0], static_cast<int64_t>(i)) << "trial " << trial;
    EXPECT_TRUE(IsDense(space, ops[0])) << "trial " << trial;
    std::sort(before.begin(), before.end());
    std::sort(after.begin(), after.end());
    ASSERT_EQ(before, after) << "trial " << trial;
  }
}

}  // namespace
