// Misuse of executors, workspaces, streams and tensors (ctest label `concurrency`, so that the
// sanitizer builds run them): every misuse gives an error code and a message, never a crash, a
// leak (LSan in the asan preset) or a use after free.
//   ctest --preset asan -L concurrency
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "stress_problems.h"

namespace {

using bce_stress::Enqueue;
using bce_stress::FirstPhase;
using bce_stress::StressProblem;
using bce_test::TestTensor;

class ExecutorMisuse : public bce_stress::StressProblemsTest {
 protected:
  /// A problem whose plan needs a workspace (staged operands).
  static const StressProblem& with_workspace() { return problem(2); }
};

/// @p got must be the error @p want, and the failing call must have left a message.
#define EXPECT_REFUSED(got, want)                                                        \
  do {                                                                                   \
    EXPECT_EQ(got, want);                                                                \
    EXPECT_STRNE(aclGetRecentErrMsg(), "") << "a failing call must leave a message";     \
  } while (0)

constexpr auto SecondPhase = aclnnBinaryCrossEntropyWithLogitsBackward;

TEST_F(ExecutorMisuse, NonRepeatableExecutorRunTwiceGivesParamInvalid) {
  const StressProblem& p = problem(0);
  auto [out, ws, e] = bce_stress::Plan(p);
  ASSERT_NE(e, nullptr);
  std::vector<char> workspace(ws + 1);
  ASSERT_EQ(SecondPhase(workspace.data(), ws, e, nullptr), ACLNN_SUCCESS);
  EXPECT_REFUSED(SecondPhase(workspace.data(), ws, e, nullptr), ACLNN_ERR_PARAM_INVALID);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(out->StorageBytes(), p.golden);
}

TEST_F(ExecutorMisuse, ConsumedExecutorCannotBeDestroyedOrMadeRepeatable) {
  const StressProblem& p = problem(1);
  auto [out, ws, e] = bce_stress::Plan(p);
  ASSERT_NE(e, nullptr);
  std::vector<char> workspace(ws + 1);
  ASSERT_EQ(SecondPhase(workspace.data(), ws, e, nullptr), ACLNN_SUCCESS);
  EXPECT_REFUSED(aclDestroyAclOpExecutor(e), ACLNN_ERR_PARAM_INVALID);
  EXPECT_REFUSED(aclSetAclOpExecutorRepeatable(e), ACLNN_ERR_PARAM_INVALID);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
}

TEST_F(ExecutorMisuse, ExecutorDestroyedTwiceGivesParamInvalid) {
  for (bool repeatable : {false, true}) {
    const StressProblem& p = problem(3);
    auto [out, ws, e] = bce_stress::Plan(p);
    ASSERT_NE(e, nullptr);
    if (repeatable) {
      ASSERT_EQ(aclSetAclOpExecutorRepeatable(e), ACLNN_SUCCESS);
    }
    EXPECT_EQ(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
    EXPECT_REFUSED(aclDestroyAclOpExecutor(e), ACLNN_ERR_PARAM_INVALID);
    std::vector<char> workspace(ws + 1);
    EXPECT_REFUSED(SecondPhase(workspace.data(), ws, e, nullptr), ACLNN_ERR_PARAM_INVALID);  // nor run
    EXPECT_EQ(out->StorageBytes(), p.MakeOut()->StorageBytes());  // never ran: still poison
  }
}

TEST_F(ExecutorMisuse, NeverExecutedExecutorsAreDestroyedWithoutLeaks) {
  // Under the asan preset LeakSanitizer checks at exit that nothing of these is left.
  for (int k = 0; k < 200; ++k) {
    const StressProblem& p = problem(static_cast<size_t>(k) % 10);
    auto [out, ws, e] = bce_stress::Plan(p);
    ASSERT_NE(e, nullptr);
    if (k % 3 == 0) {
      ASSERT_EQ(aclSetAclOpExecutorRepeatable(e), ACLNN_SUCCESS);
    }
    EXPECT_EQ(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
  }
}

TEST_F(ExecutorMisuse, NullExecutorGivesParamNullptr) {
  EXPECT_REFUSED(SecondPhase(nullptr, 0, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_REFUSED(aclSetAclOpExecutorRepeatable(nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_REFUSED(aclDestroyAclOpExecutor(nullptr), ACLNN_ERR_PARAM_NULLPTR);
}

TEST_F(ExecutorMisuse, PointerThatIsNoExecutorGivesParamInvalid) {
  // Not dereferenced: executors are looked up before they are touched.
  alignas(64) unsigned char not_an_executor[256] = {};
  auto* fake = reinterpret_cast<aclOpExecutor*>(not_an_executor);
  EXPECT_REFUSED(SecondPhase(nullptr, 0, fake, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_REFUSED(aclSetAclOpExecutorRepeatable(fake), ACLNN_ERR_PARAM_INVALID);
  EXPECT_REFUSED(aclDestroyAclOpExecutor(fake), ACLNN_ERR_PARAM_INVALID);
}

TEST_F(ExecutorMisuse, WorkspaceTooSmallOrNullLeavesTheExecutorUsable) {
  const StressProblem& p = with_workspace();
  auto [out, ws, e] = bce_stress::Plan(p);
  ASSERT_NE(e, nullptr);
  ASSERT_GT(ws, 0u) << p.name << " was chosen because its plan needs a workspace";
  void* workspace = nullptr;
  ASSERT_EQ(aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_REFUSED(SecondPhase(workspace, ws - 1, e, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_REFUSED(SecondPhase(nullptr, ws, e, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_REFUSED(SecondPhase(workspace, 0, e, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(out->StorageBytes(), p.MakeOut()->StorageBytes());  // nothing ran
  EXPECT_EQ(SecondPhase(workspace, ws, e, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(out->StorageBytes(), p.golden);
  aclrtFree(workspace);
}

TEST_F(ExecutorMisuse, DestroyedStreamIsRejectedAndTheExecutorStaysUsable) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_REFUSED(aclrtDestroyStream(stream), ACL_ERROR_INVALID_PARAM);
  EXPECT_REFUSED(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyStream(nullptr), ACL_ERROR_INVALID_PARAM);  // the default stream is not the user's
  const StressProblem& p = problem(0);
  auto [out, ws, e] = bce_stress::Plan(p);
  ASSERT_NE(e, nullptr);
  std::vector<char> workspace(ws + 1);
  EXPECT_REFUSED(SecondPhase(workspace.data(), ws, e, stream), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(SecondPhase(workspace.data(), ws, e, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(out->StorageBytes(), p.golden);
}

TEST_F(ExecutorMisuse, RepeatableExecutorDestroyedWhileItsLaunchesAreQueued) {
  // The queued launches keep what they need; under ASan a use after free would be reported.
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  const StressProblem& big = problem(6);
  auto big_out = big.MakeOut();
  aclnn_cpu::DeviceMemory big_workspace;
  ASSERT_EQ(Enqueue(big, big_out->get(), stream, big_workspace), ACLNN_SUCCESS);  // keeps the stream busy
  const StressProblem& p = problem(2);
  auto [out, ws, e] = bce_stress::Plan(p);
  ASSERT_NE(e, nullptr);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(e), ACLNN_SUCCESS);
  void* workspace = nullptr;
  if (ws > 0) {
    ASSERT_EQ(aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  for (int k = 0; k < 10; ++k) ASSERT_EQ(SecondPhase(workspace, ws, e, stream), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
  EXPECT_EQ(SecondPhase(workspace, ws, e, stream), ACLNN_ERR_PARAM_INVALID);
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_EQ(out->StorageBytes(), p.golden);
  EXPECT_EQ(big_out->StorageBytes(), big.golden);
  if (workspace) aclrtFree(workspace);
  big_workspace.Reset();
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(ExecutorMisuse, TensorsDestroyedBetweenThePhasesDoNotMatter) {
  // Executors keep their own copy of the tensors' descriptions (acl_meta.h).
  const StressProblem& p = problem(2);
  auto out = p.MakeOut();
  auto clone = [](const TestTensor& t, std::vector<int64_t> strides, int64_t offset) {
    const int64_t storage[1] = {t.storage_elems()};
    return aclCreateTensor(t.dims().data(), t.dims().size(), t.dtype(), strides.empty() ? nullptr : strides.data(),
                           offset, ACL_FORMAT_ND, storage, 1, t.data());
  };
  aclTensor* dout = clone(*p.dout, {}, 0);
  aclTensor* self = clone(*p.self, {}, 0);
  aclTensor* target = clone(*p.target, {}, 0);
  aclTensor* weight = p.weight ? clone(*p.weight, {}, 0) : nullptr;
  aclTensor* pos_weight = p.pos_weight ? clone(*p.pos_weight, {}, 0) : nullptr;
  aclTensor* out_tensor = clone(*out, p.out_strides, p.out_offset);
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  ASSERT_EQ(aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(dout, self, target, weight, pos_weight,
                                                                      p.reduction, out_tensor, &ws, &e),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  for (aclTensor* t : {dout, self, target, weight, pos_weight, out_tensor}) EXPECT_EQ(aclDestroyTensor(t), ACLNN_SUCCESS);
  std::vector<char> workspace(ws + 1);
  ASSERT_EQ(SecondPhase(workspace.data(), ws, e, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(out->StorageBytes(), p.golden);
}

}  // namespace
