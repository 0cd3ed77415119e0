#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_host/sigmoid_cross_entropy_with_logits_grad_v2_tiling.h"

namespace aclnn_cpu::bce_grad {

TilingProblem MakeTilingProblem(uint64_t total_elems, KernelDType kernel_dtype, bool has_weight, bool has_pos_weight,
                                ReductionType reduction, std::span<const OperandTraffic> operands) {
  TilingProblem p;
  static_cast<ElementwiseTilingProblem&>(p) = MakeElementwiseProblem(total_elems, kernel_dtype, operands);
  p.has_weight = has_weight;
  p.has_pos_weight = has_pos_weight;
  p.reduction = reduction;
  return p;
}

TilingProblem DenseTilingProblem(uint64_t total_elems, KernelDType dtype, bool has_weight, bool has_pos_weight,
                                 ReductionType reduction) {
  constexpr int kRequiredOperands = 4;  // predict, target, dout, gradient
  const int count = kRequiredOperands + (has_weight ? 1 : 0) + (has_pos_weight ? 1 : 0);
  OperandTraffic operands[kRequiredOperands + 2];
  for (int i = 0; i < count; ++i) operands[i].dtype_bytes = KernelDTypeSize(dtype);
  return MakeTilingProblem(total_elems, dtype, has_weight, has_pos_weight, reduction,
                           std::span<const OperandTraffic>(operands, static_cast<size_t>(count)));
}

std::optional<TilingResult> ComputeTiling(const PlatformInfo& platform, const TilingProblem& problem) {
  const std::optional<ElementwiseTilingResult> split = ComputeElementwiseTiling(platform, problem);
  if (!split) return std::nullopt;
  TilingResult r;
  static_cast<ElementwiseTilingData&>(r.data) = split->data;
  r.run_inline_if_idle = split->run_inline_if_idle;
  const bool mean = problem.reduction == ReductionType::kMean;
  r.data.globalScale = mean ? static_cast<float>(1.0 / static_cast<double>(problem.total_elems)) : 1.0f;
  r.data.globalScaleDouble = mean ? 1.0 / static_cast<double>(problem.total_elems) : 1.0;
  r.data.has_weight = problem.has_weight ? 1 : 0;
  r.data.has_pos_weight = problem.has_pos_weight ? 1 : 0;
  r.tiling_key = MakeTilingKey(problem.kernel_dtype, problem.has_weight, problem.has_pos_weight);
  return r;
}

}  // namespace aclnn_cpu::bce_grad
