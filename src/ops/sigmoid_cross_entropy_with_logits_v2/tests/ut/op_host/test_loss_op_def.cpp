// The IR operator SigmoidCrossEntropyWithLogitsV2: its definition and infer-shape.
#include <gtest/gtest.h>

#include <string_view>

#include "ops/sigmoid_cross_entropy_with_logits_v2/op_host/sigmoid_cross_entropy_with_logits_v2_def.h"

namespace aclnn_cpu::bce_loss {
namespace {

TensorDesc Desc(std::initializer_list<int64_t> dims, aclDataType dtype) {
  TensorDesc d;
  d.shape.rank = static_cast<int>(dims.size());
  int k = 0;
  for (int64_t v : dims) d.shape.v[k++] = v;
  d.dtype = dtype;
  return d;
}

TEST(LossOpDef, NamesInputsAttributeAndOutputAsTheOriginal) {
  EXPECT_EQ(OpDefinition::kName, "SigmoidCrossEntropyWithLogitsV2");
  EXPECT_EQ(std::size(OpDefinition::kInputs), 4u);
  EXPECT_EQ(OpDefinition::kInputs[2], "weight");
  EXPECT_FALSE(OpDefinition::kInputRequired[3]);
  EXPECT_EQ(OpDefinition::kAttr, "reduction");
  EXPECT_EQ(OpDefinition::kOutput, "loss");
}

TEST(LossOpDef, InferShapeIsPredictsShapeForNoneAndScalarOtherwiseWithTargetsDType) {
  const TensorDesc predict = Desc({4, 5, 6}, ACL_FLOAT16), target = Desc({4, 5, 6}, ACL_BF16);
  const auto none = InferShape(predict, target, std::string_view("none"));
  ASSERT_TRUE(none.has_value());
  EXPECT_EQ(none->shape.rank, 3);
  EXPECT_EQ(none->shape.v[2], 6);
  EXPECT_EQ(none->dtype, ACL_BF16);
  for (const ReductionAttr attr : {ReductionAttr(std::string_view("mean")), ReductionAttr(std::string_view("sum")),
                                   ReductionAttr(int64_t{1}), ReductionAttr(int64_t{2})}) {
    const auto reduced = InferShape(predict, target, attr);
    ASSERT_TRUE(reduced.has_value());
    EXPECT_EQ(reduced->shape.rank, 0);
    EXPECT_EQ(reduced->dtype, ACL_BF16);
  }
  const auto by_default = InferShape(predict, target);  // "mean"
  ASSERT_TRUE(by_default.has_value());
  EXPECT_EQ(by_default->shape.rank, 0);
  EXPECT_FALSE(InferShape(predict, target, std::string_view("average")).has_value());
  EXPECT_FALSE(InferShape(predict, target, int64_t{3}).has_value());
}

}  // namespace
}  // namespace aclnn_cpu::bce_loss
