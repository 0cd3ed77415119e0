// The graph-level (IR) operator SigmoidCrossEntropyWithLogitsGradV2:
//   (predict, target, dout, weight?, pos_weight?, reduction = "mean") -> gradient
// its definition and infer-shape (the reduction attribute is opdev/reduction.h, shared by the
// loss operators).
#pragma once

#include <cstdint>
#include <string_view>

#include "acl/acl_base.h"
#include "common/shape.h"
#include "opdev/reduction.h"

namespace aclnn_cpu::bce_grad {

/// The operator's definition as registered in the original's _def.cpp.
struct OpDefinition {
  static constexpr std::string_view kName = "SigmoidCrossEntropyWithLogitsGradV2";
  static constexpr std::string_view kInputs[] = {"predict", "target", "dout", "weight", "pos_weight"};
  static constexpr bool kInputRequired[] = {true, true, true, false, false};
  static constexpr std::string_view kOutput = "gradient";
  static constexpr aclDataType kDTypes[] = {ACL_FLOAT16, ACL_FLOAT, ACL_BF16};
};

/// Shape and dtype of a tensor description at graph level.
struct TensorDesc {
  DimVector shape;
  aclDataType dtype = ACL_FLOAT;
};

/// InferShape: gradient shape = predict shape; InferDataType: gradient dtype = predict dtype.
TensorDesc InferShape(const TensorDesc& predict);

}  // namespace aclnn_cpu::bce_grad
