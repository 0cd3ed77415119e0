// Per-SIMD-target code of the loss kernel (SigmoidCrossEntropyWithLogitsV2), compiled once per
// instruction set through hwy/foreach_target.h.

// Per-target include guard (the Highway idiom).
#if defined(ACLNN_BCE_LOSS_KERNEL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_BCE_LOSS_KERNEL_INL_H_
#undef ACLNN_BCE_LOSS_KERNEL_INL_H_
#else
#define ACLNN_BCE_LOSS_KERNEL_INL_H_
#endif

#include <cstring>
#include <type_traits>

#include "hwy/highway.h"
#include "op_kernel/sigmoid_cross_entropy_with_logits_v2.h"
#include "simd/convert-inl.h"
#include "simd/log1p-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu {
namespace bce_loss {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using ::aclnn_cpu::HWY_NAMESPACE::LoadWide;
using ::aclnn_cpu::HWY_NAMESPACE::SoftplusPair;
using ::aclnn_cpu::HWY_NAMESPACE::StoreNarrow;

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

/// LossKernel<T, HAS_WEIGHT, HAS_POS_WEIGHT, TO_COMPUTE>: the Compute stage on one tile. T is the
/// storage type (float, double, hwy::float16_t, hwy::bfloat16_t); it computes in float (double
/// for T = double) and writes the loss as T, or as the compute type when TO_COMPUTE (the sums).
/// A partial last vector is copied into a full one and run through the same code, so every
/// element goes through identical instructions wherever it sits.
template <class T, bool HAS_WEIGHT, bool HAS_POS_WEIGHT, bool TO_COMPUTE>
struct LossKernel {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  using Out = std::conditional_t<TO_COMPUTE, C, T>;

  static void Compute(const LossTileOperands& io, size_t count) {
    const hn::ScalableTag<C> d;
    using V = hn::Vec<decltype(d)>;
    const size_t lanes = hn::Lanes(d);
    // No HWY_RESTRICT: the loss may be the very same view as an input (in place); each vector
    // is loaded before it is stored.
    const T* x = static_cast<const T*>(io.predict);
    const T* y = static_cast<const T*>(io.target);
    const T* w = static_cast<const T*>(io.weight);
    const T* pw = static_cast<const T*>(io.pos_weight);
    Out* out = static_cast<Out*>(io.loss);
    const auto one = [&](const T* cx, const T* cy, const T* cw, const T* cpw, Out* co)
                         __attribute__((always_inline)) HWY_ATTR {
      const V vw = HAS_WEIGHT ? LoadWide(d, cw) : hn::Zero(d);
      const V vpw = HAS_POS_WEIGHT ? LoadWide(d, cpw) : hn::Zero(d);
      const V loss = LossVector<HAS_WEIGHT, HAS_POS_WEIGHT>(d, LoadWide(d, cx), LoadWide(d, cy), vw, vpw);
      if constexpr (TO_COMPUTE) {
        hn::StoreU(loss, d, co);
      } else {
        StoreNarrow(d, loss, co);
      }
    };
    size_t i = 0;
    for (; i + lanes <= count; i += lanes) {
      one(x + i, y + i, HAS_WEIGHT ? w + i : nullptr, HAS_POS_WEIGHT ? pw + i : nullptr, out + i);
    }
    if (i == count) return;
    // Tail: pad to a full vector with copies of element i.
    constexpr size_t kMax = HWY_MAX_BYTES / sizeof(C);
    HWY_ALIGN T buf[kInputCount][kMax];
    HWY_ALIGN Out out_buf[kMax];
    const size_t rest = count - i;
    const T* sources[kInputCount] = {x, y, HAS_WEIGHT ? w : nullptr, HAS_POS_WEIGHT ? pw : nullptr};
    for (size_t o = 0; o < kInputCount; ++o) {
      if (sources[o] == nullptr) continue;
      std::memcpy(buf[o], sources[o] + i, rest * sizeof(T));
      for (size_t k = rest; k < lanes; ++k) buf[o][k] = sources[o][i];
    }
    one(buf[kPredict], buf[kTarget], buf[kWeight], buf[kPosWeight], out_buf);
    std::memcpy(out + i, out_buf, rest * sizeof(Out));
  }
};

template <class T>
constexpr void FillLossKernels(LossTileFn* table, KernelDType dtype) {
  table[MakeLossKernelKey(dtype, false, false, false)] = &LossKernel<T, false, false, false>::Compute;
  table[MakeLossKernelKey(dtype, false, true, false)] = &LossKernel<T, false, true, false>::Compute;
  table[MakeLossKernelKey(dtype, true, false, false)] = &LossKernel<T, true, false, false>::Compute;
  table[MakeLossKernelKey(dtype, true, true, false)] = &LossKernel<T, true, true, false>::Compute;
  table[MakeLossKernelKey(dtype, false, false, true)] = &LossKernel<T, false, false, true>::Compute;
  table[MakeLossKernelKey(dtype, false, true, true)] = &LossKernel<T, false, true, true>::Compute;
  table[MakeLossKernelKey(dtype, true, false, true)] = &LossKernel<T, true, false, true>::Compute;
  table[MakeLossKernelKey(dtype, true, true, true)] = &LossKernel<T, true, true, true>::Compute;
}

}  // namespace HWY_NAMESPACE
}  // namespace bce_loss
}  // namespace aclnn_cpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_BCE_LOSS_KERNEL_INL_H_
