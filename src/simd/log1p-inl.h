// log(1 + u) on SIMD vectors for the range a loss needs, and the softplus built from it.
// Per-SIMD-target code: include it from a file compiled through hwy/foreach_target.h.

// Per-target include guard (the Highway idiom).
#if defined(ACLNN_CPU_SIMD_LOG1P_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_CPU_SIMD_LOG1P_INL_H_
#undef ACLNN_CPU_SIMD_LOG1P_INL_H_
#else
#define ACLNN_CPU_SIMD_LOG1P_INL_H_
#endif

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "simd/exp-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ---------------------------------------------------------------------------------------------
// Log1pUnit: log(1 + u) for u in [0, 1], the only range the loss operators need (they take
// log1p(exp(-|x|)), and exp(-|x|) lies in [0, 1]).
//
// Contract, float lanes: max error 1 ULP against the correctly rounded log1p(u) for every u in
// [0, 1], subnormals included. +0 gives +0; a u so small that 1 + u rounds to 1 gives u exactly.
// NaN gives NaN. Outside [0, 1]: not specified. tests/unit/simd/test_log1p.cpp walks [0, 1] with
// a stride of 251 bit patterns plus every binade edge, on every SIMD target built, and prints the
// largest error seen; every float of [0, 1] was also checked once (0.69 ULP on AVX3 with the
// method for targets with FMA, 0.83 ULP with the other).
// Double lanes: Highway's Log1p (measured max 2.4 ULP on [0, 1], bounded at 3 by the test).
//
// Why not Highway's Log1p for floats: it measures 2.37 ULP on this range (above its stated 2),
// and the forward loss's 4 ULP budget cannot afford it next to exp's 1 ULP; it also spends most
// of its operations on a range reduction that [0, 1] does not need. Two methods, by target:
//
// Targets with a fused multiply-add (AVX2, AVX3): log1p(u) = 2 atanh(s), s = u / (2 + u) in
// [0, 1/3], with no range reduction at all. In S = 2s (S = 2u / (2 + u) in [0, 2/3]):
//   log1p(u) = S + S Z P(Z),  Z = S^2 in [0, 4/9],  P(Z) = sum_k>=1 Z^(k-1) / (4^k (2k + 1)),
// P a degree-4 minimax fit for relative error (3.0e-8 with the coefficients rounded to float;
// S Z P is at most 4% of the result, so this costs 0.001 ULP). S is carried as q + lo: q = 2u / d
// rounded, d = 2 + u rounded, and lo = ((2u - q d) - q (u - (d - 2))) / d, where the fused
// multiply-add gives the division's remainder 2u - q d exactly and u - (d - 2) is d's rounding
// error, exactly; lo is about an ULP of q, so the division by d is taken as a multiplication by a
// linear fit of 1/d on [2, 3] (2.5% off, 0.03 ULP of the result). The result q + (lo + q Z P)
// rounds once at the end. One division and 16 other operations, where the method below takes two
// divisions and about 35: about twice the throughput (docs/perf.md). An approximate reciprocal
// with a Newton step instead of the division measured slower.
//
// Other targets (SSSE3, SSE4, the scalar one): the remainder is not exact without a fused
// multiply-add, so they keep the classic method of fdlibm's log1pf (Sun, 1993, freely
// redistributable), written here for vectors:
//   u < sqrt(2) - 1:  f = u exactly, k = 0, c = 0;
//   otherwise:        w = 1 + u rounded, c = (u - (w - 1)) / w the rounding error of w (exact
//                     numerator, first order), w = 2^k (1 + f) with 1 + f in [sqrt(2)/2, sqrt(2)).
//   log1p(u) = k ln2 + log(1 + f) + c, with log(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2)),
//   s = f / (2 + f), R a minimax polynomial on |s| <= 0.1716 (fdlibm's Lg1..Lg4), ln2 in two
//   parts so that k ln2 adds no rounding, and the terms summed smallest first.
// ---------------------------------------------------------------------------------------------
template <class D, class V = hn::Vec<D>>
HWY_INLINE V Log1pUnitWithoutFma(D d, V u) {
  const hn::RebindToSigned<D> di;
  const V one = hn::Set(d, 1.0f);
  const auto small = hn::Lt(u, hn::Set(d, 0x1.a827a0p-2f));  // below sqrt(2) - 1 (fdlibm's 0x3ed413d0)
  const V w = hn::Add(one, u);
  // k = 1 exactly when w >= sqrt(2) (w <= 2 here): the bits of w moved by 1 - sqrt(2)/2's.
  const auto shifted = hn::Add(hn::BitCast(di, w), hn::Set(di, 0x3f800000 - 0x3f3504f3));
  const V k = hn::IfThenZeroElse(small, hn::ConvertTo(d, hn::Sub(hn::ShiftRight<23>(shifted), hn::Set(di, 127))));
  const V c = hn::IfThenZeroElse(small, hn::Div(hn::Sub(u, hn::Sub(w, one)), w));
  const V reduced = hn::BitCast(d, hn::Add(hn::And(shifted, hn::Set(di, 0x007fffff)), hn::Set(di, 0x3f3504f3)));
  const V f = hn::IfThenElse(small, u, hn::Sub(reduced, one));

  const V s = hn::Div(f, hn::Add(hn::Set(d, 2.0f), f));
  const V z = hn::Mul(s, s);
  const V z2 = hn::Mul(z, z);
  const V t1 = hn::Mul(z2, hn::Add(hn::Set(d, 0xccce13.0p-25f), hn::Mul(z2, hn::Set(d, 0xf89e26.0p-26f))));
  const V t2 = hn::Mul(z, hn::Add(hn::Set(d, 0xaaaaaa.0p-24f), hn::Mul(z2, hn::Set(d, 0x91e9ee.0p-25f))));
  const V r = hn::Add(t2, t1);
  const V half_f2 = hn::Mul(hn::Mul(hn::Set(d, 0.5f), f), f);
  const V ln2_hi = hn::Set(d, 6.9313812256e-01f), ln2_lo = hn::Set(d, 9.0580006145e-06f);
  V result = hn::Mul(s, hn::Add(half_f2, r));
  result = hn::Add(result, hn::Add(hn::Mul(k, ln2_lo), c));
  result = hn::Sub(result, half_f2);
  result = hn::Add(result, f);
  result = hn::Add(result, hn::Mul(k, ln2_hi));
  return hn::IfThenElse(hn::IsNaN(u), u, result);
}

// Log1pUnitN: K independent vectors at once (Note [Interleaved vectors]); Log1pUnit is K = 1.
template <size_t K, class D, class V = hn::Vec<D>>
HWY_INLINE void Log1pUnitN(D d, const V* u, V* result) {
  if constexpr (sizeof(hn::TFromD<D>) == 8) {
    for (size_t k = 0; k < K; ++k) result[k] = hn::Log1p(d, u[k]);
  } else {
#if HWY_NATIVE_FMA
    const V two = hn::Set(d, 2.0f);
    V den[K], den_error[K], twice_u[K], q[K], remainder[K], lo[K], z[K], p[K];
    for (size_t k = 0; k < K; ++k) den[k] = hn::Add(u[k], two);
    for (size_t k = 0; k < K; ++k) twice_u[k] = hn::Add(u[k], u[k]);
    for (size_t k = 0; k < K; ++k) q[k] = hn::Div(twice_u[k], den[k]);
    for (size_t k = 0; k < K; ++k) den_error[k] = hn::Sub(u[k], hn::Sub(den[k], two));  // both exact (Sterbenz)
    for (size_t k = 0; k < K; ++k) remainder[k] = hn::NegMulAdd(q[k], den[k], twice_u[k]);  // exact
    for (size_t k = 0; k < K; ++k) remainder[k] = hn::NegMulAdd(q[k], den_error[k], remainder[k]);
    // 1/d on [2, 3] to 2.5%: the equioscillating line a - d/6 (a = 1/2 + 1/3 - 0.00842).
    for (size_t k = 0; k < K; ++k) {
      lo[k] = hn::Mul(remainder[k], hn::MulAdd(den[k], hn::Set(d, -1.0f / 6.0f), hn::Set(d, 0.82491f)));
    }
    for (size_t k = 0; k < K; ++k) z[k] = hn::Mul(q[k], q[k]);
    for (size_t k = 0; k < K; ++k) p[k] = hn::MulAdd(hn::Set(d, 0x1.dbd2c0p-14f), z[k], hn::Set(d, 0x1.bc8244p-12f));
    for (size_t k = 0; k < K; ++k) p[k] = hn::MulAdd(p[k], z[k], hn::Set(d, 0x1.24c986p-9f));
    for (size_t k = 0; k < K; ++k) p[k] = hn::MulAdd(p[k], z[k], hn::Set(d, 0x1.9998d2p-7f));
    for (size_t k = 0; k < K; ++k) p[k] = hn::MulAdd(p[k], z[k], hn::Set(d, 0x1.555556p-4f));  // 1/12
    for (size_t k = 0; k < K; ++k) result[k] = hn::Add(q[k], hn::MulAdd(hn::Mul(q[k], z[k]), p[k], lo[k]));
#else
    for (size_t k = 0; k < K; ++k) result[k] = Log1pUnitWithoutFma(d, u[k]);
#endif
  }
}

template <class D, class V = hn::Vec<D>>
HWY_INLINE V Log1pUnit(D d, V u) {
  V result;
  Log1pUnitN<1>(d, &u, &result);
  return result;
}

// ---------------------------------------------------------------------------------------------
// SoftplusPair: softplus(x) = log(1 + e^x) and softplus(-x) = log(1 + e^-x) from one exp and one
// log1p, without cancellation for any x:
//   softplus(x) = max(x, 0) + log1p(e^-|x|),   softplus(-x) = max(-x, 0) + log1p(e^-|x|)
// (both terms are >= 0, so the sum never subtracts). The loss is
//   pw * y * softplus(-x) + (1 - y) * softplus(x).
// Contract (float lanes): each result within 2 ULP of the exact softplus for every finite x
// (ExpNonPositive's 1 ULP through log1p's slope u / (1 + u) <= 1, Log1pUnit's 1 ULP, and the
// final sum's rounding; measured by tests/unit/simd/test_log1p.cpp: 1.42 ULP); +inf gives
// (+inf, +0), -inf gives (+0, +inf); NaN gives NaN in both.
// ---------------------------------------------------------------------------------------------
// SoftplusPairFromTail is the same from @p tail = log1p(exp(-|x|)) computed by the caller (the
// kernels' SoftplusTailN, src/simd/softplus_tail-inl.h); SoftplusPairFromExp from @p e =
// ExpNonPositive(-|x|): the same bits as SoftplusPair.
template <class D, class V = hn::Vec<D>>
HWY_INLINE void SoftplusPairFromTail(D d, V x, V tail, V& softplus_x, V& softplus_neg_x) {
  const V zero = hn::Zero(d);
  softplus_x = hn::Add(hn::Max(x, zero), tail);
  softplus_neg_x = hn::Add(hn::Max(hn::Neg(x), zero), tail);
  const auto is_nan = hn::IsNaN(x);  // x's own NaN, not that of -|x| which exp passes on
  softplus_x = hn::IfThenElse(is_nan, x, softplus_x);
  softplus_neg_x = hn::IfThenElse(is_nan, x, softplus_neg_x);
}

template <class D, class V = hn::Vec<D>>
HWY_INLINE void SoftplusPairFromExp(D d, V x, V e, V& softplus_x, V& softplus_neg_x) {
  SoftplusPairFromTail(d, x, Log1pUnit(d, e), softplus_x, softplus_neg_x);
}

template <class D, class V = hn::Vec<D>>
HWY_INLINE void SoftplusPair(D d, V x, V& softplus_x, V& softplus_neg_x) {
  SoftplusPairFromExp(d, x, ExpNonPositive(d, hn::Neg(hn::Abs(x))), softplus_x, softplus_neg_x);
}

}  // namespace HWY_NAMESPACE
}  // namespace aclnn_cpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_CPU_SIMD_LOG1P_INL_H_
