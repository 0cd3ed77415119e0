// Per-SIMD-target code of the BinaryCrossEntropy kernel, compiled once per instruction set and
// part (Note [One target per translation unit]) and, for the tests, through hwy/foreach_target.h.

// Per-target include guard (the Highway idiom).
#if defined(ACLNN_BCE_PROB_KERNEL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_BCE_PROB_KERNEL_INL_H_
#undef ACLNN_BCE_PROB_KERNEL_INL_H_
#else
#define ACLNN_BCE_PROB_KERNEL_INL_H_
#endif

#include <limits>
#include <type_traits>

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "opdev/elementwise_loop-inl.h"
#include "ops/binary_cross_entropy/op_kernel/binary_cross_entropy.h"
#include "simd/kernel_table-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu::bce_prob::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using ::aclnn_cpu::HWY_NAMESPACE::ElementwiseTile;
using ::aclnn_cpu::HWY_NAMESPACE::FillVariantsOfPart;
using ::aclnn_cpu::HWY_NAMESPACE::StagedForm;

// Note [Probability loss]
// Per lane, in the compute type (fp32; fp64 for fp64 storage):
//   loss = (y * min(-log(x), 100) + (1 - y) * min(-log1p(-x), 100)) [* w]
// which is PyTorch's -(y max(log x, -100) + (1 - y) max(log(1 - x), -100)) w with the signs moved
// inside (negation is exact). For x and y in [0, 1] both terms are >= 0: nothing cancels. The
// logs are Highway's (hwy/contrib/math): measured over every float of (0, 1], Log within 0.95 ULP
// and Log1p(-x) within 2.06 ULP on AVX3 and SSSE3, so a hand-written log would buy little. Their
// poles are finite there (Log(0) -105.4, Log1p(-1) -88.0), so x = 0 and x = 1 take the clamp
// explicitly. x outside [0, 1], or NaN, gives NaN (the header's contract).
template <class Storage, bool HAS_WEIGHT, bool TO_COMPUTE>
struct LossOp {
  using T = Storage;
  using D = hn::ScalableTag<std::conditional_t<std::is_same_v<T, double>, double, float>>;
  using V = hn::Vec<D>;
  static constexpr int kInputOperands[] = {kSelf, kTarget, kWeight};
  static constexpr int kOutputOperands[] = {kOut};
  static constexpr size_t kInputs = std::size(kInputOperands);
  static constexpr size_t kOutputs = 1;
  static constexpr bool Reads(size_t j) { return j != kWeight || HAS_WEIGHT; }
  static constexpr bool ComputeOutput(size_t) { return TO_COMPUTE; }
  static constexpr StagedForm kStaged = StagedForm::kNone;

  template <size_t K>
  HWY_INLINE void Vectors(D d, const V (&in)[kInputs][K], V (&out)[kOutputs][K]) const {
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

/// A tile (TileFn): the shared loop over LossOp.
template <class T, bool HAS_WEIGHT, bool TO_COMPUTE>
void Compute(const TileArgs& args, size_t count) {
  ElementwiseTile<LossOp<T, HAS_WEIGHT, TO_COMPUTE>>::Run({}, args, count);
}

/// Fills @p table's variants of kernel part kPart's element type; instantiated by the part file.
template <size_t kPart>
bool FillKernelPart(KernelTable& table) {
  return FillVariantsOfPart<kPart>(table, []<class T, bool W, bool TO_COMPUTE>() {
    return &Compute<T, W, TO_COMPUTE>;  // the key's features: KernelKey
  });
}

}  // namespace aclnn_cpu::bce_prob::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_BCE_PROB_KERNEL_INL_H_
