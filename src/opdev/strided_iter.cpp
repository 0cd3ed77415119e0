#include "opdev/strided_iter.h"

namespace aclnn_cpu {

namespace {

/// Whether dim @p outer must move inside dim @p inner: +1 yes, -1 no, 0 when no operand tells.
int CompareDims(const IterSpace& space, std::span<StridedOperand* const> operands, int outer, int inner) {
  if (space.sizes[outer] == 1 || space.sizes[inner] == 1) return 0;  // a size-1 dim has no stride
  for (const StridedOperand* op : operands) {
    const int64_t outer_stride = op->strides[outer];
    const int64_t inner_stride = op->strides[inner];
    if (outer_stride == 0 || inner_stride == 0 || outer_stride == inner_stride) continue;
    return outer_stride < inner_stride ? 1 : -1;
  }
  return 0;
}

}  // namespace

void ReorderDims(IterSpace& space, std::span<StridedOperand* const> operands) {
  // Insertion sort from the innermost dim outwards, as TensorIterator does: a dim moves inwards
  // past each neighbour it must be inside of and stops at the first it must not, so dims that
  // no operand tells apart keep their relative order. The comparison is not a strict weak order
  // across operands (operand 1 may decide a-b, operand 2 b-c), which rules out std::sort; at most
  // 8 dims make the quadratic sort free.
  int perm[kMaxDims];  // perm[k]: the original dim now at position k
  for (int k = 0; k < space.ndim; ++k) perm[k] = k;
  bool moved = false;
  for (int i = space.ndim - 2; i >= 0; --i) {
    int moving = i;  // where the dim being inserted is now; it jumps over dims it cannot be
                     // compared with (a broadcast or size-1 dim) and swaps with the next one
    for (int k = i + 1; k < space.ndim; ++k) {
      const int c = CompareDims(space, operands, perm[moving], perm[k]);
      if (c > 0) {
        std::swap(perm[moving], perm[k]);
        moving = k;
        moved = true;
      } else if (c < 0) {
        break;
      }
    }
  }
  if (!moved) return;  // the common case (row-major operands) costs only the comparisons
  IterSpace reordered = space;
  for (int k = 0; k < space.ndim; ++k) reordered.sizes[k] = space.sizes[perm[k]];
  space = reordered;
  for (StridedOperand* op : operands) {
    int64_t strides[kMaxDims];
    for (int k = 0; k < space.ndim; ++k) strides[k] = op->strides[perm[k]];
    std::copy_n(strides, space.ndim, op->strides);
  }
}

void CoalesceDims(IterSpace& space, std::span<StridedOperand*> operands) {
  // Drop size-1 dims (their stride never matters).
  int n = 0;
  for (int k = 0; k < space.ndim; ++k) {
    if (space.sizes[k] == 1) continue;
    space.sizes[n] = space.sizes[k];
    for (StridedOperand* op : operands) op->strides[n] = op->strides[k];
    ++n;
  }
  if (n == 0) {  // a scalar space
    space.ndim = 1;
    space.sizes[0] = 1;
    for (StridedOperand* op : operands) op->strides[0] = 0;
    return;
  }
  // Merge dim k-1 into dim k (inner) when every operand steps through both as one.
  int out = 0;
  for (int k = 1; k < n; ++k) {
    bool mergeable = true;
    for (StridedOperand* op : operands) {
      if (op->strides[out] != op->strides[k] * space.sizes[k]) {
        mergeable = false;
        break;
      }
    }
    if (mergeable) {
      space.sizes[out] *= space.sizes[k];
      for (StridedOperand* op : operands) op->strides[out] = op->strides[k];
    } else {
      ++out;
      space.sizes[out] = space.sizes[k];
      for (StridedOperand* op : operands) op->strides[out] = op->strides[k];
    }
  }
  space.ndim = out + 1;
}

bool IsDense(const IterSpace& space, const StridedOperand& op) {
  int64_t expected = 1;
  for (int k = space.ndim - 1; k >= 0; --k) {
    if (space.sizes[k] != 1 && op.strides[k] != expected) return false;
    expected *= space.sizes[k];
  }
  return true;
}

bool IsBroadcastScalar(const IterSpace& space, const StridedOperand& op) {
  for (int k = 0; k < space.ndim; ++k) {
    if (space.sizes[k] != 1 && op.strides[k] != 0) return false;
  }
  return true;
}

}  // namespace aclnn_cpu
