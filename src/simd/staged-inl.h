// The first two passes of Note [Staged passes] (src/simd/exp-inl.h), which the loss and the
// gradient kernels share: x widened to the compute type with e = exp(-|x|), and tail =
// log1p(exp(-|x|)) (SoftplusTailFromExpN, src/simd/softplus_tail-inl.h).
// Per-SIMD-target code: include it from a file compiled through hwy/foreach_target.h.

// Per-target include guard (the Highway idiom).
#if defined(ACLNN_CPU_SIMD_STAGED_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_CPU_SIMD_STAGED_INL_H_
#undef ACLNN_CPU_SIMD_STAGED_INL_H_
#else
#define ACLNN_CPU_SIMD_STAGED_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"
#include "simd/convert-inl.h"
#include "simd/exp-inl.h"
#include "simd/log1p-inl.h"
#include "simd/softplus_tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// Groups per block of the staged passes. Two: from memory, blocks of eight groups made the
/// fused fp32 loss kernel slower than the unstaged loop, and the backward's staged transposed self
/// (tiles of gathered row groups) slower than two. In L1 two are as fast as eight for the loss;
/// the backward with a uniform dout and the bf16 backward are a little slower (docs/perf.md).
constexpr size_t kStagedBlockGroups = 2;

/// The chunks of one staged group of storage type T: kInterleave vectors (at least one chunk).
template <class T, class D>
constexpr size_t kStagedGroupChunks =
    kInterleave > StorageChunk<T, D>::kVectors ? kInterleave / StorageChunk<T, D>::kVectors : 1;

/// The vectors of one staged group: GROUP_CHUNKS storage chunks of T.
template <class T, size_t GROUP_CHUNKS, class D>
constexpr size_t kStagedGroupVectors = GROUP_CHUNKS * StorageChunk<T, D>::kVectors;

/// The lanes a staged block's buffer holds at most: kStagedBlockGroups groups of kStagedGroupChunks
/// chunks, in the widest vectors of the target (Lanes(d) is not a constant on every target).
template <class T, class D>
constexpr size_t kStagedBlockLanes = kStagedBlockGroups * kStagedGroupVectors<T, kStagedGroupChunks<T, D>, D> *
                                     (HWY_MAX_BYTES / sizeof(hn::TFromD<D>));

/// Pass one: @p groups groups of GROUP_CHUNKS chunks of x (@p chunk elements each) from @p x,
/// widened into @p xs, and e = ExpNonPositive(-|x|) into @p es. Vector k of group g lands at
/// (g * kStagedGroupVectors + k) * Lanes(d) in both, so vector v of the block is at v * Lanes(d).
/// The group's vectors go through ExpNonPositiveN together (Note [Interleaved vectors]).
template <class T, size_t GROUP_CHUNKS, class D, class C = hn::TFromD<D>>
HWY_INLINE void StageXAndExp(D d, const T* x, size_t groups, size_t chunk, C* xs, C* es) {
  using ChunkIo = StorageChunk<T, D>;
  constexpr size_t K = kStagedGroupVectors<T, GROUP_CHUNKS, D>;
  using V = hn::Vec<D>;
  const size_t lanes = hn::Lanes(d);
  for (size_t g = 0; g < groups; ++g) {
    V vx[K], minus_abs_x[K], e[K];
    for (size_t c = 0; c < GROUP_CHUNKS; ++c) {
      ChunkIo::Load(d, x + (g * GROUP_CHUNKS + c) * chunk, vx + c * ChunkIo::kVectors);
    }
    for (size_t k = 0; k < K; ++k) minus_abs_x[k] = hn::Or(vx[k], hn::SignBit(d));
    ExpNonPositiveN<K>(d, minus_abs_x, e);
    for (size_t k = 0; k < K; ++k) {
      hn::Store(vx[k], d, xs + (g * K + k) * lanes);
      hn::Store(e[k], d, es + (g * K + k) * lanes);
    }
  }
}

/// Pass two: tail = log1p(exp(-|x|)) of @p groups groups of K vectors of x (@p xs) and e (@p es)
/// into @p tails, K vectors through SoftplusTailFromExpN together.
template <size_t K, class D, class C = hn::TFromD<D>>
HWY_INLINE void StageTail(D d, const C* xs, const C* es, size_t groups, C* tails) {
  using V = hn::Vec<D>;
  const size_t lanes = hn::Lanes(d);
  for (size_t g = 0; g < groups; ++g) {
    V x[K], e[K], result[K];
    for (size_t k = 0; k < K; ++k) {
      x[k] = hn::Load(d, xs + (g * K + k) * lanes);
      e[k] = hn::Load(d, es + (g * K + k) * lanes);
    }
    SoftplusTailFromExpN<K>(d, x, e, result);
    for (size_t k = 0; k < K; ++k) hn::Store(result[k], d, tails + (g * K + k) * lanes);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace aclnn_cpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_CPU_SIMD_STAGED_INL_H_
