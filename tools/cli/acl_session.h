// The CANN runtime as the subcommands use it: a session (init, device, stream), tensors in device
// memory, and the operator's two phases. Failures throw AclFailure with aclGetRecentErrMsg().
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "client/api_table.h"

namespace aclnn_bce_cli {

/// A failed ACL / ACLNN call: the call, its status code and the library's reason.
class AclFailure : public std::runtime_error {
 public:
  AclFailure(const std::string& call, int status);
  /// For calls that return a null handle instead of a status (aclCreateTensor).
  explicit AclFailure(const std::string& call);
};

/// aclInit, aclrtSetDevice(0) and aclrtCreateStream; undone in reverse order.
class AclSession {
 public:
  AclSession();
  ~AclSession();
  AclSession(const AclSession&) = delete;
  AclSession& operator=(const AclSession&) = delete;

  aclrtStream stream() const { return stream_; }

 private:
  static constexpr int32_t kDeviceId = 0;
  aclrtStream stream_ = nullptr;
};

/// A contiguous tensor in device memory with a host copy: values are set and read on the host
/// (as double, rounded once to the dtype) and moved with Upload / Download (aclrtMemcpy).
class DeviceTensor {
 public:
  DeviceTensor(std::vector<int64_t> dims, aclDataType dtype);
  ~DeviceTensor();
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  /// Every tensor of the command line is a plain row-major one.
  static constexpr aclFormat kFormat = ACL_FORMAT_ND;

  aclTensor* get() const { return tensor_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  aclDataType dtype() const { return dtype_; }
  int64_t numel() const { return numel_; }

  /// Host copy: element @p index set to @p value (one rounding to the dtype) / read exactly.
  void Set(int64_t index, double value);
  double Get(int64_t index) const;
  /// Host copy's bytes.
  const std::vector<uint8_t>& host_bytes() const { return host_; }

  void Upload();    ///< host copy -> device memory
  void Download();  ///< device memory -> host copy

 private:
  std::vector<int64_t> dims_;
  aclDataType dtype_;
  int64_t numel_ = 0;
  std::vector<uint8_t> host_;
  void* device_ = nullptr;
  aclTensor* tensor_ = nullptr;
};

/// What one call cost.
struct CallTiming {
  uint64_t workspace_bytes = 0;
  double first_phase_ms = 0;   ///< GetWorkspaceSize: checks, promotion, tiling, executor
  double second_phase_ms = 0;  ///< the launch and aclrtSynchronizeStream
};

/// Both phases of @p api (an API of the list, src/client/api_table.h) over @p operands on
/// @p stream, the workspace from aclrtMalloc, synchronised. The outputs stay on the device.
CallTiming RunApi(const aclnn_cpu::apis::Api& api, const aclnn_cpu::apis::Operands& operands, aclrtStream stream);

}  // namespace aclnn_bce_cli
