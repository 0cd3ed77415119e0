// Per-SIMD-target code of the kernel, compiled once per instruction set and element type (Note
// [One target per translation unit]: the part file aclnn_add_op writes) and, for the tests,
// through hwy/foreach_target.h.

// Per-target include guard (the Highway idiom).
#if defined(ACLNN_BCE_GRAD_KERNEL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_BCE_GRAD_KERNEL_INL_H_
#undef ACLNN_BCE_GRAD_KERNEL_INL_H_
#else
#define ACLNN_BCE_GRAD_KERNEL_INL_H_
#endif

#include <algorithm>
#include <cstring>

#include "hwy/highway.h"
#include "opdev/elementwise_loop-inl.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_vector-inl.h"
#include "simd/convert-inl.h"
#include "simd/kernel_parts.h"
#include "simd/kernel_table-inl.h"
#include "simd/staged-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu {
namespace bce_grad {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The shared loop (src/opdev/) and SIMD pieces (src/simd/).
using ::aclnn_cpu::HWY_NAMESPACE::ElementwiseTile;
using ::aclnn_cpu::HWY_NAMESPACE::FillVariantsOfPart;
using ::aclnn_cpu::HWY_NAMESPACE::LoadUniformChunk;
using ::aclnn_cpu::HWY_NAMESPACE::StagedForm;
using ::aclnn_cpu::HWY_NAMESPACE::StorageChunk;
using ::aclnn_cpu::HWY_NAMESPACE::kTailByTable;

/// GradientOp: the vector functors of the gradient with respect to self (GradientVectorN) or,
/// with OF_TARGET, to the target (TargetGradientVectorN, which reads no target) for the shared
/// loop (ElementwiseTile, src/opdev/elementwise_loop-inl.h). Inputs in OperandIndex order; a
/// UNIFORM_DOUT (TileArgs::ReadsOnce(kDout)) is read once, before the loop, and then stays in
/// registers: the same operations on the same values, so the same bits as a materialized dout.
template <class Storage, bool HAS_WEIGHT, bool HAS_POS_WEIGHT, bool OF_TARGET, bool UNIFORM_DOUT, bool SCALED>
struct GradientOp {
  using T = Storage;
  using D = hn::ScalableTag<std::conditional_t<std::is_same_v<T, double>, double, float>>;
  using V = hn::Vec<D>;
  static constexpr size_t kVectors = StorageChunk<T, D>::kVectors;
  static constexpr int kInputOperands[] = {kPredict, kTarget, kDout, kWeight, kPosWeight};
  static constexpr int kOutputOperands[] = {kGradient};
  static constexpr size_t kInputs = std::size(kInputOperands);
  static constexpr size_t kOutputs = std::size(kOutputOperands);
  static constexpr bool Reads(size_t j) {
    return j == kPredict || (j == kTarget && !OF_TARGET) || (j == kDout && !UNIFORM_DOUT) ||
           (j == kWeight && HAS_WEIGHT) || (j == kPosWeight && HAS_POS_WEIGHT);
  }
  static constexpr bool ComputeOutput(size_t) { return false; }
  /// The gradient of self takes an exp; the target's with pos_weight the softplus tail, staged
  /// after exp where the target takes it from e (not where it comes from the table, Note
  /// [Softplus tail by table]: 6.1 -> 5.9 ns per 16 lanes unstaged, docs/perf.md).
  static constexpr StagedForm kStaged = !OF_TARGET                           ? StagedForm::kExp
                                        : HAS_POS_WEIGHT && !kTailByTable<D> ? StagedForm::kExpLog1p
                                                                             : StagedForm::kNone;

  V scale;
  V uniform_dout[kVectors];

  /// dout's K vectors: the uniform ones, or those loaded.
  template <size_t K>
  HWY_INLINE void Dout(const V (&in)[kInputs][K], V* dout) const {
    for (size_t k = 0; k < K; ++k) dout[k] = UNIFORM_DOUT ? uniform_dout[k % kVectors] : in[kDout][k];
  }

  template <size_t K>
  HWY_INLINE void Vectors(D d, const V (&in)[kInputs][K], V (&out)[kOutputs][K]) const {
    V dout[K];
    Dout<K>(in, dout);
    if constexpr (OF_TARGET) {
      TargetGradientVectorN<K, HAS_WEIGHT, HAS_POS_WEIGHT, SCALED>(d, in[kPredict], dout, in[kWeight],
                                                                   in[kPosWeight], scale, out[0]);
    } else {
      GradientVectorN<K, HAS_WEIGHT, HAS_POS_WEIGHT, SCALED>(d, in[kPredict], in[kTarget], dout, in[kWeight],
                                                             in[kPosWeight], scale, out[0]);
    }
  }

  template <size_t K>
  HWY_INLINE void Staged(D d, const V (&in)[kInputs][K], const V* e, const V* tail, V (&out)[kOutputs][K]) const {
    V dout[K];
    Dout<K>(in, dout);
    if constexpr (OF_TARGET) {
      TargetGradientFromTailN<K, HAS_WEIGHT, HAS_POS_WEIGHT, SCALED>(d, in[kPredict], tail, dout, in[kWeight],
                                                                     in[kPosWeight], scale, out[0]);
    } else {
      GradientFromExpN<K, HAS_WEIGHT, HAS_POS_WEIGHT, SCALED>(d, in[kPredict], e, in[kTarget], dout, in[kWeight],
                                                              in[kPosWeight], scale, out[0]);
    }
  }
};

/// Kernel<T, HAS_WEIGHT, HAS_POS_WEIGHT, OF_TARGET>: the AscendC kernel's Compute stage on one
/// tile (a TileFn): the shared loop over GradientOp. T: storage type (float, double,
/// hwy::float16_t, hwy::bfloat16_t); computes in float (double for T = double).
template <class T, bool HAS_WEIGHT, bool HAS_POS_WEIGHT, bool OF_TARGET>
struct Kernel {
  static void Compute(const TileArgs& args, size_t count) {
    const bool unit = args.scale == 1.0;  // Note [Unit scale]
    if (args.ReadsOnce(kDout)) {
      unit ? Run<true, false>(args, count) : Run<true, true>(args, count);
    } else {
      unit ? Run<false, false>(args, count) : Run<false, true>(args, count);
    }
  }

  template <bool UNIFORM_DOUT, bool SCALED>
  static void Run(const TileArgs& args, size_t count) {
    using Op = GradientOp<T, HAS_WEIGHT, HAS_POS_WEIGHT, OF_TARGET, UNIFORM_DOUT, SCALED>;
    const typename Op::D d;
    Op op;
    op.scale = hn::Set(d, static_cast<hn::TFromD<typename Op::D>>(args.scale));
    if constexpr (UNIFORM_DOUT) LoadUniformChunk(d, static_cast<const T*>(args.at[kDout]), op.uniform_dout);
    ElementwiseTile<Op>::Run(op, args, count);
  }
};

/// Fills @p table's variants of kernel part kPart's element type (FillVariantsOfPart, Note [One
/// target per translation unit]); instantiated by the part file.
template <size_t kPart>
bool FillKernelPart(KernelTable& table) {
  return FillVariantsOfPart<kPart>(table, []<class T, bool OF_TARGET, bool W, bool PW>() {
    return &Kernel<T, W, PW, OF_TARGET>::Compute;  // the key's features: KernelVariantKey
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace bce_grad
}  // namespace aclnn_cpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_BCE_GRAD_KERNEL_INL_H_
