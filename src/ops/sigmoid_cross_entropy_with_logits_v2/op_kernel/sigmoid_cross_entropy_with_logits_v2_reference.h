// The reference of SigmoidCrossEntropyWithLogitsV2 (the loss, aclnnBinaryCrossEntropyWithLogits):
// one element in long double, and the error the kernel may show against it (Note [Loss error
// bound]). Every test of the loss judges the kernel with these.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>

#include "acl/acl_base.h"
#include "common/dtype.h"

namespace aclnn_cpu::bce_loss {

/// One element's loss and its two terms, each rounded once to float64:
///   loss = (pos + neg) * w,  pos = lw * softplus(-x),  neg = (1 - y) * softplus(x),
///   lw = pos_weight * y (y without pos_weight), w = weight (1 without),
///   softplus(t) = max(t, 0) + log1p(exp(-|t|)).
/// A zero factor makes its term zero whatever the softplus (the limit: x = +inf, y = 1 gives 0).
struct LossReferenceTerms {
  double pos = 0;
  double neg = 0;
  double w = 1;
  double loss = 0;
};

/// Evaluated in long double (x87's 64-bit significand and 15-bit exponent on x86-64): the terms
/// are exact to far below float64's rounding.
inline LossReferenceTerms ComputeLossReferenceTerms(double x, double y, std::optional<double> weight,
                                                    std::optional<double> pos_weight) {
  using LD = long double;
  const LD lx = x;
  const LD tail = std::log1p(std::exp(-std::fabs(lx)));
  const LD softplus_x = std::max<LD>(lx, 0) + tail;
  const LD softplus_neg_x = std::max<LD>(-lx, 0) + tail;
  const LD lw = pos_weight ? static_cast<LD>(*pos_weight) * y : static_cast<LD>(y);
  const LD one_minus_y = 1 - static_cast<LD>(y);
  const LD pos = lw == 0 ? 0 : lw * softplus_neg_x;
  const LD neg = one_minus_y == 0 ? 0 : one_minus_y * softplus_x;
  const LD w = weight ? static_cast<LD>(*weight) : 1;
  LossReferenceTerms t;
  t.pos = static_cast<double>(pos);
  t.neg = static_cast<double>(neg);
  t.w = static_cast<double>(w);
  t.loss = std::isnan(x) ? x : static_cast<double>((pos + neg) * w);
  return t;
}

// Note [Loss error bound]
// The kernel computes softplus within 2 ULP (src/simd/log1p-inl.h), then rounds the products by
// lw and by 1 - y (1 - y itself is exact for y in [0.5, 2], else one rounding), their sum, and
// the product by the weight: about 4 roundings on each term. So |got - loss| may reach
//   5 eps_c (|pos| + |neg|) |w|                (compute, eps_c of fp32 or fp64)
//   + eps_o |loss| + min_o + 4 min_c           (rounding to the output, subnormal steps)
// For labels in [0, 1] and weights >= 0 both terms are >= 0, so the bound is 5 eps_c |loss|.
// The operator's sharper promise there, 4 ULP of fp32, is checked by the tests directly; the
// bound above is what holds for any labels and weights (where the terms may cancel).

/// The largest |got - loss| the kernel may show, computing in @p compute (ACL_FLOAT or
/// ACL_DOUBLE) and writing @p out_dtype. See Note [Loss error bound].
inline double LossErrorBound(const LossReferenceTerms& t, aclDataType compute, aclDataType out_dtype) {
  // eps_c: one ULP of 1 in the compute type (twice its unit roundoff).
  const double eps_c = 2 * RoundingOf(compute).unit_roundoff;
  const double min_c = RoundingOf(compute).smallest_subnormal;
  const double eps_o = RoundingOf(out_dtype).unit_roundoff;
  const double min_o = RoundingOf(out_dtype).smallest_subnormal;
  const double compute_error = 5.0 * eps_c * (std::fabs(t.pos) + std::fabs(t.neg)) * std::fabs(t.w);
  return compute_error * (1 + eps_o) + eps_o * std::fabs(t.loss) + min_o + 4 * min_c;
}

}  // namespace aclnn_cpu::bce_loss
