// The graph-level operator (docs/contract.md §5): its definition, the reduction attribute and infer-shape.
#include <gtest/gtest.h>

#include <string>

#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_host/sigmoid_cross_entropy_with_logits_grad_v2_def.h"

namespace {

using aclnn_cpu::DimVector;
using aclnn_cpu::FromAclnnReduction;
using aclnn_cpu::bce_grad::InferShape;
using aclnn_cpu::kDefaultReduction;
using aclnn_cpu::bce_grad::OpDefinition;
using aclnn_cpu::ParseReductionAttr;
using aclnn_cpu::ReductionAttr;
using aclnn_cpu::ReductionType;
using aclnn_cpu::ResolveReductionAttr;
using aclnn_cpu::bce_grad::TensorDesc;

TEST(ReductionType, UsesTheNpuTilingEncodingNoneSumMean) {
  EXPECT_EQ(static_cast<int64_t>(ReductionType::kNone), 0);
  EXPECT_EQ(static_cast<int64_t>(ReductionType::kSum), 1);
  EXPECT_EQ(static_cast<int64_t>(ReductionType::kMean), 2);
}

TEST(FromAclnnReduction, MapsAclnnNoneMeanSumToTheTilingEnum) {
  // ACLNN 0 none, 1 mean, 2 sum -> tiling 0 none, 2 mean, 1 sum: the two encodings differ in
  // 1 and 2, so a missing mapping would swap mean and sum.
  EXPECT_EQ(FromAclnnReduction(0), ReductionType::kNone);
  EXPECT_EQ(FromAclnnReduction(1), ReductionType::kMean);
  EXPECT_EQ(FromAclnnReduction(2), ReductionType::kSum);
  EXPECT_EQ(static_cast<int64_t>(*FromAclnnReduction(0)), 0);
  EXPECT_EQ(static_cast<int64_t>(*FromAclnnReduction(1)), 2);
  EXPECT_EQ(static_cast<int64_t>(*FromAclnnReduction(2)), 1);
}

TEST(FromAclnnReduction, RejectsCodesOutsideZeroToTwo) {
  for (int64_t code : {int64_t{-1}, int64_t{3}, int64_t{4}, INT64_MIN, INT64_MAX}) {
    EXPECT_FALSE(FromAclnnReduction(code).has_value()) << code;
  }
}

TEST(ParseReductionAttr, AcceptsTheFullNames) {
  EXPECT_EQ(ParseReductionAttr("none"), ReductionType::kNone);
  EXPECT_EQ(ParseReductionAttr("mean"), ReductionType::kMean);
  EXPECT_EQ(ParseReductionAttr("sum"), ReductionType::kSum);
}

TEST(ParseReductionAttr, AcceptsTheSingleLetters) {
  EXPECT_EQ(ParseReductionAttr("n"), ReductionType::kNone);
  EXPECT_EQ(ParseReductionAttr("m"), ReductionType::kMean);
  EXPECT_EQ(ParseReductionAttr("s"), ReductionType::kSum);
}

TEST(ParseReductionAttr, IgnoresCase) {
  for (const char* text : {"NONE", "None", "nOnE", "N"}) EXPECT_EQ(ParseReductionAttr(text), ReductionType::kNone) << text;
  for (const char* text : {"MEAN", "Mean", "mEaN", "M"}) EXPECT_EQ(ParseReductionAttr(text), ReductionType::kMean) << text;
  for (const char* text : {"SUM", "Sum", "sUm", "S"}) EXPECT_EQ(ParseReductionAttr(text), ReductionType::kSum) << text;
}

TEST(ParseReductionAttr, RejectsAnythingElse) {
  for (const char* text : {"", "avg", "meanx", "mea", "su", "nonee", " mean", "mean ", "elementwise_mean", "x", "0",
                           "1", "2", "batchmean"}) {
    EXPECT_FALSE(ParseReductionAttr(text).has_value()) << '"' << text << '"';
  }
}

TEST(ParseReductionAttr, RejectsANameWithAnEmbeddedNul) {
  EXPECT_FALSE(ParseReductionAttr(std::string_view("mean\0", 5)).has_value());
  EXPECT_FALSE(ParseReductionAttr(std::string_view("s\0um", 4)).has_value());
}

TEST(ResolveReductionAttr, DefaultAttributeIsMean) {
  EXPECT_EQ(kDefaultReduction, "mean");
  EXPECT_EQ(ResolveReductionAttr(ReductionAttr{kDefaultReduction}), ReductionType::kMean);
}

TEST(ResolveReductionAttr, StringAttributeIsParsed) {
  EXPECT_EQ(ResolveReductionAttr(ReductionAttr{std::string_view("Sum")}), ReductionType::kSum);
  EXPECT_EQ(ResolveReductionAttr(ReductionAttr{std::string_view("n")}), ReductionType::kNone);
  EXPECT_FALSE(ResolveReductionAttr(ReductionAttr{std::string_view("avg")}).has_value());
}

TEST(ResolveReductionAttr, IntegerAttributeUsesTheAclnnEncoding) {
  EXPECT_EQ(ResolveReductionAttr(ReductionAttr{int64_t{0}}), ReductionType::kNone);
  EXPECT_EQ(ResolveReductionAttr(ReductionAttr{int64_t{1}}), ReductionType::kMean);
  EXPECT_EQ(ResolveReductionAttr(ReductionAttr{int64_t{2}}), ReductionType::kSum);
  EXPECT_FALSE(ResolveReductionAttr(ReductionAttr{int64_t{3}}).has_value());
  EXPECT_FALSE(ResolveReductionAttr(ReductionAttr{int64_t{-1}}).has_value());
}

TEST(OpDefinition, DeclaresThePredictTargetDoutWeightPosWeightSignature) {
  EXPECT_EQ(OpDefinition::kName, "SigmoidCrossEntropyWithLogitsGradV2");
  const std::string_view inputs[] = {"predict", "target", "dout", "weight", "pos_weight"};
  const bool required[] = {true, true, true, false, false};
  ASSERT_EQ(std::size(OpDefinition::kInputs), std::size(inputs));
  ASSERT_EQ(std::size(OpDefinition::kInputRequired), std::size(required));
  for (size_t i = 0; i < std::size(inputs); ++i) {
    EXPECT_EQ(OpDefinition::kInputs[i], inputs[i]) << i;
    EXPECT_EQ(OpDefinition::kInputRequired[i], required[i]) << inputs[i];
  }
  EXPECT_EQ(OpDefinition::kOutput, "gradient");
}

TEST(OpDefinition, SupportsFloat16FloatAndBFloat16) {
  const aclDataType expected[] = {ACL_FLOAT16, ACL_FLOAT, ACL_BF16};
  ASSERT_EQ(std::size(OpDefinition::kDTypes), std::size(expected));
  for (size_t i = 0; i < std::size(expected); ++i) EXPECT_EQ(OpDefinition::kDTypes[i], expected[i]);
}

DimVector Dims(std::initializer_list<int64_t> dims) {
  DimVector v;
  for (int64_t d : dims) v.v[static_cast<size_t>(v.rank++)] = d;
  return v;
}

TEST(InferShape, GradientHasThePredictShape) {
  for (const DimVector& shape : {Dims({}), Dims({1}), Dims({4, 3}), Dims({32, 32}), Dims({2, 1, 3}),
                                 Dims({2, 3, 1, 5, 1, 7, 2, 3}), Dims({0}), Dims({4, 0, 3}), Dims({1, 1, 1, 1, 1, 1, 1, 1})}) {
    const TensorDesc gradient = InferShape(TensorDesc{shape, ACL_FLOAT});
    EXPECT_EQ(gradient.shape, shape) << "rank " << shape.rank;
  }
}

TEST(InferShape, ZeroDimPredictGivesAZeroDimGradient) {
  EXPECT_EQ(InferShape(TensorDesc{Dims({}), ACL_FLOAT}).shape.rank, 0);
}

TEST(InferShape, EightDimPredictKeepsEveryDim) {
  const DimVector shape = Dims({8, 7, 6, 5, 4, 3, 2, 1});
  const TensorDesc gradient = InferShape(TensorDesc{shape, ACL_BF16});
  ASSERT_EQ(gradient.shape.rank, 8);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(gradient.shape.v[static_cast<size_t>(k)], 8 - k) << k;
}

TEST(InferShape, EmptyPredictGivesAnEmptyGradient) {
  const TensorDesc gradient = InferShape(TensorDesc{Dims({3, 0}), ACL_FLOAT16});
  EXPECT_EQ(gradient.shape, Dims({3, 0}));
}

TEST(InferShape, GradientHasThePredictDType) {
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
    EXPECT_EQ(InferShape(TensorDesc{Dims({2, 2}), dtype}).dtype, dtype) << dtype;
  }
}

}  // namespace
