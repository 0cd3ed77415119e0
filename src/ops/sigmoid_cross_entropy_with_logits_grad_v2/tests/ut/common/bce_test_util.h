// Shared helpers of the unit tests: tensors over poisoned storage, a float64 reference of the
// operator, and an error bound per output dtype.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"

namespace bce_test {

/// Storage is filled with this byte before a run: all-ones bits decode as NaN in fp16, bf16, fp32
/// and fp64, so an element the operator failed to write stands out.
inline constexpr uint8_t kPoisonByte = 0xFF;

/// A host-side tensor: storage (from aclrtMalloc) + view. Element values are set and read as
/// double and stored with one rounding to the dtype.
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

/// Inputs and reduction of one end-to-end call.
struct Problem {
  TestTensor* grad_output;
  TestTensor* self;
  TestTensor* target;
  TestTensor* weight = nullptr;
  TestTensor* pos_weight = nullptr;
  int64_t reduction = 0;
  TestTensor* out;
};

/// Runs both phases on @p stream (synchronised). Returns the first non-success status.
aclnnStatus RunOperator(const Problem& p, aclrtStream stream = nullptr);

/// Checks every element of out against the float64 reference with ErrorBound; broadcasting of
/// gradOutput / weight / pos_weight follows numpy rules. Returns the number of mismatches
/// (each also reported through gtest with its index), and the max error in units of the bound.
struct CheckResult {
  int64_t mismatches = 0;
  double max_error_over_bound = 0;
};
CheckResult CheckAgainstReference(const Problem& p);

/// Element of a broadcast operand that feeds view element @p linear of @p self_dims.
double BroadcastGet(const TestTensor& operand, const std::vector<int64_t>& self_dims, int64_t linear);

}  // namespace bce_test
