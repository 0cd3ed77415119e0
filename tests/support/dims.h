// Shape helpers of the tests: element counts, row-major strides, shape text.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

namespace acl_test {

/// Elements of a shape (1 for a 0-dim shape).
inline int64_t Numel(const std::vector<int64_t>& dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
}

/// Row-major strides of a dense tensor of @p dims (a 0 dim counts as 1).
inline std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size());
  int64_t s = 1;
  for (size_t k = dims.size(); k-- > 0;) {
    strides[k] = s;
    s *= std::max<int64_t>(dims[k], 1);
  }
  return strides;
}

/// "[2,3,4]".
inline std::string DimsText(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i != 0) s += ',';
    s += std::to_string(dims[i]);
  }
  s += ']';
  return s;
}

}  // namespace acl_test
