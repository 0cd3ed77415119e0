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

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "op_kernel/sigmoid_cross_entropy_with_logits_grad_v2-inl.h"  // GradientFromExp, for the fused call
#include "op_kernel/sigmoid_cross_entropy_with_logits_v2.h"
#include "simd/convert-inl.h"
#include "simd/exp-inl.h"
#include "simd/log1p-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu {
namespace bce_loss {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using ::aclnn_cpu::bce_grad::HWY_NAMESPACE::GradientFromExp;
using ::aclnn_cpu::HWY_NAMESPACE::ExpNonPositive;
using ::aclnn_cpu::HWY_NAMESPACE::Log1pUnit;
using ::aclnn_cpu::HWY_NAMESPACE::SoftplusPairFromExp;
using ::aclnn_cpu::HWY_NAMESPACE::StorageChunk;

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

// LossFromExp is LossFromSoftplus from e = ExpNonPositive(-|x|), in the same bits, with fewer
// operations where nothing is exceptional. The plain products and sum (no selects, and exp's
// result for a NaN x not put back) differ from LossFromSoftplus only in lanes where the plain loss
// or loss + x is NaN: a zero factor times an infinite softplus, a NaN operand, or an infinite
// logit against an infinite loss of the other sign. Only those lanes take LossFromSoftplus's
// value, so a lane's result never depends on its neighbours. Elsewhere the two agree except in
// the sign of a zero loss (a zero factor's term is +-0 here, +0 there), which both accept.
template <bool HAS_WEIGHT, bool HAS_POS_WEIGHT, class D, class V = hn::Vec<D>>
HWY_INLINE V LossFromExp(D d, V x, V y, V weight, V pos_weight, V e) {
  const V zero = hn::Zero(d);
  const V tail = Log1pUnit(d, e);
  const V softplus_x = hn::Add(hn::Max(x, zero), tail);
  const V softplus_neg_x = hn::Add(hn::Max(hn::Neg(x), zero), tail);
  const V lw = HAS_POS_WEIGHT ? hn::Mul(pos_weight, y) : y;
  V loss = hn::Add(hn::Mul(lw, softplus_neg_x), hn::Mul(hn::Sub(hn::Set(d, 1), y), softplus_x));
  if constexpr (HAS_WEIGHT) loss = hn::Mul(loss, weight);
  const auto exceptional = hn::IsNaN(hn::Add(loss, x));
  if (HWY_LIKELY(hn::AllFalse(d, exceptional))) return loss;
  V checked_softplus_x, checked_softplus_neg_x;
  SoftplusPairFromExp(d, x, e, checked_softplus_x, checked_softplus_neg_x);
  return hn::IfThenElse(exceptional,
                        LossFromSoftplus<HAS_WEIGHT, HAS_POS_WEIGHT>(d, x, y, weight, pos_weight, checked_softplus_x,
                                                                     checked_softplus_neg_x),
                        loss);
}

template <bool HAS_WEIGHT, bool HAS_POS_WEIGHT, class D, class V = hn::Vec<D>>
HWY_INLINE V LossVector(D d, V x, V y, V weight, V pos_weight) {
  const V e = ExpNonPositive(d, hn::Or(x, hn::SignBit(d)));  // exp(-|x|)
  return LossFromExp<HAS_WEIGHT, HAS_POS_WEIGHT>(d, x, y, weight, pos_weight, e);
}

// The fused loss and gradient of one vector: one exp(-|x|) feeds both the two softplus of the
// loss (SoftplusPairFromExp) and the backward's gradient (GradientFromExp), so the loss is
// bitwise LossVector's and the gradient bitwise the backward's GradientVector's.
template <bool HAS_WEIGHT, bool HAS_POS_WEIGHT, class D, class V = hn::Vec<D>>
HWY_INLINE void LossAndGradientVector(D d, V x, V y, V weight, V pos_weight, V dout, V scale, V& loss, V& gradient) {
  const V e = ExpNonPositive(d, hn::Or(x, hn::SignBit(d)));  // exp(-|x|)
  loss = LossFromExp<HAS_WEIGHT, HAS_POS_WEIGHT>(d, x, y, weight, pos_weight, e);
  gradient = GradientFromExp<HAS_WEIGHT, HAS_POS_WEIGHT>(d, x, e, y, dout, weight, pos_weight, scale);
}

/// LossKernel<T, HAS_WEIGHT, HAS_POS_WEIGHT, TO_COMPUTE, WITH_GRADIENT>: the Compute stage on one
/// tile. T is the storage type (float, double, hwy::float16_t, hwy::bfloat16_t); it computes in
/// float (double for T = double) and writes the loss as T, or as the compute type when TO_COMPUTE
/// (the sums, in element order); WITH_GRADIENT writes the gradient too (as T). It loads and stores
/// in StorageChunks. A partial last chunk is copied into a full one and run through the same code,
/// so every element goes through identical instructions wherever it sits.
template <class T, bool HAS_WEIGHT, bool HAS_POS_WEIGHT, bool TO_COMPUTE, bool WITH_GRADIENT>
struct LossKernel {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  using Out = std::conditional_t<TO_COMPUTE, C, T>;
  static constexpr size_t kInputs = 4;  // predict, target, weight, pos_weight

  static void Compute(const LossTileOperands& io, size_t count) {
    const hn::ScalableTag<C> d;
    using V = hn::Vec<decltype(d)>;
    using ChunkIo = StorageChunk<T, decltype(d)>;
    constexpr size_t kVectors = ChunkIo::kVectors;
    constexpr size_t kMaxChunk = HWY_MAX_BYTES / sizeof(C) * kVectors;
    const size_t chunk = hn::Lanes(d) * kVectors;
    // No HWY_RESTRICT: an output may be the very same view as an input (in place); each chunk
    // is loaded before it is stored.
    const T* x = static_cast<const T*>(io.predict);
    const T* y = static_cast<const T*>(io.target);
    const T* w = static_cast<const T*>(io.weight);
    const T* pw = static_cast<const T*>(io.pos_weight);
    Out* out = static_cast<Out*>(io.loss);
    T* g = static_cast<T*>(io.gradient);
    V dout[kVectors];
    for (size_t v = 0; v < kVectors; ++v) dout[v] = hn::Set(d, 1);
    if constexpr (WITH_GRADIENT) {
      if (io.dout != nullptr) {  // through the storage load, as the backward's uniform dout
        HWY_ALIGN T filled[kMaxChunk];
        for (size_t k = 0; k < chunk; ++k) filled[k] = static_cast<const T*>(io.dout)[0];
        ChunkIo::Load(d, filled, dout);
      }
    }
    const V scale = hn::Set(d, static_cast<C>(io.scale));
    // Forced inline, as in the backward's kernel (out of line, the chunk goes through memory).
    const auto one = [&](const T* cx, const T* cy, const T* cw, const T* cpw, Out* co, T* cg, auto stream_tag)
                         __attribute__((always_inline)) HWY_ATTR {
      constexpr bool kStream = decltype(stream_tag)::value;
      V vx[kVectors], vy[kVectors], vw[kVectors], vpw[kVectors], loss[kVectors], gradient[kVectors];
      for (size_t v = 0; v < kVectors; ++v) vw[v] = vpw[v] = hn::Zero(d);
      if constexpr (HAS_WEIGHT) ChunkIo::Load(d, cw, vw);
      if constexpr (HAS_POS_WEIGHT) ChunkIo::Load(d, cpw, vpw);
      ChunkIo::Load(d, cx, vx);
      ChunkIo::Load(d, cy, vy);
      for (size_t v = 0; v < kVectors; ++v) {
        if constexpr (WITH_GRADIENT) {
          LossAndGradientVector<HAS_WEIGHT, HAS_POS_WEIGHT>(d, vx[v], vy[v], vw[v], vpw[v], dout[v], scale, loss[v],
                                                            gradient[v]);
        } else {
          loss[v] = LossVector<HAS_WEIGHT, HAS_POS_WEIGHT>(d, vx[v], vy[v], vw[v], vpw[v]);
        }
      }
      if constexpr (WITH_GRADIENT) ChunkIo::template Store<kStream>(d, gradient, cg);
      if constexpr (TO_COMPUTE) {
        ChunkIo::StoreCompute(d, loss, co);
      } else {
        ChunkIo::template Store<kStream>(d, loss, co);
      }
    };
    const auto at = [&](size_t i, auto stream_tag) __attribute__((always_inline)) HWY_ATTR {
      one(x + i, y + i, HAS_WEIGHT ? w + i : nullptr, HAS_POS_WEIGHT ? pw + i : nullptr, out + i,
          WITH_GRADIENT ? g + i : nullptr, stream_tag);
    };
    // Four independent vectors per iteration hide the latency of the long per-vector chain (exp,
    // log1p, the divisions); each vector still runs exactly the same instructions.
    constexpr size_t kChunksPerIteration = 4 / kVectors;
    const auto main_loop = [&](auto stream_tag) HWY_ATTR {
      size_t k = 0;
      for (; k + kChunksPerIteration * chunk <= count; k += kChunksPerIteration * chunk) {
        for (size_t c = 0; c < kChunksPerIteration; ++c) at(k + c * chunk, stream_tag);
      }
      for (; k + chunk <= count; k += chunk) at(k, stream_tag);
      return k;
    };
    // Streaming needs every streamed output chunk-aligned (a tile's outputs advance together).
    const auto aligned = [&](const void* p) {
      return p == nullptr || reinterpret_cast<uintptr_t>(p) % (chunk * sizeof(T)) == 0;
    };
    size_t i;
    if (ChunkIo::kCanStreamChunk && io.stream_outputs && aligned(g) && (TO_COMPUTE || aligned(out))) {
      i = main_loop(std::true_type{});
      hwy::FlushStream();
    } else {
      i = main_loop(std::false_type{});
    }
    if (i == count) return;
    // Tail: pad to a full chunk with copies of element i.
    HWY_ALIGN T buf[kInputs][kMaxChunk];
    HWY_ALIGN Out out_buf[kMaxChunk];
    HWY_ALIGN T gradient_buf[kMaxChunk];
    const size_t rest = count - i;
    const T* sources[kInputs] = {x, y, HAS_WEIGHT ? w : nullptr, HAS_POS_WEIGHT ? pw : nullptr};
    for (size_t o = 0; o < kInputs; ++o) {
      if (sources[o] == nullptr) continue;
      std::memcpy(buf[o], sources[o] + i, rest * sizeof(T));
      for (size_t k = rest; k < chunk; ++k) buf[o][k] = sources[o][i];
    }
    one(buf[kPredict], buf[kTarget], buf[kWeight], buf[kPosWeight], out_buf, gradient_buf, std::false_type{});
    std::memcpy(out + i, out_buf, rest * sizeof(Out));
    if constexpr (WITH_GRADIENT) std::memcpy(g + i, gradient_buf, rest * sizeof(T));
  }
};

// SumChunkFloat: the fp64 sum of n fp32 losses (a chunk) in the one order every target keeps:
// sixteen accumulators, the k-th adding the elements i = k (mod 16) in increasing i, joined by a
// fixed tree ((k, k + 8), then (k, k + 4), ...). Each target holds the sixteen in 16 / Lanes
// vectors of doubles (lane l of vector b is accumulator b * Lanes + l), so every target gives the
// same bits, and the adds are independent chains: about 0.1 cycle per element on AVX3 where one
// scalar chain per accumulator took a cycle. Each fp32 loss is exact in fp64.
inline ChunkSum SumChunkFloat(const float* losses, size_t n) {
  constexpr size_t kAccumulators = 16;
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  using VD = hn::Vec<decltype(dd)>;
  const size_t lanes = hn::Lanes(dd);  // 1, 2, 4 or 8 on x86: it divides 16
  const size_t blocks = kAccumulators / lanes;
  VD acc[kAccumulators];
  for (size_t b = 0; b < blocks; ++b) acc[b] = hn::Zero(dd);
  size_t i = 0;
  for (; i + kAccumulators <= n; i += kAccumulators) {
    for (size_t b = 0; b < blocks; ++b) {
      acc[b] = hn::Add(acc[b], hn::PromoteTo(dd, hn::LoadU(df, losses + i + b * lanes)));
    }
  }
  HWY_ALIGN double sums[kAccumulators];
  for (size_t b = 0; b < blocks; ++b) hn::StoreU(acc[b], dd, sums + b * lanes);
  for (; i < n; ++i) sums[i % kAccumulators] += static_cast<double>(losses[i]);
  for (size_t width = kAccumulators / 2; width >= 1; width /= 2) {
    for (size_t k = 0; k < width; ++k) sums[k] += sums[k + width];
  }
  return ChunkSum{sums[0], 0};
}

template <class T, bool WITH_GRADIENT>
constexpr void FillLossKernelsOf(LossTileFn* table, KernelDType dtype) {
  const auto put = [&]<bool W, bool PW, bool TO_COMPUTE>() {
    table[MakeLossKernelKey(dtype, W, PW, TO_COMPUTE, WITH_GRADIENT)] =
        &LossKernel<T, W, PW, TO_COMPUTE, WITH_GRADIENT>::Compute;
  };
  put.template operator()<false, false, false>();
  put.template operator()<false, true, false>();
  put.template operator()<true, false, false>();
  put.template operator()<true, true, false>();
  put.template operator()<false, false, true>();
  put.template operator()<false, true, true>();
  put.template operator()<true, false, true>();
  put.template operator()<true, true, true>();
}

template <class T>
constexpr void FillLossKernels(LossTileFn* table, KernelDType dtype) {
  FillLossKernelsOf<T, false>(table, dtype);
  FillLossKernelsOf<T, true>(table, dtype);
}

}  // namespace HWY_NAMESPACE
}  // namespace bce_loss
}  // namespace aclnn_cpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_BCE_LOSS_KERNEL_INL_H_
