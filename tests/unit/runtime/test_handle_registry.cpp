// The live-handle registry behind tensors, executors, streams and allocations (Note [Live handles]).
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "runtime/handle_registry.h"

namespace aclnn_cpu {
namespace {

// Handles are addresses; the registry never reads through them, so the tests use the addresses
// of the elements of one array, which need no freeing.
int g_objects[64];
int* H(int i) { return &g_objects[i]; }

TEST(HandleRegistry, InsertFindTakeAndTheirEntries) {
  static auto* registry = new HandleRegistry<int*, int64_t>(ForkLocking::kOwnerOrdered);
  ASSERT_TRUE(registry->Insert(H(1), 10));
  ASSERT_TRUE(registry->Insert(H(2), 20));
  EXPECT_TRUE(registry->Contains(H(1)));
  EXPECT_FALSE(registry->Contains(H(3)));
  EXPECT_EQ(registry->Find(H(2)), 20);
  EXPECT_EQ(registry->Find(H(3)), std::nullopt);
  ASSERT_TRUE(registry->Insert(H(1), 99));  // a live handle keeps its entry
  EXPECT_EQ(registry->Find(H(1)), 10);

  EXPECT_TRUE(registry->Visit(H(2), [](int64_t& e) { e += 5; }));
  EXPECT_EQ(registry->Find(H(2)), 25);
  bool called = false;
  EXPECT_FALSE(registry->Visit(H(3), [&](int64_t&) { called = true; }));
  EXPECT_FALSE(called);

  // A refused take changes nothing; without a quarantine the taken handle is the one to free.
  EXPECT_EQ(registry->Take(H(2), [](int64_t e) { return e != 25; }), std::nullopt);
  EXPECT_TRUE(registry->Contains(H(2)));
  const auto taken = registry->Take(H(2));
  ASSERT_TRUE(taken.has_value());
  EXPECT_EQ(taken->entry, 25);
  EXPECT_EQ(taken->evicted, H(2));
  EXPECT_FALSE(registry->Contains(H(2)));
  EXPECT_EQ(registry->Take(H(2)), std::nullopt);  // a second take of the same handle
  EXPECT_EQ(registry->Locked([](const auto& map) { return map.size(); }), 1u);
}

TEST(HandleRegistry, FirstDeadSkipsNullAndNamesTheFirstUnknownHandle) {
  static auto* registry = new HandleRegistry<const int*>(ForkLocking::kOwnerOrdered);
  ASSERT_TRUE(registry->Insert(H(1), {}));
  ASSERT_TRUE(registry->Insert(H(2), {}));
  const int* all_live[] = {H(1), nullptr, H(2)};
  EXPECT_EQ(registry->FirstDead(all_live), -1);
  const int* one_dead[] = {H(1), nullptr, H(5), H(2), H(6)};
  EXPECT_EQ(registry->FirstDead(one_dead), 2);
  EXPECT_EQ(registry->FirstDead({}), -1);
}

// With a quarantine of K, the first K takes evict nothing, and take number K + i evicts the handle
// of take number i: retired handles leave in the order they came (FIFO), each exactly once.
TEST(HandleRegistry, TheQuarantineHandsBackRetiredHandlesInFifoOrderAfterKMoreTakes) {
  constexpr size_t kQuarantine = 4;
  static auto* registry = new HandleRegistry<int*, NoEntry, kQuarantine>(ForkLocking::kOwnerOrdered);
  std::vector<int*> taken_order, evicted;
  for (int i = 0; i < 11; ++i) {
    ASSERT_TRUE(registry->Insert(H(i), {}));
    const auto taken = registry->Take(H(i));
    ASSERT_TRUE(taken.has_value());
    taken_order.push_back(H(i));
    if (taken->evicted != nullptr) evicted.push_back(taken->evicted);
    // A retired handle is not live, whether still quarantined or not.
    EXPECT_FALSE(registry->Contains(H(i)));
  }
  ASSERT_EQ(evicted.size(), 11 - kQuarantine);
  for (size_t i = 0; i < evicted.size(); ++i) EXPECT_EQ(evicted[i], taken_order[i]) << i;
}

// Many threads inserting, looking up and taking distinct handles concurrently: every handle is
// taken exactly once and every evicted handle is one that was taken. (The tests make their
// registries kOwnerOrdered so as not to fill the runtime's fixed table of fork locks.)
TEST(HandleRegistry, ConcurrentInsertsAndTakesLoseNoHandle) {
  constexpr size_t kQuarantine = 8;
  static auto* registry = new HandleRegistry<int*, int, kQuarantine>(ForkLocking::kOwnerOrdered);
  constexpr int kThreads = 4, kPerThread = 16;
  std::vector<std::vector<int*>> evicted(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &evicted] {
      for (int round = 0; round < 200; ++round) {
        for (int i = 0; i < kPerThread; ++i) ASSERT_TRUE(registry->Insert(H(t * kPerThread + i), t));
        for (int i = 0; i < kPerThread; ++i) {
          int* h = H(t * kPerThread + i);
          ASSERT_EQ(registry->Find(h), t);
          const auto taken = registry->Take(h);
          ASSERT_TRUE(taken.has_value());
          if (taken->evicted != nullptr) evicted[t].push_back(taken->evicted);
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  size_t total = 0;
  for (const auto& list : evicted) {
    total += list.size();
    for (int* h : list) EXPECT_TRUE(h >= H(0) && h < H(kThreads * kPerThread));
  }
  EXPECT_EQ(total, size_t{kThreads} * kPerThread * 200 - kQuarantine);
  EXPECT_EQ(registry->Locked([](const auto& map) { return map.size(); }), 0u);
}

}  // namespace
}  // namespace aclnn_cpu
