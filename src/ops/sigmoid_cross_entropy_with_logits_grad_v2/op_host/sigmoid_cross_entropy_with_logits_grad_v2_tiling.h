// Tiling of SigmoidCrossEntropyWithLogitsGradV2: a pure function of (platform, problem).
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "platform/platform_info.h"
#include "op_host/sigmoid_cross_entropy_with_logits_grad_v2_def.h"
#include "op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_tiling_data.h"
#include "op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_tiling_key.h"

namespace aclnn_cpu::bce_grad {

/// What the tiling is asked to split.
struct TilingProblem {
  uint64_t total_elems = 0;  ///< numel(predict), > 0
  KernelDType kernel_dtype = KernelDType::kFloat;
  bool has_weight = false;
  bool has_pos_weight = false;
  ReductionType reduction = ReductionType::kMean;
  /// Bytes of global memory the operator moves per element (inputs read plus output written;
  /// a broadcast operand counts by what it really reads). Drives the core count.
  uint64_t bytes_per_element = 0;
  /// Bytes of fast memory one element of a tile occupies (its operand buffers and compute
  /// buffers). Drives the tile size.
  uint64_t ub_bytes_per_element = 0;
};

struct TilingResult {
  SigmoidCrossEntropyWithLogitsGradV2TilingData data;
  uint32_t tiling_key = 0;
  /// Run on the launching thread when its stream is idle (see PlatformInfo::inline_launch_max_bytes).
  bool run_inline_if_idle = false;
};

/// Bytes of one element of the kernel dtype.
uint64_t KernelDTypeSize(KernelDType dtype);

/// How one present operand (input or output) loads memory, for the cost model.
struct OperandTraffic {
  uint64_t dtype_bytes = 0;  ///< its element size in global memory
  bool broadcast_scalar = false;  ///< one value for all elements: no per-element traffic
};

/// The problem of a call with these operands: each non-scalar operand moves its dtype's bytes per
/// element, and each occupies one kernel-dtype slot of a tile.
TilingProblem MakeTilingProblem(uint64_t total_elems, KernelDType kernel_dtype, bool has_weight, bool has_pos_weight,
                                ReductionType reduction, std::span<const OperandTraffic> operands);

/// The problem of a call whose operands are all dense in the kernel dtype (the common case).
TilingProblem DenseTilingProblem(uint64_t total_elems, KernelDType dtype, bool has_weight, bool has_pos_weight,
                                 ReductionType reduction);

/// Splits the problem into blocks and tiles (see Note [Tiling cost model]); nullopt when the
/// problem or platform is malformed (no elements, zero sizes).
std::optional<TilingResult> ComputeTiling(const PlatformInfo& platform, const TilingProblem& problem);

}  // namespace aclnn_cpu::bce_grad
