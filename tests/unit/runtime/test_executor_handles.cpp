// Executor handles (Note [Live handles]): looked up, never read; a consumed or destroyed
// executor's address is held back so a stale handle is never taken for a new executor.
#include <gtest/gtest.h>

#include <memory>
#include <span>
#include <vector>

#include "acl/acl.h"
#include "runtime/executor.h"
#include "runtime/launch_plan.h"

namespace acl_test {
namespace {

/// A plan with one block that counts its runs.
class CountingPlan final : public aclnn_cpu::LaunchPlan {
 public:
  std::span<const aclnn_cpu::LaunchStage> Stages() const override { return {&stage_, 1}; }
  void RunBlock(size_t, uint64_t, char*) const override { ++*runs_; }
  bool RunInlineIfIdle() const override { return true; }
  std::shared_ptr<int> runs_ = std::make_shared<int>(0);

 private:
  aclnn_cpu::LaunchStage stage_{1, 0};
};

aclOpExecutor* NewExecutor(std::shared_ptr<int>* runs = nullptr) {
  auto plan = std::make_shared<CountingPlan>();
  if (runs != nullptr) *runs = plan->runs_;
  return aclnn_cpu::CreateExecutor(std::move(plan));
}

TEST(ExecutorHandles, AStaleHandleStaysDeadWhileTheNext1000ExecutorsAreMade) {
  // The plans are made first, so that the only allocations after a destroy are the executors
  // themselves: the allocator would hand the freed block straight back, the quarantine keeps it out.
  std::vector<std::shared_ptr<const aclnn_cpu::LaunchPlan>> plans;
  for (int i = 0; i < 1000; ++i) plans.push_back(std::make_shared<CountingPlan>());
  aclOpExecutor* destroyed = NewExecutor();
  ASSERT_NE(destroyed, nullptr);
  ASSERT_EQ(aclDestroyAclOpExecutor(destroyed), ACLNN_SUCCESS);
  std::shared_ptr<int> consumed_runs;
  aclOpExecutor* consumed = NewExecutor(&consumed_runs);
  ASSERT_EQ(aclnn_cpu::LaunchExecutor("test", nullptr, 0, consumed, nullptr), ACLNN_SUCCESS);  // inline
  EXPECT_EQ(*consumed_runs, 1);

  std::vector<aclOpExecutor*> made;
  made.reserve(plans.size());
  for (int i = 0; i < 1000; ++i) {
    made.push_back(aclnn_cpu::CreateExecutor(std::move(plans[static_cast<size_t>(i)])));
    ASSERT_NE(made.back(), nullptr);
    EXPECT_NE(made.back(), destroyed) << "executor " << i << " reuses a destroyed executor's address";
    EXPECT_NE(made.back(), consumed) << "executor " << i << " reuses a consumed executor's address";
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(destroyed), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(consumed), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnn_cpu::LaunchExecutor("test", nullptr, 0, consumed, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(*consumed_runs, 1);  // the stale handle ran nothing
  for (aclOpExecutor* e : made) EXPECT_EQ(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
}

TEST(ExecutorHandles, ARepeatableExecutorRunsUntilDestroyedAndThenIsDead) {
  std::shared_ptr<int> runs;
  aclOpExecutor* e = NewExecutor(&runs);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(e), ACLNN_SUCCESS);
  for (int i = 0; i < 5; ++i) ASSERT_EQ(aclnn_cpu::LaunchExecutor("test", nullptr, 0, e, nullptr), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(*runs, 5);
  ASSERT_EQ(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
  EXPECT_EQ(aclnn_cpu::LaunchExecutor("test", nullptr, 0, e, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyAclOpExecutor(e), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(*runs, 5);
}

// A destroyed executor releases its plan at once (the quarantine keeps only the memory): a launch
// still queued holds its own reference, so nothing else keeps the plan alive.
TEST(ExecutorHandles, DestroyingReleasesThePlanWhileTheAddressStaysQuarantined) {
  auto plan = std::make_shared<CountingPlan>();
  std::weak_ptr<CountingPlan> weak = plan;
  aclOpExecutor* e = aclnn_cpu::CreateExecutor(std::move(plan));
  ASSERT_NE(e, nullptr);
  EXPECT_FALSE(weak.expired());
  ASSERT_EQ(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
  EXPECT_TRUE(weak.expired());
}

}  // namespace
}  // namespace acl_test
