// aclnnBinaryCrossEntropyBackward's results through the C API: every element of out against the
// long double reference and its bound (Note [Probability gradient error bound]) for every dtype,
// reduction, broadcast of gradOutput, target and weight, dtype mix and layout; in place; empty and
// 0-dim selves; the floor at x = 0 and 1; x outside [0, 1] and NaN; every length up to 300; a
// large self, bitwise the same for one and two threads. Outs start as the poison (NaN in every
// float dtype), so an element left unwritten fails its comparison.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <vector>

#include "common/bce_prob_grad_test_util.h"

namespace bce_prob_grad_test {
namespace {

using aclnn_cpu::DTypeShortName;
using aclnn_cpu::kFloatDTypes;
using aclnn_cpu::bce_prob_grad::kDenominatorFloor;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

/// A shape by name, for traces.
std::string ShapeText(const std::optional<std::vector<int64_t>>& dims) {
  return dims ? acl_test::DimsText(*dims) : "none";
}

// ---------------------------------------------------------------------------------------------
// dtypes, reductions, broadcasts

TEST(BackwardValues, EveryDTypeReductionAndBroadcastMatchesTheReference) {
  const std::vector<int64_t> dims = {13, 37};
  const std::vector<int64_t> grad_outputs[] = {{}, {13, 37}, {37}, {13, 1}, {1}};
  const auto weights = bce_prob_test::BroadcastShapesOf13x37();
  double worst_ulp[4] = {};
  for (size_t d = 0; d < 4; ++d) {
    const aclDataType dtype = kFloatDTypes[d];
    for (const auto& dout_dims : grad_outputs) {
      for (const auto& weight_dims : weights) {
        for (const int64_t reduction : {0, 1, 2}) {
          SCOPED_TRACE(::testing::Message() << DTypeShortName(dtype) << " gradOutput " << acl_test::DimsText(dout_dims)
                                            << " weight " << ShapeText(weight_dims) << " reduction " << reduction);
          TestTensor dout(dout_dims, dtype), x(dims, dtype), y(dims, dtype), out(dims, dtype);
          std::optional<TestTensor> w;
          if (weight_dims) w.emplace(*weight_dims, dtype);
          acl_test::FillRandom(dout, 100 + d, -2, 2);
          FillProbabilities(x, 200 + d);
          FillLabels(y, 300 + d);
          if (w) acl_test::FillRandom(*w, 400 + d, 0, 2);
          const Verdict v = RunAndCheck({&dout, &x, &y, w ? &*w : nullptr, reduction, &out});
          EXPECT_EQ(v.mismatches, 0);
          worst_ulp[d] = std::max(worst_ulp[d], v.worst_ulp);
        }
      }
    }
  }
  std::printf("[ bce      ] backward: largest error %.2f / %.2f / %.2f / %.2f ULP of out (fp32 / fp16 / bf16 / fp64)\n",
              worst_ulp[0], worst_ulp[1], worst_ulp[2], worst_ulp[3]);
}

TEST(BackwardValues, ABroadcastTargetMatchesTheReference) {
  const std::vector<int64_t> dims = {6, 5, 40};
  for (const aclDataType dtype : kFloatDTypes) {
    for (const std::vector<int64_t>& target_dims : {std::vector<int64_t>{40}, {5, 1}, {}, {6, 1, 40}}) {
      SCOPED_TRACE(::testing::Message() << DTypeShortName(dtype) << " target " << acl_test::DimsText(target_dims));
      TestTensor dout({}, dtype), x(dims, dtype), y(target_dims, dtype), w({5, 40}, dtype), out(dims, dtype);
      dout.Set(0, 0.75);
      FillProbabilities(x, 11);
      FillLabels(y, 12);
      acl_test::FillRandom(w, 13, 0, 2);
      EXPECT_EQ(RunAndCheck({&dout, &x, &y, &w, 1, &out}).mismatches, 0);
    }
  }
}

TEST(BackwardValues, MixedDTypesComputeInThePromotedTypeAndRoundToSelfs) {
  struct Mix {
    aclDataType grad_output, self, target;
    std::optional<aclDataType> weight;
  };
  const Mix mixes[] = {
      {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_FLOAT},    {ACL_BF16, ACL_BF16, ACL_FLOAT16, std::nullopt},
      {ACL_DOUBLE, ACL_FLOAT, ACL_FLOAT, std::nullopt}, {ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT, ACL_DOUBLE},
      {ACL_FLOAT16, ACL_DOUBLE, ACL_BF16, ACL_BF16},    {ACL_FLOAT, ACL_BF16, ACL_DOUBLE, ACL_FLOAT16}};
  const std::vector<int64_t> dims = {9, 130};
  for (const Mix& m : mixes) {
    for (const int64_t reduction : {0, 1, 2}) {
      SCOPED_TRACE(::testing::Message() << DTypeShortName(m.grad_output) << "/" << DTypeShortName(m.self) << "/"
                                        << DTypeShortName(m.target) << "/"
                                        << (m.weight ? DTypeShortName(*m.weight) : "-") << " reduction " << reduction);
      TestTensor dout({9, 1}, m.grad_output), x(dims, m.self), y(dims, m.target), out(dims, m.self);
      std::optional<TestTensor> w;
      if (m.weight) w.emplace(std::vector<int64_t>{130}, *m.weight);
      acl_test::FillRandom(dout, 20, -2, 2);
      FillProbabilities(x, 21);
      FillLabels(y, 22);
      if (w) acl_test::FillRandom(*w, 23, 0, 2);
      EXPECT_EQ(RunAndCheck({&dout, &x, &y, w ? &*w : nullptr, reduction, &out}).mismatches, 0);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// layouts, in place

TEST(BackwardValues, StridedAndPermutedOperandsAreReadAndOnlyOutsViewIsWritten) {
  for (const aclDataType dtype : kFloatDTypes) {
    SCOPED_TRACE(DTypeShortName(dtype));
    // self: the transpose of a [40, 24] block; target: every other element; gradOutput: [24, 1]
    // with stride 3; weight: [40] with stride 2; out: a [24, 40] window with row stride 43.
    TestTensor x({24, 40}, {1, 24}, 0, 960, dtype), y({24, 40}, {80, 2}, 1, 24 * 80, dtype);
    TestTensor dout({24, 1}, {3, 1}, 1, 73, dtype), w({40}, {2}, 0, 80, dtype);
    TestTensor out({24, 40}, {43, 1}, 5, 24 * 43 + 5, dtype);
    acl_test::FillRandom(dout, 30, -2, 2);
    FillProbabilities(x, 31);
    FillLabels(y, 32);
    acl_test::FillRandom(w, 33, 0, 2);
    for (const int64_t reduction : {0, 1, 2}) {
      out.Poison();
      const std::vector<uint8_t> before = out.StorageBytes();
      EXPECT_EQ(RunAndCheck({&dout, &x, &y, &w, reduction, &out}).mismatches, 0) << "reduction " << reduction;
      ExpectNothingWrittenOutsideTheView(out, before);
    }
  }
}

TEST(BackwardValues, AChannelsLastSelfAndOutMatchTheReference) {
  const std::vector<int64_t> dims = {2, 3, 5, 7}, strides = {105, 1, 21, 3};
  for (const aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16}) {
    TestTensor dout({}, dtype), x(dims, strides, 0, 210, dtype), y(dims, strides, 0, 210, dtype);
    TestTensor w({3, 1, 1}, dtype), out(dims, strides, 0, 210, dtype);
    dout.Set(0, -1.25);
    FillProbabilities(x, 41);
    FillLabels(y, 42);
    acl_test::FillRandom(w, 43, 0.5, 1.5);
    EXPECT_EQ(RunAndCheck({&dout, &x, &y, &w, 2, &out}).mismatches, 0) << DTypeShortName(dtype);
  }
}

TEST(BackwardValues, OutMayBeTheVerySameViewAsSelfTargetOrGradOutput) {
  for (const aclDataType dtype : kFloatDTypes) {
    SCOPED_TRACE(DTypeShortName(dtype));
    // out is self (reduction none), the target (mean) or gradOutput (sum).
    for (int which = 0; which < 3; ++which) {
      TestTensor dout({7, 45}, {50, 1}, 3, 350, dtype), x({7, 45}, {50, 1}, 2, 350, dtype);
      TestTensor y({7, 45}, {50, 1}, 1, 350, dtype), w({45}, dtype);
      acl_test::FillRandom(dout, 50, -2, 2);
      FillProbabilities(x, 51);
      FillLabels(y, 52);
      acl_test::FillRandom(w, 53, 0, 2);
      TestTensor* out = which == 0 ? &x : which == 1 ? &y : &dout;
      const std::vector<uint8_t> before = out->StorageBytes();
      EXPECT_EQ(RunAndCheck({&dout, &x, &y, &w, which, out}).mismatches, 0) << "out is operand " << which;
      ExpectNothingWrittenOutsideTheView(*out, before);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// empty and 0-dim selves

TEST(BackwardValues, AnEmptySelfWritesNothingForEveryDTypeAndReduction) {
  for (const aclDataType dtype : kFloatDTypes) {
    for (const int64_t reduction : {0, 1, 2}) {
      TestTensor dout({}, dtype), x({3, 0}, dtype), y({3, 0}, dtype), out({3, 0}, dtype);
      dout.Set(0, 1.0);
      const std::vector<uint8_t> before = out.StorageBytes();
      uint64_t ws = 1;
      aclOpExecutor* e = nullptr;
      ASSERT_EQ(HarnessCall({&dout, &x, &y, nullptr, reduction, &out}).FirstPhase(&ws, &e), ACLNN_SUCCESS)
          << aclGetRecentErrMsg();
      EXPECT_EQ(ws, 0u);
      ASSERT_EQ(aclnnBinaryCrossEntropyBackward(nullptr, 0, e, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
      ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
      EXPECT_EQ(acl_test::FirstDifference(before, out.StorageBytes()), -1) << DTypeShortName(dtype);
    }
  }
}

TEST(BackwardValues, AZeroDimSelfIsOneElement) {
  for (const aclDataType dtype : kFloatDTypes) {
    for (const int64_t reduction : {0, 1, 2}) {
      SCOPED_TRACE(::testing::Message() << DTypeShortName(dtype) << " reduction " << reduction);
      TestTensor dout({}, dtype), x({}, dtype), y({}, dtype), w({}, dtype), out({}, dtype);
      dout.Set(0, 0.5);
      x.Set(0, 0.3);
      y.Set(0, 0.8);
      w.Set(0, 1.5);
      EXPECT_EQ(RunAndCheck({&dout, &x, &y, &w, reduction, &out}).mismatches, 0);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// special values

TEST(BackwardValues, XOfExactlyZeroOrOneGivesAFiniteGradientOfOrderOneOverTheFloor) {
  // (x, y): the gradient is dout (x - y) / floor, floor = fp32's 1e-12 in every dtype (PyTorch's).
  const double cases[][2] = {{0, 1}, {1, 0}, {0, 0}, {1, 1}, {0, 0.5}, {1, 0.25}};
  for (const aclDataType dtype : kFloatDTypes) {
    SCOPED_TRACE(DTypeShortName(dtype));
    const int64_t n = std::size(cases);
    TestTensor dout({}, dtype), x({n}, dtype), y({n}, dtype), out({n}, dtype);
    dout.Set(0, 1.0);
    for (int64_t i = 0; i < n; ++i) {
      x.Set(i, cases[i][0]);
      y.Set(i, cases[i][1]);
    }
    EXPECT_EQ(RunAndCheck({&dout, &x, &y, nullptr, 0, &out}).mismatches, 0);
    for (int64_t i = 0; i < n; ++i) {
      const double exact = (cases[i][0] - cases[i][1]) / kDenominatorFloor;
      const double got = out.Get(i);
      if (dtype == ACL_FLOAT16 && exact != 0) {
        EXPECT_TRUE(std::isinf(got) && std::signbit(got) == std::signbit(exact)) << i << ": " << got;  // > 65504
        continue;
      }
      EXPECT_TRUE(std::isfinite(got)) << i << ": " << got;
      EXPECT_NEAR(got, exact, 8 * 2 * aclnn_cpu::RoundingOf(dtype).unit_roundoff * std::fabs(exact)) << i;
    }
  }
}

TEST(BackwardValues, XOutsideZeroToOneIsComputedByTheFormulaAndNaNPropagates) {
  const double xs[] = {-0.5, 1.5, -3, 7, kNaN, -0x1p-30, 1 + 0x1p-10, kInf, -kInf};
  for (const aclDataType dtype : kFloatDTypes) {
    SCOPED_TRACE(DTypeShortName(dtype));
    const int64_t n = std::size(xs);
    TestTensor dout({}, dtype), x({n}, dtype), y({n}, dtype), out({n}, dtype);
    dout.Set(0, 1e-6);  // keeps (x - y) / floor within every dtype's range
    for (int64_t i = 0; i < n; ++i) {
      x.Set(i, xs[i]);
      y.Set(i, 0.25);
    }
    const std::vector<double> refs = ReferenceOf({&dout, &x, &y, nullptr, 0, &out});
    ASSERT_EQ(RunCall({&dout, &x, &y, nullptr, 0, &out}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    // inf - 0.25 over the floor: +-inf, as IEEE arithmetic gives.
    for (int64_t i = 0; i < n; ++i) {
      const double g = refs[static_cast<size_t>(i)], got = out.Get(i);
      if (std::isinf(xs[i])) {
        EXPECT_TRUE(std::isinf(got) || std::isnan(got)) << "x=" << xs[i] << ": " << got;
        continue;
      }
      const double bound = aclnn_cpu::bce_prob_grad::ProbGradErrorBound(
          g, false, ComputeDType({&dout, &x, &y, nullptr, 0, &out}), dtype);
      EXPECT_TRUE(MatchesReference(got, g, bound, dtype)) << "x=" << xs[i] << ": got " << got << ", reference " << g;
    }
    EXPECT_TRUE(std::isnan(out.Get(4)));
  }
}

TEST(BackwardValues, LabelsOutsideZeroToOneAndNegativeWeightsFollowTheFormula) {
  for (const aclDataType dtype : kFloatDTypes) {
    TestTensor dout({200}, dtype), x({200}, dtype), y({200}, dtype), w({200}, dtype), out({200}, dtype);
    acl_test::FillRandom(dout, 70, -2, 2);
    acl_test::FillRandom(x, 71, 0.01, 0.99);
    acl_test::FillRandom(y, 72, -3, 4);
    acl_test::FillRandom(w, 73, -1, 2);
    EXPECT_EQ(RunAndCheck({&dout, &x, &y, &w, 0, &out}).mismatches, 0) << DTypeShortName(dtype);
  }
}

// ---------------------------------------------------------------------------------------------
// lengths, threads

TEST(BackwardValues, EveryLengthFromOneTo300MatchesTheReference) {
  for (const aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
    for (int64_t n = 1; n <= 300; ++n) {
      for (const int64_t reduction : {0, 1, 2}) {
        SCOPED_TRACE(::testing::Message() << DTypeShortName(dtype) << " n " << n << " reduction " << reduction);
        TestTensor dout(reduction == 0 ? std::vector<int64_t>{n} : std::vector<int64_t>{}, dtype);
        TestTensor x({n}, dtype), y({n}, dtype), w({n}, dtype), out({n}, dtype);
        acl_test::FillRandom(dout, 1000 + static_cast<uint64_t>(n), -2, 2);
        FillProbabilities(x, 2000 + static_cast<uint64_t>(n));
        FillLabels(y, 3000 + static_cast<uint64_t>(n));
        acl_test::FillRandom(w, 4000 + static_cast<uint64_t>(n), 0, 2);
        ASSERT_EQ(RunAndCheck({&dout, &x, &y, reduction == 2 ? nullptr : &w, reduction, &out}).mismatches, 0);
      }
    }
  }
}

TEST(BackwardValues, OneMiElementsMatchTheReferenceAndAreBitwiseTheSameForOneAndTwoThreads) {
  ThreadCountGuard guard;
  const int64_t n = (int64_t{1} << 20) + 3;
  for (const aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
    TestTensor dout({}, dtype), x({n}, dtype), y({n}, dtype), w({n}, dtype);
    dout.Set(0, 0.625);
    FillProbabilities(x, 81);
    FillLabels(y, 82);
    acl_test::FillRandom(w, 83, 0, 2);
    for (const int64_t reduction : {1, 2}) {
      std::optional<std::vector<uint8_t>> first;
      for (const int32_t threads : {1, 2}) {
        SCOPED_TRACE(::testing::Message()
                     << DTypeShortName(dtype) << " reduction " << reduction << " threads " << threads);
        ASSERT_EQ(aclnnCpuSetNumThreads(threads), ACL_SUCCESS);
        TestTensor out({n}, dtype);
        EXPECT_EQ(RunAndCheck({&dout, &x, &y, &w, reduction, &out}).mismatches, 0);
        if (!first) first = out.StorageBytes();
        EXPECT_EQ(acl_test::FirstDifference(*first, out.StorageBytes()), -1);
      }
    }
  }
}

}  // namespace
}  // namespace bce_prob_grad_test
