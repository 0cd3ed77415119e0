// Tiling of SigmoidCrossEntropyWithLogitsGradV2: the shared elementwise split
// (opdev/elementwise_tiling.h) plus this operator's scale, flags and tiling key.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "opdev/elementwise_tiling.h"
#include "platform/platform_info.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_host/sigmoid_cross_entropy_with_logits_grad_v2_def.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_tiling_data.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_tiling_key.h"

namespace aclnn_cpu::bce_grad {

using ::aclnn_cpu::OperandTraffic;

/// What the tiling is asked to split: the elementwise problem (total_elems = numel(predict))
/// plus what picks the kernel and the scale.
struct TilingProblem : ElementwiseTilingProblem {
  bool has_weight = false;
  bool has_pos_weight = false;
  ReductionType reduction = ReductionType::kMean;
};

struct TilingResult {
  SigmoidCrossEntropyWithLogitsGradV2TilingData data;
  uint32_t tiling_key = 0;
  /// Run on the launching thread when its stream is idle (see PlatformInfo::inline_launch_max_bytes).
  bool run_inline_if_idle = false;
};

/// The problem of a call with these operands (MakeElementwiseProblem's traffic model).
TilingProblem MakeTilingProblem(uint64_t total_elems, KernelDType kernel_dtype, bool has_weight, bool has_pos_weight,
                                ReductionType reduction, std::span<const OperandTraffic> operands);

/// The problem of a call whose operands are all dense in the kernel dtype (the common case).
TilingProblem DenseTilingProblem(uint64_t total_elems, KernelDType dtype, bool has_weight, bool has_pos_weight,
                                 ReductionType reduction);

/// Splits the problem (ComputeElementwiseTiling; see Note [Tiling cost model]) and adds the
/// scale, flags and key; nullopt when the problem or platform is malformed.
std::optional<TilingResult> ComputeTiling(const PlatformInfo& platform, const TilingProblem& problem);

}  // namespace aclnn_cpu::bce_grad
