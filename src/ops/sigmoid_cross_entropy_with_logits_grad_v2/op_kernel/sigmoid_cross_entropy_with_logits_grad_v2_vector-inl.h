// The gradient's vector math (GradientVectorN, TargetGradientVectorN and their pieces), per SIMD
// target: the kernel's tile functions (the -inl.h beside it) and the loss's fused call, which
// computes this gradient bit for bit, call it. Include it from a file compiled per target.

// Per-target include guard (the Highway idiom).
#if defined(ACLNN_BCE_GRAD_VECTOR_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_BCE_GRAD_VECTOR_INL_H_
#undef ACLNN_BCE_GRAD_VECTOR_INL_H_
#else
#define ACLNN_BCE_GRAD_VECTOR_INL_H_
#endif

#include "hwy/highway.h"
#include "simd/exp-inl.h"
#include "simd/log1p-inl.h"
#include "simd/softplus_tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu {
namespace bce_grad {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using ::aclnn_cpu::HWY_NAMESPACE::ExpNonPositiveN;
using ::aclnn_cpu::HWY_NAMESPACE::SoftplusTailN;

// ---------------------------------------------------------------------------------------------
// Gradient of a vector (GradientVectorN, GradientFromExpN).
//
// Contract: for compute type C (fp32, or fp64 for fp64 storage), per lane, with e = exp(-|x|):
//       x >= 0: t = fma(-lw, e, 1 - y) / (1 + e)
//       x <  0: t = fma(1 - y, e, -lw) / (1 + e)
//       g = ((t * dout) [* weight]) * scale, in this order
//   lw = pos_weight * y (y without pos_weight); fma(a, b, c) = a * b + c rounded once on targets
//   with a fused multiply-add (AVX2, AVX-512, NEON, SVE), a product and a sum elsewhere (SSSE3,
//   SSE4, the scalar ones: Highway's MulSub / NegMulAdd), Note [Numerator in one rounding]
// t is (1 - y) p - lw q with p = sigmoid(x), q = sigmoid(-x): it equals the seed's
// (lw + 1 - y) p - lw but does not cancel where p - y does (y = 1, large x), and it takes one
// product by e and one division where the p/q form takes three products. The factors follow t
// one by one, never multiplied together first: a product of small factors (a subnormal weight
// times dout) would underflow and lose the digits t then scales up (the fuzzer found that). The
// sign of x picks the branch (so -0 takes the second; both give the same value at e = 1). e is
// ExpNonPositive (max 1 ULP; 0 below -104, so large |x| saturates exactly, and e keeps its
// subnormal values above). NaN x propagates (exp returns a NaN x's NaN, Note [NaN through exp]);
// +-Inf x gives the limits. The compiler contracts no FMA (-ffp-contract=off): the numerator's
// are written out, the same on every call of a target. No step depends on the lane or the tile,
// so a value's result is the same wherever it sits.
//
// Note [Numerator in one rounding]
// The numerator was a product and a subtraction, each side of the sign computed and one picked
// (t's two forms by two selects of the operands, a product, two subtractions and a select). As
// one fused multiply-add per side and a select it takes three operations fewer, and it rounds
// once: the error bound (Note [Error bound]) held for the two roundings and holds the more for
// one. A zero numerator keeps the sign of the exact value, as before (a fused multiply-add rounds
// the exact a * b + c; a sign flip of one side instead would give -0 where the exact value is
// +0). Hard labels (y = 0 or 1) make one of the two terms zero, so the FMA changes no bit there;
// soft labels move by an ulp of the larger term at most, and targets without FMA keep the old
// bits (test_simd_target_agreement.cpp bounds the difference: soft labels 3 -> 4 ulp of the
// larger term, hard labels 4 ulp as before). Faster in L1 for fp32, bf16 and the fused call
// (docs/perf.md); from L2 and beyond fp32 gains nothing measurable: its loads bound it there.
// ---------------------------------------------------------------------------------------------
// GradientFromExpN takes e = ExpNonPositive(-|x|) computed by the caller (the fused loss and
// gradient, which needs e for the loss too); GradientVectorN below computes it. Both take K
// independent vectors (Note [Interleaved vectors]), with one weight, pos_weight and dout per
// vector; K changes no bit.
// The pieces of GradientFromExpN, which the fused loss and gradient share (LossAndGradientFromTailN).
// SignTerms: per lane, 1 - y, lw and the sign of x. The sign bit as a mask, by an integer
// compare: Highway 1.0.3's IfNegativeThenElse is wrong on SSSE3 (its IfThenElse there needs a
// full-lane mask, not just the sign bit).
template <bool HAS_POS_WEIGHT, class D, class V = hn::Vec<D>, class M = decltype(hn::Eq(V(), V()))>
HWY_INLINE void SignTerms(D d, V x, V y, V pos_weight, M& negative, V& one_minus_y, V& lw) {
  const hn::RebindToSigned<D> di;
  one_minus_y = hn::Sub(hn::Set(d, 1), y);
  lw = HAS_POS_WEIGHT ? hn::Mul(pos_weight, y) : y;
  negative = hn::RebindMask(d, hn::Lt(hn::BitCast(di, x), hn::Zero(di)));
}

// t's numerator and denominator from the terms and e (Note [Numerator in one rounding]).
template <class D, class V, class M>
HWY_INLINE void SignQuotient(D d, M negative, V one_minus_y, V lw, V e, V& num, V& den) {
  num = hn::IfThenElse(negative, hn::MulSub(one_minus_y, e, lw), hn::NegMulAdd(lw, e, one_minus_y));
  den = hn::Add(hn::Set(d, 1), e);
}

// g = ((num / den * dout) [* weight]) * scale for K vectors, each step over all K. SCALED false:
// the caller's scale is 1 (reductions none and sum), and the product by it, which changes no bit
// (x * 1 == x for every float, -0 and NaN included), is left out (Note [Unit scale]).
template <size_t K, bool HAS_WEIGHT, bool SCALED, class D, class V = hn::Vec<D>>
HWY_INLINE void GradientFromQuotientN(const V* num, const V* den, const V* dout, const V* weight, V scale,
                                      V* gradient) {
  for (size_t k = 0; k < K; ++k) gradient[k] = hn::Mul(hn::Div(num[k], den[k]), dout[k]);
  for (size_t k = 0; k < K; ++k) {
    if constexpr (HAS_WEIGHT) gradient[k] = hn::Mul(gradient[k], weight[k]);
    if constexpr (SCALED) gradient[k] = hn::Mul(gradient[k], scale);
  }
}

// SignQuotientsN: t's numerator and denominator for K vectors; per vector k, after them,
// with_terms(k, negative, one_minus_y, lw) (the fused call's loss takes the same terms). A NaN x's
// e is NaN (Note [NaN through exp]), and so are num and den.
template <size_t K, bool HAS_POS_WEIGHT, class D, class V, class WithTerms>
HWY_INLINE void SignQuotientsN(D d, const V* x, const V* y, const V* pos_weight, const V* e, V* num, V* den,
                               WithTerms&& with_terms) {
  for (size_t k = 0; k < K; ++k) {
    decltype(hn::Eq(x[k], x[k])) negative;
    V one_minus_y, lw;
    SignTerms<HAS_POS_WEIGHT>(d, x[k], y[k], pos_weight[k], negative, one_minus_y, lw);
    SignQuotient(d, negative, one_minus_y, lw, e[k], num[k], den[k]);
    with_terms(k, negative, one_minus_y, lw);
  }
}

template <size_t K, bool HAS_WEIGHT, bool HAS_POS_WEIGHT, bool SCALED = true, class D, class V = hn::Vec<D>>
HWY_INLINE void GradientFromExpN(D d, const V* x, const V* e, const V* y, const V* dout, const V* weight,
                                 const V* pos_weight, V scale, V* gradient) {
  V num[K], den[K];
  SignQuotientsN<K, HAS_POS_WEIGHT>(d, x, y, pos_weight, e, num, den, [](size_t, auto, V, V) HWY_ATTR {});
  GradientFromQuotientN<K, HAS_WEIGHT, SCALED, D>(num, den, dout, weight, scale, gradient);
}

// ---------------------------------------------------------------------------------------------
// Gradient with respect to the target (aclnnBinaryCrossEntropyWithLogitsTargetBackward) of a
// vector (TargetGradientVectorN).
//
// Contract: for compute type C, per lane:
//   without pos_weight: t = -x
//   with pos_weight:    t = (pw - 1) * L - (x < 0 ? pw * x : x),  L = log1p(exp(-|x|))
//   g = ((t * dout) [* weight]) * scale, in this order (the backward's)
// t is d loss / d y = pw * softplus(-x) - softplus(x) = log_sigmoid(-x) - pw * log_sigmoid(x)
// (PyTorch's binary_cross_entropy_with_logits_target_backward). Written with the linear part
// split off, the two softplus never subtract each other: pw = 1 gives -x exactly, as without
// pos_weight (the two forms differ in no bit there), and the sum of |(pw - 1) L| and the linear
// part bounds the error (the reference's TargetErrorBound). pw = 0 takes no linear part, the
// limit at x = -inf (0, not NaN). +inf x gives -inf, -inf gives +inf times pw; NaN propagates.
// The target itself is not read: the gradient does not depend on it.
// ---------------------------------------------------------------------------------------------
// TargetGradientVectorN: K independent vectors at once (Note [Interleaved vectors]); the same bits.
// TargetGradientFromTailN takes tail = SoftplusTailN(x) = log1p(exp(-|x|)) computed by the caller
// (read only with pos_weight; the staged passes of Kernel::Block): the same bits.
template <size_t K, bool HAS_WEIGHT, bool HAS_POS_WEIGHT, bool SCALED = true, class D, class V = hn::Vec<D>>
HWY_INLINE void TargetGradientFromTailN(D d, const V* x, const V* tail, const V* dout, const V* weight,
                                        const V* pos_weight, V scale, V* gradient) {
  V t[K];
  if constexpr (HAS_POS_WEIGHT) {
    const hn::RebindToSigned<D> di;  // the sign bit as a mask, as in GradientFromExpN
    for (size_t k = 0; k < K; ++k) {
      const auto negative = hn::RebindMask(d, hn::Lt(hn::BitCast(di, x[k]), hn::Zero(di)));
      const V scaled_x = hn::IfThenZeroElse(hn::Eq(pos_weight[k], hn::Zero(d)), hn::Mul(pos_weight[k], x[k]));
      const V linear = hn::IfThenElse(negative, scaled_x, x[k]);
      t[k] = hn::Sub(hn::Mul(hn::Sub(pos_weight[k], hn::Set(d, 1)), tail[k]), linear);
      t[k] = hn::IfThenElse(hn::IsNaN(x[k]), x[k], t[k]);  // x's own NaN, not that of -|x| from exp
    }
  } else {
    for (size_t k = 0; k < K; ++k) t[k] = hn::Neg(x[k]);
  }
  for (size_t k = 0; k < K; ++k) {
    gradient[k] = hn::Mul(t[k], dout[k]);
    if constexpr (HAS_WEIGHT) gradient[k] = hn::Mul(gradient[k], weight[k]);
    if constexpr (SCALED) gradient[k] = hn::Mul(gradient[k], scale);
  }
}

template <size_t K, bool HAS_WEIGHT, bool HAS_POS_WEIGHT, bool SCALED = true, class D, class V = hn::Vec<D>>
HWY_INLINE void TargetGradientVectorN(D d, const V* x, const V* dout, const V* weight, const V* pos_weight, V scale,
                                      V* gradient) {
  V tail[K];
  if constexpr (HAS_POS_WEIGHT) SoftplusTailN<K>(d, x, tail);  // log1p(exp(-|x|))
  TargetGradientFromTailN<K, HAS_WEIGHT, HAS_POS_WEIGHT, SCALED>(d, x, tail, dout, weight, pos_weight, scale,
                                                                 gradient);
}

// GradientVectorN: the gradient of K independent vectors.
template <size_t K, bool HAS_WEIGHT, bool HAS_POS_WEIGHT, bool SCALED = true, class D, class V = hn::Vec<D>>
HWY_INLINE void GradientVectorN(D d, const V* x, const V* y, const V* dout, const V* weight, const V* pos_weight,
                                V scale, V* gradient) {
  V minus_abs_x[K], e[K];
  for (size_t k = 0; k < K; ++k) minus_abs_x[k] = hn::Or(x[k], hn::SignBit(d));
  ExpNonPositiveN<K>(d, minus_abs_x, e);  // exp(-|x|)
  GradientFromExpN<K, HAS_WEIGHT, HAS_POS_WEIGHT, SCALED>(d, x, e, y, dout, weight, pos_weight, scale, gradient);
}

// Note [Unit scale]
// The gradient's last product is by the reduction's scale: 1/N for mean, 1 for none and sum. A
// product by 1 changes no bit, so the kernels run a variant without it when the scale is 1
// (Kernel::Compute picks it). One multiplication of about forty operations per vector, yet
// measurably faster without it (docs/perf.md): the product was on the critical path of the store.

}  // namespace HWY_NAMESPACE
}  // namespace bce_grad
}  // namespace aclnn_cpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_BCE_GRAD_VECTOR_INL_H_
