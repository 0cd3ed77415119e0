#include "common/bce_test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "common/dtype.h"
#include "common/two_phase_call.h"
#include "op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_reference.h"

namespace bce_test {

using aclnn_cpu::bce_grad::ComputeReferenceTerms;
using aclnn_cpu::bce_grad::ReferenceErrorBound;
using aclnn_cpu::bce_grad::ReferenceGradient;
using aclnn_cpu::bce_grad::ReferenceTerms;

namespace {
std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size());
  int64_t s = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = s;
    s *= std::max<int64_t>(dims[i], 1);
  }
  return strides;
}
int64_t Product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}
}  // namespace

TestTensor::TestTensor(std::vector<int64_t> dims, aclDataType dtype)
    : TestTensor(dims, ContiguousStrides(dims), 0, std::max<int64_t>(Product(dims), 1), dtype) {}

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

int64_t TestTensor::numel() const { return Product(dims_); }

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

aclnnStatus RunOperator(const Problem& p, aclrtStream stream) {
  aclnn_cpu::DeviceMemory workspace;
  return aclnn_cpu::CallTwoPhase(
             [&](uint64_t* workspace_size, aclOpExecutor** executor) {
               return aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
                   p.grad_output->get(), p.self->get(), p.target->get(), p.weight ? p.weight->get() : nullptr,
                   p.pos_weight ? p.pos_weight->get() : nullptr, p.reduction, p.out->get(), workspace_size, executor);
             },
             aclnnBinaryCrossEntropyWithLogitsBackward, stream, workspace)
      .status;
}

CheckResult CheckAgainstReference(const Problem& p) {
  CheckResult result;
  const auto& dims = p.self->dims();
  const int64_t n = p.self->numel();
  bool any_double = false;
  for (const TestTensor* t : {p.grad_output, p.self, p.target, p.weight, p.pos_weight}) {
    if (t != nullptr && t->dtype() == ACL_DOUBLE) any_double = true;
  }
  const aclDataType compute = any_double ? ACL_DOUBLE : ACL_FLOAT;
  // The kernel multiplies by 1/N rounded to the compute type.
  const double scale = p.reduction == 1 ? (compute == ACL_DOUBLE ? 1.0 / static_cast<double>(n)
                                                                 : static_cast<double>(static_cast<float>(1.0 / static_cast<double>(n))))
                                        : 1.0;
  for (int64_t i = 0; i < n; ++i) {
    const double x = p.self->Get(i);
    const double y = p.target->Get(i);
    const double dout = BroadcastGet(*p.grad_output, dims, i);
    std::optional<double> w, pw;
    if (p.weight) w = BroadcastGet(*p.weight, dims, i);
    if (p.pos_weight) pw = BroadcastGet(*p.pos_weight, dims, i);
    const ReferenceTerms t = ComputeReferenceTerms(x, y, dout, w, pw, scale);
    const double got = p.out->Get(i);
    const double bound = ReferenceErrorBound(t, compute, p.out->dtype());
    const double err = std::fabs(got - t.g);
    const bool ok = (std::isnan(t.g) && std::isnan(got)) || err <= bound ||
                    (std::isinf(t.g) && got == t.g);
    if (!ok) {
      if (result.mismatches < 10) {
        ADD_FAILURE() << "element " << i << ": got " << got << ", float64 reference " << t.g << " (x=" << x
                      << " y=" << y << " dout=" << dout << "), error " << err << " > bound " << bound;
      }
      ++result.mismatches;
    }
    if (bound > 0 && std::isfinite(err)) result.max_error_over_bound = std::max(result.max_error_over_bound, err / bound);
  }
  return result;
}

}  // namespace bce_test
