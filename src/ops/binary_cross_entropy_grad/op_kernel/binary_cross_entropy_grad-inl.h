// Per-SIMD-target code of the BinaryCrossEntropyGrad kernel, compiled once per instruction set and
// part (Note [One target per translation unit]) and, for the tests, through hwy/foreach_target.h.

// Per-target include guard (the Highway idiom).
#if defined(ACLNN_BCE_PROB_GRAD_KERNEL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_BCE_PROB_GRAD_KERNEL_INL_H_
#undef ACLNN_BCE_PROB_GRAD_KERNEL_INL_H_
#else
#define ACLNN_BCE_PROB_GRAD_KERNEL_INL_H_
#endif

#include <type_traits>

#include "hwy/highway.h"
#include "opdev/elementwise_loop-inl.h"
#include "ops/binary_cross_entropy_grad/op_kernel/binary_cross_entropy_grad.h"
#include "simd/kernel_table-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu::bce_prob_grad::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using ::aclnn_cpu::HWY_NAMESPACE::ElementwiseTile;
using ::aclnn_cpu::HWY_NAMESPACE::FillVariantsOfPart;
using ::aclnn_cpu::HWY_NAMESPACE::StagedForm;

// Note [Probability gradient]
// Per lane, in the compute type (fp32; fp64 for fp64 storage), in PyTorch's order of operations:
//   g = dout * (x - y) / max((1 - x) * x, 1e-12) [* w] [/ N]
// each step rounded once, the floor 1e-12 rounded to the compute type. For fp32 storage that is
// PyTorch's CPU kernel step for step (its division by numel included), so the bits agree; fp16
// and bf16 round once at the end where PyTorch rounds after each step. No FMA is contracted.
// Highway's Max with a NaN operand is not IEEE's, but a NaN x or y makes the numerator NaN, and
// NaN / anything is NaN.
template <class Storage, bool HAS_WEIGHT, bool DIVIDES>
struct GradOp {
  using T = Storage;
  using D = hn::ScalableTag<std::conditional_t<std::is_same_v<T, double>, double, float>>;
  using V = hn::Vec<D>;
  static constexpr int kInputOperands[] = {kSelf, kTarget, kDout, kWeight};
  static constexpr int kOutputOperands[] = {kOut};
  static constexpr size_t kInputs = std::size(kInputOperands);
  static constexpr size_t kOutputs = 1;
  static constexpr bool Reads(size_t j) { return j != kWeight || HAS_WEIGHT; }
  static constexpr bool ComputeOutput(size_t) { return false; }
  static constexpr StagedForm kStaged = StagedForm::kNone;

  V divisor;  ///< N for mean (DIVIDES)

  template <size_t K>
  HWY_INLINE void Vectors(D d, const V (&in)[kInputs][K], V (&out)[kOutputs][K]) const {
    const V one = hn::Set(d, 1), floor = hn::Set(d, static_cast<hn::TFromD<D>>(1e-12));
    for (size_t k = 0; k < K; ++k) {
      const V x = in[kSelf][k];
      const V num = hn::Mul(in[kDout][k], hn::Sub(x, in[kTarget][k]));
      V g = hn::Div(num, hn::Max(hn::Mul(hn::Sub(one, x), x), floor));
      if constexpr (HAS_WEIGHT) g = hn::Mul(g, in[kWeight][k]);
      if constexpr (DIVIDES) g = hn::Div(g, divisor);
      out[0][k] = g;
    }
  }
};

/// A tile (TileFn): the shared loop over GradOp.
template <class T, bool HAS_WEIGHT, bool DIVIDES>
void Compute(const TileArgs& args, size_t count) {
  using Op = GradOp<T, HAS_WEIGHT, DIVIDES>;
  Op op;
  op.divisor = hn::Set(typename Op::D(), static_cast<hn::TFromD<typename Op::D>>(args.scale));
  ElementwiseTile<Op>::Run(op, args, count);
}

/// Fills @p table's variants of kernel part kPart's element type; instantiated by the part file.
template <size_t kPart>
bool FillKernelPart(KernelTable& table) {
  return FillVariantsOfPart<kPart>(table, []<class T, bool W, bool DIVIDES>() {
    return &Compute<T, W, DIVIDES>;  // the key's features: KernelKey
  });
}

}  // namespace aclnn_cpu::bce_prob_grad::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_BCE_PROB_GRAD_KERNEL_INL_H_
