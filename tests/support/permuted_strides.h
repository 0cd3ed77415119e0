// Strides of dense blocks stored in a permuted dim order (a transpose, channels-last), for tests
// of layouts and of the iteration space.
#pragma once

#include <cstdint>
#include <vector>

namespace test_support {

/// Strides of a dense block of @p sizes stored in the dim order @p storage_order (outermost first).
inline std::vector<int64_t> PermutedDense(const std::vector<int64_t>& sizes, const std::vector<int>& storage_order) {
  std::vector<int64_t> strides(sizes.size());
  int64_t step = 1;
  for (size_t k = storage_order.size(); k-- > 0;) {
    strides[static_cast<size_t>(storage_order[k])] = step;
    step *= sizes[static_cast<size_t>(storage_order[k])];
  }
  return strides;
}

}  // namespace test_support
