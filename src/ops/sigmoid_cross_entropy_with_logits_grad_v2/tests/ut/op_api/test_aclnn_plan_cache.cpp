// Note [Plan cache] (src/opdev/plan_cache.h): a first phase that describes its tensors exactly as
// the thread's previous successful one of the same kind reuses its plan, with the same results;
// any other description builds its own; liveness is checked before anything is read.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "aclnn/aclnn_cpu.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_target_backward.h"
#include "common/bce_test_util.h"
#include "op_api_test_helpers.h"
#include "opdev/plan_cache.h"

namespace bce_test {
namespace {

using aclnn_cpu::PlanCacheHitsForTesting;

const std::vector<int64_t> kDims{24, 70};

class PlanCache : public ::testing::Test {
 protected:
  PlanCache() : x_(kDims, ACL_FLOAT), y_(kDims, ACL_FLOAT), dout_(kDims, ACL_FLOAT), pw_({70}, ACL_FLOAT) {
    FillRandom(x_, 11, -6, 6);
    FillRandom(y_, 12, 0, 1);
    FillRandom(dout_, 13, -2, 2);
    FillRandom(pw_, 14, 0.5, 3);
  }

  /// Runs the backward into @p out (poisoned first) and checks it against the float64 reference;
  /// returns how many cached plans the call took (0 or 1).
  uint64_t RunAndCheck(TestTensor& out, int64_t reduction = 1, TestTensor* self = nullptr,
                       TestTensor* weight = nullptr) {
    out.Poison();
    const uint64_t hits = PlanCacheHitsForTesting();
    const Problem p{&dout_, self != nullptr ? self : &x_, &y_, weight, &pw_, reduction, &out};
    EXPECT_EQ(RunOperator(p), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(CheckAgainstReference(p).mismatches, 0);
    return PlanCacheHitsForTesting() - hits;
  }

  TestTensor x_, y_, dout_, pw_;
};

TEST_F(PlanCache, TheSameDescriptionTakesThePlanAndGivesTheSameBits) {
  TestTensor out(kDims, ACL_FLOAT);
  EXPECT_EQ(RunAndCheck(out, 0), 0u);  // the first call of this description builds the plan
  const std::vector<uint8_t> first = out.StorageBytes();
  EXPECT_EQ(RunAndCheck(out, 0), 1u);
  EXPECT_EQ(FirstDifference(out.StorageBytes(), first), -1);
  // New contents in the same buffers: the plan holds addresses, never values.
  FillRandom(x_, 21, -9, 9);
  EXPECT_EQ(RunAndCheck(out, 0), 1u);
  EXPECT_NE(FirstDifference(out.StorageBytes(), first), -1);
}

TEST_F(PlanCache, EveryPartOfTheDescriptionIsPartOfTheKey) {
  TestTensor out(kDims, ACL_FLOAT);
  RunAndCheck(out);
  ASSERT_EQ(RunAndCheck(out), 1u);

  TestTensor other_out(kDims, ACL_FLOAT);  // another address
  EXPECT_EQ(RunAndCheck(other_out), 0u);
  EXPECT_EQ(RunAndCheck(out), 0u);  // one plan per kind and thread: the last one

  EXPECT_EQ(RunAndCheck(out, 2), 0u);  // another reduction

  TestTensor weight({70}, ACL_FLOAT);  // an operand more
  FillRandom(weight, 15, 0, 2);
  EXPECT_EQ(RunAndCheck(out, 2, nullptr, &weight), 0u);
  EXPECT_EQ(RunAndCheck(out, 2, nullptr, &weight), 1u);

  // self over the same storage shape but at an offset, then with other strides (transposed).
  TestTensor shifted(kDims, {70, 1}, 3, 24 * 70 + 3, ACL_FLOAT);
  FillRandom(shifted, 16, -6, 6);
  EXPECT_EQ(RunAndCheck(out, 2, &shifted, &weight), 0u);
  TestTensor transposed(kDims, {1, 24}, 0, 24 * 70, ACL_FLOAT);
  FillRandom(transposed, 17, -6, 6);
  EXPECT_EQ(RunAndCheck(out, 2, &transposed, &weight), 0u);
  EXPECT_EQ(RunAndCheck(out, 2, &transposed, &weight), 1u);

  // Another dtype of the same bytes' length: fp32 self against an fp16 one.
  TestTensor half(kDims, ACL_FLOAT16);
  FillRandom(half, 18, -6, 6);
  EXPECT_EQ(RunAndCheck(out, 2, &half, &weight), 0u);

  // The pool's thread count is part of the plan (its blocks).
  const int32_t threads = aclnnCpuGetNumThreads();
  EXPECT_EQ(RunAndCheck(out, 2, &half, &weight), 1u);
  ASSERT_EQ(aclnnCpuSetNumThreads(threads == 1 ? 2 : 1), ACL_SUCCESS);
  EXPECT_EQ(RunAndCheck(out, 2, &half, &weight), 0u);
  ASSERT_EQ(aclnnCpuSetNumThreads(threads), ACL_SUCCESS);
  EXPECT_EQ(RunAndCheck(out, 2, &half, &weight), 0u);
}

TEST_F(PlanCache, TheTargetGradientNeverTakesTheInputGradientsPlan) {
  TestTensor out(kDims, ACL_FLOAT);
  RunAndCheck(out, 1);
  ASSERT_EQ(RunAndCheck(out, 1), 1u);
  const uint64_t hits = PlanCacheHitsForTesting();
  out.Poison();
  aclnn_cpu::DeviceMemory workspace;
  const auto result = aclnn_cpu::CallTwoPhase(
      [&](uint64_t* size, aclOpExecutor** executor) {
        return aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize(
            dout_.get(), x_.get(), y_.get(), nullptr, pw_.get(), 1, out.get(), size, executor);
      },
      aclnnBinaryCrossEntropyWithLogitsTargetBackward, nullptr, workspace);
  ASSERT_EQ(result.status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(PlanCacheHitsForTesting(), hits);
  // The target's gradient with pos_weight: (pw - 1) log1p(e^-|x|) - (x < 0 ? pw x : x), times
  // dout / N. Its values differ from the input gradient's, so a borrowed plan would show.
  const double n = static_cast<double>(x_.numel());
  for (int64_t i = 0; i < x_.numel(); ++i) {
    const double x = x_.Get(i), pw = pw_.Get(i % 70);
    const double t = (pw - 1) * std::log1p(std::exp(-std::fabs(x))) - (x < 0 ? pw * x : x);
    const double expected = t * dout_.Get(i) / n;
    ASSERT_NEAR(out.Get(i), expected, 1e-5 * (std::fabs(expected) + 1e-3)) << "element " << i;
  }
}

TEST_F(PlanCache, ADestroyedTensorIsRefusedEvenWhenItsDescriptionWasCached) {
  TestTensor out(kDims, ACL_FLOAT);
  // A second handle over out's storage, described as TestTensor describes it.
  TensorHandle view = ViewOver(out, kDims, {70, 1}, 0);
  RawCall call{dout_.get(), x_.get(), y_.get(), nullptr, pw_.get(), 1, view.get()};
  ASSERT_EQ(RunRaw(call), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  uint64_t hits = PlanCacheHitsForTesting();
  ASSERT_EQ(RunRaw(call), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(PlanCacheHitsForTesting(), hits + 1);

  // A new handle with the very same description takes the plan: it depends on the description only.
  TensorHandle again = ViewOver(out, kDims, {70, 1}, 0);
  aclTensor* const dead = view.get();
  view.reset();  // destroyed
  call.out = again.get();
  out.Poison();
  hits = PlanCacheHitsForTesting();
  ASSERT_EQ(RunRaw(call), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(PlanCacheHitsForTesting(), hits + 1);
  EXPECT_EQ(CheckAgainstReference({&dout_, &x_, &y_, nullptr, &pw_, 1, &out}).mismatches, 0);

  // The destroyed handle is refused before its fields are read, cached description or not.
  call.out = dead;
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(FirstPhase(call, &workspace_size, &executor), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("out is not a live tensor"), std::string::npos)
      << aclGetRecentErrMsg();
  EXPECT_EQ(executor, nullptr);
}

}  // namespace
}  // namespace bce_test
