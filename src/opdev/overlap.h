// Whether strided views of memory share bytes, for the aliasing rules of operator outputs: an
// out whose elements share memory, and an out that partially overlaps an input. Decided exactly,
// without listing the elements, by the bounded search of Note [Overlap search].
#pragma once

#include <cstdint>
#include <span>

namespace aclnn_cpu {

/// A strided view of memory: element (i_0, ..., i_{r-1}), 0 <= i_k < dims[k], is the
/// element_bytes bytes from first + element_bytes * sum_k i_k * strides[k]. Strides are in
/// elements and may be 0 or negative; first need not be aligned to anything. A view with a dim of
/// size 0 has no elements.
struct MemoryView {
  const void* first = nullptr;
  int64_t element_bytes = 1;  ///< > 0
  std::span<const int64_t> dims;
  std::span<const int64_t> strides;  ///< as many as dims
};

/// The answer to an overlap question.
enum class Overlap : uint8_t {
  kNone,       ///< proven: no byte is shared
  kShared,     ///< proven: some byte is shared
  kUndecided,  ///< not decided within kMaxOverlapSearchSteps (or past 64-bit offsets): a caller
               ///< that must never accept an overlap treats it as kShared
};

/// Steps (nodes of the search, Note [Overlap search]) one question may take. Views whose strides
/// nest, and the usual interleavings (columns of one buffer, even and odd elements, a [3, 400000]
/// view with strides [2, 3]), take a few steps; only views that interleave many large dims in
/// unusual ways come near it. About 5 ms of the first phase at most (a step is some 80 ns).
inline constexpr int64_t kMaxOverlapSearchSteps = int64_t{1} << 16;

/// The most dims a view may have for the search (more gives kUndecided).
inline constexpr int kMaxOverlapViewDims = 32;

/// Whether two distinct elements of @p view share a byte (that is, start at the same address:
/// element_bytes does not matter).
Overlap InternalOverlap(const MemoryView& view);

/// Whether some element of @p a and some element of @p b share a byte. A test of the two byte
/// ranges comes first; the exact search runs only when they intersect.
Overlap MutualOverlap(const MemoryView& a, const MemoryView& b);

/// Whether @p a and @p b are the same view: the same first byte, the same element size, and the
/// same sizes and strides, in order, over the dims of size > 1 (a dim of size 1 addresses
/// nothing new, whatever its stride). Then every index addresses the same bytes in both.
bool SameView(const MemoryView& a, const MemoryView& b);

}  // namespace aclnn_cpu
