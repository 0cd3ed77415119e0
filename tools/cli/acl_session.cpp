#include "acl_session.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <utility>

#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"
#include "common/dtype.h"
#include "common/error.h"
#include "common/shape.h"

namespace aclnn_bce_cli {

namespace {
void Check(int status, const char* call) {
  if (status != 0) throw AclFailure(call, status);
}

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

/// Device memory released on scope exit (the workspace).
class DeviceMemory {
 public:
  explicit DeviceMemory(uint64_t bytes) {
    if (bytes > 0) Check(aclrtMalloc(&data_, bytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
  }
  ~DeviceMemory() {
    if (data_ != nullptr) aclrtFree(data_);
  }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  void* get() const { return data_; }

 private:
  void* data_ = nullptr;
};
}  // namespace

AclFailure::AclFailure(const std::string& call, int status)
    : std::runtime_error(call + " failed with status " + std::to_string(status) + ": " + aclGetRecentErrMsg()) {}

AclFailure::AclFailure(const std::string& call)
    : std::runtime_error(call + " failed: " + aclGetRecentErrMsg()) {}

AclSession::AclSession() {
  Check(aclInit(nullptr), "aclInit");
  Check(aclrtSetDevice(kDeviceId), "aclrtSetDevice");
  Check(aclrtCreateStream(&stream_), "aclrtCreateStream");
}

AclSession::~AclSession() {
  aclrtDestroyStream(stream_);
  aclrtResetDevice(kDeviceId);
  aclFinalize();
}

DeviceTensor::DeviceTensor(std::vector<int64_t> dims, aclDataType dtype) : dims_(std::move(dims)), dtype_(dtype) {
  const auto numel = aclnn_cpu::CheckedNumel(dims_);
  const size_t element_bytes = aclDataTypeSize(dtype_);
  if (!numel || element_bytes == 0 || static_cast<uint64_t>(*numel) > SIZE_MAX / element_bytes) {
    throw std::invalid_argument("tensor of shape " + aclnn_cpu::FormatDims(dims_) + " and dtype " +
                                aclnn_cpu::DTypeName(dtype_) + " is too large");
  }
  numel_ = *numel;
  host_.assign(static_cast<size_t>(numel_) * element_bytes, 0);
  if (!host_.empty()) Check(aclrtMalloc(&device_, host_.size(), ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
  // Null strides: contiguous.
  tensor_ = aclCreateTensor(dims_.data(), dims_.size(), dtype_, nullptr, 0, kFormat, dims_.data(), dims_.size(),
                            device_);
  if (tensor_ == nullptr) {
    if (device_ != nullptr) aclrtFree(device_);
    throw AclFailure("aclCreateTensor");
  }
}

DeviceTensor::~DeviceTensor() {
  aclDestroyTensor(tensor_);
  if (device_ != nullptr) aclrtFree(device_);
}

void DeviceTensor::Set(int64_t index, double value) { aclnn_cpu::StoreFromDouble(host_.data(), dtype_, index, value); }

double DeviceTensor::Get(int64_t index) const { return aclnn_cpu::LoadAsDouble(host_.data(), dtype_, index); }

void DeviceTensor::Upload() {
  if (host_.empty()) return;
  Check(aclrtMemcpy(device_, host_.size(), host_.data(), host_.size(), ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy");
}

void DeviceTensor::Download() {
  if (host_.empty()) return;
  Check(aclrtMemcpy(host_.data(), host_.size(), device_, host_.size(), ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy");
}

BackwardTiming RunBackward(const BackwardCall& call, aclrtStream stream) {
  BackwardTiming timing;
  aclOpExecutor* executor = nullptr;
  auto start = std::chrono::steady_clock::now();
  Check(aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
            call.grad_output->get(), call.self->get(), call.target->get(),
            call.weight != nullptr ? call.weight->get() : nullptr,
            call.pos_weight != nullptr ? call.pos_weight->get() : nullptr, call.reduction, call.out->get(),
            &timing.workspace_bytes, &executor),
        "aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize");
  timing.first_phase_ms = MillisecondsSince(start);

  std::unique_ptr<DeviceMemory> workspace;  // allocated outside the timed phases
  try {
    workspace = std::make_unique<DeviceMemory>(timing.workspace_bytes);
  } catch (...) {
    aclDestroyAclOpExecutor(executor);
    throw;
  }
  start = std::chrono::steady_clock::now();
  Check(aclnnBinaryCrossEntropyWithLogitsBackward(workspace->get(), timing.workspace_bytes, executor, stream),
        "aclnnBinaryCrossEntropyWithLogitsBackward");
  Check(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
  timing.second_phase_ms = MillisecondsSince(start);
  return timing;
}

}  // namespace aclnn_bce_cli
