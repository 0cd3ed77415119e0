#include "common/shape.h"

#include <algorithm>

namespace aclnn_cpu {

std::optional<int64_t> CheckedNumel(std::span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return std::nullopt;
    if (d == 0) {
      n = 0;
      continue;
    }
    if (n != 0 && __builtin_mul_overflow(n, d, &n)) {
      // A later zero dim still makes the product 0.
      if (std::find(dims.begin(), dims.end(), int64_t{0}) != dims.end()) return int64_t{0};
      return std::nullopt;
    }
  }
  return n;
}

std::optional<DimVector> BroadcastShapes(const DimVector& a, const DimVector& b) {
  DimVector out;
  out.rank = std::max(a.rank, b.rank);
  for (int i = 0; i < out.rank; ++i) {
    const int ia = a.rank - 1 - i;
    const int ib = b.rank - 1 - i;
    const int64_t da = ia >= 0 ? a.v[ia] : 1;
    const int64_t db = ib >= 0 ? b.v[ib] : 1;
    int64_t d;
    if (da == db || db == 1) {
      d = da;
    } else if (da == 1) {
      d = db;
    } else {
      return std::nullopt;
    }
    out.v[out.rank - 1 - i] = d;
  }
  return out;
}

DimVector BroadcastStrides(const DimVector& dims, const DimVector& strides, const DimVector& target) {
  DimVector out;
  out.rank = target.rank;
  for (int i = 0; i < target.rank; ++i) {
    const int src = dims.rank - target.rank + i;
    out.v[i] = (src < 0 || dims.v[src] == 1) ? 0 : strides.v[src];
  }
  return out;
}

}  // namespace aclnn_cpu
