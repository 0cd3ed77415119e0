#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_host/sigmoid_cross_entropy_with_logits_grad_v2_def.h"

namespace aclnn_cpu::bce_grad {

TensorDesc InferShape(const TensorDesc& predict) { return predict; }

}  // namespace aclnn_cpu::bce_grad
