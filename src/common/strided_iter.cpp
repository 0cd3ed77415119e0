#include "common/strided_iter.h"

namespace aclnn_cpu {

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
