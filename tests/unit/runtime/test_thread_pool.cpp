// The CPU device's worker pool (Note [Worker pool], Note [Blocks near their data]).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "runtime/thread_pool.h"

namespace aclnn_cpu {
namespace {

/// Sets the pool's thread count for one test and puts the old one back.
class PoolThreads {
 public:
  explicit PoolThreads(int n) : saved_(ThreadPool::Instance().NumThreads()) { ThreadPool::Instance().SetNumThreads(n); }
  ~PoolThreads() { ThreadPool::Instance().SetNumThreads(saved_); }
  PoolThreads(const PoolThreads&) = delete;
  PoolThreads& operator=(const PoolThreads&) = delete;

 private:
  int saved_;
};

struct Counts {
  std::vector<std::atomic<int>> runs;
  explicit Counts(int64_t blocks) : runs(static_cast<size_t>(blocks)) {}
};

TEST(ThreadPool, EveryBlockRunsExactlyOnceForAnyThreadAndBlockCount) {
  // 70 threads: more participants than home ranges (ThreadPool::kMaxRanges), so some take none.
  for (const int threads : {1, 2, 3, 5, 70}) {
    PoolThreads pool_threads(threads);
    for (const int64_t blocks : {1, 2, 3, 7, 8, 63, 64, 65, 200}) {
      Counts counts(blocks);
      ThreadPool::Instance().Run(
          blocks,
          [](const void* c, int64_t b) {
            const_cast<Counts*>(static_cast<const Counts*>(c))->runs[static_cast<size_t>(b)].fetch_add(1);
          },
          &counts);
      for (int64_t b = 0; b < blocks; ++b) {
        ASSERT_EQ(counts.runs[static_cast<size_t>(b)].load(), 1) << "block " << b << " of " << blocks << " with " << threads << " threads";
      }
    }
  }
}

// Which thread ran each block, and whether a worker has started one yet.
struct Trace {
  std::thread::id caller;
  std::vector<std::thread::id> ran_on = std::vector<std::thread::id>(8);
  std::atomic<int64_t> first_worker_block{-1};
};

TEST(ThreadPool, AWorkerStartsOnItsOwnRangeAndTheCallerOnTheFirst) {
  // Two threads, eight blocks: the caller's range is blocks 0-3, the worker's 4-7. Block 0 waits
  // until the worker has started a block; that block is the first of the worker's own range, not
  // the next one after the caller's (as one counter for all would hand out).
  PoolThreads pool_threads(2);
  Trace trace;
  trace.caller = std::this_thread::get_id();
  ThreadPool::Instance().Run(
      8,
      [](const void* c, int64_t b) {
        auto& t = *const_cast<Trace*>(static_cast<const Trace*>(c));
        t.ran_on[static_cast<size_t>(b)] = std::this_thread::get_id();
        if (std::this_thread::get_id() != t.caller) {
          int64_t none = -1;
          t.first_worker_block.compare_exchange_strong(none, b);
        }
        if (b == 0) {
          const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
          while (t.first_worker_block.load() < 0 && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::yield();
          }
        }
      },
      &trace);
  EXPECT_EQ(trace.ran_on[0], trace.caller);
  EXPECT_EQ(trace.first_worker_block.load(), 4);
}

TEST(ThreadPool, ABlockThatTakesLongLeavesTheRestOfItsRangeToTheOthers) {
  // Whichever thread runs block 4 (the first of the worker's range) stays there until the other
  // thread has run blocks 5, 6 and 7: the launch finishes only if the rest of that range can be
  // taken by a thread whose own range it is not, or by the range's owner while the caller holds 4.
  PoolThreads pool_threads(2);
  struct Slow {
    std::vector<std::thread::id> ran_on = std::vector<std::thread::id>(8);
    std::atomic<int> rest_done{0};
  } slow;
  ThreadPool::Instance().Run(
      8,
      [](const void* c, int64_t b) {
        auto& s = *const_cast<Slow*>(static_cast<const Slow*>(c));
        s.ran_on[static_cast<size_t>(b)] = std::this_thread::get_id();
        if (b >= 5) s.rest_done.fetch_add(1);
        if (b == 4) {
          const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
          while (s.rest_done.load() < 3 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
        }
      },
      &slow);
  EXPECT_EQ(slow.rest_done.load(), 3);
  for (size_t b = 5; b < 8; ++b) EXPECT_NE(slow.ran_on[b], slow.ran_on[4]) << "block " << b;
}

}  // namespace
}  // namespace aclnn_cpu
