// The reference implementation of SigmoidCrossEntropyWithLogitsGradV2: one element in float64, and
// the error the real kernel may show against it. The tests, the differential tests, the fuzzers
// and the CLI's --check all judge the kernel with these (see Note [Error bound]).
#pragma once

#include <cmath>
#include <optional>

#include "acl/acl_base.h"
#include "common/dtype.h"

namespace aclnn_cpu::bce_grad {

/// The terms of one element, rounded once to float64: g = (a - b) * m with a = (1 - y) * p, b = lw * q,
/// m = dout * weight * scale, p = sigmoid(x), q = sigmoid(-x) (both from one exp(-|x|)), and
/// lw = pos_weight * y (y without pos_weight). The same cancellation-free form as the kernel.
struct ReferenceTerms {
  double a = 0;
  double b = 0;
  double m = 0;
  double g = 0;
  double p = 0;   ///< sigmoid(x)
  double q = 0;   ///< sigmoid(-x) = 1 - p
  double lw = 0;  ///< pos_weight * y, or y
};

/// Evaluated in long double (x87's 64-bit significand and 15-bit exponent on x86-64), so that no
/// intermediate falls into float64's subnormals: m = dout * weight * scale of a subnormal weight
/// would otherwise lose its digits before the product with a - b (the fuzzer met such a case).
inline ReferenceTerms ComputeReferenceTerms(double x, double y, double dout, std::optional<double> weight,
                                            std::optional<double> pos_weight, double scale) {
  using LD = long double;
  const LD e = std::exp(-std::fabs(static_cast<LD>(x)));
  const LD p = x >= 0 ? 1 / (1 + e) : e / (1 + e);
  const LD q = x >= 0 ? e / (1 + e) : 1 / (1 + e);
  const LD lw = pos_weight ? static_cast<LD>(*pos_weight) * y : static_cast<LD>(y);
  const LD a = (1 - static_cast<LD>(y)) * p;
  const LD b = lw * q;
  const LD m = static_cast<LD>(dout) * static_cast<LD>(weight ? *weight : 1.0) * static_cast<LD>(scale);
  ReferenceTerms t;
  t.a = static_cast<double>(a);
  t.b = static_cast<double>(b);
  t.m = static_cast<double>(m);
  t.g = static_cast<double>((a - b) * m);
  t.p = static_cast<double>(p);
  t.q = static_cast<double>(q);
  t.lw = static_cast<double>(lw);
  return t;
}

/// The gradient of one element in float64.
inline double ReferenceGradient(double x, double y, double dout, std::optional<double> weight,
                                std::optional<double> pos_weight, double scale) {
  return ComputeReferenceTerms(x, y, dout, weight, pos_weight, scale).g;
}

// Note [Error bound]
// The kernel rounds a few times on each of a and b (exp, the division, the products: ~1-3 ulp
// each), then on the subtraction, which may cancel (why an fp32 result near y = p can be many of
// its own ulps away while being exact to the inputs), then on the products by dout, weight and
// scale, and once more to the output dtype. So |got - g| may reach
//   8 eps_c (|a| + |b|) |m| + 4 eps_c |g|      (compute, eps_c of fp32 or fp64)
//   + eps_o |g| + min_o                        (rounding to the output, its subnormal step)
//   + 4 min_c                                  (subnormal steps of the compute type)

/// The largest |got - g| the kernel may show, computing in @p compute (ACL_FLOAT or ACL_DOUBLE)
/// and writing @p out_dtype. See Note [Error bound].
inline double ReferenceErrorBound(const ReferenceTerms& t, aclDataType compute, aclDataType out_dtype) {
  // eps_c: one ULP of 1 in the compute type (twice its unit roundoff).
  const double eps_c = 2 * RoundingOf(compute).unit_roundoff;
  const double min_c = RoundingOf(compute).smallest_subnormal;
  const double eps_o = RoundingOf(out_dtype).unit_roundoff;
  const double min_o = RoundingOf(out_dtype).smallest_subnormal;
  const double compute_error = 8.0 * eps_c * (std::fabs(t.a) + std::fabs(t.b)) * std::fabs(t.m) + 4.0 * eps_c * std::fabs(t.g);
  return compute_error * (1 + eps_o) + eps_o * std::fabs(t.g) + min_o + 4 * min_c;
}

// ---------------------------------------------------------------------------------------------
// The gradient with respect to the target (aclnnBinaryCrossEntropyWithLogitsTargetBackward).

/// One element's target gradient and its terms, rounded once to float64:
///   g = (c - l) * m, c = (pw - 1) * log1p(exp(-|x|)), l = (x < 0 ? pw * x : x) (pw = 0: l = 0),
///   m = dout * weight * scale; without pos_weight c = 0 and l = x (g = -x * m).
/// c - l = pw * softplus(-x) - softplus(x) = log_sigmoid(-x) - pw * log_sigmoid(x).
struct TargetReferenceTerms {
  double c = 0;
  double l = 0;
  double m = 0;
  double g = 0;
};

/// Evaluated in long double, as ComputeReferenceTerms.
inline TargetReferenceTerms ComputeTargetReferenceTerms(double x, double dout, std::optional<double> weight,
                                                        std::optional<double> pos_weight, double scale) {
  using LD = long double;
  const LD lx = x;
  LD c = 0, l = lx;
  if (pos_weight) {
    const LD pw = *pos_weight;
    c = (pw - 1) * std::log1p(std::exp(-std::fabs(lx)));
    l = lx < 0 ? (pw == 0 ? 0 : pw * lx) : lx;
  }
  const LD m = static_cast<LD>(dout) * static_cast<LD>(weight ? *weight : 1.0) * static_cast<LD>(scale);
  TargetReferenceTerms t;
  t.c = static_cast<double>(c);
  t.l = static_cast<double>(l);
  t.m = static_cast<double>(m);
  t.g = std::isnan(x) ? x : static_cast<double>((c - l) * m);
  return t;
}

// Note [Target error bound]
// The kernel computes log1p(exp(-|x|)) within 2 ULP, rounds its product by pw - 1 (pw - 1 itself
// exact for pw in [0.5, 2], else one rounding), the product pw * x, the difference (which may
// cancel), then the products by dout, weight and scale, and once more to the output dtype:
//   5 eps_c (|c| + |l|) |m| + 4 eps_c |g| + eps_o |g| + min_o + 4 min_c
// (without pos_weight c = 0 and only the products by dout, weight and scale round).

/// The largest |got - g| the target gradient may show. See Note [Target error bound].
inline double TargetErrorBound(const TargetReferenceTerms& t, aclDataType compute, aclDataType out_dtype) {
  const double eps_c = 2 * RoundingOf(compute).unit_roundoff;
  const double min_c = RoundingOf(compute).smallest_subnormal;
  const double eps_o = RoundingOf(out_dtype).unit_roundoff;
  const double min_o = RoundingOf(out_dtype).smallest_subnormal;
  const double compute_error = 5.0 * eps_c * (std::fabs(t.c) + std::fabs(t.l)) * std::fabs(t.m) + 4.0 * eps_c * std::fabs(t.g);
  return compute_error * (1 + eps_o) + eps_o * std::fabs(t.g) + min_o + 4 * min_c;
}

}  // namespace aclnn_cpu::bce_grad
