// opdev/plan_cache.h (Note [Plan cache]): plans are keyed by the first phase's own PlanTag, so the
// shared layer names no operator; a plan cached under one tag is never found under another.
#include "opdev/plan_cache.h"

#include <gtest/gtest.h>

#include <memory>
#include <span>

namespace aclnn_cpu {
namespace {

/// A plan with no stages: the cache only keeps and hands back the pointer.
class EmptyPlan : public LaunchPlan {
 public:
  std::span<const LaunchStage> Stages() const override { return {}; }
  void RunBlock(size_t, uint64_t, char*) const override {}
  bool RunInlineIfIdle() const override { return true; }
};

constexpr PlanTag kFirstPhasePlans{"FirstPhase"};
constexpr PlanTag kOtherPhasePlans{"OtherPhase"};
constexpr int kKernels = 0;  // stands for a kernel table's address

PlanCacheKey KeyOf(const PlanTag& tag, int64_t reduction = 1) {
  return PlanCacheKey(tag, reduction, &kKernels, std::span<const aclTensor* const>());
}

TEST(PlanCache, TheSameTagAndDescriptionFindTheCachedPlan) {
  const auto plan = std::make_shared<const EmptyPlan>();
  CachePlan(KeyOf(kFirstPhasePlans), plan);
  EXPECT_EQ(FindCachedPlan(KeyOf(kFirstPhasePlans)), plan);
}

TEST(PlanCache, APlanIsNeverFoundUnderAnotherTag) {
  CachePlan(KeyOf(kFirstPhasePlans), std::make_shared<const EmptyPlan>());
  EXPECT_EQ(FindCachedPlan(KeyOf(kOtherPhasePlans)), nullptr);
}

TEST(PlanCache, EachTagKeepsItsOwnLastPlan) {
  const auto first = std::make_shared<const EmptyPlan>();
  const auto other = std::make_shared<const EmptyPlan>();
  CachePlan(KeyOf(kFirstPhasePlans), first);
  CachePlan(KeyOf(kOtherPhasePlans), other);
  EXPECT_EQ(FindCachedPlan(KeyOf(kFirstPhasePlans)), first);
  EXPECT_EQ(FindCachedPlan(KeyOf(kOtherPhasePlans)), other);
}

TEST(PlanCache, AnotherDescriptionUnderTheSameTagReplacesThePlan) {
  const auto mean = std::make_shared<const EmptyPlan>();
  CachePlan(KeyOf(kFirstPhasePlans, 0), std::make_shared<const EmptyPlan>());
  CachePlan(KeyOf(kFirstPhasePlans, 1), mean);
  EXPECT_EQ(FindCachedPlan(KeyOf(kFirstPhasePlans, 0)), nullptr);
  EXPECT_EQ(FindCachedPlan(KeyOf(kFirstPhasePlans, 1)), mean);
}

}  // namespace
}  // namespace aclnn_cpu
