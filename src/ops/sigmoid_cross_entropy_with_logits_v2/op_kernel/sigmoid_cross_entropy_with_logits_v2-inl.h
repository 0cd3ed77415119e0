// Per-SIMD-target code of the loss kernel (SigmoidCrossEntropyWithLogitsV2), compiled once per
// instruction set and part (Note [One target per translation unit]: the part file aclnn_add_op
// writes) and, for the tests, through hwy/foreach_target.h.

// Per-target include guard (the Highway idiom).
#if defined(ACLNN_BCE_LOSS_KERNEL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_BCE_LOSS_KERNEL_INL_H_
#undef ACLNN_BCE_LOSS_KERNEL_INL_H_
#else
#define ACLNN_BCE_LOSS_KERNEL_INL_H_
#endif

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "hwy/highway.h"
#include "opdev/elementwise_loop-inl.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_vector-inl.h"  // the fused call's gradient
#include "ops/sigmoid_cross_entropy_with_logits_v2/op_kernel/sigmoid_cross_entropy_with_logits_v2.h"
#include "simd/convert-inl.h"
#include "simd/exp-inl.h"
#include "simd/kernel_parts.h"
#include "simd/kernel_table-inl.h"
#include "simd/log1p-inl.h"
#include "simd/softplus_tail-inl.h"
#include "simd/chunk_sum-inl.h"
#include "simd/staged-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu {
namespace bce_loss {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using ::aclnn_cpu::bce_grad::HWY_NAMESPACE::GradientFromExpN;
using ::aclnn_cpu::bce_grad::HWY_NAMESPACE::GradientFromQuotientN;
using ::aclnn_cpu::bce_grad::HWY_NAMESPACE::SignQuotientsN;
using ::aclnn_cpu::HWY_NAMESPACE::ExpNonPositiveN;
using ::aclnn_cpu::HWY_NAMESPACE::FillVariantsOfPart;
using ::aclnn_cpu::HWY_NAMESPACE::SoftplusPairFromTail;
using ::aclnn_cpu::HWY_NAMESPACE::SoftplusTailFromExpN;
using ::aclnn_cpu::HWY_NAMESPACE::SoftplusTailN;
using ::aclnn_cpu::HWY_NAMESPACE::kTailByTable;
using ::aclnn_cpu::HWY_NAMESPACE::ElementwiseTile;
using ::aclnn_cpu::HWY_NAMESPACE::LoadUniformChunk;
using ::aclnn_cpu::HWY_NAMESPACE::StagedForm;
using ::aclnn_cpu::HWY_NAMESPACE::StorageChunk;
using ::aclnn_cpu::HWY_NAMESPACE::SumChunksFloat;

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
HWY_INLINE V LossFromSoftplus(D d, V x, V y, V weight, V pos_weight, V softplus_x, V softplus_neg_x) {
  const V zero = hn::Zero(d);
  const V lw = HAS_POS_WEIGHT ? hn::Mul(pos_weight, y) : y;
  const V one_minus_y = hn::Sub(hn::Set(d, 1), y);
  const V pos = hn::IfThenZeroElse(hn::Eq(lw, zero), hn::Mul(lw, softplus_neg_x));
  const V neg = hn::IfThenZeroElse(hn::Eq(one_minus_y, zero), hn::Mul(one_minus_y, softplus_x));
  V loss = hn::Add(pos, neg);
  if constexpr (HAS_WEIGHT) loss = hn::Mul(loss, weight);
  return hn::IfThenElse(hn::IsNaN(x), x, loss);
}

// LossFromTailN is LossFromSoftplus on K independent vectors (Note [Interleaved vectors]) from
// tail = SoftplusTailN(x) (log1p(exp(-|x|)), src/simd/softplus_tail-inl.h), in the same bits,
// with fewer operations where nothing is exceptional. The plain products and sum (no selects,
// and the tail's NaN for a NaN x not put back) differ from LossFromSoftplus only in lanes where
// the plain loss or loss + x is NaN: a zero
// factor times an infinite softplus, a NaN operand, or an infinite logit against an infinite loss
// of the other sign. Only those lanes take LossFromSoftplus's value, so a lane's result never
// depends on its neighbours. Elsewhere the two agree except in the sign of a zero loss (a zero
// factor's term is +-0 here, +0 there), which both accept.
template <size_t K, bool HAS_WEIGHT, bool HAS_POS_WEIGHT, class D, class V = hn::Vec<D>>
HWY_INLINE void LossFromTailN(D d, const V* x, const V* y, const V* weight, const V* pos_weight, const V* tail,
                              V* loss) {
  const V zero = hn::Zero(d);
  for (size_t k = 0; k < K; ++k) {
    const V softplus_x = hn::Add(hn::Max(x[k], zero), tail[k]);
    const V softplus_neg_x = hn::Add(hn::Max(hn::Neg(x[k]), zero), tail[k]);
    const V lw = HAS_POS_WEIGHT ? hn::Mul(pos_weight[k], y[k]) : y[k];
    loss[k] = hn::Add(hn::Mul(lw, softplus_neg_x), hn::Mul(hn::Sub(hn::Set(d, 1), y[k]), softplus_x));
    if constexpr (HAS_WEIGHT) loss[k] = hn::Mul(loss[k], weight[k]);
  }
  using Mask = decltype(hn::IsNaN(zero));
  Mask exceptional[K];
  for (size_t k = 0; k < K; ++k) exceptional[k] = hn::IsNaN(hn::Add(loss[k], x[k]));
  Mask any = exceptional[0];
  for (size_t k = 1; k < K; ++k) any = hn::Or(any, exceptional[k]);
  if (HWY_LIKELY(hn::AllFalse(d, any))) return;
  for (size_t k = 0; k < K; ++k) {
    V checked_softplus_x, checked_softplus_neg_x;
    SoftplusPairFromTail(d, x[k], tail[k], checked_softplus_x, checked_softplus_neg_x);
    loss[k] = hn::IfThenElse(exceptional[k],
                             LossFromSoftplus<HAS_WEIGHT, HAS_POS_WEIGHT>(d, x[k], y[k], weight[k], pos_weight[k],
                                                                          checked_softplus_x, checked_softplus_neg_x),
                             loss[k]);
  }
}

// LossVectorN: the loss of K independent vectors (LossVector is K = 1).
template <size_t K, bool HAS_WEIGHT, bool HAS_POS_WEIGHT, class D, class V = hn::Vec<D>>
HWY_INLINE void LossVectorN(D d, const V* x, const V* y, const V* weight, const V* pos_weight, V* loss) {
  V tail[K];
  SoftplusTailN<K>(d, x, tail);  // log1p(exp(-|x|))
  LossFromTailN<K, HAS_WEIGHT, HAS_POS_WEIGHT>(d, x, y, weight, pos_weight, tail, loss);
}

template <bool HAS_WEIGHT, bool HAS_POS_WEIGHT, class D, class V = hn::Vec<D>>
HWY_INLINE V LossVector(D d, V x, V y, V weight, V pos_weight) {
  V loss;
  LossVectorN<1, HAS_WEIGHT, HAS_POS_WEIGHT>(d, &x, &y, &weight, &pos_weight, &loss);
  return loss;
}

// The fused loss and gradient of K vectors from e = exp(-|x|) and tail = log1p(e): the loss
// bitwise LossFromTailN's and the gradient bitwise the backward's GradientFromExpN's, with fewer
// operations than the two side by side. The two share the sign split's terms, and the loss picks,
// per lane, the factor that multiplies e in the gradient's numerator (times_e: lw for x >= 0,
// 1 - y for x < 0) and the one that stands alone (alone: the other); the loss's two softplus are
// |x| + tail and tail, in the same split:
//   loss = alone * (|x| + tail) + times_e * tail
// which is LossFromTailN's lw * softplus(-x) + (1 - y) * softplus(x) term for term (max(x, 0) +
// tail is |x| + tail for x >= 0 and tail, bitwise, for x < 0, -0 included; the sum's two terms
// swap places, which changes no bit). Where the loss is exceptional (LossFromTailN's test, which
// every NaN x meets), both results are recomputed the checked way, so the gradient needs no NaN
// select of its own on the common path.
template <size_t K, bool HAS_WEIGHT, bool HAS_POS_WEIGHT, class D, class V = hn::Vec<D>>
HWY_INLINE void LossAndGradientFromTailN(D d, const V* x, const V* y, const V* weight, const V* pos_weight,
                                         const V* dout, V scale, const V* e, const V* tail, V* loss, V* gradient) {
  V num[K], den[K];
  SignQuotientsN<K, HAS_POS_WEIGHT>(d, x, y, pos_weight, e, num, den,
                                    [&](size_t k, auto negative, V one_minus_y, V lw) HWY_ATTR {
                                      const V times_e = hn::IfThenElse(negative, one_minus_y, lw);
                                      const V alone = hn::IfThenElse(negative, lw, one_minus_y);
                                      loss[k] = hn::Add(hn::Mul(alone, hn::Add(hn::Abs(x[k]), tail[k])),
                                                        hn::Mul(times_e, tail[k]));
                                      if constexpr (HAS_WEIGHT) loss[k] = hn::Mul(loss[k], weight[k]);
                                    });
  GradientFromQuotientN<K, HAS_WEIGHT, true, D>(num, den, dout, weight, scale, gradient);
  using Mask = decltype(hn::IsNaN(x[0]));
  Mask exceptional[K];
  for (size_t k = 0; k < K; ++k) exceptional[k] = hn::IsNaN(hn::Add(loss[k], x[k]));
  Mask any = exceptional[0];
  for (size_t k = 1; k < K; ++k) any = hn::Or(any, exceptional[k]);
  if (HWY_LIKELY(hn::AllFalse(d, any))) return;
  V checked_loss[K], checked_gradient[K];
  LossFromTailN<K, HAS_WEIGHT, HAS_POS_WEIGHT>(d, x, y, weight, pos_weight, tail, checked_loss);
  GradientFromExpN<K, HAS_WEIGHT, HAS_POS_WEIGHT>(d, x, e, y, dout, weight, pos_weight, scale, checked_gradient);
  for (size_t k = 0; k < K; ++k) {
    loss[k] = hn::IfThenElse(exceptional[k], checked_loss[k], loss[k]);
    gradient[k] = hn::IfThenElse(exceptional[k], checked_gradient[k], gradient[k]);
  }
}

// LossAndGradientVectorN: the same from x (the unstaged group).
template <size_t K, bool HAS_WEIGHT, bool HAS_POS_WEIGHT, class D, class V = hn::Vec<D>>
HWY_INLINE void LossAndGradientVectorN(D d, const V* x, const V* y, const V* weight, const V* pos_weight,
                                       const V* dout, V scale, V* loss, V* gradient) {
  V minus_abs_x[K], e[K], tail[K];
  for (size_t k = 0; k < K; ++k) minus_abs_x[k] = hn::Or(x[k], hn::SignBit(d));
  ExpNonPositiveN<K>(d, minus_abs_x, e);
  SoftplusTailFromExpN<K>(d, x, e, tail);
  LossAndGradientFromTailN<K, HAS_WEIGHT, HAS_POS_WEIGHT>(d, x, y, weight, pos_weight, dout, scale, e, tail, loss,
                                                          gradient);
}

/// LossOp: the vector functors of the loss (LossVectorN) and, WITH_GRADIENT, of the fused loss
/// and gradient (LossAndGradientVectorN) for the shared loop (ElementwiseTile,
/// src/opdev/elementwise_loop-inl.h). Inputs predict, target, weight, pos_weight (OperandIndex
/// order); outputs the loss (in the compute type when TO_COMPUTE: the sums' losses) and the
/// gradient. dout (one value, 1 when absent) and the gradient's scale are the same for every chunk.
template <class Storage, bool HAS_WEIGHT, bool HAS_POS_WEIGHT, bool TO_COMPUTE, bool WITH_GRADIENT>
struct LossOp {
  using T = Storage;
  using D = hn::ScalableTag<std::conditional_t<std::is_same_v<T, double>, double, float>>;
  using V = hn::Vec<D>;
  static constexpr size_t kVectors = StorageChunk<T, D>::kVectors;
  static constexpr int kInputOperands[] = {kPredict, kTarget, kWeight, kPosWeight};
  static constexpr int kOutputOperands[] = {kLoss, kGradient};  // the gradient WITH_GRADIENT only
  static constexpr size_t kInputs = std::size(kInputOperands);
  static constexpr size_t kOutputs = WITH_GRADIENT ? 2 : 1;
  static constexpr bool Reads(size_t j) {
    return j == kPredict || j == kTarget || (j == kWeight && HAS_WEIGHT) || (j == kPosWeight && HAS_POS_WEIGHT);
  }
  static constexpr bool ComputeOutput(size_t j) { return j == 0 && TO_COMPUTE; }
  /// Where the target takes the tail from x by the table (Note [Softplus tail by table]) the tail
  /// no longer waits on exp: no long chain is left to stage, and one loop of whole groups is
  /// faster (fp32 in L1, ns per 16 lanes: the loss 6.1 -> 5.3 against the staged x and tail, the
  /// fused call 10.0 -> 8.9 against the staged x, e and tail; docs/perf.md). Elsewhere both stage
  /// x and e, then the tail (log1p of e).
  static constexpr StagedForm kStaged = kTailByTable<D> ? StagedForm::kNone : StagedForm::kExpLog1p;

  V dout[kVectors];
  V scale;

  template <size_t K>
  HWY_INLINE void Vectors(D d, const V (&in)[kInputs][K], V (&out)[kOutputs][K]) const {
    if constexpr (WITH_GRADIENT) {
      V douts[K];  // K chunks' worth of the one value
      for (size_t k = 0; k < K; ++k) douts[k] = dout[k % kVectors];
      LossAndGradientVectorN<K, HAS_WEIGHT, HAS_POS_WEIGHT>(d, in[kPredict], in[kTarget], in[kWeight], in[kPosWeight],
                                                            douts, scale, out[0], out[1]);
    } else {
      LossVectorN<K, HAS_WEIGHT, HAS_POS_WEIGHT>(d, in[kPredict], in[kTarget], in[kWeight], in[kPosWeight], out[0]);
    }
  }

  template <size_t K>
  HWY_INLINE void Staged(D d, const V (&in)[kInputs][K], const V* e, const V* tail, V (&out)[kOutputs][K]) const {
    if constexpr (WITH_GRADIENT) {
      LossAndGradientFromTailN<K, HAS_WEIGHT, HAS_POS_WEIGHT>(d, in[kPredict], in[kTarget], in[kWeight],
                                                              in[kPosWeight], dout, scale, e, tail, out[0], out[1]);
    } else {
      LossFromTailN<K, HAS_WEIGHT, HAS_POS_WEIGHT>(d, in[kPredict], in[kTarget], in[kWeight], in[kPosWeight], tail,
                                                   out[0]);
    }
  }
};

/// LossKernel<T, HAS_WEIGHT, HAS_POS_WEIGHT, TO_COMPUTE, WITH_GRADIENT>: the Compute stage on one
/// tile, the shared loop over LossOp. T is the storage type (float, double, hwy::float16_t,
/// hwy::bfloat16_t); it computes in float (double for T = double) and writes the loss as T, or as
/// the compute type when TO_COMPUTE (the sums, in element order); WITH_GRADIENT writes the
/// gradient too (as T).
template <class T, bool HAS_WEIGHT, bool HAS_POS_WEIGHT, bool TO_COMPUTE, bool WITH_GRADIENT>
struct LossKernel {
  using Op = LossOp<T, HAS_WEIGHT, HAS_POS_WEIGHT, TO_COMPUTE, WITH_GRADIENT>;

  static void Compute(const TileArgs& args, size_t count) {
    const typename Op::D d;
    Op op;
    op.scale = hn::Set(d, static_cast<hn::TFromD<typename Op::D>>(args.scale));
    for (size_t v = 0; v < Op::kVectors; ++v) op.dout[v] = hn::Set(d, 1);
    // Through the storage load, as the backward's uniform dout.
    const T* dout = static_cast<const T*>(args.at[kDout]);
    if (WITH_GRADIENT && dout != nullptr) LoadUniformChunk(d, dout, op.dout);
    ElementwiseTile<Op>::Run(op, args, count);
  }
};

/// Fills @p table's variants of kernel part kPart's element type, without and with the gradient
/// (FillVariantsOfPart, Note [One target per translation unit]); the first part also the chunk
/// sum. Instantiated by the part file.
template <size_t kPart>
bool FillKernelPart(KernelTable& table) {
  if constexpr (kPart == 0) table.sum_chunk_float = &SumChunksFloat;
  return FillVariantsOfPart<kPart>(table, []<class T, bool WITH_GRADIENT, bool W, bool PW, bool TO_COMPUTE>() {
    return &LossKernel<T, W, PW, TO_COMPUTE, WITH_GRADIENT>::Compute;  // the key's features: MakeLossKernelKey
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace bce_loss
}  // namespace aclnn_cpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_BCE_LOSS_KERNEL_INL_H_
