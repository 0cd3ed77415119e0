// Per-SIMD-target code of the BinaryCrossEntropyGrad kernel: its vector math for the shared loop.
// Compiled once per instruction set and part, in the part file aclnn_add_op writes (Note [One
// target per translation unit]), which includes it once.
#pragma once

#include "hwy/highway.h"
#include "opdev/elementwise_loop-inl.h"
#include "ops/binary_cross_entropy_grad/op_kernel/binary_cross_entropy_grad.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu::bce_prob_grad::HWY_NAMESPACE {

// Note [Probability gradient]
// Per lane, in the compute type (fp32; fp64 for fp64 storage), in PyTorch's order of operations:
//   g = dout * (x - y) / max((1 - x) * x, 1e-12f) [* w] [/ N]
// each step rounded once. The floor is fp32's 1e-12 (9.99999996e-13) in fp64 too, as PyTorch's
// (PyTorch 2.15's float64 backward gives 1.500000005993704e12 at x = 2, y = 0.5). For fp32 that is
// PyTorch's CPU kernel step for step (its division by numel included), so the bits agree; fp16
// and bf16 round once at the end where PyTorch rounds after each step. No FMA is contracted.
// Highway's Max with a NaN operand is not IEEE's, but a NaN x or y makes the numerator NaN, and
// NaN / anything is NaN.
template <bool HAS_WEIGHT, bool DIVIDES>
struct GradMath {
  static constexpr int kInputOperands[] = {kSelf, kTarget, kDout, kWeight};
  static constexpr int kOutputOperands[] = {kOut};
  static constexpr bool Reads(size_t j) { return j != kWeight || HAS_WEIGHT; }

  double divisor;  ///< N for mean (DIVIDES): the tile's scale
  explicit GradMath(const TileArgs& args) : divisor(args.scale) {}

  template <size_t K, class D, class V>
  HWY_INLINE void Vectors(D d, const V (&in)[4][K], V (&out)[1][K]) const {
    using C = hwy::HWY_NAMESPACE::TFromD<D>;
    namespace hn = hwy::HWY_NAMESPACE;
    const V one = hn::Set(d, 1), floor = hn::Set(d, static_cast<C>(1e-12f));
    const V n = hn::Set(d, static_cast<C>(divisor));
    for (size_t k = 0; k < K; ++k) {
      const V x = in[kSelf][k];
      const V num = hn::Mul(in[kDout][k], hn::Sub(x, in[kTarget][k]));
      V g = hn::Div(num, hn::Max(hn::Mul(hn::Sub(one, x), x), floor));
      if constexpr (HAS_WEIGHT) g = hn::Mul(g, in[kWeight][k]);
      if constexpr (DIVIDES) g = hn::Div(g, n);
      out[0][k] = g;
    }
  }
};

/// Fills @p table's variants of kernel part kPart's element type: every (weight, DIVIDES), the
/// features of the table's key (KernelTable, in the .h).
template <size_t kPart>
bool FillKernelPart(KernelTable& table) {
  return ::aclnn_cpu::HWY_NAMESPACE::FillElementwiseVariants<kPart, GradMath>(table);
}

}  // namespace aclnn_cpu::bce_prob_grad::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
