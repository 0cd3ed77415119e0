// aclnnBinaryCrossEntropy's kernel on every SIMD target this build has and this CPU supports: the
// whole call runs with HWY_DYNAMIC_DISPATCH held on one target (tests/support/simd_targets.h; the
// plan cache keys plans by the chosen kernel table, so each target plans and runs its own), and
// every element is judged against the reference and its bound. Bits may differ between targets
// (fused or separate multiply-adds in the logs); the largest difference is printed.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "common/bce_prob_test_util.h"
#include "simd_targets.h"

namespace bce_prob_test {
namespace {

using acl_test::OnEverySimdTargetTest;
using acl_test::SimdTargetScope;
using aclnn_cpu::DTypeShortName;
using aclnn_cpu::kFloatDTypes;

/// Lengths around the vector widths of every target (4..16 fp32 lanes, 2..8 fp64) and a tile.
constexpr int64_t kLengths[] = {1, 3, 7, 8, 15, 16, 17, 31, 33, 63, 65, 1023, 4099};

class ForwardOnEveryTarget : public OnEverySimdTargetTest {};

TEST_P(ForwardOnEveryTarget, TheCallRunsThisTargetsKernel) { EXPECT_STREQ(aclnnCpuSimdTargetName(), target_name()); }

TEST_P(ForwardOnEveryTarget, EveryDTypeLengthAndReductionMatchesTheReference) {
  for (const aclDataType dtype : kFloatDTypes) {
    for (const int64_t n : kLengths) {
      for (const int64_t reduction : {0, 1, 2}) {
        SCOPED_TRACE(::testing::Message() << DTypeShortName(dtype) << " n " << n << " reduction " << reduction);
        TestTensor x({n}, dtype), y({n}, dtype), w({n}, dtype);
        TestTensor out(reduction == 0 ? std::vector<int64_t>{n} : std::vector<int64_t>{}, dtype);
        FillProbabilities(x, 7 + static_cast<uint64_t>(n));
        FillLabels(y, 8 + static_cast<uint64_t>(n));
        acl_test::FillRandom(w, 9, 0, 2);
        const ForwardCall c{&x, &y, reduction == 2 ? nullptr : &w, reduction, &out};
        const std::vector<ProbLossReference> refs = ReferenceOf(c);
        ASSERT_EQ(RunCall(c), ACLNN_SUCCESS) << aclGetRecentErrMsg();
        EXPECT_EQ(CheckOut(c, refs).mismatches, 0);
      }
    }
  }
}

TEST_P(ForwardOnEveryTarget, ABroadcastWeightAndATransposedSelfMatchTheReference) {
  for (const aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
    SCOPED_TRACE(DTypeShortName(dtype));
    TestTensor x({33, 70}, {1, 33}, 0, 33 * 70, dtype), y({33, 70}, dtype), w({70}, dtype), out({33, 70}, dtype);
    FillProbabilities(x, 17);
    FillLabels(y, 18);
    acl_test::FillRandom(w, 19, 0, 2);
    const ForwardCall c{&x, &y, &w, 0, &out};
    const std::vector<ProbLossReference> refs = ReferenceOf(c);
    ASSERT_EQ(RunCall(c), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(CheckNone(c, refs).mismatches, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(SimdTargets, ForwardOnEveryTarget, ::testing::ValuesIn(hwy::SupportedAndGeneratedTargets()),
                         acl_test::SimdTargetName);

/// The none losses of @p n random elements on every target, each target's checked against the
/// reference; returns the largest ULP difference between two targets.
template <class F, class I>
int64_t LargestUlpBetweenTargets(aclDataType dtype, int64_t n, std::string& worst) {
  TestTensor x({n}, dtype), y({n}, dtype), w({n}, dtype);
  FillProbabilities(x, 2024);
  FillLabels(y, 2025);
  acl_test::FillRandom(w, 2026, 0, 2);
  const std::vector<ProbLossReference> refs = ReferenceOf({&x, &y, &w, 0, nullptr});
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  std::vector<std::vector<F>> outputs;
  for (const int64_t target : targets) {
    SimdTargetScope scope(target);
    SCOPED_TRACE(hwy::TargetName(target));
    TestTensor out({n}, dtype);
    const ForwardCall c{&x, &y, &w, 0, &out};
    EXPECT_EQ(RunCall(c), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(CheckNone(c, refs).mismatches, 0);
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

// Two results each within 6 ULP of the reference (the header's promise for x, y in [0, 1] and
// weights >= 0) are at most 12 ULP apart.
constexpr int64_t kMaxUlpBetweenTargets = 12;

TEST(ForwardSimdTargetAgreement, Fp32AndFp64LossesOfEveryTargetAgreeWithinTwiceTheBound) {
  const int64_t n = int64_t{1} << 18;
  std::string worst32, worst64;
  const int64_t ulp32 = LargestUlpBetweenTargets<float, int32_t>(ACL_FLOAT, n, worst32);
  const int64_t ulp64 = LargestUlpBetweenTargets<double, int64_t>(ACL_DOUBLE, n, worst64);
  std::printf(
      "[ bce      ] forward: largest ULP difference between SIMD targets (%s), %lld elements: fp32 %lld%s%s, "
      "fp64 %lld%s%s\n",
      TargetList().c_str(), static_cast<long long>(n), static_cast<long long>(ulp32), worst32.empty() ? "" : " at ",
      worst32.c_str(), static_cast<long long>(ulp64), worst64.empty() ? "" : " at ", worst64.c_str());
  EXPECT_LE(ulp32, kMaxUlpBetweenTargets) << worst32;
  EXPECT_LE(ulp64, kMaxUlpBetweenTargets) << worst64;
}

}  // namespace
}  // namespace bce_prob_test
