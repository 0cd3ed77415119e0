// The graph-level (IR) operator SigmoidCrossEntropyWithLogitsV2 (the loss):
//   (predict, target, weight?, pos_weight?, reduction = "mean") -> loss
// its definition and infer-shape; the reduction attribute is opdev/reduction.h, shared with the
// gradient operator.
#pragma once

#include <optional>
#include <string_view>

#include "acl/acl_base.h"
#include "common/shape.h"
#include "opdev/reduction.h"

namespace aclnn_cpu::bce_loss {

/// The operator's definition as the original registers it.
struct OpDefinition {
  static constexpr std::string_view kName = "SigmoidCrossEntropyWithLogitsV2";
  static constexpr std::string_view kInputs[] = {"predict", "target", "weight", "pos_weight"};
  static constexpr bool kInputRequired[] = {true, true, false, false};
  static constexpr std::string_view kAttr = "reduction";  ///< string, default kDefaultReduction
  static constexpr std::string_view kOutput = "loss";
  static constexpr aclDataType kDTypes[] = {ACL_FLOAT16, ACL_FLOAT, ACL_BF16};
};

/// Shape and dtype of a tensor description at graph level.
struct TensorDesc {
  DimVector shape;
  aclDataType dtype = ACL_FLOAT;
};

/// InferShape and InferDataType: loss has predict's shape for reduction none and shape [] for
/// mean and sum; its dtype is target's (as the ACLNN layer decides: out dtype = target dtype).
/// nullopt for a reduction attribute that is not none, mean or sum.
std::optional<TensorDesc> InferShape(const TensorDesc& predict, const TensorDesc& target,
                                     const ReductionAttr& reduction = kDefaultReduction);

}  // namespace aclnn_cpu::bce_loss
