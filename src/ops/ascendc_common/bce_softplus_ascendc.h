// log1p(u) for u in [0, 1] and softplus from one exp, on the vector unit of Atlas A2: shared by
// the BCE kernels (the forward loss, the gradient of the target). A2 has Ln but no log1p, and
// Ln(1 + u) loses u's digits where 1 + u rounds; these use only Adds, Muls, Add, Sub, Mul, Div
// (and Abs, Exp, Maxs, Mins for the softplus). Plain kernel code (AscendC build or CPU twin).
//
// Contract (fp32 tensors in UB, count elements, the temporaries count floats each, distinct
// from the inputs and the result unless said otherwise):
//   Log1pUnit(dst, u, tmp0, tmp1, count): dst = log1p(u) for u in [0, 1]; dst must not be u.
//     Max error 1.292 ULP against the exact log1p (at u = 0x1.4b12e4p-1), measured over every
//     float of (0, 1] on the twin (correctly rounded Div, IEEE fp32 Add/Mul):
//     test_bce_softplus_ascendc.cpp with BCE_ASCENDC_FULL_SWEEP=1; its quick part walks every
//     251st float and asserts <= 1.3.
//     +0 gives +0, 1 gives ln 2 within the same bound, NaN gives NaN. Outside [0, 1]: not
//     specified.
//   SoftplusTail(dst, x, u, tmp0, tmp1, count): dst = log1p(exp(-|x|)) (u receives exp(-|x|));
//     dst may be x. softplus(x) = max(x, 0) + tail, softplus(-x) = max(-x, 0) + tail, and both
//     sums are of non-negative terms (no cancellation): Softplus and SoftplusOfNegative. The
//     tail's error: Exp's (0.5 ULP on the twin) passes through log1p's slope u / (1 + u) <= 1,
//     plus Log1pUnit's: measured 1.861 ULP on the twin over x in [-20, 20] (every 17th float;
//     both softplus 1.78 ULP over [-100, 100], every 1021st), asserted <= 2.
//   A2's own Exp and Div are not documented to the bit (the twin rounds them correctly): an
//   error of k ULP in Div adds at most 0.31 k ULP here (Note [log1p without Ln]).
//
// Note [log1p without Ln]
// With S = 2s, s = u / (2 + u) (log1p(u) = 2 atanh(s)), and Z = S^2:
//   log1p(u) = S + S Z P(Z),  P(Z) = sum_k>=1 Z^(k-1) / (4^k (2k + 1)),  Z in [0, 4/9],
// P the library's degree-4 minimax fit (src/simd/log1p-inl.h: 3.0e-8 relative with float
// coefficients). Since u - S = u S / 2, the same value is
//   log1p(u) = u - S (u / 2 - Z P(Z)),
// which takes u exactly and computes only the correction S (u / 2 - Z P), at most 31% of the
// result (1 - ln 2 at u = 1), from S. Without a fused multiply-add the division's rounding cannot
// be recovered (the library's FMA form carries it); in this form it costs a third of an ULP
// instead of a whole one. Measured over every float of (0, 1] with IEEE fp32 operations: 1.29
// ULP; the form S + S Z P: 1.97 ULP; Ln(1 + u) u / ((1 + u) - 1) with a correctly rounded Ln and
// a select where 1 + u rounds to 1: 2.45 ULP (and it needs Compare/Select, whose count form
// works on whole 256-byte repeats, and Ln's accuracy near 1, which A2 does not document).
// 17 vector instructions, one of them a Div.
#ifndef ACLNN_BCE_SOFTPLUS_ASCENDC_H
#define ACLNN_BCE_SOFTPLUS_ASCENDC_H

#include <cstdint>

#include "kernel_operator.h"

namespace bce_ascendc {

using namespace AscendC;

/// dst = log1p(u) for u in [0, 1] (Note [log1p without Ln]). tmp0 and tmp1: count floats each.
__aicore__ inline void Log1pUnit(const LocalTensor<float>& dst, const LocalTensor<float>& u,
                                 const LocalTensor<float>& tmp0, const LocalTensor<float>& tmp1, uint32_t count)
{
    // P(Z), Horner, highest degree first: the library's coefficients (src/simd/log1p-inl.h).
    constexpr float P4 = 0x1.dbd2c0p-14f, P3 = 0x1.bc8244p-12f, P2 = 0x1.24c986p-9f, P1 = 0x1.9998d2p-7f;
    constexpr float P0 = 0x1.555556p-4f;  // 1/12
    const LocalTensor<float>& s = tmp0;
    const LocalTensor<float>& z = tmp1;
    Adds(s, u, 2.0f, count);  // 2 + u
    Add(z, u, u, count);      // 2u, exact
    Div(s, z, s, count);      // S
    Mul(z, s, s, count);      // Z
    Muls(dst, z, P4, count);
    Adds(dst, dst, P3, count);
    Mul(dst, dst, z, count);
    Adds(dst, dst, P2, count);
    Mul(dst, dst, z, count);
    Adds(dst, dst, P1, count);
    Mul(dst, dst, z, count);
    Adds(dst, dst, P0, count);
    Mul(dst, dst, z, count);  // Z P
    Muls(z, u, 0.5f, count);  // u / 2, exact
    Sub(z, z, dst, count);    // u / 2 - Z P
    Mul(z, s, z, count);      // the correction
    Sub(dst, u, z, count);
}

/// dst = log1p(exp(-|x|)); u receives exp(-|x|). dst may be x.
__aicore__ inline void SoftplusTail(const LocalTensor<float>& dst, const LocalTensor<float>& x,
                                    const LocalTensor<float>& u, const LocalTensor<float>& tmp0,
                                    const LocalTensor<float>& tmp1, uint32_t count)
{
    Abs(u, x, count);
    Muls(u, u, -1.0f, count);
    Exp(u, u, count);
    Log1pUnit(dst, u, tmp0, tmp1, count);
}

/// dst = softplus(x) = max(x, 0) + tail, tail = SoftplusTail(x). dst may be x, not tail.
__aicore__ inline void Softplus(const LocalTensor<float>& dst, const LocalTensor<float>& x,
                                const LocalTensor<float>& tail, uint32_t count)
{
    Maxs(dst, x, 0.0f, count);
    Add(dst, dst, tail, count);
}

/// dst = softplus(-x) = max(-x, 0) + tail = tail - min(x, 0), tail = SoftplusTail(x). dst may be
/// x, not tail.
__aicore__ inline void SoftplusOfNegative(const LocalTensor<float>& dst, const LocalTensor<float>& x,
                                          const LocalTensor<float>& tail, uint32_t count)
{
    Mins(dst, x, 0.0f, count);
    Sub(dst, tail, dst, count);
}

}  // namespace bce_ascendc

#endif  // ACLNN_BCE_SOFTPLUS_ASCENDC_H
