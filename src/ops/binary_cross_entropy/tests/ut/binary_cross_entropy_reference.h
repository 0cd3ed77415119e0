// The reference of BinaryCrossEntropy (aclnnBinaryCrossEntropy, the loss of probabilities): one
// element in long double, and the error the operator may show against it (Note [Probability loss
// error bound]). Every test of the operator judges it with these: the API tests, the per-target
// tests and the differential tests against libtorch.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "acl/acl_base.h"
#include "common/dtype.h"

namespace aclnn_cpu::bce_prob {

/// PyTorch's clamp of the two log terms: log(0) counts as -100, so a wrong certain label costs 100.
inline constexpr long double kLogClamp = -100;

/// One element's loss and its two terms, each rounded once to float64:
///   loss = -(pos + neg) * w,  pos = y * max(log(x), -100),  neg = (1 - y) * max(log1p(-x), -100),
///   w = weight (1 without). An x outside [0, 1], or NaN, gives NaN (the operator's contract).
/// A zero factor makes its term zero (the clamped log is finite, so 0 * -100 = 0 anyway).
struct ProbLossReference {
  double pos = 0;
  double neg = 0;
  double w = 1;
  double loss = 0;
};

/// Evaluated in long double (x87's 64-bit significand on x86-64): the terms and the loss are
/// exact to far below float64's rounding.
inline ProbLossReference ComputeProbLossReference(double x, double y, std::optional<double> weight) {
  using LD = long double;
  ProbLossReference r;
  r.w = weight.value_or(1.0);
  if (!(x >= 0 && x <= 1)) {  // NaN too
    r.loss = std::numeric_limits<double>::quiet_NaN();
    return r;
  }
  const LD lx = x, ly = y;
  const LD log_x = std::max(std::log(lx), kLogClamp);       // log(0) = -inf: clamped
  const LD log_1mx = std::max(std::log1p(-lx), kLogClamp);  // log1p(-1) = -inf: clamped
  const LD pos = ly * log_x;
  const LD neg = (1 - ly) * log_1mx;
  r.pos = static_cast<double>(pos);
  r.neg = static_cast<double>(neg);
  r.loss = static_cast<double>(-(pos + neg) * static_cast<LD>(r.w));
  return r;
}

// Note [Probability loss error bound]
// The header promises 6 ULP of fp32 (6 eps_c of the loss, fp64 compute: 6 eps_c of fp64) for x, y
// in [0, 1] and weights >= 0, where both terms are >= 0 and nothing cancels. For any labels and
// weights the same roundings act on each term, so |got - loss| may reach
//   6 eps_c (|pos| + |neg|) |w|            (compute; = 6 eps_c |loss| where nothing cancels)
//   + 4 min_c                              (subnormal steps of the compute type)
//   + eps_o |loss| + min_o                 (only when out's dtype is not the compute type: the
//                                           one more rounding of fp16/bf16 storage, or of an fp32
//                                           out of an fp64 computation)
// eps_c is one ULP of 1 (twice the unit roundoff): a bound of k eps_c |v| is at least k ULP of v.

/// The rounding to @p out_dtype that follows a computation in @p compute: none when they are
/// the same type.
inline FloatRounding OutputRounding(aclDataType compute, aclDataType out_dtype) {
  if (out_dtype == compute) return {0, 0};
  return RoundingOf(out_dtype);
}

/// The largest |got - loss| the operator may show for one element, computing in @p compute
/// (ACL_FLOAT or ACL_DOUBLE) and writing @p out_dtype. See Note [Probability loss error bound].
inline double ProbLossErrorBound(const ProbLossReference& r, aclDataType compute, aclDataType out_dtype) {
  const double eps_c = 2 * RoundingOf(compute).unit_roundoff;
  const double min_c = RoundingOf(compute).smallest_subnormal;
  const FloatRounding out = OutputRounding(compute, out_dtype);
  const double compute_error = 6.0 * eps_c * (std::fabs(r.pos) + std::fabs(r.neg)) * std::fabs(r.w) + 4 * min_c;
  return compute_error * (1 + out.unit_roundoff) + out.unit_roundoff * std::fabs(r.loss) + out.smallest_subnormal;
}

/// The value just past which rounding to @p dtype gives infinity (half an ULP above the largest
/// finite value).
inline double OverflowThreshold(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT16: return 65520.0;
    case ACL_BF16: return 0x1.ffp127;
    case ACL_FLOAT: return 0x1.ffffffp127;
    default: return std::numeric_limits<double>::infinity();
  }
}

/// Whether @p got (an element of an out of @p out_dtype) is what the operator may make of
/// @p value with error @p bound: NaN for NaN, a value within the bound, or an infinity of the
/// value's sign where the value's rounding to out may overflow.
inline bool MatchesReference(double got, double value, double bound, aclDataType out_dtype) {
  if (std::isnan(value)) return std::isnan(got);
  if (std::fabs(got - value) <= bound) return true;
  return std::isinf(got) && std::signbit(got) == std::signbit(value) &&
         std::fabs(value) + bound >= OverflowThreshold(out_dtype);
}

}  // namespace aclnn_cpu::bce_prob
