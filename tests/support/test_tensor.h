// Test support for any operator or runtime test that goes through the public C API: tensors over
// poisoned device storage, owned aclTensor handles, device buffers, and the checks every test of
// "what was written" needs. Operator-specific support (problems, references) lives in each
// operator's tests and builds on this.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_cpu.h"
#include "aclnn/acl_meta.h"
#include "client/two_phase_call.h"

namespace acl_test {

/// Storage is filled with this byte before a run: all-ones bits decode as NaN in fp16, bf16, fp32
/// and fp64, so an element the operator failed to write stands out.
inline constexpr uint8_t kPoisonByte = 0xFF;

/// A host-side tensor: storage (from aclrtMalloc, poisoned) + view. Element values are set and
/// read as double and stored with one rounding to the dtype.
class TestTensor {
 public:
  /// A contiguous tensor of @p dims.
  TestTensor(std::vector<int64_t> dims, aclDataType dtype);
  /// A view with explicit strides and offset over a storage of @p storage_elems elements.
  TestTensor(std::vector<int64_t> dims, std::vector<int64_t> strides, int64_t offset, int64_t storage_elems,
             aclDataType dtype);
  ~TestTensor();
  TestTensor(const TestTensor&) = delete;
  TestTensor& operator=(const TestTensor&) = delete;

  /// The aclTensor (created on first use, destroyed with this object).
  aclTensor* get();
  aclTensor* get() const { return const_cast<TestTensor*>(this)->get(); }

  int64_t numel() const;
  const std::vector<int64_t>& dims() const { return dims_; }
  aclDataType dtype() const { return dtype_; }
  /// Storage index of view element @p linear (row-major over the view dims).
  int64_t StorageIndex(int64_t linear) const;

  /// Sets view element @p linear (rounded once to the dtype).
  void Set(int64_t linear, double value);
  /// Reads view element @p linear exactly.
  double Get(int64_t linear) const;
  /// Reads storage element @p index exactly.
  double GetStorage(int64_t index) const;
  /// Fills the view with values drawn uniformly from [lo, hi) by @p rng.
  void FillUniform(std::mt19937_64& rng, double lo, double hi);
  /// Fills the whole storage (inside and outside the view) with the poison byte.
  void Poison();
  /// Raw storage bytes (for untouched-byte checks).
  std::vector<uint8_t> StorageBytes() const;
  int64_t storage_elems() const { return storage_elems_; }
  void* data() const { return data_; }

 private:
  std::vector<int64_t> dims_, strides_;
  int64_t offset_ = 0;
  int64_t storage_elems_ = 0;
  aclDataType dtype_;
  void* data_ = nullptr;
  aclTensor* tensor_ = nullptr;
};

struct TensorDeleter {
  void operator()(aclTensor* t) const { aclDestroyTensor(t); }
};
/// An aclTensor owned by the test (destroyed with the handle).
using TensorHandle = std::unique_ptr<aclTensor, TensorDeleter>;

/// A second aclTensor over @p base's storage: view @p dims / @p strides / @p offset, in
/// @p format, with storageDims = [base's storage elements].
TensorHandle ViewOver(const TestTensor& base, const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
                      int64_t offset, aclFormat format = ACL_FORMAT_ND);

/// A second aclTensor over a contiguous @p base, the way CANN's samples make one: view dims as
/// storage dims, no strides, in @p format.
TensorHandle ContiguousOver(const TestTensor& base, aclFormat format = ACL_FORMAT_ND);

/// Device memory of @p size bytes (nothing for 0); a test failure when it cannot be had.
class DeviceBuffer : public aclnn_cpu::DeviceMemory {
 public:
  explicit DeviceBuffer(uint64_t size) { EXPECT_EQ(Reserve(size), ACL_SUCCESS); }
};

/// Element of a broadcast operand that feeds view element @p linear of @p self_dims (numpy rules).
double BroadcastGet(const TestTensor& operand, const std::vector<int64_t>& self_dims, int64_t linear);

/// Fills the view of @p t with values drawn uniformly from [lo, hi) by a generator seeded with @p seed.
void FillRandom(TestTensor& t, uint64_t seed, double lo, double hi);

/// Sets every view element of @p t to @p value.
void FillConstant(TestTensor& t, double value);

/// Leaves a known message in aclGetRecentErrMsg() that names no operator parameter, so that a
/// later check of the message sees the message of the call under test, not a stale one.
void PrimeRecentErrMsg();

/// Index of the first byte where @p a and @p b differ, or -1 when equal (0 when sizes differ).
int64_t FirstDifference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b);

/// Whether the view elements of @p a and @p b (same dims and dtype) have identical bits.
::testing::AssertionResult SameViewBits(const TestTensor& a, const TestTensor& b);

/// Restores the default thread count (aclnnCpuSetNumThreads(0)) when a test ends, however it ends.
class ThreadCountGuard {
 public:
  ThreadCountGuard() = default;
  ~ThreadCountGuard() { aclnnCpuSetNumThreads(0); }
  ThreadCountGuard(const ThreadCountGuard&) = delete;
  ThreadCountGuard& operator=(const ThreadCountGuard&) = delete;
};

}  // namespace acl_test
