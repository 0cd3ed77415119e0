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

using aclnn_cpu::DTypeShortName;

class BackwardOnEveryTarget : public acl_test::OnEverySimdTargetTest {};

TEST_P(BackwardOnEveryTarget, TheCallRunsThisTargetsKernel) { EXPECT_STREQ(aclnnCpuSimdTargetName(), target_name()); }

TEST_P(BackwardOnEveryTarget, EveryDTypeLengthAndReductionMatchesTheReference) {
  ForEveryDTypeLengthAndReduction([](aclDataType dtype, int64_t n, int64_t reduction) {
    TestTensor dout(reduction == 0 ? std::vector<int64_t>{n} : std::vector<int64_t>{}, dtype);
    TestTensor x({n}, dtype), y({n}, dtype), w({n}, dtype), out({n}, dtype);
    acl_test::FillRandom(dout, 6 + static_cast<uint64_t>(n), -2, 2);
    FillProbabilities(x, 7 + static_cast<uint64_t>(n));
    FillLabels(y, 8 + static_cast<uint64_t>(n));
    acl_test::FillRandom(w, 9, 0, 2);
    EXPECT_EQ(RunAndCheck({&dout, &x, &y, reduction == 2 ? nullptr : &w, reduction, &out}).mismatches, 0);
  });
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
  const auto outputs = OutputsOfEveryTarget<F>(dtype, n, [&](TestTensor& out) {
    const BackwardCall c{&dout, &x, &y, &w, 1, &out};
    EXPECT_EQ(RunCall(c), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(CheckOut(c, refs).mismatches, 0);
  });
  const auto describe = [&](int64_t i) {
    return "x=" + std::to_string(x.Get(i)) + " y=" + std::to_string(y.Get(i)) + " dout=" + std::to_string(dout.Get(i));
  };
  return LargestUlpBetween<F, I>(outputs, describe, worst);
}

TEST(BackwardSimdTargetAgreement, Fp32AndFp64GradientsOfEveryTargetAgreeWithinTwiceTheBound) {
  // Two results each within 6 ULP of the reference (5, and one for mean's 1/N) are at most 12 ULP apart.
  ExpectTargetsAgree("backward", 12, &LargestUlpBetweenTargets<float, int32_t>,
                     &LargestUlpBetweenTargets<double, int64_t>);
}

}  // namespace
}  // namespace bce_prob_grad_test
