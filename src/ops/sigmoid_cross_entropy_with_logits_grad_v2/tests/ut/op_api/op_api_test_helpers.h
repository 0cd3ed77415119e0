// Helpers of the op_api tests beyond the shared ones in common/bce_test_util.h: raw aclTensor
// handles (other formats, second views over one storage), the two phases on raw tensors, and
// storage snapshots for "nothing was written" checks.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/bce_test_util.h"
#include "common/two_phase_call.h"

namespace bce_test {

struct TensorDeleter {
  void operator()(aclTensor* t) const { aclDestroyTensor(t); }
};
/// An aclTensor owned by the test (destroyed with the handle).
using TensorHandle = std::unique_ptr<aclTensor, TensorDeleter>;

/// A second aclTensor over @p base's storage: view @p dims / @p strides / @p offset, in
/// @p format, with storageDims = [base's storage elements].
inline TensorHandle ViewOver(const TestTensor& base, const std::vector<int64_t>& dims,
                             const std::vector<int64_t>& strides, int64_t offset,
                             aclFormat format = ACL_FORMAT_ND) {
  const int64_t storage_dims[1] = {base.storage_elems()};
  aclTensor* t = aclCreateTensor(dims.data(), dims.size(), base.dtype(), strides.data(), offset, format,
                                 storage_dims, 1, base.data());
  EXPECT_NE(t, nullptr) << aclGetRecentErrMsg();
  return TensorHandle(t);
}

/// A second aclTensor over a contiguous @p base, the way CANN's samples make one: view dims as
/// storage dims, no strides, in @p format.
inline TensorHandle ContiguousOver(const TestTensor& base, aclFormat format = ACL_FORMAT_ND) {
  const auto& dims = base.dims();
  aclTensor* t = aclCreateTensor(dims.data(), dims.size(), base.dtype(), nullptr, 0, format, dims.data(),
                                 dims.size(), base.data());
  EXPECT_NE(t, nullptr) << aclGetRecentErrMsg();
  return TensorHandle(t);
}

/// The arguments of the first phase, as raw pointers.
struct RawCall {
  const aclTensor* grad_output = nullptr;
  const aclTensor* self = nullptr;
  const aclTensor* target = nullptr;
  const aclTensor* weight = nullptr;
  const aclTensor* pos_weight = nullptr;
  int64_t reduction = 0;
  aclTensor* out = nullptr;
};

inline aclnnStatus FirstPhase(const RawCall& c, uint64_t* workspace_size, aclOpExecutor** executor) {
  return aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(c.grad_output, c.self, c.target, c.weight,
                                                                   c.pos_weight, c.reduction, c.out,
                                                                   workspace_size, executor);
}

/// Device memory of @p size bytes (nothing for 0); a test failure when it cannot be had.
class DeviceBuffer : public aclnn_cpu::DeviceMemory {
 public:
  explicit DeviceBuffer(uint64_t size) { EXPECT_EQ(Reserve(size), ACL_SUCCESS); }
};

/// Both phases on raw tensors, synchronised; the first non-success status.
inline aclnnStatus RunRaw(const RawCall& c, aclrtStream stream = nullptr) {
  aclnn_cpu::DeviceMemory workspace;
  return aclnn_cpu::CallTwoPhase([&](uint64_t* size, aclOpExecutor** executor) { return FirstPhase(c, size, executor); },
                                 aclnnBinaryCrossEntropyWithLogitsBackward, stream, workspace)
      .status;
}

/// Fills the view of @p t with values drawn uniformly from [lo, hi) by a generator seeded with @p seed.
inline void FillRandom(TestTensor& t, uint64_t seed, double lo, double hi) {
  std::mt19937_64 rng(seed);
  t.FillUniform(rng, lo, hi);
}

/// Sets every view element of @p t to @p value.
inline void FillConstant(TestTensor& t, double value) {
  for (int64_t i = 0; i < t.numel(); ++i) t.Set(i, value);
}

/// Leaves a known message in aclGetRecentErrMsg() that names no operator parameter, so that a
/// later check of the message sees the message of the call under test, not a stale one.
inline void PrimeRecentErrMsg() {
  ASSERT_EQ(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_STREQ(aclGetRecentErrMsg(), "aclrtFree: devPtr is null");
}

/// Index of the first byte where @p a and @p b differ, or -1 when equal (sizes must match).
inline int64_t FirstDifference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  if (a.size() != b.size()) return 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return static_cast<int64_t>(i);
  }
  return -1;
}

/// Whether the view elements of @p a and @p b (same dims and dtype) have identical bits.
inline ::testing::AssertionResult SameViewBits(const TestTensor& a, const TestTensor& b) {
  const size_t size = aclDataTypeSize(a.dtype());
  for (int64_t i = 0; i < a.numel(); ++i) {
    const auto* pa = static_cast<const uint8_t*>(a.data()) + a.StorageIndex(i) * static_cast<int64_t>(size);
    const auto* pb = static_cast<const uint8_t*>(b.data()) + b.StorageIndex(i) * static_cast<int64_t>(size);
    if (std::memcmp(pa, pb, size) != 0) {
      return ::testing::AssertionFailure() << "element " << i << " differs: " << a.Get(i) << " vs " << b.Get(i);
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace bce_test
