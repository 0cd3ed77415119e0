#include "ops/sigmoid_cross_entropy_with_logits_v2/op_host/sigmoid_cross_entropy_with_logits_v2_def.h"

namespace aclnn_cpu::bce_loss {

std::optional<TensorDesc> InferShape(const TensorDesc& predict, const TensorDesc& target,
                                     const ReductionAttr& reduction) {
  const std::optional<ReductionType> type = ResolveReductionAttr(reduction);
  if (!type) return std::nullopt;
  TensorDesc loss;
  loss.dtype = target.dtype;
  if (*type == ReductionType::kNone) loss.shape = predict.shape;  // else the default: rank 0, []
  return loss;
}

}  // namespace aclnn_cpu::bce_loss
