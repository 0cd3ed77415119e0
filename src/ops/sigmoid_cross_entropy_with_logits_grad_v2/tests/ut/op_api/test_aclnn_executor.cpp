// The second phase and the executor's life (docs/contract.md §2): consumed by one run unless repeatable; a
// repeatable one reads its tensors' current contents at every run; null, unknown, destroyed or
// consumed executors, short workspaces and unknown streams give error codes, never a crash.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/bce_test_util.h"
#include "op_api_test_helpers.h"

namespace bce_test {
namespace {

const std::vector<int64_t> kDims{48, 130};

/// One call's tensors: self of @p self_dtype, the rest fp32 (a mixed call needs a workspace).
class ExecutorTest : public ::testing::Test {
 protected:
  explicit ExecutorTest(aclDataType self_dtype = ACL_FLOAT)
      : x_(kDims, self_dtype), y_(kDims, ACL_FLOAT), dout_(kDims, ACL_FLOAT), pw_({130}, ACL_FLOAT),
        out_(kDims, ACL_FLOAT) {
    FillInputs(1);
  }

  void FillInputs(uint64_t seed) {
    FillRandom(x_, seed, -6, 6);
    FillRandom(y_, seed + 1, 0, 1);
    FillRandom(dout_, seed + 2, -2, 2);
    FillRandom(pw_, seed + 3, 0.5, 3);
  }

  RawCall Raw() { return {dout_.get(), x_.get(), y_.get(), nullptr, pw_.get(), 1, out_.get()}; }
  Problem Reference() { return {&dout_, &x_, &y_, nullptr, &pw_, 1, &out_}; }

  /// First phase of Raw(); returns the executor.
  aclOpExecutor* Plan(uint64_t* workspace_size) {
    aclOpExecutor* executor = nullptr;
    EXPECT_EQ(FirstPhase(Raw(), workspace_size, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_NE(executor, nullptr);
    return executor;
  }

  /// Second phase on @p stream with a fresh workspace of the asked size, synchronised.
  aclnnStatus Launch(aclOpExecutor* executor, uint64_t workspace_size, aclrtStream stream = nullptr) {
    DeviceBuffer workspace(workspace_size);
    const aclnnStatus s = aclnnBinaryCrossEntropyWithLogitsBackward(workspace.get(), workspace_size, executor, stream);
    EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    return s;
  }

  TestTensor x_, y_, dout_, pw_, out_;
};

/// The same call with an fp16 self among fp32 tensors: staged operands need a workspace.
class MixedDtypeExecutorTest : public ExecutorTest {
 protected:
  MixedDtypeExecutorTest() : ExecutorTest(ACL_FLOAT16) {}
};

// ---------------------------------------------------------------------------------------------
// Repeatable and non-repeatable executors.

TEST_F(ExecutorTest, RepeatableExecutorReadsTheCurrentInputsAtEveryRun) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = Plan(&workspace_size);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
  for (uint64_t run = 0; run < 4; ++run) {
    SCOPED_TRACE(run);
    FillInputs(100 + 10 * run);
    out_.Poison();
    ASSERT_EQ(Launch(executor, workspace_size), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(CheckAgainstReference(Reference()).mismatches, 0);
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
}

TEST_F(MixedDtypeExecutorTest, RepeatableExecutorWithAWorkspaceReadsTheCurrentInputsAtEveryRun) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = Plan(&workspace_size);
  ASSERT_GT(workspace_size, 0u);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
  for (uint64_t run = 0; run < 3; ++run) {
    SCOPED_TRACE(run);
    FillInputs(200 + 10 * run);
    out_.Poison();
    ASSERT_EQ(Launch(executor, workspace_size), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(CheckAgainstReference(Reference()).mismatches, 0);
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
}

TEST_F(ExecutorTest, ExecutorReadsInputsWhenItRunsNotWhenItIsMade) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = Plan(&workspace_size);
  FillInputs(300);
  ASSERT_EQ(Launch(executor, workspace_size), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(CheckAgainstReference(Reference()).mismatches, 0);
}

TEST_F(ExecutorTest, ExecutorOutlivesTheTensorsItWasMadeFrom) {
  TensorHandle dout = ContiguousOver(dout_), x = ContiguousOver(x_), y = ContiguousOver(y_),
               pw = ContiguousOver(pw_), out = ContiguousOver(out_);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(FirstPhase({dout.get(), x.get(), y.get(), nullptr, pw.get(), 1, out.get()}, &workspace_size, &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  dout.reset();
  x.reset();
  y.reset();
  pw.reset();
  out.reset();
  ASSERT_EQ(Launch(executor, workspace_size), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(CheckAgainstReference(Reference()).mismatches, 0);
}

TEST_F(ExecutorTest, NonRepeatableExecutorRunTwiceIsRejectedTheSecondTime) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = Plan(&workspace_size);
  ASSERT_EQ(Launch(executor, workspace_size), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  FillInputs(400);
  const auto before = out_.StorageBytes();
  PrimeRecentErrMsg();
  EXPECT_EQ(Launch(executor, workspace_size), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("executor"), std::string::npos) << aclGetRecentErrMsg();
  EXPECT_EQ(FirstDifference(before, out_.StorageBytes()), -1);
}

TEST_F(ExecutorTest, ConsumedExecutorCannotBeMadeRepeatable) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = Plan(&workspace_size);
  ASSERT_EQ(Launch(executor, workspace_size), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_ERR_PARAM_INVALID);
}

TEST_F(ExecutorTest, ConsumedExecutorCannotBeDestroyed) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = Plan(&workspace_size);
  ASSERT_EQ(Launch(executor, workspace_size), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_ERR_PARAM_INVALID);
}

// ---------------------------------------------------------------------------------------------
// Null, destroyed and unknown executors.

TEST_F(ExecutorTest, NullExecutorIsRejectedAsNullptr) {
  PrimeRecentErrMsg();
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsBackward(nullptr, 0, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("executor"), std::string::npos) << aclGetRecentErrMsg();
}

TEST_F(ExecutorTest, DestroyedExecutorIsRejected) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = Plan(&workspace_size);
  ASSERT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  const auto before = out_.StorageBytes();
  EXPECT_EQ(Launch(executor, workspace_size), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(FirstDifference(before, out_.StorageBytes()), -1);
}

TEST_F(ExecutorTest, DestroyedRepeatableExecutorIsRejected) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = Plan(&workspace_size);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
  ASSERT_EQ(Launch(executor, workspace_size), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  EXPECT_EQ(Launch(executor, workspace_size), ACLNN_ERR_PARAM_INVALID);
}

TEST_F(ExecutorTest, DestroyingAnExecutorTwiceIsAnError) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = Plan(&workspace_size);
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_ERR_PARAM_INVALID);
}

TEST_F(ExecutorTest, NullExecutorCannotBeDestroyedOrMadeRepeatable) {
  EXPECT_EQ(aclDestroyAclOpExecutor(nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(nullptr), ACLNN_ERR_PARAM_NULLPTR);
}

TEST_F(ExecutorTest, PointerThatIsNoExecutorIsRejected) {
  alignas(64) char not_an_executor[256] = {};
  auto* fake = reinterpret_cast<aclOpExecutor*>(not_an_executor);
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsBackward(nullptr, 0, fake, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(fake), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyAclOpExecutor(fake), ACLNN_ERR_PARAM_INVALID);
}

// ---------------------------------------------------------------------------------------------
// Workspace.

TEST_F(MixedDtypeExecutorTest, WorkspaceSmallerThanAskedIsRejected) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = Plan(&workspace_size);
  ASSERT_GT(workspace_size, 0u);
  const auto before = out_.StorageBytes();
  PrimeRecentErrMsg();
  DeviceBuffer workspace(workspace_size);
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsBackward(workspace.get(), workspace_size - 1, executor, nullptr),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("workspace"), std::string::npos) << aclGetRecentErrMsg();
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsBackward(workspace.get(), 0, executor, nullptr), ACLNN_ERR_PARAM_INVALID);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(FirstDifference(before, out_.StorageBytes()), -1);
  aclDestroyAclOpExecutor(executor);  // whether a rejected launch consumed it is unspecified
}

TEST_F(MixedDtypeExecutorTest, NullWorkspaceWhenOneIsNeededIsRejectedAsNullptr) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = Plan(&workspace_size);
  ASSERT_GT(workspace_size, 0u);
  const auto before = out_.StorageBytes();
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsBackward(nullptr, workspace_size, executor, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(FirstDifference(before, out_.StorageBytes()), -1);
  aclDestroyAclOpExecutor(executor);
}

TEST_F(MixedDtypeExecutorTest, WorkspaceLargerThanAskedIsAccepted) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = Plan(&workspace_size);
  ASSERT_EQ(Launch(executor, workspace_size + 4096), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(CheckAgainstReference(Reference()).mismatches, 0);
}

TEST_F(MixedDtypeExecutorTest, UnalignedWorkspaceOfTheAskedSizeIsAccepted) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = Plan(&workspace_size);
  ASSERT_GT(workspace_size, 0u);
  DeviceBuffer buffer(workspace_size + 64);
  void* unaligned = static_cast<char*>(buffer.get()) + 1;
  ASSERT_EQ(aclnnBinaryCrossEntropyWithLogitsBackward(unaligned, workspace_size, executor, nullptr), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(CheckAgainstReference(Reference()).mismatches, 0);
}

TEST(Workspace, StridedOutNeedsAWorkspace) {
  TestTensor x(kDims, ACL_FLOAT), y(kDims, ACL_FLOAT), dout(kDims, ACL_FLOAT);
  TestTensor out(kDims, {1, 48}, 0, 48 * 130, ACL_FLOAT);  // transposed
  FillRandom(x, 500, -6, 6);
  FillRandom(y, 501, 0, 1);
  FillRandom(dout, 502, -2, 2);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(FirstPhase({dout.get(), x.get(), y.get(), nullptr, nullptr, 0, out.get()}, &workspace_size, &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_GT(workspace_size, 0u);
  DeviceBuffer workspace(workspace_size);
  ASSERT_EQ(aclnnBinaryCrossEntropyWithLogitsBackward(workspace.get(), workspace_size, executor, nullptr), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(CheckAgainstReference({&dout, &x, &y, nullptr, nullptr, 0, &out}).mismatches, 0);
}

// ---------------------------------------------------------------------------------------------
// Streams.

TEST_F(ExecutorTest, SecondPhaseRunsOnACreatedStream) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = Plan(&workspace_size);
  EXPECT_EQ(Launch(executor, workspace_size, stream), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(CheckAgainstReference(Reference()).mismatches, 0);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(MixedDtypeExecutorTest, SecondPhaseWithAWorkspaceRunsOnACreatedStream) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = Plan(&workspace_size);
  EXPECT_EQ(Launch(executor, workspace_size, stream), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(CheckAgainstReference(Reference()).mismatches, 0);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(ExecutorTest, SecondPhaseRunsOnTheDefaultStream) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = Plan(&workspace_size);
  EXPECT_EQ(Launch(executor, workspace_size, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(CheckAgainstReference(Reference()).mismatches, 0);
}

TEST_F(ExecutorTest, DestroyedStreamIsRejected) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = Plan(&workspace_size);
  const auto before = out_.StorageBytes();
  DeviceBuffer workspace(workspace_size);
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsBackward(workspace.get(), workspace_size, executor, stream),
            ACLNN_ERR_PARAM_INVALID);
  ASSERT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);
  EXPECT_EQ(FirstDifference(before, out_.StorageBytes()), -1);
  aclDestroyAclOpExecutor(executor);
}

}  // namespace
}  // namespace bce_test
