// Iteration over a broadcast, strided element space shared by several operands (the
// TensorIterator idea): dims are coalesced once, then linear ranges of the space are gathered
// into, or scattered from, contiguous buffers with dtype conversion.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

#include "acl/acl_base.h"
#include "common/dtype.h"
#include "common/shape.h"
#include "opdev/transpose_copy.h"


namespace aclnn_cpu {

/// The iteration space: sizes of (coalesced) dims, outermost first; linear index i of the space
/// is the row-major position of its multi-index.
struct IterSpace {
  int ndim = 0;
  int64_t sizes[kMaxDims] = {};
};

/// An operand of the space: element (i0..in) lives at first + sum(i_k * strides[k]) elements.
struct StridedOperand {
  const char* first = nullptr;
  aclDataType dtype = ACL_FLOAT;
  int64_t strides[kMaxDims] = {};
};

/// Permutes the dims (sizes and every operand's strides alike) so that strides decrease from the
/// outermost dim to the innermost - TensorIterator's reorder_dimensions. Operands are ranked by
/// their order in @p operands (put the output first): the first that tells two dims apart (both
/// strides non-zero and unequal) decides their order, a zero stride (broadcast) never decides, and
/// dims no operand tells apart keep their order. An elementwise op may walk its space in any
/// order, so a problem whose operands all share one permutation of a dense block becomes dense
/// again once CoalesceDims runs after this.
void ReorderDims(IterSpace& space, std::span<StridedOperand* const> operands);

/// Drops size-1 dims and merges neighbours that every operand walks as one (stride of the outer
/// = size * stride of the inner) - TensorIterator's coalescing. A 0-dim space becomes 1-D of 1.
void CoalesceDims(IterSpace& space, std::span<StridedOperand*> operands);

/// Whether element i of the space is at first + i for the operand (it walks the space densely).
bool IsDense(const IterSpace& space, const StridedOperand& op);
/// Whether the operand reads one element for the whole space (all strides 0).
bool IsBroadcastScalar(const IterSpace& space, const StridedOperand& op);

/// Converts one element; the one rounding of a narrowing conversion is to nearest even.
template <class Dst, class Src>
inline Dst ConvertElement(Src v) {
  if constexpr (std::is_same_v<Dst, Src>) {
    return v;
  } else if constexpr (std::is_same_v<Src, Half>) {
    return ConvertElement<Dst>(HalfToFloat(v));
  } else if constexpr (std::is_same_v<Src, BFloat16>) {
    return ConvertElement<Dst>(BFloat16ToFloat(v));
  } else if constexpr (std::is_same_v<Dst, Half>) {
    if constexpr (std::is_same_v<Src, double>) return FloatToHalf(DoubleToFloatRoundToOdd(v));
    else return FloatToHalf(v);
  } else if constexpr (std::is_same_v<Dst, BFloat16>) {
    if constexpr (std::is_same_v<Src, double>) return FloatToBFloat16(DoubleToFloatRoundToOdd(v));
    else return FloatToBFloat16(v);
  } else {
    return static_cast<Dst>(v);
  }
}

/// Calls fn(aclDataType tag as a C++ type) for the operator's float dtypes.
template <class Fn>
inline void VisitFloatDType(aclDataType dtype, Fn&& fn) {
  switch (dtype) {
    case ACL_FLOAT: fn(float{}); break;
    case ACL_DOUBLE: fn(double{}); break;
    case ACL_FLOAT16: fn(Half{}); break;
    case ACL_BF16: fn(BFloat16{}); break;
    default: break;
  }
}

/// Walks the linear range [begin, begin + count) of the space as runs along the innermost dim:
/// fn(element offset of the run start per operand..., run length, position in the range).
/// Offsets are in elements relative to each operand's `first`.
template <size_t kOps, class Fn>
void ForEachRun(const IterSpace& space, const StridedOperand* const (&ops)[kOps], int64_t begin, int64_t count,
                Fn&& fn) {
  const int inner = space.ndim - 1;
  int64_t index[kMaxDims] = {};
  int64_t rem = begin;
  for (int k = inner; k >= 0; --k) {
    index[k] = rem % space.sizes[k];
    rem /= space.sizes[k];
  }
  int64_t done = 0;
  while (done < count) {
    const int64_t run = std::min<int64_t>(space.sizes[inner] - index[inner], count - done);
    int64_t offsets[kOps];
    for (size_t o = 0; o < kOps; ++o) {
      int64_t off = 0;
      for (int k = 0; k <= inner; ++k) off += index[k] * ops[o]->strides[k];
      offsets[o] = off;
    }
    fn(offsets, run, done);
    done += run;
    index[inner] += run;
    for (int k = inner; k > 0 && index[k] == space.sizes[k]; --k) {
      index[k] = 0;
      ++index[k - 1];
    }
  }
}

/// Rows (runs along the innermost dim) whose elements lie this many elements apart or more are
/// copied in blocks of kRowBlock rows, column by column: the rows of a transposed view start at
/// neighbouring addresses, so each cache line fetched serves kRowBlock elements at once instead of one.
inline constexpr int64_t kWideStride = 16;
inline constexpr int kRowBlock = 16;
/// How far ahead (in columns) CopyRowGroup prefetches the wide side's lines.
inline constexpr int64_t kPrefetchColumns = 64;

/// Walks [begin, begin + count) like ForEachRun, but hands consecutive runs of equal length to
/// @p block_fn in groups of up to kRowBlock: block_fn(offsets, positions, rows, run).
template <class BlockFn>
void ForEachRowBlock(const IterSpace& space, const StridedOperand& op, int64_t begin, int64_t count, BlockFn&& block_fn) {
  const StridedOperand* const ops[1] = {&op};
  int64_t offsets[kRowBlock];
  int64_t positions[kRowBlock];
  int rows = 0;
  int64_t block_run = 0;
  auto flush = [&] {
    if (rows > 0) block_fn(offsets, positions, rows, block_run);
    rows = 0;
  };
  ForEachRun(space, ops, begin, count, [&](const int64_t* offs, int64_t run, int64_t pos) {
    if (run != block_run) flush();
    block_run = run;
    offsets[rows] = offs[0];
    positions[rows] = pos;
    if (++rows == kRowBlock) flush();
  });
  flush();
}

/// Copies a group of rows between a wide-stride side and a dense side: element i of row r is at
/// wide + wide_offsets[r] + i * wide_stride and at dense + dense_positions[r] + i. Columns go in
/// blocks of kRowBlock so that every cache line of the wide side is used whole while in L1.
/// kGather: wide -> dense; else dense -> wide. fp32 rows that are adjacent elements of the wide
/// side (a transposed view) go N by N through the SIMD target's transposing copies.
template <bool kGather, class Wide, class Dense>
void CopyRowGroup(Wide* wide, int64_t wide_stride, const int64_t* wide_offsets, Dense* dense,
                  const int64_t* dense_positions, int rows, int64_t run) {
  using To = std::conditional_t<kGather, Dense, Wide>;
  bool evenly_spaced = true;
  for (int r = 2; r < rows; ++r) {
    evenly_spaced &= wide_offsets[r] - wide_offsets[r - 1] == wide_offsets[1] - wide_offsets[0];
  }
  const int64_t row_step = rows > 1 ? wide_offsets[1] - wide_offsets[0] : 0;
  int first_row = 0;  // rows before it are done
  if constexpr (std::is_same_v<std::remove_const_t<Wide>, float> && std::is_same_v<std::remove_const_t<Dense>, float>) {
    const TransposeFloatKernels& transpose = ChosenTransposeFloatKernels();
    const int n = transpose.rows;
    if (n > 1 && evenly_spaced && row_step == 1 && rows >= n) {
      const int tiled_rows = rows / n * n;
      float* const dense_base = const_cast<float*>(dense);  // written only when gathering
      float* const wide_base = const_cast<float*>(wide);    // written only when scattering
      const TransposeFloatFn copy = kGather ? transpose.gather : transpose.scatter;
      int64_t start = 0;  // columns before it are done
      if (kGather && transpose.gather16 != nullptr && tiled_rows == 16) {  // Note [Whole lines both ways]
        float* dense_rows[16];
        for (int k = 0; k < 16; ++k) dense_rows[k] = dense_base + dense_positions[k];
        start = run / 16 * 16;
        transpose.gather16(wide_base + wide_offsets[0], wide_stride, dense_rows, start);
      }
      for (int64_t i0 = start; i0 < run; i0 += kRowBlock) {
        const int64_t cols = std::min<int64_t>(kRowBlock, run - i0) / n * n;
        for (int64_t c = i0 + kPrefetchColumns; c < std::min<int64_t>(i0 + kPrefetchColumns + kRowBlock, run); ++c) {
          const float* line = wide_base + wide_offsets[0] + c * wide_stride;
          __builtin_prefetch(line, kGather ? 0 : 1);
          __builtin_prefetch(line + tiled_rows - 1, kGather ? 0 : 1);
        }
        for (int r = 0; r < tiled_rows; r += n) {
          float* dense_rows[8];
          for (int k = 0; k < n; ++k) dense_rows[k] = dense_base + dense_positions[r + k] + i0;
          copy(wide_base + wide_offsets[r] + i0 * wide_stride, wide_stride, dense_rows, cols);
        }
      }
      // Left: the last run % n columns of the tiled rows, and all of the rows after them.
      for (int r = 0; r < tiled_rows; ++r) {
        Wide* w = wide + wide_offsets[r];
        Dense* d = dense + dense_positions[r];
        for (int64_t i = run / n * n; i < run; ++i) {
          if constexpr (kGather) {
            d[i] = w[i * wide_stride];
          } else {
            w[i * wide_stride] = d[i];
          }
        }
      }
      first_row = tiled_rows;
    }
  }
  for (int64_t i0 = 0; i0 < run; i0 += kRowBlock) {
    const int64_t i1 = std::min<int64_t>(i0 + kRowBlock, run);
    for (int r = first_row; r < rows; ++r) {
      Wide* w = wide + (evenly_spaced ? wide_offsets[0] + r * row_step : wide_offsets[r]);
      Dense* d = dense + dense_positions[r];
      for (int64_t i = i0; i < i1; ++i) {
        if constexpr (kGather) {
          d[i] = ConvertElement<To>(w[i * wide_stride]);
        } else {
          w[i * wide_stride] = ConvertElement<To>(d[i]);
        }
      }
    }
  }
}

/// Copies elements [begin, begin + count) of the space from @p src into @p dst (contiguous),
/// converting to Dst.
template <class Dst>
void GatherRange(const IterSpace& space, const StridedOperand& src, int64_t begin, int64_t count, Dst* dst) {
  const StridedOperand* const ops[1] = {&src};
  const int64_t stride = src.strides[space.ndim - 1];
  VisitFloatDType(src.dtype, [&](auto tag) {
    using Src = decltype(tag);
    const Src* base = reinterpret_cast<const Src*>(src.first);
    if (stride >= kWideStride) {
      ForEachRowBlock(space, src, begin, count,
                      [&](const int64_t* offsets, const int64_t* positions, int rows, int64_t run) {
                        CopyRowGroup<true>(base, stride, offsets, dst, positions, rows, run);
                      });
      return;
    }
    ForEachRun(space, ops, begin, count, [&](const int64_t* offsets, int64_t run, int64_t pos) {
      const Src* s = base + offsets[0];
      Dst* d = dst + pos;
      if constexpr (std::is_same_v<Src, Dst>) {
        if (stride == 1) {
          std::memcpy(d, s, static_cast<size_t>(run) * sizeof(Dst));
          return;
        }
      }
      if (stride == 0) {
        const Dst v = ConvertElement<Dst>(s[0]);
        for (int64_t i = 0; i < run; ++i) d[i] = v;
      } else {
        for (int64_t i = 0; i < run; ++i) d[i] = ConvertElement<Dst>(s[i * stride]);
      }
    });
  });
}

/// Copies @p count contiguous elements of @p src into elements [begin, begin + count) of the
/// space of @p dst, converting to dst's dtype. Writes only the elements of that range.
template <class Src>
void ScatterRange(const IterSpace& space, const Src* src, const StridedOperand& dst, int64_t begin, int64_t count) {
  const StridedOperand* const ops[1] = {&dst};
  const int64_t stride = dst.strides[space.ndim - 1];
  VisitFloatDType(dst.dtype, [&](auto tag) {
    using Dst = decltype(tag);
    Dst* base = reinterpret_cast<Dst*>(const_cast<char*>(dst.first));
    if (stride >= kWideStride) {
      ForEachRowBlock(space, dst, begin, count,
                      [&](const int64_t* offsets, const int64_t* positions, int rows, int64_t run) {
                        CopyRowGroup<false>(base, stride, offsets, src, positions, rows, run);
                      });
      return;
    }
    ForEachRun(space, ops, begin, count, [&](const int64_t* offsets, int64_t run, int64_t pos) {
      Dst* d = base + offsets[0];
      const Src* s = src + pos;
      if constexpr (std::is_same_v<Src, Dst>) {
        if (stride == 1) {
          std::memcpy(d, s, static_cast<size_t>(run) * sizeof(Dst));
          return;
        }
      }
      for (int64_t i = 0; i < run; ++i) d[i * stride] = ConvertElement<Dst>(s[i]);
    });
  });
}

}  // namespace aclnn_cpu
