// The softplus tail log1p(exp(-|x|)) on SIMD vectors, in one step where the target has the
// permutes for it. Per-SIMD-target code: include it from a file compiled through
// hwy/foreach_target.h.

// Per-target include guard (the Highway idiom).
#if defined(ACLNN_CPU_SIMD_SOFTPLUS_TAIL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_CPU_SIMD_SOFTPLUS_TAIL_INL_H_
#undef ACLNN_CPU_SIMD_SOFTPLUS_TAIL_INL_H_
#else
#define ACLNN_CPU_SIMD_SOFTPLUS_TAIL_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "simd/exp-inl.h"
#include "simd/log1p-inl.h"
#include "simd/softplus_tail_table.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ---------------------------------------------------------------------------------------------
// Note [Softplus tail by table]
// The loss needs tail = log1p(exp(-|x|)) per element (softplus(x) = max(x, 0) + tail), and so
// does the target's gradient with pos_weight. As exp (12 operations) and then log1p (16 and a
// division) it is about 30 vector operations, most of the loss's arithmetic; an Intel core with
// 512-bit vectors issues them on two ports (docs/perf.md), so there the loss was bound by its
// arithmetic well above the memory roofline (Speed III). On AVX-512 tail is instead one piecewise
// polynomial of a = |x|:
//   n = round(2a) mod 32 from the low bits of fma(a, 2, 1.5 * 2^23) (no conversion, no mask: the
//   permutes read the low five bits of the index alone), r = a - centre[n] (exact),
//   tail = P_n(r), P_n of degree 5 in Horner form, its six coefficients and the centre picked per
//   lane from 32-entry tables in registers (VPERMT2PS, one operation each),
// 15 operations for a < 15.75. Beyond (and for NaN), where exp(-a) < 1.5e-7 and tail = e - e^2/2
// to far below an ULP, the lanes take e = ExpNonPositive(-a) and fma(-e/2, e, e): a branch on
// four vectors' largest a (their unsigned bits' maximum), so vectors without such lanes pay three
// operations for the test. Logits beyond 15.75 are rare; a vector with one pays both ways
// (about the old cost).
// Accuracy: max 0.926 ULP against the correctly rounded tail over every float in [0, 15.75)
// (the fit alone 0.176; checked exhaustively once, and by tests/unit/simd/test_log1p.cpp over a
// stride on every target built), the exp side 1.01 ULP; the old exp + log1p measured 1.50 ULP.
// Other targets (and double lanes) keep exp and log1p: their bits are unchanged, and differ from
// AVX-512's by at most 2 ULP of tail (measured; the test prints the largest difference).
// The coefficients: tools/fit_softplus_tail.py (src/simd/softplus_tail_table.h).
// ---------------------------------------------------------------------------------------------

/// Whether the target computes float tails by the table (512-bit vectors with AVX-512's permutes).
template <class D>
inline constexpr bool kTailByTable =
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
    sizeof(hn::TFromD<D>) == 4 && sizeof(hn::Vec<D>) == 64;
#else
    false;
#endif

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
/// The table's 32 entries of one quantity as two registers (VPERMT2PS's two sources).
struct TailTablePair {
  __m512 low, high;
  static TailTablePair Of(const float* entries) { return {_mm512_load_ps(entries), _mm512_load_ps(entries + 16)}; }
  HWY_INLINE __m512 Pick(__m512i index) const { return _mm512_permutex2var_ps(low, index, high); }
};

/// tail by the table for K vectors of a = |x| (a >= 0; any value beyond the table gives a finite
/// garbage or NaN that FixRareTailsN replaces).
template <size_t K, class V>
HWY_INLINE void TailByTableN(const V* a, V* tail) {
  namespace table = ::aclnn_cpu::softplus_tail;
  const __m512 round = _mm512_set1_ps(12582912.0f);  // 1.5 * 2^23: adding it rounds to an integer
  const TailTablePair centre = TailTablePair::Of(table::kCenter);
  __m512i index[K];
  __m512 r[K], p[K];
  for (size_t k = 0; k < K; ++k) index[k] = _mm512_castps_si512(_mm512_fmadd_ps(a[k].raw, _mm512_set1_ps(2.0f), round));
  for (size_t k = 0; k < K; ++k) r[k] = _mm512_sub_ps(a[k].raw, centre.Pick(index[k]));
  const TailTablePair top = TailTablePair::Of(table::kCoefficient[table::kDegree]);
  for (size_t k = 0; k < K; ++k) p[k] = top.Pick(index[k]);
  for (int j = table::kDegree - 1; j >= 0; --j) {
    const TailTablePair coefficient = TailTablePair::Of(table::kCoefficient[j]);
    for (size_t k = 0; k < K; ++k) p[k] = _mm512_fmadd_ps(p[k], r[k], coefficient.Pick(index[k]));
  }
  for (size_t k = 0; k < K; ++k) tail[k] = V{p[k]};
}

/// tail of the lanes beyond the table: e - e^2/2 from e = exp(-a) (a NaN a gives a NaN).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V TailFromExpBeyondTable(D d, V a) {
  const V e = ExpNonPositive(d, hn::Neg(a));
  return hn::MulAdd(hn::Mul(e, hn::Set(d, -0.5f)), e, e);
}

/// Whether any of K vectors of a = |x| has a lane beyond the table (a >= kLimit, or NaN): the
/// unsigned maximum of their bits against the limit's.
template <size_t K, class V>
HWY_INLINE bool AnyBeyondTable(const V* a) {
  __m512i largest = _mm512_castps_si512(a[0].raw);
  for (size_t k = 1; k < K; ++k) largest = _mm512_max_epu32(largest, _mm512_castps_si512(a[k].raw));
  uint32_t limit_bits;
  std::memcpy(&limit_bits, &::aclnn_cpu::softplus_tail::kLimit, sizeof(limit_bits));
  return _mm512_cmpge_epu32_mask(largest, _mm512_set1_epi32(static_cast<int>(limit_bits))) != 0;
}

/// Replaces the tails of the lanes beyond the table in K vectors. Out of line: the check is on
/// every group, the replacement almost never, and inline its registers crowd the table's.
template <size_t K, class D, class V = hn::Vec<D>>
HWY_NOINLINE void FixRareTailsN(D d, const V* a, V* tail) {
  for (size_t k = 0; k < K; ++k) {
    const auto beyond = hn::Not(hn::Lt(a[k], hn::Set(d, ::aclnn_cpu::softplus_tail::kLimit)));
    if (!hn::AllFalse(d, beyond)) tail[k] = hn::IfThenElse(beyond, TailFromExpBeyondTable(d, a[k]), tail[k]);
  }
}
#endif  // AVX-512

/// SoftplusTailN: tail = log1p(exp(-|x|)) of K independent vectors (Note [Interleaved vectors]).
/// Float lanes on AVX-512: Note [Softplus tail by table]; elsewhere Log1pUnit(ExpNonPositive(-|x|)).
/// Each lane's result depends on its own x alone.
template <size_t K, class D, class V = hn::Vec<D>>
HWY_INLINE void SoftplusTailN(D d, const V* x, V* tail) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  if constexpr (kTailByTable<D>) {
    V a[K];
    for (size_t k = 0; k < K; ++k) a[k] = hn::Abs(x[k]);
    TailByTableN<K>(a, tail);
    if (HWY_UNLIKELY(AnyBeyondTable<K>(a))) FixRareTailsN<K>(d, a, tail);
    return;
  }
#endif
  V minus_abs_x[K], e[K];
  for (size_t k = 0; k < K; ++k) minus_abs_x[k] = hn::Or(x[k], hn::SignBit(d));
  ExpNonPositiveN<K>(d, minus_abs_x, e);
  Log1pUnitN<K>(d, e, tail);
}

/// SoftplusTailFromExpN: the same bits as SoftplusTailN from x and e = ExpNonPositive(-|x|),
/// which a caller that needs e anyway (the fused loss and gradient) has: by the table (e unused)
/// where the target has it, else log1p(e).
template <size_t K, class D, class V = hn::Vec<D>>
HWY_INLINE void SoftplusTailFromExpN(D d, const V* x, const V* e, V* tail) {
  if constexpr (kTailByTable<D>) {
    SoftplusTailN<K>(d, x, tail);
  } else {
    Log1pUnitN<K>(d, e, tail);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace aclnn_cpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_CPU_SIMD_SOFTPLUS_TAIL_INL_H_
