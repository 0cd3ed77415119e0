// The graph-level (IR) operator SigmoidCrossEntropyWithLogitsGradV2:
//   (predict, target, dout, weight?, pos_weight?, reduction = "mean") -> gradient
// its definition, the reduction attribute and infer-shape.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>

#include "acl/acl_base.h"
#include "common/shape.h"

namespace aclnn_cpu::bce_grad {

/// The tiling's reduction encoding, as in the NPU original: 0 none, 1 sum, 2 mean. It differs
/// from ACLNN's (0 none, 1 mean, 2 sum); FromAclnnReduction maps once, at the API boundary.
enum class ReductionType : int64_t { kNone = 0, kSum = 1, kMean = 2 };

/// ACLNN's integer reduction (0 none, 1 mean, 2 sum) -> ReductionType; nullopt outside [0, 2].
std::optional<ReductionType> FromAclnnReduction(int64_t reduction);

/// The string attribute: "none", "mean", "sum" or the letters n/m/s, any case.
std::optional<ReductionType> ParseReductionAttr(std::string_view text);

/// The attribute as a graph carries it: a string (the IR default "mean"), or an integer in the
/// ACLNN encoding.
using ReductionAttr = std::variant<std::string_view, int64_t>;
inline constexpr std::string_view kDefaultReduction = "mean";
std::optional<ReductionType> ResolveReductionAttr(const ReductionAttr& attr);

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
