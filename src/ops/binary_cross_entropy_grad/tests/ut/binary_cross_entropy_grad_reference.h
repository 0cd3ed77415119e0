// The reference of BinaryCrossEntropyGrad (aclnnBinaryCrossEntropyBackward, the gradient of the
// loss of probabilities with respect to self): one element in long double, and the error the
// operator may show against it (Note [Probability gradient error bound]). Every test of the
// operator judges it with these: the API tests, the per-target tests and the differential tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>

#include "acl/acl_base.h"
#include "common/dtype.h"
// OutputRounding, MatchesReference: the comparison is the loss's.
#include "ops/binary_cross_entropy/tests/ut/binary_cross_entropy_reference.h"

namespace aclnn_cpu::bce_prob_grad {

using bce_prob::MatchesReference;
using bce_prob::OutputRounding;

/// The floor of the denominator (1 - x) x, which keeps x = 0 and x = 1 finite: PyTorch's
/// EPSILON, 1e-12 held as an fp32 (9.99999996e-13), in every compute type, fp64 too (the header).
inline constexpr double kDenominatorFloor = static_cast<double>(1e-12f);

/// One element's gradient, exact, rounded once to float64:
///   g = dout * (x - y) / max((1 - x) * x, kDenominatorFloor) * w * scale,
/// w = weight (1 without), scale = 1/N for mean, else 1. Any x is computed by the formula; NaN
/// propagates.
inline double ProbGradReference(double x, double y, double dout, std::optional<double> weight, double scale) {
  using LD = long double;
  const LD lx = x;
  const LD denominator = std::max<LD>((1 - lx) * lx, kDenominatorFloor);
  const LD g = static_cast<LD>(dout) * (lx - static_cast<LD>(y)) / denominator * static_cast<LD>(weight.value_or(1.0)) *
               static_cast<LD>(scale);
  return std::isnan(x) ? x : static_cast<double>(g);
}

// Note [Probability gradient error bound]
// The header promises 5 ULP of the compute type (x - y and 1 - x each rounded once, nothing
// cancels beyond them), mean's 1/N one more rounding, and for fp16/bf16 storage (or an fp32 out
// of an fp64 computation) one more rounding to out:
//   (5 + [mean]) eps_c |g| + 4 min_c + eps_o |g| + min_o
// eps_c is one ULP of 1 (twice the unit roundoff): a bound of k eps_c |g| is at least k ULP of g.

/// The largest |got - g| the operator may show, computing in @p compute and writing @p out_dtype;
/// @p mean: the gradient carries mean's 1/N. See Note [Probability gradient error bound].
inline double ProbGradErrorBound(double g, bool mean, aclDataType compute, aclDataType out_dtype) {
  const double eps_c = 2 * RoundingOf(compute).unit_roundoff;
  const double min_c = RoundingOf(compute).smallest_subnormal;
  const FloatRounding out = OutputRounding(compute, out_dtype);
  const double compute_error = (mean ? 6.0 : 5.0) * eps_c * std::fabs(g) + 4 * min_c;
  return compute_error * (1 + out.unit_roundoff) + out.unit_roundoff * std::fabs(g) + out.smallest_subnormal;
}

}  // namespace aclnn_cpu::bce_prob_grad
