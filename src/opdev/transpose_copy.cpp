// The transposing copies of transpose_copy.h for every SIMD target.
//
// Contract of the per-target Transpose (and Transpose16): N vectors of N fp32 lanes in, their
// transpose out; exact (data movement only). N = MaxLanes(CappedTag<float, 8>): 8 on AVX2 and AVX-512 (256-bit
// vectors there too: a 16 x 16 transpose of 512-bit vectors would need a shuffle of 128-bit blocks
// across the vector on top of these steps, and the copies of large transposed views are bound by
// memory, not shuffles: 8 x 8 measured no faster than 4 x 4 there), 4 on SSE4, SSSE3 and EMU128.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "opdev/transpose_copy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <algorithm>

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

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
// Note [Whole lines both ways]
// A group of 16 rows of a transposed fp32 view is 16 adjacent elements of every column: one
// 64-byte line per column. The 8 x 8 copies read each such line in two halves, in two passes over
// 16 columns, and write each dense row's line in two halves. Where the view's column stride is a
// power of two of 4 KiB or more (a [16384, 1024] view: 64 KiB), all those lines fall in one set of
// L1 (and of L2 from 64 KiB), which holds 12 (16): the second half's line is often gone, and the
// lines prefetched ahead are evicted before they are read. On 512-bit targets the group goes 16
// columns at a time instead: 16 whole lines loaded once, transposed in registers, 16 whole lines
// stored, the lines of the block kGather16PrefetchColumns ahead prefetched. Faster at 64 Ki and
// 16 Mi elements, within the noise at 1 Mi; how far ahead to prefetch mattered less than the noise,
// and 32 columns was the best at 16 Mi (docs/perf.md).
constexpr int64_t kGather16PrefetchColumns = 32;

/// In place: v[c] lane r <- v[r] lane c for 16 vectors of 16 fp32 lanes: pairs of lanes, pairs of
/// pairs, then 128-bit blocks twice (Highway 1.0.3 has no shuffle of blocks across two vectors).
HWY_INLINE void Transpose16(__m512* v) {
  __m512 t[16];
  for (int k = 0; k < 16; k += 2) {
    t[k] = _mm512_unpacklo_ps(v[k], v[k + 1]);
    t[k + 1] = _mm512_unpackhi_ps(v[k], v[k + 1]);
  }
  // v[4g + j], block b: lane 4b + j of inputs 4g .. 4g + 3.
  for (int g = 0; g < 16; g += 4) {
    const __m512d a = _mm512_castps_pd(t[g]), b = _mm512_castps_pd(t[g + 1]);
    const __m512d c = _mm512_castps_pd(t[g + 2]), d = _mm512_castps_pd(t[g + 3]);
    v[g] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
    v[g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
    v[g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
    v[g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
  }
  // t[j] (j < 4): lanes j and 8 + j of inputs 0-7; t[4 + j]: lanes 4 + j and 12 + j; t[8..15] the
  // same of inputs 8-15.
  for (int h = 0; h < 16; h += 8) {
    for (int j = 0; j < 4; ++j) {
      t[h + j] = _mm512_shuffle_f32x4(v[h + j], v[h + 4 + j], 0x88);
      t[h + 4 + j] = _mm512_shuffle_f32x4(v[h + j], v[h + 4 + j], 0xdd);
    }
  }
  for (int j = 0; j < 8; ++j) {
    v[j] = _mm512_shuffle_f32x4(t[j], t[8 + j], 0x88);
    v[8 + j] = _mm512_shuffle_f32x4(t[j], t[8 + j], 0xdd);
  }
}

void GatherTransposed16(float* wide, int64_t wide_stride, float* const* dense_rows, int64_t cols) {
  __m512 v[16];
  for (int64_t i = 0; i < cols; i += 16) {
    for (int64_t c = i + kGather16PrefetchColumns; c < std::min(i + kGather16PrefetchColumns + 16, cols); ++c) {
      __builtin_prefetch(wide + c * wide_stride, 0, 3);
      __builtin_prefetch(wide + c * wide_stride + 15, 0, 3);  // the group may straddle two lines
    }
    for (int64_t c = 0; c < 16; ++c) v[c] = _mm512_loadu_ps(wide + (i + c) * wide_stride);
    Transpose16(v);
    for (int r = 0; r < 16; ++r) _mm512_storeu_ps(dense_rows[r] + i, v[r]);
  }
}
#endif

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
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  k.gather16 = &GatherTransposed16;
#endif
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
