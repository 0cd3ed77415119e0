// aclnnBinaryCrossEntropyBackward's kernel on every SIMD target this build has and this CPU
// supports: the whole call runs with HWY_DYNAMIC_DISPATCH held on one target
// (tests/support/simd_targets.h; the plan cache keys plans by the chosen kernel table), and every
// element is judged against the reference and its bound. Bits may differ between targets; the
// largest difference is printed.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "common/bce_prob_grad_test_util.h"
#include "simd_targets.h"

namespace bce_prob_grad_test {
namespace {

using acl_test::OnEverySimdTargetTest;
using acl_test::SimdTargetScope;
using aclnn_cpu::DTypeShortName;
using aclnn_cpu::kFloatDTypes;

/// Lengths around the vector widths of every target (4..16 fp32 lanes, 2..8 fp64) and a tile.
constexpr int64_t kLengths[] = {1, 3, 7, 8, 15, 16, 17, 31, 33, 63, 65, 1023, 4099};

class BackwardOnEveryTarget : public OnEverySimdTargetTest {};

TEST_P(BackwardOnEveryTarget, TheCallRunsThisTargetsKernel) { EXPECT_STREQ(aclnnCpuSimdTargetName(), target_name()); }

TEST_P(BackwardOnEveryTarget, EveryDTypeLengthAndReductionMatchesTheReference) {
  for (const aclDataType dtype : kFloatDTypes) {
    for (const int64_t n : kLengths) {
      for (const int64_t reduction : {0, 1, 2}) {
        SCOPED_TRACE(::testing::Message() << DTypeShortName(dtype) << " n " << n << " reduction " << reduction);
        TestTensor dout(reduction == 0 ? std::vector<int64_t>{n} : std::vector<int64_t>{}, dtype);
        TestTensor x({n}, dtype), y({n}, dtype), w({n}, dtype), out({n}, dtype);
        acl_test::FillRandom(dout, 6 + static_cast<uint64_t>(n), -2, 2);
        FillProbabilities(x, 7 + static_cast<uint64_t>(n));
        FillLabels(y, 8 + static_cast<uint64_t>(n));
        acl_test::FillRandom(w, 9, 0, 2);
        EXPECT_EQ(RunAndCheck({&dout, &x, &y, reduction == 2 ? nullptr : &w, reduction, &out}).mismatches, 0);
      }
    }
  }
}

TEST_P(BackwardOnEveryTarget, BroadcastOperandsAndATransposedSelfMatchTheReference) {
  for (const aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
    SCOPED_TRACE(DTypeShortName(dtype));
    TestTensor dout({33, 1}, dtype), x({33, 70}, {1, 33}, 0, 33 * 70, dtype), y({70}, dtype), w({70}, dtype);
    TestTensor out({33, 70}, dtype);
    acl_test::FillRandom(dout, 16, -2, 2);
    FillProbabilities(x, 17);
    FillLabels(y, 18);
    acl_test::FillRandom(w, 19, 0, 2);
    EXPECT_EQ(RunAndCheck({&dout, &x, &y, &w, 1, &out}).mismatches, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(SimdTargets, BackwardOnEveryTarget, ::testing::ValuesIn(hwy::SupportedAndGeneratedTargets()),
                         acl_test::SimdTargetName);

/// The gradient of @p n random elements (reduction mean: the 1/N too) on every target, each
/// target's checked against the reference; returns the largest ULP difference between targets.
template <class F, class I>
int64_t LargestUlpBetweenTargets(aclDataType dtype, int64_t n, std::string& worst) {
  TestTensor dout({n}, dtype), x({n}, dtype), y({n}, dtype), w({n}, dtype);
  acl_test::FillRandom(dout, 2023, -2, 2);
  FillProbabilities(x, 2024);
  FillLabels(y, 2025);
  acl_test::FillRandom(w, 2026, 0, 2);
  const std::vector<double> refs = ReferenceOf({&dout, &x, &y, &w, 1, &x});
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  std::vector<std::vector<F>> outputs;
  for (const int64_t target : targets) {
    SimdTargetScope scope(target);
    SCOPED_TRACE(hwy::TargetName(target));
    TestTensor out({n}, dtype);
    const BackwardCall c{&dout, &x, &y, &w, 1, &out};
    EXPECT_EQ(RunCall(c), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(CheckOut(c, refs).mismatches, 0);
    std::vector<F> values(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = static_cast<F>(out.Get(i));
    outputs.push_back(std::move(values));
  }
  int64_t largest = 0;
  for (size_t a = 0; a < targets.size(); ++a) {
    for (size_t b = a + 1; b < targets.size(); ++b) {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t ulp = UlpDistance<F, I>(outputs[a][static_cast<size_t>(i)], outputs[b][static_cast<size_t>(i)]);
        if (ulp > largest) {
          largest = ulp;
          worst = std::string(hwy::TargetName(targets[a])) + " vs " + hwy::TargetName(targets[b]) +
                  " at x=" + std::to_string(x.Get(i)) + " y=" + std::to_string(y.Get(i));
        }
      }
    }
  }
  return largest;
}

// Two results each within 6 ULP of the reference (5, and one for mean's 1/N) are at most 12 ULP apart.
constexpr int64_t kMaxUlpBetweenTargets = 12;

TEST(BackwardSimdTargetAgreement, Fp32AndFp64GradientsOfEveryTargetAgreeWithinTwiceTheBound) {
  const int64_t n = int64_t{1} << 18;
  std::string worst32, worst64;
  const int64_t ulp32 = LargestUlpBetweenTargets<float, int32_t>(ACL_FLOAT, n, worst32);
  const int64_t ulp64 = LargestUlpBetweenTargets<double, int64_t>(ACL_DOUBLE, n, worst64);
  std::printf(
      "[ bce      ] backward: largest ULP difference between SIMD targets (%s), %lld elements: fp32 %lld%s%s, "
      "fp64 %lld%s%s\n",
      TargetList().c_str(), static_cast<long long>(n), static_cast<long long>(ulp32), worst32.empty() ? "" : " at ",
      worst32.c_str(), static_cast<long long>(ulp64), worst64.empty() ? "" : " at ", worst64.c_str());
  EXPECT_LE(ulp32, kMaxUlpBetweenTargets) << worst32;
  EXPECT_LE(ulp64, kMaxUlpBetweenTargets) << worst64;
}

}  // namespace
}  // namespace bce_prob_grad_test
