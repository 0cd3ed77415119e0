// 64-bit indexing end to end (ctest label `slow`, kept out of the default CI run):
//
//   ctest --preset release -L slow --output-on-failure
//   (or: build/release/tests/stress/stress_huge_view_tests)
//
// It needs about 4.1 GiB of memory and takes about 10-20 s on 2 cores (Release).
//
// One call on a view of 2^31 + 4099 elements: self, target, weight and pos_weight are small
// storages read through stride-0 dims (self/target/weight [C] repeated over R rows, pos_weight one
// value per row), dout is one value per row modulo 7, and out is a real, contiguous fp16 tensor of
// R x C elements (about 4 GiB). Every element of out is then checked bitwise against a small
// [7 * 5, C] run of the same values (each result depends only on its own inputs), and samples (the
// first, the last, those around element 2^30 (byte 2^31) and element 2^31 (byte 2^32)) against
// the float64 reference.
#include <gtest/gtest.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

#include "common/bce_test_util.h"
#include "tolerance.h"

namespace {

using bce_test::TestTensor;

constexpr int64_t kCols = 4099;                                  // prime: rows do not align with vectors
constexpr int64_t kMinElems = (int64_t{1} << 31) + kCols;        // past 2^31 by a row
constexpr int64_t kRows = (kMinElems + kCols - 1) / kCols;
constexpr int64_t kElems = kRows * kCols;
constexpr int64_t kDoutPeriod = 7;                               // dout of row r is dout[r % 7]
constexpr int64_t kPosWeightPeriod = 5;                          // pos_weight of row r is pw[r % 5]
constexpr int64_t kPattern = kDoutPeriod * kPosWeightPeriod;     // rows repeat with this period

static_assert(kElems > (int64_t{1} << 31), "the view must pass 2^31 elements");

double XValue(int64_t c) { return static_cast<double>(c % 61) / 4.0 - 7.5; }
double YValue(int64_t c) { return static_cast<double>(c % 11) / 10.0; }
double WValue(int64_t c) { return 0.25 + static_cast<double>(c % 13) / 8.0; }
double DoutValue(int64_t r) { return static_cast<double>(r % kDoutPeriod) - 3.0; }
double PosWeightValue(int64_t r) { return 0.5 + static_cast<double>(r % kPosWeightPeriod); }

TEST(HugeView, MoreThanTwoToThe31ElementsOfFp16AreAllComputed) {
  const auto start = std::chrono::steady_clock::now();
  // self, target: [R, C] views with stride 0 over the rows; weight [C] broadcast; dout and
  // pos_weight [R, 1] (1 MiB each).
  TestTensor self({kRows, kCols}, {0, 1}, 0, kCols, ACL_FLOAT16);
  TestTensor target({kRows, kCols}, {0, 1}, 0, kCols, ACL_FLOAT16);
  TestTensor weight({kCols}, ACL_FLOAT16);
  TestTensor pos_weight({kRows, 1}, ACL_FLOAT16);
  TestTensor dout({kRows, 1}, ACL_FLOAT16);
  for (int64_t c = 0; c < kCols; ++c) {
    self.Set(c, XValue(c));
    target.Set(c, YValue(c));
    weight.Set(c, WValue(c));
  }
  for (int64_t r = 0; r < kRows; ++r) {
    dout.Set(r, DoutValue(r));
    pos_weight.Set(r, PosWeightValue(r));
  }
  TestTensor out({kRows, kCols}, ACL_FLOAT16);  // ~4 GiB, poisoned
  const bce_test::Problem huge{&dout, &self, &target, &weight, &pos_weight, 0, &out};
  const auto before_run = std::chrono::steady_clock::now();
  ASSERT_EQ(bce_test::RunOperator(huge), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  const auto after_run = std::chrono::steady_clock::now();

  // The same values on kPattern rows: row r of the huge result must equal row r % kPattern here.
  TestTensor small_self({kPattern, kCols}, {0, 1}, 0, kCols, ACL_FLOAT16);
  TestTensor small_target({kPattern, kCols}, {0, 1}, 0, kCols, ACL_FLOAT16);
  TestTensor small_pw({kPattern, 1}, ACL_FLOAT16), small_dout({kPattern, 1}, ACL_FLOAT16);
  TestTensor small_out({kPattern, kCols}, ACL_FLOAT16);
  for (int64_t c = 0; c < kCols; ++c) {
    small_self.Set(c, XValue(c));
    small_target.Set(c, YValue(c));
  }
  for (int64_t r = 0; r < kPattern; ++r) {
    small_dout.Set(r, DoutValue(r));
    small_pw.Set(r, PosWeightValue(r));
  }
  const bce_test::Problem small{&small_dout, &small_self, &small_target, &weight, &small_pw, 0, &small_out};
  ASSERT_EQ(bce_test::RunOperator(small), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(bce_test::CheckAgainstReference(small).mismatches, 0);

  const auto* got = static_cast<const uint16_t*>(out.data());
  const auto* expected = static_cast<const uint16_t*>(small_out.data());
  int64_t bad_rows = 0;
  for (int64_t r = 0; r < kRows; ++r) {
    if (std::memcmp(got + r * kCols, expected + (r % kPattern) * kCols, kCols * sizeof(uint16_t)) != 0) {
      if (bad_rows < 5) ADD_FAILURE() << "row " << r << " (elements from " << r * kCols << ") differs";
      ++bad_rows;
    }
  }
  EXPECT_EQ(bad_rows, 0);

  // Samples against the float64 reference: the ends, and around element 2^31 (byte 2^32) and
  // element 2^30 (byte 2^31).
  const int64_t two31 = int64_t{1} << 31;
  std::vector<int64_t> samples = {0, 1, kCols - 1, kCols, kElems - 1, kElems - 2, kElems - kCols};
  for (int64_t d = -3; d <= 3; ++d) samples.push_back(two31 + d);
  for (int64_t d = -3; d <= 3; ++d) samples.push_back(two31 / 2 + d);
  for (int64_t i : samples) {
    const int64_t r = i / kCols, c = i % kCols;
    const double x = self.Get(i), y = target.Get(i);
    const double g = dout.Get(r), w = weight.Get(c), pw = pos_weight.Get(r);
    const auto terms = bce_reliability::ComputeGradTerms(x, y, g, w, pw, 1.0);
    const auto v = bce_reliability::Judge(out.Get(i), terms.g, terms, ACL_FLOAT, ACL_FLOAT16);
    EXPECT_TRUE(v.ok) << "element " << i << ": got " << out.Get(i) << ", float64 " << terms.g << ", bound "
                      << v.bound;
  }
  const auto end = std::chrono::steady_clock::now();
  const auto seconds = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  std::printf("[huge] %" PRId64 " elements (2^31 + %" PRId64 "), fp16 out of %.2f GiB: set-up %.1f s, "
              "operator %.1f s, checks %.1f s\n",
              kElems, kElems - two31, static_cast<double>(kElems) * 2 / (1 << 30), seconds(start, before_run),
              seconds(before_run, after_run), seconds(after_run, end));
}

}  // namespace
