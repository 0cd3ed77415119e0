// The GM arguments of a launch on the twin (Note [Operands on the twin]): how many elements each
// input is passed as, the period shared by the periodic ones, and host-side expansion otherwise.
#include <gtest/gtest.h>

#include <vector>

#include "ascendc_route/twin_plan.h"
#include "test_tensor.h"

namespace aclnn_cpu::ascendc_route {
namespace {

using acl_test::TestTensor;

/// The elements each of @p periodic is passed as, over @p shape (a kTotal self first).
std::vector<uint64_t> PeriodicElements(const std::vector<int64_t>& shape, const std::vector<TestTensor*>& periodic) {
  TestTensor self(shape, ACL_FLOAT);
  TwinLaunchBuilder launch(AscendcKernel::kSigmoidCrossEntropyWithLogitsGradV2, ACL_FLOAT, self.get()->dims);
  launch.Input(self.get(), TwinInputForm::kTotal);
  std::vector<size_t> args;
  for (TestTensor* t : periodic) {
    args.push_back(launch.Input(t != nullptr ? t->get() : nullptr, TwinInputForm::kPeriodic));
  }
  std::vector<uint64_t> elements;
  for (size_t arg : args) elements.push_back(launch.Elements(arg));
  EXPECT_EQ(launch.Elements(0), static_cast<uint64_t>(self.numel()));
  return elements;
}

TEST(TwinOperands, ASingleElementIsPassedAsOne) {
  TestTensor scalar({}, ACL_FLOAT), one({1}, ACL_FLOAT), ones({1, 1}, ACL_FLOAT);
  EXPECT_EQ(PeriodicElements({6, 5}, {&scalar, &one, &ones}), (std::vector<uint64_t>{1, 1, 1}));
}

TEST(TwinOperands, TrailingDimsArePassedAsTheirPeriod) {
  TestTensor row({5}, ACL_FLOAT), row2d({1, 5}, ACL_FLOAT);
  EXPECT_EQ(PeriodicElements({6, 5}, {&row, &row2d}), (std::vector<uint64_t>{5, 5}));
  TestTensor plane({4, 5}, ACL_FLOAT);
  EXPECT_EQ(PeriodicElements({3, 4, 5}, {&plane}), (std::vector<uint64_t>{20}));
}

TEST(TwinOperands, TheSameShapeIsPassedWhole) {
  TestTensor same({6, 5}, ACL_FLOAT);
  EXPECT_EQ(PeriodicElements({6, 5}, {&same}), (std::vector<uint64_t>{30}));
}

TEST(TwinOperands, OtherBroadcastsAreExpandedToTheOutputShape) {
  TestTensor column({6, 1}, ACL_FLOAT), middle({4, 1}, ACL_FLOAT);
  EXPECT_EQ(PeriodicElements({6, 5}, {&column}), (std::vector<uint64_t>{30}));
  EXPECT_EQ(PeriodicElements({3, 4, 5}, {&middle}), (std::vector<uint64_t>{60}));
}

TEST(TwinOperands, DifferentPeriodsShareTheLongest) {
  TestTensor row({5}, ACL_FLOAT), plane({4, 5}, ACL_FLOAT), scalar({}, ACL_FLOAT);
  EXPECT_EQ(PeriodicElements({3, 4, 5}, {&row, &plane, &scalar}), (std::vector<uint64_t>{20, 20, 1}));
}

TEST(TwinOperands, AnAbsentInputHasNoElements) {
  TestTensor row({5}, ACL_FLOAT);
  EXPECT_EQ(PeriodicElements({6, 5}, {nullptr, &row}), (std::vector<uint64_t>{0, 5}));
}

TEST(TwinOperands, AKTotalInputIsAlwaysTheOutputShape) {
  TestTensor self({6, 5}, ACL_FLOAT), row({5}, ACL_FLOAT), out({6, 5}, ACL_FLOAT);
  TwinLaunchBuilder launch(AscendcKernel::kSigmoidCrossEntropyWithLogitsGradV2, ACL_FLOAT16, self.get()->dims);
  const size_t input = launch.Input(row.get(), TwinInputForm::kTotal);
  const size_t output = launch.Output(out.get());
  EXPECT_EQ(launch.Elements(input), 30u);
  EXPECT_EQ(launch.Elements(output), 30u);
}

}  // namespace
}  // namespace aclnn_cpu::ascendc_route
