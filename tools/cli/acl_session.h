// The CANN runtime as the subcommands use it: a session (init, device, stream), tensors in device
// memory, and the operator's two phases. Failures throw AclFailure with aclGetRecentErrMsg().
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "acl/acl.h"

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

/// The operands of one aclnnBinaryCrossEntropyWithLogitsBackward call (weight, pos_weight may be
/// null), or with of_target of aclnnBinaryCrossEntropyWithLogitsTargetBackward (out is gradTarget).
struct BackwardCall {
  const DeviceTensor* grad_output = nullptr;
  const DeviceTensor* self = nullptr;
  const DeviceTensor* target = nullptr;
  const DeviceTensor* weight = nullptr;
  const DeviceTensor* pos_weight = nullptr;
  int64_t reduction = 1;
  DeviceTensor* out = nullptr;
  bool of_target = false;
};

/// What one call cost.
struct CallTiming {
  uint64_t workspace_bytes = 0;
  double first_phase_ms = 0;   ///< GetWorkspaceSize: checks, promotion, tiling, executor
  double second_phase_ms = 0;  ///< the launch and aclrtSynchronizeStream
};

/// Both phases on @p stream, the workspace from aclrtMalloc, synchronised. out stays on the device.
CallTiming RunBackward(const BackwardCall& call, aclrtStream stream);

/// The operands of one aclnnBinaryCrossEntropyWithLogits call (the loss).
struct ForwardCall {
  const DeviceTensor* self = nullptr;
  const DeviceTensor* target = nullptr;
  const DeviceTensor* weight = nullptr;
  const DeviceTensor* pos_weight = nullptr;
  int64_t reduction = 1;
  DeviceTensor* out = nullptr;
};

/// Both phases of the loss, as RunBackward.
CallTiming RunForward(const ForwardCall& call, aclrtStream stream);

/// The operands of one aclnnBinaryCrossEntropyWithLogitsFused call: the forward's, a 0-dim
/// gradOutput (null: 1) and the gradient.
struct FusedCall {
  ForwardCall forward;
  const DeviceTensor* grad_output = nullptr;
  DeviceTensor* grad_input = nullptr;
};

/// Both phases of the fused loss and gradient, as RunBackward.
CallTiming RunFused(const FusedCall& call, aclrtStream stream);

}  // namespace aclnn_bce_cli
