#include "test_tensor.h"

#include <algorithm>
#include <cstring>

#include "common/dtype.h"
#include "dims.h"

namespace acl_test {
TestTensor::TestTensor(std::vector<int64_t> dims, aclDataType dtype)
    : TestTensor(dims, ContiguousStrides(dims), 0, std::max<int64_t>(Numel(dims), 1), dtype) {}

TestTensor::TestTensor(std::vector<int64_t> dims, std::vector<int64_t> strides, int64_t offset,
                       int64_t storage_elems, aclDataType dtype)
    : dims_(std::move(dims)), strides_(std::move(strides)), offset_(offset), storage_elems_(storage_elems),
      dtype_(dtype) {
  const size_t bytes = static_cast<size_t>(std::max<int64_t>(storage_elems_, 1)) * aclDataTypeSize(dtype_);
  EXPECT_EQ(aclrtMalloc(&data_, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  Poison();
}

TestTensor::~TestTensor() {
  if (tensor_ != nullptr) aclDestroyTensor(tensor_);
  if (data_ != nullptr) aclrtFree(data_);
}

aclTensor* TestTensor::get() {
  if (tensor_ == nullptr) {
    const int64_t storage_dims[1] = {storage_elems_};
    tensor_ = aclCreateTensor(dims_.data(), dims_.size(), dtype_, strides_.data(), offset_, ACL_FORMAT_ND,
                              storage_dims, 1, data_);
    EXPECT_NE(tensor_, nullptr) << aclGetRecentErrMsg();
  }
  return tensor_;
}

int64_t TestTensor::numel() const { return Numel(dims_); }

int64_t TestTensor::StorageIndex(int64_t linear) const {
  int64_t index = offset_;
  for (size_t k = dims_.size(); k-- > 0;) {
    index += (linear % dims_[k]) * strides_[k];
    linear /= dims_[k];
  }
  return index;
}

void TestTensor::Set(int64_t linear, double value) {
  aclnn_cpu::StoreFromDouble(data_, dtype_, StorageIndex(linear), value);
}

double TestTensor::Get(int64_t linear) const { return GetStorage(StorageIndex(linear)); }

double TestTensor::GetStorage(int64_t index) const { return aclnn_cpu::LoadAsDouble(data_, dtype_, index); }

void TestTensor::FillUniform(std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> dist(lo, hi);
  for (int64_t i = 0; i < numel(); ++i) Set(i, dist(rng));
}

void TestTensor::Poison() {
  std::memset(data_, kPoisonByte, static_cast<size_t>(std::max<int64_t>(storage_elems_, 1)) * aclDataTypeSize(dtype_));
}

std::vector<uint8_t> TestTensor::StorageBytes() const {
  const size_t bytes = static_cast<size_t>(std::max<int64_t>(storage_elems_, 1)) * aclDataTypeSize(dtype_);
  std::vector<uint8_t> out(bytes);
  std::memcpy(out.data(), data_, bytes);
  return out;
}

TensorHandle ViewOver(const TestTensor& base, const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
                      int64_t offset, aclFormat format) {
  const int64_t storage_dims[1] = {base.storage_elems()};
  aclTensor* t = aclCreateTensor(dims.data(), dims.size(), base.dtype(), strides.data(), offset, format,
                                 storage_dims, 1, base.data());
  EXPECT_NE(t, nullptr) << aclGetRecentErrMsg();
  return TensorHandle(t);
}

TensorHandle ContiguousOver(const TestTensor& base, aclFormat format) {
  const auto& dims = base.dims();
  aclTensor* t = aclCreateTensor(dims.data(), dims.size(), base.dtype(), nullptr, 0, format, dims.data(),
                                 dims.size(), base.data());
  EXPECT_NE(t, nullptr) << aclGetRecentErrMsg();
  return TensorHandle(t);
}

void FillRandom(TestTensor& t, uint64_t seed, double lo, double hi) {
  std::mt19937_64 rng(seed);
  t.FillUniform(rng, lo, hi);
}

void FillConstant(TestTensor& t, double value) {
  for (int64_t i = 0; i < t.numel(); ++i) t.Set(i, value);
}

void PrimeRecentErrMsg() {
  ASSERT_EQ(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_STREQ(aclGetRecentErrMsg(), "aclrtFree: devPtr is null");
}

int64_t FirstDifference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  if (a.size() != b.size()) return 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return static_cast<int64_t>(i);
  }
  return -1;
}

::testing::AssertionResult SameViewBits(const TestTensor& a, const TestTensor& b) {
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

double BroadcastGet(const TestTensor& operand, const std::vector<int64_t>& self_dims, int64_t linear) {
  const auto& od = operand.dims();
  int64_t op_linear = 0;
  int64_t op_stride = 1;
  int64_t rem = linear;
  for (size_t k = self_dims.size(); k-- > 0;) {
    const int64_t idx = rem % self_dims[k];
    rem /= self_dims[k];
    const ptrdiff_t ok = static_cast<ptrdiff_t>(k) - static_cast<ptrdiff_t>(self_dims.size() - od.size());
    if (ok < 0) continue;
    const int64_t size = od[static_cast<size_t>(ok)];
    op_linear += (size == 1 ? 0 : idx) * op_stride;
    op_stride *= size;
  }
  return operand.Get(op_linear);
}

}  // namespace acl_test
