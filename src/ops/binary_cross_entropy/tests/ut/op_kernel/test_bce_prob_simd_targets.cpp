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
using aclnn_cpu::DTypeShortName;

class ForwardOnEveryTarget : public OnEverySimdTargetTest {};

TEST_P(ForwardOnEveryTarget, TheCallRunsThisTargetsKernel) { EXPECT_STREQ(aclnnCpuSimdTargetName(), target_name()); }

TEST_P(ForwardOnEveryTarget, EveryDTypeLengthAndReductionMatchesTheReference) {
  ForEveryDTypeLengthAndReduction([](aclDataType dtype, int64_t n, int64_t reduction) {
    TestTensor x({n}, dtype), y({n}, dtype), w({n}, dtype);
    TestTensor out(reduction == 0 ? std::vector<int64_t>{n} : std::vector<int64_t>{}, dtype);
    FillProbabilities(x, 7 + static_cast<uint64_t>(n));
    FillLabels(y, 8 + static_cast<uint64_t>(n));
    acl_test::FillRandom(w, 9, 0, 2);
    const ForwardCall c{&x, &y, reduction == 2 ? nullptr : &w, reduction, &out};
    const std::vector<ProbLossReference> refs = ReferenceOf(c);
    ASSERT_EQ(RunCall(c), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(CheckOut(c, refs).mismatches, 0);
  });
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
  const auto outputs = OutputsOfEveryTarget<F>(dtype, n, [&](TestTensor& out) {
    const ForwardCall c{&x, &y, &w, 0, &out};
    EXPECT_EQ(RunCall(c), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(CheckNone(c, refs).mismatches, 0);
  });
  return LargestUlpBetween<F, I>(
      outputs, [&](int64_t i) { return "x=" + std::to_string(x.Get(i)) + " y=" + std::to_string(y.Get(i)); }, worst);
}

TEST(ForwardSimdTargetAgreement, Fp32AndFp64LossesOfEveryTargetAgreeWithinTwiceTheBound) {
  // Two results each within 6 ULP of the reference (the header's promise for x, y in [0, 1] and
  // weights >= 0) are at most 12 ULP apart.
  ExpectTargetsAgree("forward", 12, &LargestUlpBetweenTargets<float, int32_t>,
                     &LargestUlpBetweenTargets<double, int64_t>);
}

}  // namespace
}  // namespace bce_prob_test
