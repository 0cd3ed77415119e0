// Numerics end to end: the seed example (docs/contract.md §1), the float64 reference over magnitudes,
// extreme values, every dtype and sizes around vector widths, and bitwise determinism across
// thread counts (docs/contract.md §4).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "aclnn/aclnn_cpu.h"
#include "common/bce_test_util.h"
#include "common/dtype.h"
#include "op_api_test_helpers.h"

namespace bce_test {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---------------------------------------------------------------------------------------------
// The seed example: x = 1, y = 0.5, dout = 1, weight = 1, pos_weight = 2 over 32 x 32.

/// 1.5 * sigmoid(1) - 1 in exact arithmetic (to double precision).
constexpr double kSeedGradient = 0.09658786797;
/// The subtraction in 1.5 * p - 1 loses about 11x relative precision in fp32, so the result
/// may be a dozen or so fp32 ulps away from the exact value; more means a wrong formula.
constexpr double kSeedUlpTolerance = 16;

class SeedExample : public ::testing::TestWithParam<int64_t> {};

TEST_P(SeedExample, EveryElementIsTheSeedValue) {
  const int64_t reduction = GetParam();
  const std::vector<int64_t> dims{32, 32};
  TestTensor dout(dims, ACL_FLOAT), x(dims, ACL_FLOAT), y(dims, ACL_FLOAT), w(dims, ACL_FLOAT), pw(dims, ACL_FLOAT),
      out(dims, ACL_FLOAT);
  FillConstant(dout, 1.0);
  FillConstant(x, 1.0);
  FillConstant(y, 0.5);
  FillConstant(w, 1.0);
  FillConstant(pw, 2.0);
  Problem p{&dout, &x, &y, &w, &pw, reduction, &out};
  ASSERT_EQ(RunOperator(p), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  const double expected = reduction == 1 ? kSeedGradient / 1024 : kSeedGradient;
  const double ulp = std::ldexp(1.0, std::ilogb(expected) - 23);
  for (int64_t i = 0; i < out.numel(); ++i) {
    ASSERT_LE(std::fabs(out.Get(i) - expected), kSeedUlpTolerance * ulp)
        << "element " << i << ": " << out.Get(i) << " vs " << expected;
    ASSERT_EQ(out.Get(i), out.Get(0)) << "element " << i;
  }
  EXPECT_EQ(CheckAgainstReference(p).mismatches, 0);
}

INSTANTIATE_TEST_SUITE_P(Numerics, SeedExample, ::testing::Values(0, 1, 2), [](const auto& test_info) {
  return std::string(test_info.param == 0 ? "none" : test_info.param == 1 ? "mean" : "sum");
});

TEST(Numerics, SeedExampleMeanIsTheDocumentedValue) {
  // docs/contract.md §1: 9.4324090e-05 in exact arithmetic; the kernel result within a few fp32 ulp.
  const std::vector<int64_t> dims{32, 32};
  TestTensor dout({}, ACL_FLOAT), x(dims, ACL_FLOAT), y(dims, ACL_FLOAT), w({}, ACL_FLOAT), pw({}, ACL_FLOAT),
      out(dims, ACL_FLOAT);
  dout.Set(0, 1.0);
  FillConstant(x, 1.0);
  FillConstant(y, 0.5);
  w.Set(0, 1.0);
  pw.Set(0, 2.0);
  ASSERT_EQ(RunOperator({&dout, &x, &y, &w, &pw, 1, &out}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_NEAR(out.Get(0), 9.4324090e-05, kSeedUlpTolerance * 0x1p-37);
  EXPECT_NEAR(out.Get(1023), 9.4324090e-05, kSeedUlpTolerance * 0x1p-37);
}

// ---------------------------------------------------------------------------------------------
// The float64 reference over magnitudes, dtypes and sizes.

/// Runs a call of @p n elements, all operands of @p dtype, with optional weight / pos_weight,
/// logits uniform in [x_lo, x_hi); returns mismatches against the reference.
int64_t RunUniform(int64_t n, aclDataType dtype, bool with_weight, bool with_pos_weight, int64_t reduction,
                   double x_lo, double x_hi, uint64_t seed) {
  TestTensor x({n}, dtype), y({n}, dtype), dout({n}, dtype), out({n}, dtype);
  std::unique_ptr<TestTensor> w, pw;
  if (with_weight) w = std::make_unique<TestTensor>(std::vector<int64_t>{n}, dtype);
  if (with_pos_weight) pw = std::make_unique<TestTensor>(std::vector<int64_t>{n}, dtype);
  FillRandom(x, seed, x_lo, x_hi);
  FillRandom(y, seed + 1, 0, 1);
  FillRandom(dout, seed + 2, -2, 2);
  if (w) FillRandom(*w, seed + 3, 0.1, 2);
  if (pw) FillRandom(*pw, seed + 4, 0.5, 3);
  Problem p{&dout, &x, &y, w.get(), pw.get(), reduction, &out};
  const aclnnStatus status = RunOperator(p);
  EXPECT_EQ(status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
  if (status != ACLNN_SUCCESS) return n;
  return CheckAgainstReference(p).mismatches;
}

class EveryDtype : public ::testing::TestWithParam<aclDataType> {};

TEST_P(EveryDtype, LogitsOfEveryMagnitudeMatchTheReference) {
  uint64_t seed = 1000;
  for (double scale : {1e-3, 1e-1, 1.0, 10.0, 100.0, 1e3, 1e4}) {
    for (int variant = 0; variant < 4; ++variant) {
      SCOPED_TRACE(::testing::Message() << "logits in [-" << scale << ", " << scale << "), weight " << (variant & 1)
                                        << ", pos_weight " << (variant >> 1));
      EXPECT_EQ(RunUniform(4099, GetParam(), variant & 1, variant >> 1, variant % 3, -scale, scale, seed), 0);
      seed += 10;
    }
  }
}

TEST_P(EveryDtype, SizesAroundVectorWidthsMatchTheReference) {
  std::vector<int64_t> sizes;
  for (int64_t n = 1; n <= 70; ++n) sizes.push_back(n);
  for (int64_t n : {127, 128, 129, 255, 256, 257, 1023, 1024, 1025, 65537}) sizes.push_back(n);
  uint64_t seed = 5000;
  for (int64_t n : sizes) {
    for (int variant = 0; variant < 4; ++variant) {
      SCOPED_TRACE(::testing::Message() << "n " << n << ", weight " << (variant & 1) << ", pos_weight " << (variant >> 1));
      ASSERT_EQ(RunUniform(n, GetParam(), variant & 1, variant >> 1, variant % 3, -8, 8, seed), 0);
      seed += 10;
    }
  }
}

TEST_P(EveryDtype, ExtremeLogitsGiveFiniteExactLimits) {
  // sigmoid never gives NaN for a finite x, however large; +-Inf give p in {0, 1}.
  const aclDataType dtype = GetParam();
  const std::vector<double> logits = {1e30, -1e30, 3e38, -3e38, 1e4, -1e4, 88.7, -88.7, 89.0, -89.0,
                                      104.0, -104.0, 200.0, -200.0, 745.0, -745.0, 1e300, -1e300, kInf, -kInf};
  const int64_t n = static_cast<int64_t>(logits.size());
  TestTensor x({n}, dtype), y({n}, dtype), dout({n}, dtype), pw({n}, dtype), out({n}, dtype);
  for (int64_t i = 0; i < n; ++i) x.Set(i, logits[static_cast<size_t>(i)]);
  FillRandom(y, 60, 0.05, 0.95);
  FillRandom(dout, 61, 0.5, 2);
  FillRandom(pw, 62, 0.5, 3);
  for (bool with_pos_weight : {false, true}) {
    SCOPED_TRACE(with_pos_weight ? "with pos_weight" : "without pos_weight");
    out.Poison();
    Problem p{&dout, &x, &y, nullptr, with_pos_weight ? &pw : nullptr, 0, &out};
    ASSERT_EQ(RunOperator(p), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_TRUE(std::isfinite(out.Get(i))) << "x = " << x.Get(i) << " gave " << out.Get(i);
    }
    EXPECT_EQ(CheckAgainstReference(p).mismatches, 0);
  }
}

TEST_P(EveryDtype, NaNInAnyInputPropagatesToItsElementOnly) {
  const aclDataType dtype = GetParam();
  const int64_t n = 40;
  TestTensor x({n}, dtype), y({n}, dtype), dout({n}, dtype), w({n}, dtype), pw({n}, dtype), out({n}, dtype);
  FillRandom(x, 63, -5, 5);
  FillRandom(y, 64, 0, 1);
  FillRandom(dout, 65, 0.5, 2);
  FillRandom(w, 66, 0.5, 2);
  FillRandom(pw, 67, 0.5, 3);
  TestTensor* inputs[] = {&x, &y, &dout, &w, &pw};
  for (int k = 0; k < 5; ++k) inputs[k]->Set(3 + 7 * k, kNaN);
  Problem p{&dout, &x, &y, &w, &pw, 0, &out};
  ASSERT_EQ(RunOperator(p), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  for (int64_t i = 0; i < n; ++i) {
    const bool poisoned_input = i >= 3 && (i - 3) % 7 == 0 && (i - 3) / 7 < 5;
    EXPECT_EQ(std::isnan(out.Get(i)), poisoned_input) << "element " << i << " = " << out.Get(i);
  }
  EXPECT_EQ(CheckAgainstReference(p).mismatches, 0);
}

TEST_P(EveryDtype, PositiveLabelWithLargeLogitStaysAccurate) {
  // y = 1: g = p - 1 = -sigmoid(-x), tiny for large x; p - y would cancel to 0 or one fp32 ulp.
  const aclDataType dtype = GetParam();
  const std::vector<double> logits = {5, 10, 15, 16.5, 20, 25, 30, 40, 60, 80};
  const int64_t n = static_cast<int64_t>(logits.size());
  TestTensor x({n}, dtype), y({n}, dtype), dout({}, dtype), pw({}, dtype), out({n}, dtype);
  for (int64_t i = 0; i < n; ++i) x.Set(i, logits[static_cast<size_t>(i)]);
  FillConstant(y, 1.0);
  dout.Set(0, 1.0);
  pw.Set(0, 2.5);
  for (bool with_pos_weight : {false, true}) {
    SCOPED_TRACE(with_pos_weight ? "with pos_weight" : "without pos_weight");
    Problem p{&dout, &x, &y, nullptr, with_pos_weight ? &pw : nullptr, 0, &out};
    ASSERT_EQ(RunOperator(p), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    for (int64_t i = 0; i < n; ++i) {
      const double xi = x.Get(i);
      const double expected = -(with_pos_weight ? pw.Get(0) : 1.0) * std::exp(-xi) / (1 + std::exp(-xi));
      if (dtype == ACL_FLOAT16 && std::fabs(expected) < 0x1p-14) continue;  // fp16 subnormal: few digits left
      EXPECT_NEAR(out.Get(i), expected, std::fabs(expected) * 1e-2) << "x = " << xi;
      EXPECT_LT(out.Get(i), 0.0) << "x = " << xi;
    }
    EXPECT_EQ(CheckAgainstReference(p).mismatches, 0);
  }
}

TEST_P(EveryDtype, NegativeLabelWithVeryNegativeLogitStaysAccurate) {
  // y = 0: g = p = sigmoid(x), tiny and nonzero for x down to about -87 in fp32.
  const aclDataType dtype = GetParam();
  const std::vector<double> logits = {-5, -10, -20, -40, -60, -80, -85};
  const int64_t n = static_cast<int64_t>(logits.size());
  TestTensor x({n}, dtype), y({n}, dtype), dout({}, dtype), out({n}, dtype);
  for (int64_t i = 0; i < n; ++i) x.Set(i, logits[static_cast<size_t>(i)]);
  FillConstant(y, 0.0);
  dout.Set(0, 1.0);
  Problem p{&dout, &x, &y, nullptr, nullptr, 0, &out};
  ASSERT_EQ(RunOperator(p), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(CheckAgainstReference(p).mismatches, 0);
}

INSTANTIATE_TEST_SUITE_P(Numerics, EveryDtype, ::testing::Values(ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE),
                         [](const auto& test_info) { return std::string(aclnn_cpu::DTypeName(test_info.param)); });

TEST(Numerics, InfiniteWeightsAndGradOutputFollowIeeeArithmetic) {
  const int64_t n = 4;
  TestTensor x({n}, ACL_FLOAT), y({n}, ACL_FLOAT), dout({n}, ACL_FLOAT), w({n}, ACL_FLOAT), out({n}, ACL_FLOAT);
  const double xs[] = {1.0, -2.0, 3.0, 0.5}, ys[] = {0.2, 0.7, 0.1, 0.9}, douts[] = {kInf, 1.0, -kInf, 2.0},
               ws[] = {1.0, kInf, 0.5, -kInf};
  for (int64_t i = 0; i < n; ++i) {
    x.Set(i, xs[i]);
    y.Set(i, ys[i]);
    dout.Set(i, douts[i]);
    w.Set(i, ws[i]);
  }
  Problem p{&dout, &x, &y, &w, nullptr, 0, &out};
  ASSERT_EQ(RunOperator(p), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  for (int64_t i = 0; i < n; ++i) EXPECT_TRUE(std::isinf(out.Get(i))) << i << ": " << out.Get(i);
  EXPECT_EQ(CheckAgainstReference(p).mismatches, 0);
}

// ---------------------------------------------------------------------------------------------
// Determinism: bitwise-identical results for any thread count and any run.

using acl_test::ThreadCountGuard;  // restores the default thread count when a test ends

constexpr int64_t kLargeRows = 1000;
constexpr int64_t kLargeCols = 1003;  // 1e6 + 3000 elements: odd tails everywhere

/// A large problem with broadcast and strided operands; runs it with each thread count and
/// expects every run's out to be bitwise identical to the first.
void ExpectSameBitsForEveryThreadCount(aclDataType dtype, aclDataType broadcast_dtype) {
  ThreadCountGuard guard;
  const std::vector<int64_t> dims{kLargeRows, kLargeCols};
  auto x = std::make_unique<TestTensor>(dims, std::vector<int64_t>{1, kLargeRows}, 0, kLargeRows * kLargeCols, dtype);
  TestTensor y(dims, dtype), dout({}, broadcast_dtype), w({kLargeRows, 1}, broadcast_dtype);
  TestTensor pw({kLargeCols}, std::vector<int64_t>{2}, 1, 2 * kLargeCols + 1, broadcast_dtype);
  FillRandom(*x, 70, -10, 10);
  FillRandom(y, 71, 0, 1);
  dout.Set(0, 0.75);
  FillRandom(w, 72, 0.1, 2);
  FillRandom(pw, 73, 0.5, 3);
  std::vector<uint8_t> first;
  for (int32_t threads : {1, 2, 3, 8, 1}) {
    SCOPED_TRACE(::testing::Message() << threads << " threads");
    ASSERT_EQ(aclnnCpuSetNumThreads(threads), ACL_SUCCESS);
    ASSERT_EQ(aclnnCpuGetNumThreads(), threads);
    TestTensor out(dims, std::vector<int64_t>{kLargeCols + 1, 1}, 2, kLargeRows * (kLargeCols + 1) + 2, dtype);
    ASSERT_EQ(RunOperator({&dout, x.get(), &y, &w, &pw, 1, &out}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    if (first.empty()) {
      first = out.StorageBytes();
      EXPECT_EQ(CheckAgainstReference({&dout, x.get(), &y, &w, &pw, 1, &out}).mismatches, 0);
    } else {
      EXPECT_EQ(FirstDifference(first, out.StorageBytes()), -1);
    }
  }
}

TEST(Determinism, FloatResultsAreBitwiseIdenticalForOneTwoThreeAndEightThreads) {
  ExpectSameBitsForEveryThreadCount(ACL_FLOAT, ACL_FLOAT);
}

TEST(Determinism, MixedDtypeResultsAreBitwiseIdenticalForOneTwoThreeAndEightThreads) {
  ExpectSameBitsForEveryThreadCount(ACL_FLOAT16, ACL_BF16);
}

TEST(Determinism, ContiguousResultsAreBitwiseIdenticalForOneTwoThreeAndEightThreads) {
  ThreadCountGuard guard;
  const int64_t n = 1000003;
  TestTensor x({n}, ACL_FLOAT), y({n}, ACL_FLOAT), dout({n}, ACL_FLOAT), w({n}, ACL_FLOAT), pw({n}, ACL_FLOAT);
  FillRandom(x, 80, -20, 20);
  FillRandom(y, 81, 0, 1);
  FillRandom(dout, 82, -2, 2);
  FillRandom(w, 83, 0.1, 2);
  FillRandom(pw, 84, 0.5, 3);
  std::vector<uint8_t> first;
  for (int32_t threads : {1, 2, 3, 8}) {
    SCOPED_TRACE(::testing::Message() << threads << " threads");
    ASSERT_EQ(aclnnCpuSetNumThreads(threads), ACL_SUCCESS);
    TestTensor out({n}, ACL_FLOAT);
    ASSERT_EQ(RunOperator({&dout, &x, &y, &w, &pw, 2, &out}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    if (first.empty()) {
      first = out.StorageBytes();
    } else {
      EXPECT_EQ(FirstDifference(first, out.StorageBytes()), -1);
    }
  }
}

/// Exit code of the child when the watchdog fires.
constexpr int kHangExitCode = 3;
constexpr auto kHangTimeout = std::chrono::seconds(5);
constexpr int kThreadCountFlips = 400;
/// Elements of a launch with several blocks that still runs on the caller (no stream hand-off),
/// so that launches follow each other within microseconds.
constexpr int64_t kSmallMultiBlockElements = 1 << 16;

/// In a death-test child: launches with a new thread count each time; exits 0 when all are
/// done, kHangExitCode when they have not finished within kHangTimeout.
void FlipThreadCountsBetweenLaunches() {
  std::thread([] {
    std::this_thread::sleep_for(kHangTimeout);
    std::_Exit(kHangExitCode);
  }).detach();
  const int64_t n = kSmallMultiBlockElements;
  TestTensor x({n}, ACL_FLOAT), y({n}, ACL_FLOAT), dout({}, ACL_FLOAT), out({n}, ACL_FLOAT);
  FillRandom(x, 85, -4, 4);
  FillRandom(y, 86, 0, 1);
  dout.Set(0, 1.0);
  for (int i = 0; i < kThreadCountFlips; ++i) {
    if (aclnnCpuSetNumThreads(2 + i % 7) != ACL_SUCCESS) std::_Exit(1);
    if (RunOperator({&dout, &x, &y, nullptr, nullptr, 0, &out}) != ACLNN_SUCCESS) std::_Exit(2);
  }
  std::_Exit(0);
}

TEST(ThreadCountDeathTest, ChangingTheThreadCountBetweenLaunchesNeverHangs) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(FlipThreadCountsBetweenLaunches(), ::testing::ExitedWithCode(0), "")
      << "exit code " << kHangExitCode << " means the launches hung";
}

TEST(Determinism, ZeroThreadsRestoresTheDefaultCount) {
  const int32_t default_count = aclnnCpuGetNumThreads();
  ASSERT_EQ(aclnnCpuSetNumThreads(3), ACL_SUCCESS);
  EXPECT_EQ(aclnnCpuGetNumThreads(), 3);
  ASSERT_EQ(aclnnCpuSetNumThreads(0), ACL_SUCCESS);
  EXPECT_EQ(aclnnCpuGetNumThreads(), default_count);
}

TEST(Determinism, NegativeOrHugeThreadCountsAreRejected) {
  ThreadCountGuard guard;
  const int32_t before = aclnnCpuGetNumThreads();
  EXPECT_EQ(aclnnCpuSetNumThreads(-1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclnnCpuSetNumThreads(1025), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclnnCpuGetNumThreads(), before);
}

}  // namespace
}  // namespace bce_test
