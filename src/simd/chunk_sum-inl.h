// The per-chunk sums of fp32 values of the deterministic reduction (Note [Deterministic
// reduction], src/opdev/chunk_reduction.h), the same bits on every SIMD target: a kernel table's
// ChunkSumFloatFn is SumChunksFloat of its target.
// Per-SIMD-target code: include it from a file compiled through hwy/foreach_target.h.

// Per-target include guard (the Highway idiom).
#if defined(ACLNN_CPU_SIMD_CHUNK_SUM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_CPU_SIMD_CHUNK_SUM_INL_H_
#undef ACLNN_CPU_SIMD_CHUNK_SUM_INL_H_
#else
#define ACLNN_CPU_SIMD_CHUNK_SUM_INL_H_
#endif

#include <algorithm>
#include <cstddef>

#include "hwy/highway.h"
#include "opdev/chunk_reduction.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// SumChunkFloat: the fp64 sum of n fp32 values (a chunk) in the one order every target keeps:
// sixteen accumulators, the k-th adding the elements i = k (mod 16) in increasing i, joined by a
// fixed tree ((k, k + 8), then (k, k + 4), ...). Each target holds the sixteen in 16 / Lanes
// vectors of doubles (lane l of vector b is accumulator b * Lanes + l), so every target gives the
// same bits, and the adds are independent chains: about 0.1 cycle per element on AVX3 where one
// scalar chain per accumulator took a cycle. Each fp32 value is exact in fp64.
/// Joins SumChunkFloat's sixteen accumulators (sums[0 .. 16)) by its fixed tree; the result.
HWY_INLINE double JoinChunkAccumulators(double* sums) {
  for (size_t width = 8; width >= 1; width /= 2) {
    for (size_t k = 0; k < width; ++k) sums[k] += sums[k + width];
  }
  return sums[0];
}

inline ChunkSum SumChunkFloat(const float* values, size_t n) {
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
      acc[b] = hn::Add(acc[b], hn::PromoteTo(dd, hn::LoadU(df, values + i + b * lanes)));
    }
  }
  HWY_ALIGN double sums[kAccumulators];
  for (size_t b = 0; b < blocks; ++b) hn::StoreU(acc[b], dd, sums + b * lanes);
  for (; i < n; ++i) sums[i % kAccumulators] += static_cast<double>(values[i]);
  return ChunkSum{JoinChunkAccumulators(sums), 0};
}
//
// Note [Chunks summed side by side]
// Each accumulator of a chunk is one chain of dependent adds (64 of them in a chunk of 1024), so
// a chunk summed alone waits on the add's latency. An operator's block may therefore buffer the
// values of several chunks (the loss alone: kBufferChunks, BufferChunksOf), computed in one call,
// and SumChunksFloat adds up K whole chunks at once (K = 8 / the accumulator vectors of a
// chunk, at least 1: 4 on AVX-512, 2 on AVX2), their chains side by side. Each chunk's sum keeps
// its own order, so every result keeps its bits. The loss's forward mean got faster on one thread
// and two, fp32 and bf16 (docs/perf.md). Where the inputs come from memory, four chunks made it
// slower, and the fused call too: the loss's BufferChunksOf gives those one.
template <size_t K>
HWY_INLINE void SumWholeChunksFloat(const float* values, ChunkSum* sums) {
  constexpr size_t kAccumulators = 16;
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  using VD = hn::Vec<decltype(dd)>;
  const size_t lanes = hn::Lanes(dd);  // 1, 2, 4 or 8 on x86: it divides 16
  const size_t blocks = kAccumulators / lanes;
  VD acc[K][kAccumulators];
  for (size_t k = 0; k < K; ++k) {
    for (size_t b = 0; b < blocks; ++b) acc[k][b] = hn::Zero(dd);
  }
  for (size_t i = 0; i < kSumChunkElems; i += kAccumulators) {
    for (size_t k = 0; k < K; ++k) {
      for (size_t b = 0; b < blocks; ++b) {
        acc[k][b] = hn::Add(acc[k][b], hn::PromoteTo(dd, hn::LoadU(df, values + k * kSumChunkElems + i + b * lanes)));
      }
    }
  }
  for (size_t k = 0; k < K; ++k) {
    HWY_ALIGN double partial[kAccumulators];
    for (size_t b = 0; b < blocks; ++b) hn::StoreU(acc[k][b], dd, partial + b * lanes);
    sums[k] = ChunkSum{JoinChunkAccumulators(partial), 0};
  }
}

inline void SumChunksFloat(const float* values, size_t n, ChunkSum* sums) {
  const hn::ScalableTag<double> dd;
  // Side by side: as many chunks as keep eight vectors of accumulators (Note [Chunks summed side by side]).
  constexpr size_t kMaxLanes = hn::MaxLanes(hn::ScalableTag<double>());
  constexpr size_t kSideBySide = std::max<size_t>(1, 8 / std::max<size_t>(1, 16 / kMaxLanes));
  size_t c = 0;
  if (hn::Lanes(dd) == kMaxLanes) {
    for (; (c + kSideBySide) * kSumChunkElems <= n; c += kSideBySide) {
      SumWholeChunksFloat<kSideBySide>(values + c * kSumChunkElems, sums + c);
    }
  }
  for (; c * kSumChunkElems < n; ++c) {
    sums[c] = SumChunkFloat(values + c * kSumChunkElems, std::min<size_t>(kSumChunkElems, n - c * kSumChunkElems));
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace aclnn_cpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_CPU_SIMD_CHUNK_SUM_INL_H_
