// Per-SIMD-target code of the BinaryCrossEntropy kernel: its vector math for the shared loop.
// Compiled once per instruction set and part, in the part file aclnn_add_op writes (Note [One
// target per translation unit]), which includes it once.
#pragma once

#include <limits>

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "opdev/elementwise_loop-inl.h"
#include "ops/binary_cross_entropy/op_kernel/binary_cross_entropy.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu::bce_prob::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Note [Probability loss]
// Per lane, in the compute type (fp32; fp64 for fp64 storage):
//   loss = (y * min(-log(x), 100) + (1 - y) * min(-log1p(-x), 100)) [* w]
// which is PyTorch's -(y max(log x, -100) + (1 - y) max(log(1 - x), -100)) w with the signs moved
// inside (negation is exact). For x and y in [0, 1] both terms are >= 0: nothing cancels. The
// logs are Highway's (hwy/contrib/math): measured over every float of (0, 1], Log within 0.95 ULP
// and Log1p(-x) within 2.06 ULP on AVX3 and SSSE3, so a hand-written log would buy little. Their
// poles are finite there (Log(0) -105.4, Log1p(-1) -88.0), so x = 0 and x = 1 take the clamp
// explicitly. x outside [0, 1], or NaN, gives NaN (the header's contract).
template <bool HAS_WEIGHT, bool TO_COMPUTE>
struct LossMath {
  static constexpr int kInputOperands[] = {kSelf, kTarget, kWeight};
  static constexpr int kOutputOperands[] = {kOut};  // in the compute type TO_COMPUTE (mean and sum)
  static constexpr bool Reads(size_t j) { return j != kWeight || HAS_WEIGHT; }
  static constexpr bool ComputeOutput(size_t) { return TO_COMPUTE; }

  template <size_t K, class D, class V>
  HWY_INLINE void Vectors(D d, const V (&in)[3][K], V (&out)[1][K]) const {
    const V zero = hn::Zero(d), one = hn::Set(d, 1), clamp = hn::Set(d, 100);
    const V nan = hn::Set(d, std::numeric_limits<hn::TFromD<D>>::quiet_NaN());
    for (size_t k = 0; k < K; ++k) {
      const V x = in[kSelf][k], y = in[kTarget][k];
      const V neg_log_x = hn::IfThenElse(hn::Eq(x, zero), clamp, hn::Min(hn::Neg(hn::Log(d, x)), clamp));
      const V neg_log_1mx =
          hn::IfThenElse(hn::Eq(x, one), clamp, hn::Min(hn::Neg(hn::Log1p(d, hn::Neg(x))), clamp));
      V loss = hn::Add(hn::Mul(y, neg_log_x), hn::Mul(hn::Sub(one, y), neg_log_1mx));
      if constexpr (HAS_WEIGHT) loss = hn::Mul(loss, in[kWeight][k]);
      out[0][k] = hn::IfThenElse(hn::And(hn::Ge(x, zero), hn::Le(x, one)), loss, nan);
    }
  }
};

/// Fills @p table's variants of kernel part kPart's element type: every (weight, TO_COMPUTE), the
/// features of the table's key (KernelTable, in the .h).
template <size_t kPart>
bool FillKernelPart(KernelTable& table) {
  return ::aclnn_cpu::HWY_NAMESPACE::FillElementwiseVariants<kPart, LossMath>(table);
}

}  // namespace aclnn_cpu::bce_prob::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
