// Acceptance of one output element against a float64 oracle, shared by the differential tests,
// the stress tests and the fuzz targets. The reference and its bound are the operator's own
// (op_kernel/..._reference.h, Note [Error bound]); this adds only the oracle's terms: PyTorch's
// own float64 error, subnormal intermediates magnified by the multiplier, and the out dtype's
// overflow to +-Inf. Free of GoogleTest, so that the fuzz targets can use it.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>

#include "acl/acl_base.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_reference.h"

namespace bce_reliability {

/// The reference terms of one element (ComputeReferenceTerms: g = (a - b) * m, a = (1 - y) * p,
/// b = lw * q, m = dout * weight * scale) plus what only an oracle comparison needs.
/// `oracle_error` bounds the float64 rounding error of PyTorch's own formula
/// ((lw + 1 - y) * p - lw) * m: its intermediate lw + 1 is rounded at the magnitude of 1 + |lw|
/// before y is subtracted, and the final subtraction cancels where ours does not, so near y = 1
/// it is far less accurate than an fp64 kernel.
struct GradTerms : aclnn_cpu::bce_grad::ReferenceTerms {
  double oracle_error = 0;
  /// What an absolute error of one subnormal step of the compute type is multiplied by on its way
  /// to the result, summed over the intermediates that can be subnormal: p or q (|x| beyond ~87
  /// in fp32) times (1 + |1 - y| + |lw|) * |m|; the product with dout times |weight| * scale;
  /// the product with weight times scale.
  double subnormal_gain = 0;
};

inline GradTerms ComputeGradTerms(double x, double y, double dout, std::optional<double> weight,
                                  std::optional<double> pos_weight, double scale) {
  GradTerms t;
  static_cast<aclnn_cpu::bce_grad::ReferenceTerms&>(t) =
      aclnn_cpu::bce_grad::ComputeReferenceTerms(x, y, dout, weight, pos_weight, scale);
  constexpr double kEps64 = 0x1p-53;
  // PyTorch's order is (((lw + 1 - y) * p - lw) * (dout * scale)) * weight: a product that falls
  // into float64's subnormals there carries an absolute error of a subnormal step times what
  // follows it.
  constexpr double kTiny64 = 0x1p-1074;
  const double w_abs = std::fabs(weight ? *weight : 1.0);
  const double lw_abs = std::fabs(t.lw);
  t.oracle_error = 8.0 * kEps64 * ((lw_abs + 1.0 + std::fabs(y)) * t.p + lw_abs) * std::fabs(t.m) +
                   4.0 * kEps64 * std::fabs(t.g) + 4.0 * kTiny64 * (std::fabs(t.m) + w_abs + 1.0);
  t.subnormal_gain = (1.0 + std::fabs(1.0 - y) + lw_abs) * std::fabs(t.m) + (w_abs + 1.0) * scale;
  return t;
}

/// PyTorch's sigmoid is 1 / (1 + exp(-x)): exp overflows below x = -709.78, so PyTorch's p
/// flushes to 0 where the exact p is still a (subnormal) double. Below this x the oracle is the
/// float64 formula of ComputeGradTerms instead.
inline constexpr double kTorchSigmoidFlushBelow = -709.0;

/// The float64 value to judge against: PyTorch's, except where its sigmoid flushes.
inline double OracleValue(double torch_value, double x, const GradTerms& t) {
  return x < kTorchSigmoidFlushBelow ? t.g : torch_value;
}

/// Smallest magnitude that rounds to Inf in @p dtype (round to nearest even).
inline double OverflowThreshold(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT16: return 65520.0;                 // max 65504 + half an ulp (16)
    case ACL_BF16: return 0x1.ffp127;                 // max 0x1.fep127 + half an ulp
    case ACL_FLOAT: return 0x1.ffffffp127;            // max 0x1.fffffep127 + half an ulp
    default: return HUGE_VAL;
  }
}

/// The verdict on one element, with its error in units of the bound (0 when exact or Inf-equal).
struct Verdict {
  bool ok = false;
  double abs_error = 0;
  double error_over_bound = 0;
  double bound = 0;
};

/// Whether @p got is an acceptable @p out_dtype result for an element whose float64 oracle is
/// @p ref and whose terms are @p t, computed in @p compute (ACL_FLOAT or ACL_DOUBLE).
inline Verdict Judge(double got, double ref, const GradTerms& t, aclDataType compute, aclDataType out_dtype) {
  Verdict v;
  // ReferenceErrorBound's floor for subnormal intermediates is not scaled by the multiplier m; p
  // or q computed as a subnormal of the compute type carries an absolute error of a few of its
  // smallest steps, which m (up to 1e12 here) magnifies.
  const double compute_tiny = compute == ACL_DOUBLE ? 0x1p-1074 : 0x1p-149;
  aclnn_cpu::bce_grad::ReferenceTerms judged = t;
  judged.g = ref;  // the bound scales with the value judged against (PyTorch's where it is the oracle)
  v.bound = aclnn_cpu::bce_grad::ReferenceErrorBound(judged, compute, out_dtype) + t.oracle_error +
            4.0 * compute_tiny * t.subnormal_gain;
  if (std::isnan(ref) || std::isnan(got)) {
    v.ok = std::isnan(ref) && std::isnan(got);
    return v;
  }
  if (std::isinf(got)) {
    // Overflow of the final rounding (or of the compute type) is right only when the exact value
    // lies within the bound of the overflow threshold, on the same side.
    const double limit = std::min(OverflowThreshold(out_dtype),
                                  compute == ACL_DOUBLE ? HUGE_VAL : OverflowThreshold(ACL_FLOAT));
    v.ok = std::signbit(got) == std::signbit(ref) && std::fabs(ref) + v.bound >= limit;
    return v;
  }
  v.abs_error = std::fabs(got - ref);
  v.ok = v.abs_error <= v.bound;
  v.error_over_bound = v.bound > 0 ? v.abs_error / v.bound : (v.abs_error == 0 ? 0 : HUGE_VAL);
  return v;
}

/// Largest finite value of @p dtype (fp16's 65504; the wide types never saturate in these tests).
inline double LargestFinite(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT16: return 65504.0;
    case ACL_BF16: return 0x1.fep127;
    case ACL_FLOAT: return 0x1.fffffep127;
    default: return HUGE_VAL;
  }
}

/// Judge for a kernel whose final Cast saturates a finite overflow to the largest finite value of
/// @p out_dtype, as A2's Cast does (the AscendC kernels of the ascendc mode, README "The NPU path
/// behind the ACLNN API"): that value is right exactly where Judge accepts an infinity of its sign;
/// anything else is judged as by Judge.
inline Verdict JudgeSaturating(double got, double ref, const GradTerms& t, aclDataType compute,
                               aclDataType out_dtype) {
  if (std::fabs(got) == LargestFinite(out_dtype)) {
    const Verdict as_infinity = Judge(std::copysign(HUGE_VAL, got), ref, t, compute, out_dtype);
    if (as_infinity.ok) return as_infinity;
  }
  return Judge(got, ref, t, compute, out_dtype);
}

}  // namespace bce_reliability
