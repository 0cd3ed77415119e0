#include "opdev/chunk_reduction.h"

#include <limits>

namespace aclnn_cpu {

ChunkSum SumChunk(const double* values, size_t n) {
  CompensatedSum s;
  for (size_t i = 0; i < n; ++i) s.Add(values[i]);
  return ChunkSum{s.sum, s.comp};
}

void ChunkSumTotal::Add(std::span<const ChunkSum> sums) {
  for (const ChunkSum& chunk : sums) {
    total_.Add(chunk.hi);
    total_.Add(chunk.lo);
  }
}

double ChunkSumTotal::Result(ReductionType reduction, uint64_t count) const {
  const double value = total_.Value();
  if (reduction != ReductionType::kMean) return value;
  return count == 0 ? std::numeric_limits<double>::quiet_NaN() : value / static_cast<double>(count);
}

}  // namespace aclnn_cpu
