// e^x on SIMD vectors for the range a loss needs.
// Per-SIMD-target code: include it from a file compiled through hwy/foreach_target.h.

// Per-target include guard (the Highway idiom).
#if defined(ACLNN_CPU_SIMD_EXP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_CPU_SIMD_EXP_INL_H_
#undef ACLNN_CPU_SIMD_EXP_INL_H_
#else
#define ACLNN_CPU_SIMD_EXP_INL_H_
#endif

#include <cstdint>

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET <= HWY_AVX3
// x * 2^k rounded once, into the subnormals, for integral k: AVX-512's VSCALEFPS, which Highway
// 1.0.3 has no op for. Any vector width (AVX-512VL comes with every AVX3 target).
template <class V>
HWY_INLINE V ScaleByPowerOfTwo(V x, V k) {
  constexpr size_t kBytes = sizeof(x.raw);
  if constexpr (kBytes == 64) {
    return V{_mm512_scalef_ps(x.raw, k.raw)};
  } else if constexpr (kBytes == 32) {
    return V{_mm256_scalef_ps(x.raw, k.raw)};
  } else {
    return V{_mm_scalef_ps(x.raw, k.raw)};
  }
}
#endif

// ---------------------------------------------------------------------------------------------
// ExpNonPositive: e^x for x <= 0, the only range the loss operators need (they take exp(-|x|)).
//
// Contract (float lanes): max error 1 ULP against the correctly rounded e^x, including results
// in the subnormal range (checked over every float in [-104, 0] on AVX3, AVX2 and SSSE3: about
// 0.5% of the results are 1 ULP off with FMA, 0.9% without); x < -104 gives +0 (below half the
// smallest subnormal); -inf gives +0. NaN input: the result is unspecified (the caller puts the
// NaN back). Float64 lanes use Highway's Exp (1 ULP on [-DBL_MAX, +706]).
//
// Written here rather than taken from Highway because its general Exp spends about twice the
// instructions on what this range does not need (saturating float->int conversions, a second
// scaling step, a lower-bound select, a longer polynomial), and exp is most of the kernel's
// arithmetic. The method:
//   k = round(x / ln2) via the 1.5 * 2^23 rounding constant (no float->int conversion),
//   r = x - k ln2 in two parts (|r| <= ln2 / 2), e^r by a degree-6 polynomial in Horner form
//   with the two leading coefficients 1 (minimax for relative error on [-ln2/2, ln2/2]: 4e-9,
//   0.07 ULP, before rounding), then e^x = e^r * 2^k rounded once: AVX-512's VSCALEFPS does it
//   in one instruction, into the subnormals; elsewhere (e^r * 2^(k + 64)) * 2^-64, whose first
//   product is exact and normal for every k >= -150 and whose second rounds once. Both give the
//   same bits.
// ---------------------------------------------------------------------------------------------
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ExpNonPositive(D d, V x) {
  if constexpr (sizeof(hn::TFromD<D>) == 8) {
    return hn::Exp(d, x);
  } else {
    const V kRound = hn::Set(d, 12582912.0f);  // 1.5 * 2^23: adding it rounds to an integer
    const V x_clamped = hn::Max(x, hn::Set(d, -104.0f));
    const V t = hn::MulAdd(x_clamped, hn::Set(d, 1.44269504088896341f), kRound);
    const V k = hn::Sub(t, kRound);
    V r = hn::MulAdd(k, hn::Set(d, -0.693145751953125f), x_clamped);  // ln2 split: exact product
    r = hn::MulAdd(k, hn::Set(d, -1.428606765330187045e-6f), r);
    V poly = hn::Set(d, 0x1.6c350ep-10f);
    poly = hn::MulAdd(poly, r, hn::Set(d, 0x1.1246eap-7f));
    poly = hn::MulAdd(poly, r, hn::Set(d, 0x1.555638p-5f));
    poly = hn::MulAdd(poly, r, hn::Set(d, 0x1.55547ep-3f));
    poly = hn::MulAdd(poly, r, hn::Set(d, 0x1.fffffep-2f));
    poly = hn::MulAdd(poly, r, hn::Set(d, 1.0f));
    const V exp_r = hn::MulAdd(poly, r, hn::Set(d, 1.0f));
#if HWY_TARGET <= HWY_AVX3
    return ScaleByPowerOfTwo(exp_r, k);
#else
    // bits(t) - bits(kRound) = k; the exponent field of 2^(k + 64) is k + 64 + 127.
    const hn::RebindToSigned<D> di;
    constexpr int32_t kRoundBits = 0x4B400000;  // bits of 1.5 * 2^23
    const auto biased = hn::Sub(hn::BitCast(di, t), hn::Set(di, kRoundBits - 64 - 127));
    const V scale_up = hn::BitCast(d, hn::ShiftLeft<23>(biased));
    return hn::Mul(hn::Mul(exp_r, scale_up), hn::Set(d, 0x1p-64f));
#endif
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace aclnn_cpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_CPU_SIMD_EXP_INL_H_
