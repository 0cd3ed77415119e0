// aclnnBinaryCrossEntropy's results through the C API: every element of every out against the
// long double reference and its bound (Note [Probability loss error bound]) for every dtype,
// reduction, weight broadcast, dtype mix and layout; in place; empty and 0-dim selves; the clamp
// at x = 0 and 1; x outside [0, 1]; labels outside [0, 1]; every length up to 300; a large mean
// and sum, bitwise the same for one and two threads. Outs start as the poison (NaN in every
// float dtype), so an element left unwritten fails its comparison.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "common/bce_prob_test_util.h"

namespace bce_prob_test {
namespace {

using aclnn_cpu::DTypeShortName;
using aclnn_cpu::kFloatDTypes;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

/// The shape of out for @p reduction: self's for none, [] for mean and sum.
std::vector<int64_t> OutDims(const std::vector<int64_t>& self_dims, int64_t reduction) {
  return reduction == 0 ? self_dims : std::vector<int64_t>{};
}

/// Runs @p c (reference taken first) and checks every element of out; returns the verdict.
Verdict RunAndCheck(const ForwardCall& c) {
  const std::vector<ProbLossReference> refs = ReferenceOf(c);
  const acl_test::CallOutcome r = HarnessCall(c).Run();
  EXPECT_EQ(r.status, ACLNN_SUCCESS) << r.failed_step << ": " << r.message;
  if (!r.ok()) return {1, 0};
  return CheckOut(c, refs);
}

// ---------------------------------------------------------------------------------------------
// dtypes, reductions, weights

TEST(ForwardValues, EveryDTypeReductionAndWeightBroadcastMatchesTheReference) {
  const std::vector<int64_t> dims = {13, 37};
  const auto weights = BroadcastShapesOf13x37();
  double worst_ulp[4] = {};
  for (size_t d = 0; d < 4; ++d) {
    const aclDataType dtype = kFloatDTypes[d];
    for (const auto& weight_dims : weights) {
      for (const int64_t reduction : {0, 1, 2}) {
        SCOPED_TRACE(::testing::Message()
                     << DTypeShortName(dtype) << " weight " << (weight_dims ? acl_test::DimsText(*weight_dims) : "none")
                     << " reduction " << reduction);
        TestTensor x(dims, dtype), y(dims, dtype), out(OutDims(dims, reduction), dtype);
        std::optional<TestTensor> w;
        if (weight_dims) w.emplace(*weight_dims, dtype);
        FillProbabilities(x, 100 + d);
        FillLabels(y, 200 + d);
        if (w) acl_test::FillRandom(*w, 300 + d, 0, 2);
        const Verdict v = RunAndCheck({&x, &y, w ? &*w : nullptr, reduction, &out});
        EXPECT_EQ(v.mismatches, 0);
        if (reduction == 0) worst_ulp[d] = std::max(worst_ulp[d], v.worst_ulp);
      }
    }
  }
  std::printf(
      "[ bce      ] forward, reduction none: largest error %.2f / %.2f / %.2f / %.2f ULP of out "
      "(fp32 / fp16 / bf16 / fp64)\n",
      worst_ulp[0], worst_ulp[1], worst_ulp[2], worst_ulp[3]);
}

TEST(ForwardValues, AThreeDimSelfWithARowWeightMatchesTheReference) {
  const std::vector<int64_t> dims = {3, 5, 67};
  for (const aclDataType dtype : kFloatDTypes) {
    for (const int64_t reduction : {0, 1, 2}) {
      SCOPED_TRACE(::testing::Message() << DTypeShortName(dtype) << " reduction " << reduction);
      TestTensor x(dims, dtype), y(dims, dtype), w({5, 1}, dtype), out(OutDims(dims, reduction), dtype);
      FillProbabilities(x, 11);
      FillLabels(y, 12);
      acl_test::FillRandom(w, 13, 0.1, 3);
      EXPECT_EQ(RunAndCheck({&x, &y, &w, reduction, &out}).mismatches, 0);
    }
  }
}

TEST(ForwardValues, MixedDTypesComputeInThePromotedTypeAndRoundToSelfs) {
  struct Mix {
    aclDataType self, target;
    std::optional<aclDataType> weight;
  };
  const Mix mixes[] = {{ACL_FLOAT16, ACL_BF16, ACL_FLOAT},    {ACL_BF16, ACL_FLOAT16, std::nullopt},
                       {ACL_FLOAT, ACL_DOUBLE, std::nullopt}, {ACL_FLOAT16, ACL_FLOAT, ACL_DOUBLE},
                       {ACL_DOUBLE, ACL_FLOAT16, ACL_BF16},   {ACL_BF16, ACL_FLOAT, ACL_FLOAT16},
                       {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}};
  const std::vector<int64_t> dims = {9, 130};
  for (const Mix& m : mixes) {
    for (const int64_t reduction : {0, 1, 2}) {
      SCOPED_TRACE(::testing::Message() << DTypeShortName(m.self) << "/" << DTypeShortName(m.target) << "/"
                                        << (m.weight ? DTypeShortName(*m.weight) : "-") << " reduction " << reduction);
      TestTensor x(dims, m.self), y(dims, m.target), out(OutDims(dims, reduction), m.self);
      std::optional<TestTensor> w;
      if (m.weight) w.emplace(std::vector<int64_t>{130}, *m.weight);
      FillProbabilities(x, 21);
      FillLabels(y, 22);
      if (w) acl_test::FillRandom(*w, 23, 0, 2);
      EXPECT_EQ(RunAndCheck({&x, &y, w ? &*w : nullptr, reduction, &out}).mismatches, 0);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// layouts, in place

TEST(ForwardValues, StridedAndPermutedOperandsAreReadAndOnlyOutsViewIsWritten) {
  for (const aclDataType dtype : kFloatDTypes) {
    SCOPED_TRACE(DTypeShortName(dtype));
    // self: the transpose of a [40, 24] block; target: every other element of a row-major
    // storage; weight: [40] with stride 3; out: a [24, 40] window with row stride 43 at offset 5.
    TestTensor x({24, 40}, {1, 24}, 0, 960, dtype), y({24, 40}, {80, 2}, 1, 24 * 80, dtype);
    TestTensor w({40}, {3}, 2, 121, dtype), out({24, 40}, {43, 1}, 5, 24 * 43 + 5, dtype);
    FillProbabilities(x, 31);
    FillLabels(y, 32);
    acl_test::FillRandom(w, 33, 0, 2);
    const std::vector<uint8_t> before = out.StorageBytes();
    EXPECT_EQ(RunAndCheck({&x, &y, &w, 0, &out}).mismatches, 0);
    ExpectNothingWrittenOutsideTheView(out, before);
    for (const int64_t reduction : {1, 2}) {
      TestTensor scalar({1}, {5}, 3, 8, dtype);  // [1] with an odd stride and offset
      const std::vector<uint8_t> scalar_before = scalar.StorageBytes();
      EXPECT_EQ(RunAndCheck({&x, &y, &w, reduction, &scalar}).mismatches, 0);
      ExpectNothingWrittenOutsideTheView(scalar, scalar_before);
    }
  }
}

TEST(ForwardValues, AChannelsLastSelfAndOutMatchTheReference) {
  // [2, 3, 5, 7] stored as [2, 5, 7, 3] (channels last), weight [3, 1, 1].
  const std::vector<int64_t> dims = {2, 3, 5, 7}, strides = {105, 1, 21, 3};
  for (const aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
    TestTensor x(dims, strides, 0, 210, dtype), y(dims, strides, 0, 210, dtype), out(dims, strides, 0, 210, dtype);
    TestTensor w({3, 1, 1}, dtype);
    FillProbabilities(x, 41);
    FillLabels(y, 42);
    acl_test::FillRandom(w, 43, 0.5, 1.5);
    EXPECT_EQ(RunAndCheck({&x, &y, &w, 0, &out}).mismatches, 0) << DTypeShortName(dtype);
  }
}

TEST(ForwardValues, OutMayBeTheVerySameViewAsSelfOrTheTarget) {
  for (const aclDataType dtype : kFloatDTypes) {
    SCOPED_TRACE(DTypeShortName(dtype));
    TestTensor x({7, 45}, {50, 1}, 3, 350, dtype), y({7, 45}, dtype), w({45}, dtype);
    FillProbabilities(x, 51);
    FillLabels(y, 52);
    acl_test::FillRandom(w, 53, 0, 2);
    const std::vector<uint8_t> before = x.StorageBytes();
    EXPECT_EQ(RunAndCheck({&x, &y, &w, 0, &x}).mismatches, 0);  // out is self
    ExpectNothingWrittenOutsideTheView(x, before);
    TestTensor x2({7, 45}, dtype), y2({7, 45}, dtype);
    FillProbabilities(x2, 54);
    FillLabels(y2, 55);
    EXPECT_EQ(RunAndCheck({&x2, &y2, nullptr, 0, &y2}).mismatches, 0);  // out is the target
  }
}

TEST(ForwardValues, TheOneElementOfMeanAndSumMayBeAnElementOfSelf) {
  // out's one element is written after every input is read: the result is the non-aliased one.
  for (const aclDataType dtype : kFloatDTypes) {
    for (const int64_t reduction : {1, 2}) {
      SCOPED_TRACE(::testing::Message() << DTypeShortName(dtype) << " reduction " << reduction);
      TestTensor x({3000}, dtype), y({3000}, dtype), expected({}, dtype);
      FillProbabilities(x, 56);
      FillLabels(y, 57);
      ASSERT_EQ(RunCall({&x, &y, nullptr, reduction, &expected}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
      const acl_test::TensorHandle alias = acl_test::ViewOver(x, {}, {}, 2047);
      const acl_test::CallOutcome r = acl_test::AclnnCall(aclnn_cpu::apis::ApiId::kBinaryCrossEntropy)
                                          .With({{"self", x.get()}, {"target", y.get()}, {"out", alias.get()}})
                                          .Reduction(reduction)
                                          .Run();
      ASSERT_TRUE(r.ok()) << r.message;
      EXPECT_EQ(x.Get(2047), expected.Get(0));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// empty and 0-dim selves

TEST(ForwardValues, AnEmptySelfGivesMeanNaNSumZeroAndWritesNothingForNone) {
  for (const aclDataType dtype : kFloatDTypes) {
    SCOPED_TRACE(DTypeShortName(dtype));
    TestTensor x({4, 0, 3}, dtype), y({4, 0, 3}, dtype), w({3}, dtype), none_out({4, 0, 3}, dtype);
    acl_test::FillConstant(w, 0.5);
    const std::vector<uint8_t> before = none_out.StorageBytes();
    uint64_t ws = 1;
    aclOpExecutor* e = nullptr;
    ASSERT_EQ(HarnessCall({&x, &y, &w, 0, &none_out}).FirstPhase(&ws, &e), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(ws, 0u);
    ASSERT_EQ(aclnnBinaryCrossEntropy(nullptr, 0, e, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    EXPECT_EQ(acl_test::FirstDifference(before, none_out.StorageBytes()), -1);
    for (const int64_t reduction : {1, 2}) {
      TestTensor out({1}, dtype);
      ASSERT_EQ(RunCall({&x, &y, &w, reduction, &out}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
      if (reduction == 1) {
        EXPECT_TRUE(std::isnan(out.Get(0))) << out.Get(0);
      } else {
        EXPECT_EQ(out.Get(0), 0.0);
        EXPECT_FALSE(std::signbit(out.Get(0)));
      }
    }
  }
}

TEST(ForwardValues, AZeroDimSelfIsOneElement) {
  for (const aclDataType dtype : kFloatDTypes) {
    for (const int64_t reduction : {0, 1, 2}) {
      SCOPED_TRACE(::testing::Message() << DTypeShortName(dtype) << " reduction " << reduction);
      TestTensor x({}, dtype), y({}, dtype), w({}, dtype),
          out(reduction == 1 ? std::vector<int64_t>{1} : std::vector<int64_t>{}, dtype);
      x.Set(0, 0.3);
      y.Set(0, 0.8);
      w.Set(0, 1.5);
      EXPECT_EQ(RunAndCheck({&x, &y, &w, reduction, &out}).mismatches, 0);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// special values

TEST(ForwardValues, XOfExactlyZeroOrOneIsClampedToALossOf100PerWrongUnit) {
  // x, y, expected loss (weight 1): log(0) counts as -100.
  const double cases[][3] = {{0, 1, 100},   {1, 0, 100},   {0, 0, 0},    {1, 1, 0},
                             {0, 0.25, 25}, {1, 0.75, 25}, {0, 0.5, 50}, {1, 0.5, 50}};
  for (const aclDataType dtype : kFloatDTypes) {
    SCOPED_TRACE(DTypeShortName(dtype));
    const int64_t n = std::size(cases);
    TestTensor x({n}, dtype), y({n}, dtype), out({n}, dtype);
    for (int64_t i = 0; i < n; ++i) {
      x.Set(i, cases[i][0]);
      y.Set(i, cases[i][1]);
    }
    ASSERT_EQ(RunCall({&x, &y, nullptr, 0, &out}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_EQ(out.Get(i), cases[i][2]) << "x=" << cases[i][0] << " y=" << cases[i][1];
    }
    // A weight scales the clamped loss: 100 * 0.5 per wrong unit.
    TestTensor w({1}, dtype), sum({}, dtype);
    w.Set(0, 0.5);
    ASSERT_EQ(RunCall({&x, &y, &w, 2, &sum}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(sum.Get(0), 0.5 * (100 + 100 + 25 + 25 + 50 + 50));
  }
}

TEST(ForwardValues, TinyXAndXNearOneFollowTheClampedLogs) {
  // Around e^-100 (3.72e-44, an fp32 subnormal) the clamp takes over from log(x); 1 - 2^-24 and
  // 1 - 2^-53 are the largest values below 1 of fp32 and fp64.
  const double xs[] = {0x1p-149, 0x1p-140, 3.0e-44,     3.72e-44,    4.0e-44,     1e-40,  0x1p-126, 1e-30,
                       1e-10,    0.5,      1 - 0x1p-24, 1 - 0x1p-20, 1 - 0x1p-53, 1e-300, 0x1p-1074};
  for (const aclDataType dtype : {ACL_FLOAT, ACL_DOUBLE}) {
    for (const double y : {0.0, 1.0, 0.5, 0.999}) {
      SCOPED_TRACE(::testing::Message() << DTypeShortName(dtype) << " y " << y);
      const int64_t n = std::size(xs);
      TestTensor x({n}, dtype), t({n}, dtype), out({n}, dtype);
      for (int64_t i = 0; i < n; ++i) {
        x.Set(i, xs[i]);  // rounded to the dtype: fp64-only values become 0 or 1 in fp32
        t.Set(i, y);
      }
      EXPECT_EQ(RunAndCheck({&x, &t, nullptr, 0, &out}).mismatches, 0);
    }
  }
}

TEST(ForwardValues, XOutsideZeroToOneOrNaNGivesNaNForItsElementAndForMeanAndSum) {
  const double xs[] = {-0.5, 1.5, kNaN, -kInf, kInf, -0x1p-20, 1 + 0x1p-7, -0.0};  // 1 + 2^-7: above 1 in bf16 too
  for (const aclDataType dtype : kFloatDTypes) {
    SCOPED_TRACE(DTypeShortName(dtype));
    const int64_t n = std::size(xs);
    TestTensor x({n}, dtype), y({n}, dtype), out({n}, dtype);
    for (int64_t i = 0; i < n; ++i) {
      x.Set(i, xs[i]);
      y.Set(i, 0.25);
    }
    EXPECT_EQ(RunAndCheck({&x, &y, nullptr, 0, &out}).mismatches, 0);
    for (int64_t i = 0; i + 1 < n; ++i) EXPECT_TRUE(std::isnan(out.Get(i))) << "x=" << xs[i] << ": " << out.Get(i);
    // -0 is in [0, 1]: log(-0) = -inf, clamped.
    EXPECT_EQ(out.Get(n - 1), 25.0);
    // One bad element among many makes mean and sum NaN.
    TestTensor big_x({3000}, dtype), big_y({3000}, dtype);
    FillProbabilities(big_x, 61);
    FillLabels(big_y, 62);
    big_x.Set(2049, 1.25);
    for (const int64_t reduction : {1, 2}) {
      TestTensor r({}, dtype);
      ASSERT_EQ(RunCall({&big_x, &big_y, nullptr, reduction, &r}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
      EXPECT_TRUE(std::isnan(r.Get(0))) << "reduction " << reduction << ": " << r.Get(0);
    }
  }
}

TEST(ForwardValues, LabelsOutsideZeroToOneAreComputedByTheFormula) {
  for (const aclDataType dtype : kFloatDTypes) {
    SCOPED_TRACE(DTypeShortName(dtype));
    TestTensor x({200}, dtype), y({200}, dtype), w({200}, dtype), out({200}, dtype);
    FillProbabilities(x, 71);
    acl_test::FillRandom(y, 72, -3, 4);
    acl_test::FillRandom(w, 73, -1, 2);  // negative weights too: the formula holds for any
    EXPECT_EQ(RunAndCheck({&x, &y, &w, 0, &out}).mismatches, 0);
    for (const int64_t reduction : {1, 2}) {
      TestTensor r({}, dtype);
      EXPECT_EQ(RunAndCheck({&x, &y, &w, reduction, &r}).mismatches, 0);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// lengths

TEST(ForwardValues, EveryLengthFromOneTo300MatchesTheReference) {
  for (const aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
    for (int64_t n = 1; n <= 300; ++n) {
      SCOPED_TRACE(::testing::Message() << DTypeShortName(dtype) << " n " << n);
      TestTensor x({n}, dtype), y({n}, dtype), w({n}, dtype), out({n}, dtype);
      FillProbabilities(x, 1000 + static_cast<uint64_t>(n));
      FillLabels(y, 2000 + static_cast<uint64_t>(n));
      acl_test::FillRandom(w, 3000 + static_cast<uint64_t>(n), 0, 2);
      ASSERT_EQ(RunAndCheck({&x, &y, &w, 0, &out}).mismatches, 0);
      for (const int64_t reduction : {1, 2}) {
        TestTensor r({}, dtype);
        ASSERT_EQ(RunAndCheck({&x, &y, reduction == 1 ? &w : nullptr, reduction, &r}).mismatches, 0)
            << "reduction " << reduction;
      }
    }
  }
}

TEST(ForwardValues, OneMiElementsMeanAndSumMatchTheReferenceAndAreBitwiseTheSameForOneAndTwoThreads) {
  ThreadCountGuard guard;
  const int64_t n = (int64_t{1} << 20) + 3;
  for (const aclDataType dtype : {ACL_FLOAT, ACL_BF16, ACL_DOUBLE}) {
    TestTensor x({n}, dtype), y({n}, dtype), w({n}, dtype);
    FillProbabilities(x, 81);
    FillLabels(y, 82);
    // Weights over 2^-40 .. 2^40, so that fp64 sums round and any change of grouping would show.
    std::mt19937_64 rng(83);
    std::uniform_real_distribution<double> exponent(-40, 40);
    for (int64_t i = 0; i < n; ++i) w.Set(i, std::exp2(exponent(rng)));
    const ForwardCall reference_call{&x, &y, &w, 0, nullptr};
    const std::vector<ProbLossReference> refs = ReferenceOf(reference_call);
    for (const int64_t reduction : {1, 2}) {
      std::optional<std::vector<uint8_t>> first;
      for (const int32_t threads : {1, 2, 3, 1}) {
        SCOPED_TRACE(::testing::Message()
                     << DTypeShortName(dtype) << " reduction " << reduction << " threads " << threads);
        ASSERT_EQ(aclnnCpuSetNumThreads(threads), ACL_SUCCESS);
        TestTensor out({}, dtype);
        const ForwardCall c{&x, &y, &w, reduction, &out};
        ASSERT_EQ(RunCall(c), ACLNN_SUCCESS) << aclGetRecentErrMsg();
        EXPECT_EQ(CheckReduced(c, refs).mismatches, 0);
        if (!first) first = out.StorageBytes();
        EXPECT_EQ(acl_test::FirstDifference(*first, out.StorageBytes()), -1) << out.Get(0);
      }
    }
  }
}

TEST(ForwardValues, ReductionNoneIsBitwiseTheSameForOneAndTwoThreads) {
  ThreadCountGuard guard;
  const int64_t n = (int64_t{1} << 18) + 11;
  TestTensor x({n}, ACL_FLOAT), y({n}, ACL_FLOAT), w({n}, ACL_FLOAT);
  FillProbabilities(x, 91);
  FillLabels(y, 92);
  acl_test::FillRandom(w, 93, 0, 2);
  std::optional<std::vector<uint8_t>> first;
  for (const int32_t threads : {1, 2}) {
    ASSERT_EQ(aclnnCpuSetNumThreads(threads), ACL_SUCCESS);
    TestTensor out({n}, ACL_FLOAT);
    EXPECT_EQ(RunAndCheck({&x, &y, &w, 0, &out}).mismatches, 0) << threads << " threads";
    if (!first) first = out.StorageBytes();
    EXPECT_EQ(acl_test::FirstDifference(*first, out.StorageBytes()), -1) << threads << " threads";
  }
}

TEST(ForwardValues, MeanAndSumAreWithinOneRoundingOfTheExactSumOfTheLossesNoneReturns) {
  // fp32: each element's loss is the same fp32 value in every reduction; the fp64 accumulation
  // and the one rounding to out leave mean and sum within one ULP of the exact sum of them.
  for (const int64_t n : {int64_t{1}, int64_t{1023}, int64_t{1024}, int64_t{1025}, int64_t{70001}}) {
    TestTensor x({n}, ACL_FLOAT), y({n}, ACL_FLOAT), w({n}, ACL_FLOAT), none_out({n}, ACL_FLOAT);
    FillProbabilities(x, 101 + static_cast<uint64_t>(n));
    FillLabels(y, 102);
    acl_test::FillRandom(w, 103, 0, 2);
    ASSERT_EQ(RunCall({&x, &y, &w, 0, &none_out}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    long double exact = 0;
    for (int64_t i = 0; i < n; ++i) exact += static_cast<long double>(none_out.Get(i));
    for (const int64_t reduction : {1, 2}) {
      TestTensor out({}, ACL_FLOAT);
      ASSERT_EQ(RunCall({&x, &y, &w, reduction, &out}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
      const auto rounded = static_cast<float>(reduction == 1 ? exact / n : exact);
      EXPECT_LE(std::fabs(out.Get(0) - rounded), UlpIn(rounded, ACL_FLOAT))
          << "n " << n << " reduction " << reduction << ": got " << out.Get(0) << ", exact "
          << static_cast<double>(exact);
    }
  }
}

}  // namespace
}  // namespace bce_prob_test
