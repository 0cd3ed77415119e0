#include "acl_session.h"

#include <chrono>
#include <cstdint>
#include <utility>

#include "common/dtype.h"
#include "common/error.h"
#include "common/shape.h"
#include "client/two_phase_call.h"

namespace aclnn_bce_cli {

namespace {
void Check(int status, const char* call) {
  if (status != 0) throw AclFailure(call, status);
}

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

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

namespace {

/// Both phases of one call on @p stream, each timed from inside its own step (so the workspace
/// allocation between them is in neither; the second phase's time includes the synchronize).
/// A failure throws with the name of the failed function.
template <class FirstPhase, class SecondPhase>
CallTiming TimeTwoPhase(FirstPhase first_phase, SecondPhase second_phase, const char* first_name,
                            const char* second_name, aclrtStream stream) {
  CallTiming timing;
  aclnn_cpu::DeviceMemory workspace;
  std::chrono::steady_clock::time_point second_start;
  const aclnn_cpu::TwoPhaseResult r = aclnn_cpu::CallTwoPhase(
      [&](uint64_t* workspace_size, aclOpExecutor** executor) {
        const auto start = std::chrono::steady_clock::now();
        const aclnnStatus s = first_phase(workspace_size, executor);
        timing.first_phase_ms = MillisecondsSince(start);
        timing.workspace_bytes = *workspace_size;
        return s;
      },
      [&](void* workspace_data, uint64_t workspace_size, aclOpExecutor* executor, aclrtStream on) {
        second_start = std::chrono::steady_clock::now();
        return second_phase(workspace_data, workspace_size, executor, on);
      },
      stream, workspace);
  if (!r.ok()) {
    const std::string step = r.failed_step;
    Check(r.status, step == "first phase" ? first_name : step == "second phase" ? second_name : r.failed_step);
  }
  timing.second_phase_ms = MillisecondsSince(second_start);
  return timing;
}

}  // namespace

CallTiming RunApi(const aclnn_cpu::apis::Api& api, const aclnn_cpu::apis::Operands& operands, aclrtStream stream) {
  return TimeTwoPhase(
      [&](uint64_t* workspace_size, aclOpExecutor** executor) {
        return api.first_phase(operands, workspace_size, executor);
      },
      api.second_phase, api.first_phase_name, api.second_phase_name, stream);
}

}  // namespace aclnn_bce_cli
