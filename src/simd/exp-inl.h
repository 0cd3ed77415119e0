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

// ---------------------------------------------------------------------------------------------
// Note [Interleaved vectors]
// The loss's chain per vector (exp, log1p with its division, the products) is over a hundred
// cycles of latency, and the core's schedulers hold only a few vectors' worth of its operations:
// written one vector after the other, the kernel waits on latency with its pipes half idle. GCC
// does not reorder instructions before register allocation on x86, so the order of the source is
// the order the core sees. The *N functions therefore take K independent vectors and apply each
// step to all K before the next, which keeps K chains in flight. Faster up to K = 4 on AVX3,
// AVX2 and SSSE3, slower at K = 6, where the registers spill (docs/perf.md). Every
// vector goes through the same operations whatever K is: the same bits.
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// Note [Staged passes]
// Interleaving K vectors is not enough for the loss: exp and then log1p on the same vector make
// one chain of about 90 cycles, and the core cannot start the next group's exp before the
// current group's log1p has left its window. Chained in one loop, exp and log1p took well over
// the sum of their times alone, and much less as two loops over a 256-element buffer
// (docs/perf.md). So the kernels run a small block of groups in passes: x (converted to the
// compute type) and e = exp(-|x|) into L1 buffers on the stack, then log1p of those (the loss,
// the target's gradient with pos_weight; SoftplusTailN, which on AVX-512 takes the tail from x by
// a table instead and needs no staging, src/simd/softplus_tail-inl.h), then the rest, one chunk
// at a time, whose operands then fit in the registers (four vectors at a time spilled). Every pass
// is a loop of independent iterations that the core overlaps. Each value goes through the same
// operations as in the unstaged group (used for the chunks left over after the last block), so
// the same bits. Every kernel got faster in L1 (docs/perf.md). From memory the block's size
// matters: two groups (kStagedBlockGroups, src/simd/staged-inl.h); eight made the fused kernel
// much slower there.
// ---------------------------------------------------------------------------------------------

/// How many vectors the kernels interleave (Note [Interleaved vectors]); 4 was best on every
/// target measured.
constexpr size_t kInterleave = 4;

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
// smallest subnormal); -inf gives +0. A NaN x gives x's NaN, quieted, on every target (float64
// too), so that a caller's result is NaN without a select of its own (Note [NaN through exp]).
// Float64 lanes use Highway's Exp (1 ULP on [-DBL_MAX, +706]).
//
// Note [NaN through exp]
// The gradient's kernels took a NaN x through a compare and a select per vector, because exp's
// lower clamp (max(x, -104)) turned a NaN into -104 and e into a finite number. The clamp keeps
// the NaN instead (ClampBelow), and every later step of exp and of the gradient passes it on, so
// the select is gone, and the bf16 backward faster (docs/perf.md). A NaN x's gradient is
// now the NaN of -|x| (the kernels pass exp -|x|), the same from the backward and the fused call.
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
//
// ExpNonPositiveN computes K independent vectors at once (see Note [Interleaved vectors]);
// ExpNonPositive is K = 1. Each vector goes through the same operations, so K changes no bit.
// ---------------------------------------------------------------------------------------------
// max(x, low) for a NaN-free low, and x itself for a NaN x. x86's MAXPS returns its second
// operand when either is NaN (and GCC keeps the operands' order without -ffast-math); Highway's
// emulated Max returns the number instead, so other targets compare and select.
template <class V>
HWY_INLINE V ClampBelow(V x, V low) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
  return hn::Max(low, x);
#else
  return hn::IfThenElse(hn::Lt(x, low), low, x);
#endif
}

template <size_t K, class D, class V = hn::Vec<D>>
HWY_INLINE void ExpNonPositiveN(D d, const V* x, V* result) {
  if constexpr (sizeof(hn::TFromD<D>) == 8) {
    // Highway's Exp does not keep a NaN (the contract above does).
    for (size_t k = 0; k < K; ++k) result[k] = hn::IfThenElse(hn::IsNaN(x[k]), x[k], hn::Exp(d, x[k]));
  } else {
    const V kRound = hn::Set(d, 12582912.0f);  // 1.5 * 2^23: adding it rounds to an integer
    V x_clamped[K], t[K], n[K], r[K], poly[K];
    for (size_t k = 0; k < K; ++k) x_clamped[k] = ClampBelow(x[k], hn::Set(d, -104.0f));
    for (size_t k = 0; k < K; ++k) t[k] = hn::MulAdd(x_clamped[k], hn::Set(d, 1.44269504088896341f), kRound);
    for (size_t k = 0; k < K; ++k) n[k] = hn::Sub(t[k], kRound);
    // ln2 in two parts: n * the first is exact.
    for (size_t k = 0; k < K; ++k) r[k] = hn::MulAdd(n[k], hn::Set(d, -0.693145751953125f), x_clamped[k]);
    for (size_t k = 0; k < K; ++k) r[k] = hn::MulAdd(n[k], hn::Set(d, -1.428606765330187045e-6f), r[k]);
    for (size_t k = 0; k < K; ++k) poly[k] = hn::MulAdd(hn::Set(d, 0x1.6c350ep-10f), r[k], hn::Set(d, 0x1.1246eap-7f));
    for (size_t k = 0; k < K; ++k) poly[k] = hn::MulAdd(poly[k], r[k], hn::Set(d, 0x1.555638p-5f));
    for (size_t k = 0; k < K; ++k) poly[k] = hn::MulAdd(poly[k], r[k], hn::Set(d, 0x1.55547ep-3f));
    for (size_t k = 0; k < K; ++k) poly[k] = hn::MulAdd(poly[k], r[k], hn::Set(d, 0x1.fffffep-2f));
    for (size_t k = 0; k < K; ++k) poly[k] = hn::MulAdd(poly[k], r[k], hn::Set(d, 1.0f));
    for (size_t k = 0; k < K; ++k) poly[k] = hn::MulAdd(poly[k], r[k], hn::Set(d, 1.0f));  // e^r
#if HWY_TARGET <= HWY_AVX3
    for (size_t k = 0; k < K; ++k) result[k] = ScaleByPowerOfTwo(poly[k], n[k]);
#else
    // bits(t) - bits(kRound) = n; the exponent field of 2^(n + 64) is n + 64 + 127.
    const hn::RebindToSigned<D> di;
    constexpr int32_t kRoundBits = 0x4B400000;  // bits of 1.5 * 2^23
    for (size_t k = 0; k < K; ++k) {
      const auto biased = hn::Sub(hn::BitCast(di, t[k]), hn::Set(di, kRoundBits - 64 - 127));
      const V scale_up = hn::BitCast(d, hn::ShiftLeft<23>(biased));
      result[k] = hn::Mul(hn::Mul(poly[k], scale_up), hn::Set(d, 0x1p-64f));
    }
#endif
  }
}

template <class D, class V = hn::Vec<D>>
HWY_INLINE V ExpNonPositive(D d, V x) {
  V result;
  ExpNonPositiveN<1>(d, &x, &result);
  return result;
}

}  // namespace HWY_NAMESPACE
}  // namespace aclnn_cpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_CPU_SIMD_EXP_INL_H_
