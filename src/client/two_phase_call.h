// Calling an ACLNN operator as a CANN client does, through the public API only: the first phase,
// a workspace from aclrtMalloc, the second phase on a stream, and the synchronize. One helper for
// the tests, the CLI and the benchmark (the CANN sample in examples/ spells the steps out on
// purpose, as CANN's own samples do).
#pragma once

#include <cstdint>
#include <utility>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

namespace aclnn_cpu {

/// Memory from aclrtMalloc (ACL_MEM_MALLOC_HUGE_FIRST), freed with the object; empty for 0 bytes.
class DeviceMemory {
 public:
  DeviceMemory() = default;
  DeviceMemory(DeviceMemory&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  DeviceMemory& operator=(DeviceMemory&& other) noexcept {
    if (this != &other) {
      Reset();
      data_ = std::exchange(other.data_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  ~DeviceMemory() { Reset(); }

  /// Holds at least @p bytes afterwards: allocates (dropping the old memory) only when what it
  /// holds is smaller. ACL_SUCCESS, or aclrtMalloc's code with the object left empty.
  aclError Reserve(uint64_t bytes) {
    if (bytes <= bytes_) return ACL_SUCCESS;
    Reset();
    void* data = nullptr;
    if (const aclError e = aclrtMalloc(&data, bytes, ACL_MEM_MALLOC_HUGE_FIRST)) return e;
    data_ = data;
    bytes_ = bytes;
    return ACL_SUCCESS;
  }
  void Reset() {
    if (data_ != nullptr) aclrtFree(data_);
    data_ = nullptr;
    bytes_ = 0;
  }
  void* get() const { return data_; }
  uint64_t size() const { return bytes_; }

 private:
  void* data_ = nullptr;
  uint64_t bytes_ = 0;
};

/// The outcome of CallTwoPhase: the first failing step's status and name.
struct TwoPhaseResult {
  aclnnStatus status = ACLNN_SUCCESS;
  const char* failed_step = nullptr;  ///< "first phase", "aclrtMalloc", "second phase", "aclrtSynchronizeStream"
  bool ok() const { return status == ACLNN_SUCCESS; }
};

enum class Synchronize : bool { kNo, kYes };

/// Runs @p first_phase(&workspace_size, &executor) (an operator's ...GetWorkspaceSize with its
/// arguments bound), grows @p workspace to the size it asks for (it is kept for the next call),
/// then @p second_phase(workspace, workspace_size, executor, stream) and, with
/// Synchronize::kYes, aclrtSynchronizeStream(stream). Stops at the first failure: a phase's own
/// status, or ACLNN_ERR_RUNTIME_ERROR when the workspace cannot be allocated (the executor is
/// destroyed then) or the synchronize fails. With Synchronize::kNo the workspace must stay alive
/// until the stream is synchronized.
template <class FirstPhase, class SecondPhase>
TwoPhaseResult CallTwoPhase(FirstPhase&& first_phase, SecondPhase&& second_phase, aclrtStream stream,
                            DeviceMemory& workspace, Synchronize synchronize = Synchronize::kYes) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  if (const aclnnStatus s = first_phase(&workspace_size, &executor)) return {s, "first phase"};
  if (workspace.Reserve(workspace_size) != ACL_SUCCESS) {
    aclDestroyAclOpExecutor(executor);
    return {ACLNN_ERR_RUNTIME_ERROR, "aclrtMalloc"};
  }
  if (const aclnnStatus s = second_phase(workspace.get(), workspace_size, executor, stream)) {
    return {s, "second phase"};
  }
  if (synchronize == Synchronize::kYes && aclrtSynchronizeStream(stream) != ACL_SUCCESS) {
    return {ACLNN_ERR_RUNTIME_ERROR, "aclrtSynchronizeStream"};
  }
  return {};
}

}  // namespace aclnn_cpu
