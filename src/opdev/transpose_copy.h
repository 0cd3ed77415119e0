// Transposing copies of fp32 blocks, compiled once per SIMD target and chosen at run time
// (Highway's dynamic dispatch), for the staged copies of transposed views (CopyRowGroup).
#pragma once

#include <cstdint>

namespace aclnn_cpu {

/// Copies an N x cols block between N rows that are adjacent elements of a wide-stride side (a
/// transposed view: row r + 1 starts one element after row r) and N dense rows:
///   gather:  dense_rows[r][c] = wide[c * wide_stride + r]
///   scatter: wide[c * wide_stride + r] = dense_rows[r][c]
/// for r < N and c < cols; cols must be a multiple of N. Writes nothing else.
using TransposeFloatFn = void (*)(float* wide, int64_t wide_stride, float* const* dense_rows, int64_t cols);

/// The transposing copies of one SIMD target: N = rows (8 where 256-bit vectors exist, 4 on
/// 128-bit targets, 1 when the target has no vectors: then use plain element copies).
struct TransposeFloatKernels {
  int rows = 1;
  TransposeFloatFn gather = nullptr;
  TransposeFloatFn scatter = nullptr;
  /// gather of 16 rows at once, cols a multiple of 16, where the target has 512-bit vectors (else
  /// null): every 64-byte line of the wide side is read once, whole, and every dense row gets
  /// whole lines (Note [Whole lines both ways]).
  TransposeFloatFn gather16 = nullptr;
  const char* target_name = "";
};

/// The kernels of the best target of this machine (or of the targets a test allows).
const TransposeFloatKernels& ChosenTransposeFloatKernels();

}  // namespace aclnn_cpu
