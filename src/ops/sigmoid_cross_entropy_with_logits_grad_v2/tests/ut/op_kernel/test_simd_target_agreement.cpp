// The SIMD targets of this machine against each other: the same inputs must give results a few
// ulp apart at most (targets differ only in whether Highway's Exp fuses its multiply-adds).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>

#include "common/bce_test_util.h"
#include "kernel_test_util.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_host/sigmoid_cross_entropy_with_logits_grad_v2_tiling.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_reference.h"

namespace bce_kernel_test {
namespace {

using aclnn_cpu::bce_grad::MakeTilingKey;

constexpr size_t kElements = 1 << 18;
// Generous for a 1-ulp exp difference (fused or separate multiply-adds) carried through a
// division and a few products.
constexpr int64_t kMaxUlpBetweenTargets = 4;
// Where g = (1 - y) p - lw q cancels, each term brings its own exp difference and roundings
// (lw = pos_weight * y, q = e / (1 + e)) before the subtraction: measured in ulp of the larger
// term, up to about twice the single-term allowance.
constexpr double kMaxTermUlpBetweenTargets = 8;

/// Distance in ulp between two values of an IEEE type (through the ordered integer line, so it
/// counts across zero); 0 for two NaNs, the maximum when only one is NaN.
template <class F, class I>
int64_t UlpDistance(F a, F b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : std::numeric_limits<int64_t>::max();
  auto ordered = [](F v) {
    const auto bits = static_cast<int64_t>(std::bit_cast<I>(v));
    return bits < 0 ? std::numeric_limits<I>::min() - bits : bits;
  };
  const int64_t d = ordered(a) - ordered(b);
  return d < 0 ? -d : d;
}

template <class F>
struct Inputs {
  std::vector<F> x, y, dout, weight, pos_weight;
};

/// Random operator inputs; hard labels (y in {0, 1}) do not cancel in (1 - y) p - lw q, so an ulp
/// there is an ulp of the terms; soft labels cancel and magnify differences relative to g.
template <class F>
Inputs<F> RandomInputs(bool hard_labels, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> x(-30, 30), label(0, 1), dout(-2, 2), weight(0, 2), pos_weight(0.25, 4);
  Inputs<F> in;
  for (size_t i = 0; i < kElements; ++i) {
    in.x.push_back(static_cast<F>(x(rng)));
    in.y.push_back(static_cast<F>(hard_labels ? std::round(label(rng)) : label(rng)));
    in.dout.push_back(static_cast<F>(dout(rng)));
    in.weight.push_back(static_cast<F>(weight(rng)));
    in.pos_weight.push_back(static_cast<F>(pos_weight(rng)));
  }
  return in;
}

template <class F>
std::vector<F> RunOnCurrentTarget(uint32_t key, const Inputs<F>& in, double scale) {
  std::vector<F> out(kElements);
  CallTile(SelfKernel(key), TileOperandsOver(in, out.data()), kElements, scale);
  return out;
}

struct Agreement {
  int64_t max_ulp = 0;
  std::string worst;  // the pair of targets and the element
};

/// Runs @p key on every target and returns the largest ulp difference between any two targets.
template <class F, class I>
Agreement MeasureAgreement(KernelDType dtype, bool hard_labels) {
  const Inputs<F> in = RandomInputs<F>(hard_labels, 2024);
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  Agreement agreement;
  for (bool weight : {false, true}) {
    for (bool pos_weight : {false, true}) {
      const uint32_t key = MakeTilingKey(dtype, weight, pos_weight);
      std::vector<std::vector<F>> outputs;
      for (int64_t target : targets) {
        SimdTargetScope scope(target);
        outputs.push_back(RunOnCurrentTarget(key, in, 1.0));
      }
      for (size_t a = 0; a < targets.size(); ++a) {
        for (size_t b = a + 1; b < targets.size(); ++b) {
          for (size_t i = 0; i < kElements; ++i) {
            const int64_t ulp = UlpDistance<F, I>(outputs[a][i], outputs[b][i]);
            if (ulp > agreement.max_ulp) {
              agreement.max_ulp = ulp;
              agreement.worst = std::string(hwy::TargetName(targets[a])) + " vs " + hwy::TargetName(targets[b]) + ", " +
                                TilingKeyLabel(key) + ", x=" + std::to_string(in.x[i]) + " y=" + std::to_string(in.y[i]);
            }
          }
        }
      }
    }
  }
  return agreement;
}

std::string TargetList() {
  std::string names;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) names += std::string(names.empty() ? "" : " ") + hwy::TargetName(target);
  return names;
}

TEST(SimdTargetAgreement, Fp32ResultsAgreeWithinFourUlpOnHardLabels) {
  const Agreement agreement = MeasureAgreement<float, int32_t>(KernelDType::kFloat, true);
  std::printf("max ulp difference between SIMD targets: %lld (fp32, %zu random elements, hard labels; targets: %s)\n",
              static_cast<long long>(agreement.max_ulp), kElements, TargetList().c_str());
  if (!agreement.worst.empty()) std::printf("  largest at %s\n", agreement.worst.c_str());
  EXPECT_LE(agreement.max_ulp, kMaxUlpBetweenTargets) << agreement.worst;
}

TEST(SimdTargetAgreement, Fp64ResultsAgreeWithinFourUlpOnHardLabels) {
  const Agreement agreement = MeasureAgreement<double, int64_t>(KernelDType::kDouble, true);
  std::printf("max ulp difference between SIMD targets: %lld (fp64, %zu random elements, hard labels; targets: %s)\n",
              static_cast<long long>(agreement.max_ulp), kElements, TargetList().c_str());
  if (!agreement.worst.empty()) std::printf("  largest at %s\n", agreement.worst.c_str());
  EXPECT_LE(agreement.max_ulp, kMaxUlpBetweenTargets) << agreement.worst;
}

TEST(SimdTargetAgreement, Fp32SoftLabelResultsAgreeWithinAFewUlpOfTheLargerTerm) {
  // With soft labels g = (1 - y) p - lw q cancels, so targets may differ by many ulp of g itself;
  // they must still agree to a few ulp of the larger term, max(|(1 - y) p|, |lw q|) |dout w|.
  const Inputs<float> in = RandomInputs<float>(false, 2025);
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  const uint32_t key = MakeTilingKey(KernelDType::kFloat, true, true);
  std::vector<std::vector<float>> outputs;
  for (int64_t target : targets) {
    SimdTargetScope scope(target);
    outputs.push_back(RunOnCurrentTarget(key, in, 1.0));
  }
  double max_term_ulp = 0;
  int64_t max_result_ulp = 0;
  for (size_t i = 0; i < kElements; ++i) {
    const double x = in.x[i], y = in.y[i];
    const auto terms = aclnn_cpu::bce_grad::ComputeReferenceTerms(x, y, 1.0, std::nullopt, in.pos_weight[i], 1.0);
    const double term = std::max(std::fabs(terms.a), std::fabs(terms.b)) *
                        std::fabs(static_cast<double>(in.dout[i]) * in.weight[i]);
    const auto term_f = static_cast<float>(term);
    const double term_ulp = static_cast<double>(std::nextafter(term_f, INFINITY) - term_f);
    for (size_t a = 0; a < targets.size(); ++a) {
      for (size_t b = a + 1; b < targets.size(); ++b) {
        const double diff = std::fabs(static_cast<double>(outputs[a][i]) - outputs[b][i]);
        max_term_ulp = std::max(max_term_ulp, diff / term_ulp);
        max_result_ulp = std::max(max_result_ulp, UlpDistance<float, int32_t>(outputs[a][i], outputs[b][i]));
      }
    }
  }
  std::printf("soft labels (fp32, %zu elements): max difference between SIMD targets %.2f ulp of the larger term "
              "(%lld ulp of the result itself, where it cancels)\n",
              kElements, max_term_ulp, static_cast<long long>(max_result_ulp));
  EXPECT_LE(max_term_ulp, kMaxTermUlpBetweenTargets);
}

}  // namespace
}  // namespace bce_kernel_test
