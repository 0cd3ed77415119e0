// Per-SIMD-target code of the loss kernel (SigmoidCrossEntropyWithLogitsV2), compiled once per
// instruction set through hwy/foreach_target.h.

// Per-target include guard (the Highway idiom).
#if defined(ACLNN_BCE_LOSS_KERNEL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_BCE_LOSS_KERNEL_INL_H_
#undef ACLNN_BCE_LOSS_KERNEL_INL_H_
#else
#define ACLNN_BCE_LOSS_KERNEL_INL_H_
#endif

#include "hwy/highway.h"
#include "simd/log1p-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu {
namespace bce_loss {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using ::aclnn_cpu::HWY_NAMESPACE::SoftplusPair;

// ---------------------------------------------------------------------------------------------
// Loss of one vector.
//
// Contract: for compute type C (fp32, or fp64 for fp64 storage), per lane:
//   loss = (lw * softplus(-x) + (1 - y) * softplus(x)) [* weight]
//   lw = pos_weight * y (y without pos_weight), both softplus from one exp(-|x|) (SoftplusPair)
// It equals the seed's (1 - y) x + ((pw - 1) y + 1) softplus(-x) in exact arithmetic, but both
// of its terms are >= 0 for labels in [0, 1] and weights >= 0, so nothing cancels: y = 0,
// x = -30 gives 9.4e-14, where the seed's form gives 0 in fp32. Within 4 ULP of the exact loss
// there (tests/ut/op_kernel/test_loss_vector.cpp) while the terms stay in the compute type's
// range (|x| * pw * w below its largest finite value); see Note [Loss error bound] for any inputs.
// A zero factor (lw or 1 - y) makes its term zero whatever the softplus, which is the limit:
// x = +inf with y = 1 gives 0, not NaN (PyTorch issue 102894). NaN x gives NaN. No FMA is
// contracted (-ffp-contract=off) and nothing depends on the lane, so a value's loss is the same
// wherever it sits.
// ---------------------------------------------------------------------------------------------
template <bool HAS_WEIGHT, bool HAS_POS_WEIGHT, class D, class V = hn::Vec<D>>
HWY_INLINE V LossVector(D d, V x, V y, V weight, V pos_weight) {
  const V zero = hn::Zero(d);
  V softplus_x, softplus_neg_x;
  SoftplusPair(d, x, softplus_x, softplus_neg_x);
  const V lw = HAS_POS_WEIGHT ? hn::Mul(pos_weight, y) : y;
  const V one_minus_y = hn::Sub(hn::Set(d, 1), y);
  const V pos = hn::IfThenZeroElse(hn::Eq(lw, zero), hn::Mul(lw, softplus_neg_x));
  const V neg = hn::IfThenZeroElse(hn::Eq(one_minus_y, zero), hn::Mul(one_minus_y, softplus_x));
  V loss = hn::Add(pos, neg);
  if constexpr (HAS_WEIGHT) loss = hn::Mul(loss, weight);
  return hn::IfThenElse(hn::IsNaN(x), x, loss);
}

}  // namespace HWY_NAMESPACE
}  // namespace bce_loss
}  // namespace aclnn_cpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_BCE_LOSS_KERNEL_INL_H_
