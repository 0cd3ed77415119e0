// opdev/overlap.h: InternalOverlap, MutualOverlap and SameView against a brute-force listing of
// the bytes of small random views, plus the layouts the operators meet (nested, interleaved,
// columns of one buffer, large disjoint views) and the search's limit.
#include "opdev/overlap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace aclnn_cpu {

/// How gtest prints an answer (found by argument-dependent lookup).
static void PrintTo(Overlap o, std::ostream* os) {
  *os << (o == Overlap::kNone ? "kNone" : (o == Overlap::kShared ? "kShared" : "kUndecided"));
}

namespace {

/// A view by value, with its first byte as a plain number (the functions never dereference it).
struct View {
  int64_t first = 0;  ///< byte address
  int64_t element_bytes = 4;
  std::vector<int64_t> dims, strides;

  MemoryView memory() const {
    return {reinterpret_cast<const void*>(static_cast<uintptr_t>(first)), element_bytes, dims, strides};
  }
  /// Start address of every element, in row-major index order.
  std::vector<int64_t> Starts() const {
    std::vector<int64_t> starts{first};
    for (size_t k = 0; k < dims.size(); ++k) {
      std::vector<int64_t> next;
      for (int64_t s : starts) {
        for (int64_t i = 0; i < dims[k]; ++i) next.push_back(s + i * strides[k] * element_bytes);
      }
      starts = std::move(next);
    }
    return starts;
  }
};

/// A base address far from 0, so that negative strides stay positive.
constexpr int64_t kBase = int64_t{1} << 20;

bool BruteInternal(const View& v) {
  std::vector<int64_t> starts = v.Starts();
  std::sort(starts.begin(), starts.end());
  return std::adjacent_find(starts.begin(), starts.end()) != starts.end();
}

bool BruteMutual(const View& a, const View& b) {
  std::set<int64_t> bytes;
  for (int64_t s : a.Starts()) {
    for (int64_t k = 0; k < a.element_bytes; ++k) bytes.insert(s + k);
  }
  for (int64_t s : b.Starts()) {
    for (int64_t k = 0; k < b.element_bytes; ++k) {
      if (bytes.count(s + k) != 0) return true;
    }
  }
  return false;
}

std::string Describe(const View& v) {
  std::ostringstream os;
  os << "first " << v.first - kBase << " bytes " << v.element_bytes << " dims [";
  for (size_t k = 0; k < v.dims.size(); ++k) os << (k ? "," : "") << v.dims[k];
  os << "] strides [";
  for (size_t k = 0; k < v.strides.size(); ++k) os << (k ? "," : "") << v.strides[k];
  os << "]";
  return os.str();
}

Overlap Expect(bool shared) { return shared ? Overlap::kShared : Overlap::kNone; }

/// A small random view: rank 0..4, sizes 0..5 (1 often), strides in [-max_stride, max_stride]
/// (0 sometimes, or a multiple of a common step so that strides interleave), any byte offset.
View RandomView(std::mt19937_64& rng, int64_t max_stride, int64_t element_bytes) {
  View v;
  v.element_bytes = element_bytes;
  v.first = kBase + static_cast<int64_t>(rng() % 64);
  const int rank = static_cast<int>(rng() % 5);
  const int64_t step = 1 + static_cast<int64_t>(rng() % 3);
  for (int k = 0; k < rank; ++k) {
    const uint64_t pick = rng() % 10;
    v.dims.push_back(pick == 0 ? 0 : (pick < 3 ? 1 : 1 + static_cast<int64_t>(rng() % 5)));
    int64_t stride = static_cast<int64_t>(rng() % static_cast<uint64_t>(2 * max_stride + 1)) - max_stride;
    if (rng() % 3 == 0) stride = step * (stride / 2);
    if (rng() % 12 == 0) stride = 0;
    v.strides.push_back(stride);
  }
  return v;
}

int64_t RandomElementBytes(std::mt19937_64& rng) {
  constexpr int64_t kSizes[] = {1, 2, 4, 8, 3};
  return kSizes[rng() % 5];
}

// ---------------------------------------------------------------------------------------------
// Against brute force.

TEST(InternalOverlap, AgreesWithListingOnRandomSmallViews) {
  std::mt19937_64 rng(1);
  int shared = 0;
  for (int n = 0; n < 20000; ++n) {
    const View v = RandomView(rng, n % 2 ? 8 : 30, RandomElementBytes(rng));
    const bool expected = BruteInternal(v);
    shared += expected;
    ASSERT_EQ(InternalOverlap(v.memory()), Expect(expected)) << Describe(v);
  }
  EXPECT_GT(shared, 2000) << "the random views must exercise both answers";
  EXPECT_LT(shared, 18000) << "the random views must exercise both answers";
}

TEST(MutualOverlap, AgreesWithListingOnRandomSmallViews) {
  std::mt19937_64 rng(2);
  int shared = 0, ranges_met_but_disjoint = 0;
  for (int n = 0; n < 20000; ++n) {
    const View a = RandomView(rng, 12, RandomElementBytes(rng));
    View b = RandomView(rng, 12, RandomElementBytes(rng));
    if (n % 4 == 0) {  // b a shifted copy of a: the interleavings that matter most
      b.dims = a.dims;
      b.strides = a.strides;
      b.element_bytes = a.element_bytes;
      b.first = a.first + static_cast<int64_t>(rng() % 17) - 8;
    }
    const bool expected = BruteMutual(a, b);
    shared += expected;
    ASSERT_EQ(MutualOverlap(a.memory(), b.memory()), Expect(expected)) << Describe(a) << " / " << Describe(b);
    ASSERT_EQ(MutualOverlap(b.memory(), a.memory()), Expect(expected)) << Describe(b) << " / " << Describe(a);
    if (!expected && !a.Starts().empty() && !b.Starts().empty()) {
      const auto sa = a.Starts(), sb = b.Starts();
      const int64_t lo_a = *std::min_element(sa.begin(), sa.end()), hi_a = *std::max_element(sa.begin(), sa.end());
      const int64_t lo_b = *std::min_element(sb.begin(), sb.end()), hi_b = *std::max_element(sb.begin(), sb.end());
      ranges_met_but_disjoint += lo_a <= hi_b + b.element_bytes - 1 && lo_b <= hi_a + a.element_bytes - 1;
    }
  }
  EXPECT_GT(shared, 2000);
  EXPECT_GT(ranges_met_but_disjoint, 500) << "the exact test, not only the range test, must be exercised";
}

TEST(MutualOverlap, AgreesWithListingOnThreeAndFourDimInterleavings) {
  // Larger sizes, strides sharing factors, element sizes that differ: where the search branches.
  std::mt19937_64 rng(3);
  for (int n = 0; n < 3000; ++n) {
    View a, b;
    for (View* v : {&a, &b}) {
      v->element_bytes = RandomElementBytes(rng);
      v->first = kBase + static_cast<int64_t>(rng() % 200);
      const int rank = 2 + static_cast<int>(rng() % 3);
      for (int k = 0; k < rank; ++k) {
        v->dims.push_back(2 + static_cast<int64_t>(rng() % 6));
        v->strides.push_back(static_cast<int64_t>(rng() % 25) * (1 + static_cast<int64_t>(rng() % 3)));
      }
    }
    const bool expected = BruteMutual(a, b);
    ASSERT_EQ(MutualOverlap(a.memory(), b.memory()), Expect(expected)) << Describe(a) << " / " << Describe(b);
    ASSERT_EQ(InternalOverlap(a.memory()), Expect(BruteInternal(a))) << Describe(a);
  }
}

TEST(SameView, AgreesWithEqualStartsAndElementSizes) {
  // Same view <=> every index starts at the same byte in both and the element sizes are equal,
  // for views with the same dims (how operators compare out with an input of its shape).
  std::mt19937_64 rng(4);
  int same = 0;
  for (int n = 0; n < 20000; ++n) {
    const View a = RandomView(rng, 4, 1 + static_cast<int64_t>(rng() % 2));
    if (a.Starts().empty()) continue;  // an empty view addresses nothing: no question to ask
    View b = a;
    if (rng() % 2) b.first += static_cast<int64_t>(rng() % 3) - 1;
    if (rng() % 2) b.element_bytes = 1 + static_cast<int64_t>(rng() % 2);
    for (size_t k = 0; k < b.strides.size(); ++k) {
      if (rng() % 3 == 0) b.strides[k] = static_cast<int64_t>(rng() % 9) - 4;
    }
    const bool expected = a.element_bytes == b.element_bytes && a.Starts() == b.Starts() && a.first == b.first;
    same += expected;
    ASSERT_EQ(SameView(a.memory(), b.memory()), expected) << Describe(a) << " / " << Describe(b);
  }
  EXPECT_GT(same, 2000);
}

// ---------------------------------------------------------------------------------------------
// Named cases.

View Make(int64_t first_byte, int64_t element_bytes, std::vector<int64_t> dims, std::vector<int64_t> strides) {
  return {kBase + first_byte, element_bytes, std::move(dims), std::move(strides)};
}

TEST(InternalOverlap, InterleavedStridesThatNeverMeetShareNothing) {
  EXPECT_EQ(InternalOverlap(Make(0, 4, {3, 2}, {2, 3}).memory()), Overlap::kNone);
  EXPECT_EQ(InternalOverlap(Make(0, 4, {5, 5}, {2, 5}).memory()), Overlap::kNone);
}

TEST(InternalOverlap, LargeInterleavedViewIsDecidedWithoutListing) {
  // 1.2 million elements at 2i + 3j, i < 3: all distinct. The old listing refused it (> 2^20).
  const View v = Make(0, 4, {3, 400000}, {2, 3});
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(InternalOverlap(v.memory()), Overlap::kNone);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50)) << "no listing";
  EXPECT_EQ(InternalOverlap(Make(0, 4, {4, 400000}, {2, 3}).memory()), Overlap::kShared);  // 2*3 = 3*2
}

TEST(InternalOverlap, StrideZeroOverMoreThanOneElementShares) {
  EXPECT_EQ(InternalOverlap(Make(0, 4, {4, 5}, {0, 1}).memory()), Overlap::kShared);
  EXPECT_EQ(InternalOverlap(Make(0, 4, {1, 5}, {0, 1}).memory()), Overlap::kNone);  // size 1: one row
  EXPECT_EQ(InternalOverlap(Make(0, 4, {0, 5}, {0, 1}).memory()), Overlap::kNone);  // empty
}

TEST(InternalOverlap, NestedAndPermutedViewsShareNothing) {
  EXPECT_EQ(InternalOverlap(Make(0, 2, {1024, 1024}, {1024, 1}).memory()), Overlap::kNone);
  EXPECT_EQ(InternalOverlap(Make(0, 2, {7, 9, 11}, {1, 7 * 11, 7}).memory()), Overlap::kNone);
  EXPECT_EQ(InternalOverlap(Make(0, 8, {2, 3}, {-3, -1}).memory()), Overlap::kNone);
  EXPECT_EQ(InternalOverlap(Make(0, 8, {2, 4}, {3, 1}).memory()), Overlap::kShared);
}

TEST(MutualOverlap, ColumnsOfOneBufferShareNothing) {
  constexpr int64_t kRows = 100000;
  const View column0 = Make(0, 4, {kRows}, {2}), column1 = Make(4, 4, {kRows}, {2});
  EXPECT_EQ(MutualOverlap(column0.memory(), column1.memory()), Overlap::kNone);
  // Even and odd rows of [N, C].
  const View even = Make(0, 4, {500, 300}, {600, 1}), odd = Make(300 * 4, 4, {500, 300}, {600, 1});
  EXPECT_EQ(MutualOverlap(even.memory(), odd.memory()), Overlap::kNone);
  // The lower and upper halves of a bf16 pair each: 2-byte elements 4 bytes apart.
  EXPECT_EQ(MutualOverlap(Make(0, 2, {64, 64}, {128, 2}).memory(), Make(2, 2, {64, 64}, {128, 2}).memory()),
            Overlap::kNone);
}

TEST(MutualOverlap, HalvesOfOneAllocationShareNothing) {
  EXPECT_EQ(MutualOverlap(Make(0, 4, {512, 512}, {512, 1}).memory(), Make(512 * 512 * 4, 4, {512, 512}, {512, 1}).memory()),
            Overlap::kNone);
  EXPECT_EQ(MutualOverlap(Make(0, 4, {512, 512}, {512, 1}).memory(), Make(512 * 512 * 4 - 1, 4, {1}, {1}).memory()),
            Overlap::kShared);
}

TEST(MutualOverlap, ViewShiftedByOneElementShares) {
  EXPECT_EQ(MutualOverlap(Make(0, 4, {100000}, {1}).memory(), Make(4, 4, {100000}, {1}).memory()), Overlap::kShared);
  EXPECT_EQ(MutualOverlap(Make(0, 4, {316, 316}, {316, 1}).memory(), Make(4, 4, {316, 316}, {316, 1}).memory()),
            Overlap::kShared);
}

TEST(MutualOverlap, ElementsOfOtherSizesMeetByBytes) {
  // fp16 elements at bytes 2, 6, 10, ...: the upper halves of fp32 elements at 0, 4, 8, ...
  EXPECT_EQ(MutualOverlap(Make(0, 4, {16}, {1}).memory(), Make(2, 2, {16}, {2}).memory()), Overlap::kShared);
  // fp16 elements at byte offsets that are not multiples of 2 against fp64 elements every 16 bytes.
  EXPECT_EQ(MutualOverlap(Make(0, 8, {16}, {2}).memory(), Make(9, 2, {16}, {8}).memory()), Overlap::kNone);
  EXPECT_EQ(MutualOverlap(Make(0, 8, {16}, {2}).memory(), Make(7, 2, {16}, {8}).memory()), Overlap::kShared);
}

TEST(MutualOverlap, BroadcastViewsAreTheirOwnElements) {
  // A stride-0 input reads one element: it overlaps out only if out covers that element.
  EXPECT_EQ(MutualOverlap(Make(0, 4, {8, 8}, {16, 2}).memory(), Make(4, 4, {8, 8}, {0, 0}).memory()), Overlap::kNone);
  EXPECT_EQ(MutualOverlap(Make(0, 4, {8, 8}, {16, 2}).memory(), Make(8, 4, {}, {}).memory()), Overlap::kShared);
}

TEST(Overlap, OffsetsPast64BitsAreUndecidedNotWrong) {
  const View huge = Make(0, 8, {3, 2}, {INT64_MAX / 4, 1});
  EXPECT_EQ(InternalOverlap(huge.memory()), Overlap::kUndecided);
  EXPECT_EQ(MutualOverlap(huge.memory(), Make(0, 8, {2}, {1}).memory()), Overlap::kUndecided);
}

TEST(Overlap, SearchesPastTheLimitAreUndecided) {
  // Eight interleaved dims of pairwise unrelated strides: the search space is far larger than
  // kMaxOverlapSearchSteps and the strides have no structure to prune it.
  const View v = Make(0, 1, {40, 40, 40, 40, 40, 40, 40, 40},
                      {1000003, 1000033, 1000037, 1000039, 1000081, 1000099, 1000117, 1000121});
  const auto start = std::chrono::steady_clock::now();
  const Overlap internal = InternalOverlap(v.memory());
  const Overlap mutual = MutualOverlap(v.memory(), Make(1, 1, v.dims, v.strides).memory());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1)) << "the step limit bounds the time";
  EXPECT_NE(internal, Overlap::kNone) << "never a wrong kNone";  // shared or undecided
  EXPECT_NE(mutual, Overlap::kNone);
}

TEST(SameView, IgnoresTheStridesOfSizeOneDims) {
  EXPECT_TRUE(SameView(Make(0, 4, {5, 1}, {1, 1}).memory(), Make(0, 4, {5, 1}, {1, 99}).memory()));
  EXPECT_TRUE(SameView(Make(0, 4, {1, 5}, {7, 1}).memory(), Make(0, 4, {5}, {1}).memory()));
  EXPECT_FALSE(SameView(Make(0, 4, {5, 2}, {2, 1}).memory(), Make(0, 4, {2, 5}, {1, 2}).memory()));  // permuted
  EXPECT_FALSE(SameView(Make(0, 4, {5}, {1}).memory(), Make(0, 2, {5}, {2}).memory()));  // element size
  EXPECT_FALSE(SameView(Make(0, 4, {5}, {1}).memory(), Make(4, 4, {5}, {1}).memory()));
}

}  // namespace
}  // namespace aclnn_cpu
