// The transposing copies of transpose_copy.h for every SIMD target.
//
// Contract of the per-target Transpose: N vectors of N fp32 lanes in, their transpose out;
// exact (data movement only). N = MaxLanes(CappedTag<float, 8>): 8 on AVX2 and AVX-512 (256-bit
// vectors there too: a 16 x 16 transpose of 512-bit vectors would need a shuffle of 128-bit blocks
// across the vector on top of these steps, and the copies of large transposed views are bound by
// memory, not shuffles: 8 x 8 measured no faster than 4 x 4 there), 4 on SSE4, SSSE3 and EMU128.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "opdev/transpose_copy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "opdev/transpose_copy.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::CappedTag<float, 8>;

#if HWY_TARGET != HWY_SCALAR  // no interleaves there: its kernels are plain element copies

/// In place: v[c][r] <- v[r][c] for N = 4 (one 128-bit block) or N = 8 (two blocks). A template
/// so that targets without these ops (N = 1) never instantiate it.
template <class D>
HWY_INLINE void Transpose(D d, hn::Vec<D>* v) {
  using V = hn::Vec<D>;
  constexpr size_t n = hn::MaxLanes(D());
  static_assert(n == 4 || n == 8);
  const hn::Repartition<double, D> dd;
  // Within each 128-bit block: 4 x 4 transposes of rows 0-3 (and of rows 4-7).
  V q[n];
  for (size_t g = 0; g < n; g += 4) {
    const V t0 = hn::InterleaveLower(d, v[g], v[g + 1]), t1 = hn::InterleaveLower(d, v[g + 2], v[g + 3]);
    const V t2 = hn::InterleaveUpper(d, v[g], v[g + 1]), t3 = hn::InterleaveUpper(d, v[g + 2], v[g + 3]);
    q[g + 0] = hn::BitCast(d, hn::InterleaveLower(dd, hn::BitCast(dd, t0), hn::BitCast(dd, t1)));
    q[g + 1] = hn::BitCast(d, hn::InterleaveUpper(dd, hn::BitCast(dd, t0), hn::BitCast(dd, t1)));
    q[g + 2] = hn::BitCast(d, hn::InterleaveLower(dd, hn::BitCast(dd, t2), hn::BitCast(dd, t3)));
    q[g + 3] = hn::BitCast(d, hn::InterleaveUpper(dd, hn::BitCast(dd, t2), hn::BitCast(dd, t3)));
  }
  if constexpr (n == 4) {
    for (size_t k = 0; k < 4; ++k) v[k] = q[k];
  } else {
    // q[k] holds column k of rows 0-3 in its lower block and column k + 4 in its upper one
    // (q[4 + k] the same for rows 4-7): join the halves.
    for (size_t k = 0; k < 4; ++k) {
      v[k] = hn::ConcatLowerLower(d, q[4 + k], q[k]);
      v[k + 4] = hn::ConcatUpperUpper(d, q[4 + k], q[k]);
    }
  }
}

template <class D>
void GatherTransposed(float* wide, int64_t wide_stride, float* const* dense_rows, int64_t cols) {
  const D d;
  constexpr size_t n = hn::MaxLanes(D());
  hn::Vec<D> v[n];
  for (int64_t i = 0; i < cols; i += static_cast<int64_t>(n)) {
    for (size_t c = 0; c < n; ++c) v[c] = hn::LoadU(d, wide + (i + static_cast<int64_t>(c)) * wide_stride);
    Transpose(d, v);
    for (size_t r = 0; r < n; ++r) hn::StoreU(v[r], d, dense_rows[r] + i);
  }
}

template <class D>
void ScatterTransposed(float* wide, int64_t wide_stride, float* const* dense_rows, int64_t cols) {
  const D d;
  constexpr size_t n = hn::MaxLanes(D());
  hn::Vec<D> v[n];
  for (int64_t i = 0; i < cols; i += static_cast<int64_t>(n)) {
    for (size_t r = 0; r < n; ++r) v[r] = hn::LoadU(d, dense_rows[r] + i);
    Transpose(d, v);
    for (size_t c = 0; c < n; ++c) hn::StoreU(v[c], d, wide + (i + static_cast<int64_t>(c)) * wide_stride);
  }
}

#endif  // HWY_TARGET != HWY_SCALAR

template <class D>
TransposeFloatKernels MakeTransposeFloatKernels() {
  TransposeFloatKernels k;
#if HWY_TARGET != HWY_SCALAR
  constexpr size_t n = hn::MaxLanes(D());
  static_assert(n == 4 || n == 8, "a 128- or 256-bit vector of fp32");
  k.rows = static_cast<int>(n);
  k.gather = &GatherTransposed<D>;
  k.scatter = &ScatterTransposed<D>;
#endif
  k.target_name = hwy::TargetName(HWY_TARGET);
  return k;
}

const TransposeFloatKernels* GetTransposeFloatKernels() {
  static const TransposeFloatKernels kernels = MakeTransposeFloatKernels<DF>();
  return &kernels;
}

}  // namespace HWY_NAMESPACE
}  // namespace aclnn_cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace aclnn_cpu {

HWY_EXPORT(GetTransposeFloatKernels);

const TransposeFloatKernels& ChosenTransposeFloatKernels() { return *HWY_DYNAMIC_DISPATCH(GetTransposeFloatKernels)(); }

}  // namespace aclnn_cpu
#endif  // HWY_ONCE
