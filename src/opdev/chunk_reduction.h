// The deterministic reduction (mean and sum) of an elementwise operator: per-chunk sums in one
// fixed order, then the chunk sums added in chunk order (Note [Deterministic reduction]). Any
// operator with a reduction uses it: its blocks sum whole chunks of its values (SumChunk for fp64
// values, SumChunksFloat of src/simd/chunk_sum-inl.h for fp32 ones) and its combine stage adds
// them (ChunkSumTotal).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

#include "opdev/reduction.h"

namespace aclnn_cpu {

// Note [Deterministic reduction]
// mean and sum are computed in the same launch as the values they reduce: stage 1's blocks
// compute the values of their elements in the compute type and sum each chunk of kSumChunkElems
// consecutive elements (of the iteration space's order) in a fixed order, in fp64 (fp32 values:
// sixteen accumulators, element i to accumulator i mod 16, joined by a fixed tree, the same on
// every SIMD target; SumChunkFloat, src/simd/chunk_sum-inl.h) or compensated fp64 (fp64 values,
// SumChunk); stage 2, one block, adds the chunk sums in chunk order with compensation
// (ChunkSumTotal), divides by N for mean and rounds once to out's dtype. Chunk boundaries are
// fixed multiples of kSumChunkElems: the operator's tiling aligns blocks and tiles to whole chunks
// (its alignment unit is one chunk), so no chunk is split between blocks and nothing depends on
// the thread count or the core count; a chunk's elements reach its buffer in order however tiles
// and row runs cut them. So the result is bitwise the same for any thread count and any run, and
// the fp64 sum of fp32 values is exact to far below fp32's rounding (1 ULP of the correctly
// rounded mean).
inline constexpr uint64_t kSumChunkElems = 1024;

/// A chunk's sum as an unevaluated pair hi + lo (lo is 0 for fp32 values).
struct ChunkSum {
  double hi = 0;
  double lo = 0;
};

/// The sums of the chunks of @p n fp32 values (kSumChunkElems each, the last one possibly
/// shorter) into sums[0 .. ceil(n / kSumChunkElems)): SumChunkFloat's one order on every target.
using ChunkSumFloatFn = void (*)(const float* values, size_t n, ChunkSum* sums);
/// SumChunksFloat of the best SIMD target of this CPU (src/simd/simd_target.cpp).
ChunkSumFloatFn ChosenChunkSumFloat();

/// Neumaier's compensated addition: sum + comp carries what plain addition would drop. Once the
/// sum is not finite (an infinite value, or an overflow) the correction is left as it is: its
/// formula would subtract inf from inf and make an infinite sum NaN.
struct CompensatedSum {
  double sum = 0;
  double comp = 0;
  void Add(double v) {
    const double t = sum + v;
    if (std::isfinite(t)) comp += std::fabs(sum) >= std::fabs(v) ? (sum - t) + v : (v - t) + sum;
    sum = t;
  }
  double Value() const { return sum + comp; }
};

/// The compensated (Neumaier) sum of @p n fp64 values in order. fp32 values are summed per SIMD
/// target (SumChunksFloat: fp64, sixteen accumulators in a fixed order).
ChunkSum SumChunk(const double* values, size_t n);

/// Stage 2 of the reduction: chunk sums added in the order given, with compensation.
class ChunkSumTotal {
 public:
  /// Adds @p sums (one block's chunks, in chunk order) after those added before.
  void Add(std::span<const ChunkSum> sums);
  /// The reduction's result: the sum, or for mean the sum divided by @p count (NaN for 0).
  double Result(ReductionType reduction, uint64_t count) const;

 private:
  CompensatedSum total_;
};

}  // namespace aclnn_cpu
