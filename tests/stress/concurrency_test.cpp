// Concurrency stress of the runtime and the operator (ctest label `concurrency`):
//   ctest --preset release -L concurrency
//   TSAN_OPTIONS=halt_on_error=1 ctest --preset tsan -L concurrency     (as scripts/test.sh does)
// Every result is compared bitwise with a single-threaded run of the same problem (the operator
// is deterministic: the same bits for any thread count, stream or interleaving).
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "aclnn/aclnn_cpu.h"
#include "stress_problems.h"

namespace {

using bce_stress::Enqueue;
using bce_stress::FirstPhase;
using bce_stress::StressProblem;
using bce_test::TestTensor;

// Fewer rounds under the sanitizers (each costs ~10x there); the interleavings stay the same kind.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr int kRounds = 6;
#else
constexpr int kRounds = 12;
#endif
constexpr int kThreads = 8;
constexpr int kBatch = 3;  // launches a thread queues before it synchronizes

using Concurrency = bce_stress::StressProblemsTest;

/// Runs kRounds batches of kBatch problems on @p stream from the calling thread and returns how
/// many results differed from the golden bytes.
int RunBatches(const std::vector<std::unique_ptr<StressProblem>>& problems, aclrtStream stream, int thread_index) {
  int mismatches = 0;
  for (int round = 0; round < kRounds; ++round) {
    std::vector<std::unique_ptr<TestTensor>> outs;
    std::vector<const StressProblem*> ran;
    std::vector<aclnn_cpu::DeviceMemory> workspaces;
    for (int k = 0; k < kBatch; ++k) {
      const StressProblem& p = *problems[static_cast<size_t>(thread_index * 7 + round * kBatch + k) % problems.size()];
      outs.push_back(p.MakeOut());
      aclnn_cpu::DeviceMemory workspace;
      const aclnnStatus s = Enqueue(p, outs.back()->get(), stream, workspace);
      if (s != ACLNN_SUCCESS) {
        ADD_FAILURE() << p.name << ": status " << s << ": " << aclGetRecentErrMsg();
        ++mismatches;
      }
      ran.push_back(&p);
      workspaces.push_back(std::move(workspace));
    }
    EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    workspaces.clear();
    for (size_t k = 0; k < outs.size(); ++k) {
      if (outs[k]->StorageBytes() != ran[k]->golden) {
        ADD_FAILURE() << "thread " << thread_index << " round " << round << ": " << ran[k]->name
                      << " differs from the single-threaded result";
        ++mismatches;
      }
    }
  }
  return mismatches;
}

TEST_F(Concurrency, EightThreadsOnThreeStreamsAndTheDefaultStreamMatchASingleThreadedRun) {
  aclrtStream streams[4] = {nullptr, nullptr, nullptr, nullptr};  // [3] stays the default stream
  for (int s = 0; s < 3; ++s) ASSERT_EQ(aclrtCreateStream(&streams[s]), ACL_SUCCESS);
  std::atomic<int> mismatches{0};
  std::barrier start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      mismatches += RunBatches(problems(), streams[t % 4], t);
    });
  }
  for (auto& th : threads) th.join();
  for (int s = 0; s < 3; ++s) EXPECT_EQ(aclrtDestroyStream(streams[s]), ACL_SUCCESS);
  EXPECT_EQ(mismatches.load(), 0);
}

TEST_F(Concurrency, ThreadsEachCreatingAndDestroyingTheirOwnStreams) {
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      aclrtStream stream = nullptr;
      ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
      mismatches += RunBatches(problems(), stream, t + 3);
      EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// A worker started by one resize of the pool must see the stop of the next resize even if it first
// runs after it (this hung for ever before 7f2b4e6).
TEST_F(Concurrency, ThreadCountChangedBetweenLaunchesOfOneThread) {
  const StressProblem& p = problem(0);  // several blocks: every launch uses (and resizes) the pool
  for (int k = 0; k < 300; ++k) {
    ASSERT_EQ(aclnnCpuSetNumThreads(2 + k % 3), ACL_SUCCESS);
    auto out = p.MakeOut();
    aclnn_cpu::DeviceMemory workspace;
    ASSERT_EQ(Enqueue(p, out->get(), nullptr, workspace), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    ASSERT_EQ(out->StorageBytes(), p.golden) << "launch " << k;
  }
  EXPECT_EQ(aclnnCpuSetNumThreads(0), ACL_SUCCESS);
}

TEST_F(Concurrency, ThreadCountChangedWhileLaunchesRun) {
  std::atomic<bool> stop{false};
  std::atomic<int> mismatches{0};
  std::thread changer([&] {
    const int32_t counts[] = {1, 2, 3, 8, 0, 5, 1, 16, 0};
    for (size_t k = 0; !stop.load(); ++k) {
      EXPECT_EQ(aclnnCpuSetNumThreads(counts[k % std::size(counts)]), ACL_SUCCESS);
      EXPECT_GE(aclnnCpuGetNumThreads(), 1);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      aclrtStream stream = nullptr;
      if (t != 0) {
        ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
      }
      mismatches += RunBatches(problems(), stream, t);
      if (stream != nullptr) {
        EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
      }
    });
  }
  for (auto& th : threads) th.join();
  stop = true;
  changer.join();
  EXPECT_EQ(aclnnCpuSetNumThreads(0), ACL_SUCCESS);
  EXPECT_EQ(mismatches.load(), 0);
}

// ---------------------------------------------------------------------------------------------
// Order on one stream: repeatable executors updating a tensor in place (out = self), so that each
// launch reads what the one before it wrote, through non-commuting maps.
// ---------------------------------------------------------------------------------------------
struct InPlaceChain {
  static constexpr int64_t kElems = 1 << 20;  // 4 MiB of fp32: several blocks, queued
  TestTensor x{{kElems}, ACL_FLOAT};
  TestTensor y_a{{kElems}, ACL_FLOAT}, y_b{{kElems}, ACL_FLOAT};
  TestTensor dout_a{{}, ACL_FLOAT}, dout_b{{}, ACL_FLOAT}, pw_b{{1}, ACL_FLOAT};
  aclTensor* x_out = nullptr;  // a second tensor over x's storage and view: out aliases self
  aclOpExecutor* a = nullptr;
  aclOpExecutor* b = nullptr;
  uint64_t workspace_size_a = 0, workspace_size_b = 0;
  void* workspace_a = nullptr;
  void* workspace_b = nullptr;

  InPlaceChain() {
    for (int64_t i = 0; i < kElems; ++i) {
      x.Set(i, static_cast<double>(i % 97) / 16.0 - 3.0);
      y_a.Set(i, 0.25);
      y_b.Set(i, static_cast<double>(i % 5) / 4.0);
    }
    dout_a.Set(0, 4.0);
    dout_b.Set(0, -3.0);
    pw_b.Set(0, 2.0);
    const int64_t dims[1] = {kElems};
    x_out = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, x.data());
    EXPECT_NE(x_out, nullptr) << aclGetRecentErrMsg();
    // a: x <- 4 * (sigmoid(x) - 0.25); b: x <- -3 * ((2y + 1 - y) * sigmoid(x) - 2y)
    EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(dout_a.get(), x.get(), y_a.get(), nullptr,
                                                                        nullptr, 0, x_out, &workspace_size_a, &a),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(dout_b.get(), x.get(), y_b.get(), nullptr,
                                                                        pw_b.get(), 0, x_out, &workspace_size_b, &b),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    EXPECT_EQ(aclSetAclOpExecutorRepeatable(a), ACLNN_SUCCESS);
    EXPECT_EQ(aclSetAclOpExecutorRepeatable(b), ACLNN_SUCCESS);
    if (workspace_size_a) {
      EXPECT_EQ(aclrtMalloc(&workspace_a, workspace_size_a, ACL_MEM_MALLOC_HUGE_FIRST), 0);
    }
    if (workspace_size_b) {
      EXPECT_EQ(aclrtMalloc(&workspace_b, workspace_size_b, ACL_MEM_MALLOC_HUGE_FIRST), 0);
    }
  }
  ~InPlaceChain() {
    EXPECT_EQ(aclDestroyAclOpExecutor(a), ACLNN_SUCCESS);
    EXPECT_EQ(aclDestroyAclOpExecutor(b), ACLNN_SUCCESS);
    if (workspace_a) aclrtFree(workspace_a);
    if (workspace_b) aclrtFree(workspace_b);
    aclDestroyTensor(x_out);
  }
  aclnnStatus Launch(bool use_b, aclrtStream stream) {
    return use_b ? aclnnBinaryCrossEntropyWithLogitsBackward(workspace_b, workspace_size_b, b, stream)
                 : aclnnBinaryCrossEntropyWithLogitsBackward(workspace_a, workspace_size_a, a, stream);
  }
};

/// A launch sequence of the chain: true (executor b) with probability 1 / b_one_in.
std::vector<bool> ChainSequence(int launches, uint64_t seed, int b_one_in) {
  std::mt19937_64 rng(seed);
  std::vector<bool> sequence(static_cast<size_t>(launches));
  for (auto&& use_b : sequence) use_b = rng() % static_cast<uint64_t>(b_one_in) == 0;
  return sequence;
}

/// The chain's x after @p sequence on the default stream with a synchronize after every launch.
std::vector<uint8_t> SynchronizedChainResult(const std::vector<bool>& sequence) {
  InPlaceChain chain;
  for (bool use_b : sequence) {
    EXPECT_EQ(chain.Launch(use_b, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  }
  return chain.x.StorageBytes();
}

TEST_F(Concurrency, RepeatableExecutorsOnOneStreamRunInLaunchOrder) {
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
  constexpr int kLaunches = 48;
#else
  constexpr int kLaunches = 200;
#endif
  const std::vector<bool> sequence = ChainSequence(kLaunches, 7, 3);
  const std::vector<uint8_t> reference = SynchronizedChainResult(sequence);
  // All launches queued at once on one stream, synchronized once.
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  InPlaceChain queued;
  for (bool use_b : sequence) ASSERT_EQ(queued.Launch(use_b, stream), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_EQ(queued.x.StorageBytes(), reference);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(Concurrency, ThreadsSynchronizingAStreamRunItsQueuedLaunchesInLaunchOrder) {
  // aclrtSynchronizeStream runs queued launches on the calling thread when none is running (see
  // Note [Streams]). Here three threads synchronize the stream over and over while a fourth queues
  // an in-place chain on it: the stream's thread and every synchronizer race for each launch, and
  // the chain must still run once per launch, in launch order.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
  constexpr int kLaunches = 24;
#else
  constexpr int kLaunches = 120;
#endif
  const std::vector<bool> sequence = ChainSequence(kLaunches, 11, 2);
  const std::vector<uint8_t> reference = SynchronizedChainResult(sequence);

  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  InPlaceChain raced;
  std::atomic<bool> done{false};
  std::atomic<int> sync_failures{0};
  std::vector<std::thread> synchronizers;
  for (int t = 0; t < 3; ++t) {
    synchronizers.emplace_back([&] {
      while (!done.load(std::memory_order_acquire)) {
        if (aclrtSynchronizeStream(stream) != ACL_SUCCESS) sync_failures.fetch_add(1);
      }
    });
  }
  for (size_t k = 0; k < sequence.size(); ++k) {
    EXPECT_EQ(raced.Launch(sequence[k], stream), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    // Bursts of launches, then a pause in which the synchronizers find a deep queue.
    if (k % 8 == 7) std::this_thread::sleep_for(std::chrono::microseconds(300));
  }
  done.store(true, std::memory_order_release);
  for (auto& t : synchronizers) t.join();
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_EQ(sync_failures.load(), 0);
  EXPECT_EQ(raced.x.StorageBytes(), reference);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(Concurrency, DestroyStreamWithQueuedLaunchesWaitsForThem) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  // A long in-place chain first, so that everything after it is queued behind it.
  InPlaceChain chain;
  for (int k = 0; k < 4; ++k) ASSERT_EQ(chain.Launch(k % 2 == 1, stream), ACLNN_SUCCESS);
  std::vector<std::unique_ptr<TestTensor>> outs;
  std::vector<aclnn_cpu::DeviceMemory> workspaces;
  for (const auto& p : problems()) {
    outs.push_back(p->MakeOut());
    aclnn_cpu::DeviceMemory workspace;
    ASSERT_EQ(Enqueue(*p, outs.back()->get(), stream, workspace), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    workspaces.push_back(std::move(workspace));
  }
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  // No synchronize: destroying the stream waited for every launch.
  for (size_t k = 0; k < outs.size(); ++k) {
    EXPECT_EQ(outs[k]->StorageBytes(), problems()[k]->golden) << problems()[k]->name;
  }
  workspaces.clear();
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_PARAM);  // the handle is gone
}

// ---------------------------------------------------------------------------------------------
// Races on one executor: exactly one of many threads may consume or destroy it.
// ---------------------------------------------------------------------------------------------
struct RaceOutcome {
  int successes = 0;
  int refusals = 0;  // ACLNN_ERR_PARAM_INVALID with a message
};

/// Calls @p call from kThreads threads released at the same moment.
template <class Call>
RaceOutcome RaceFromAllThreads(Call call) {
  std::atomic<int> successes{0}, refusals{0};
  std::barrier start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      start.arrive_and_wait();
      const aclnnStatus s = call();
      if (s == ACLNN_SUCCESS) ++successes;
      if (s == ACLNN_ERR_PARAM_INVALID && aclGetRecentErrMsg()[0] != '\0') ++refusals;
    });
  }
  for (auto& th : threads) th.join();
  return {successes.load(), refusals.load()};
}

TEST_F(Concurrency, NonRepeatableExecutorLaunchedFromEightThreadsRunsExactlyOnce) {
  for (int trial = 0; trial < 20; ++trial) {
    const StressProblem& p = problem(0);
    auto [out, workspace_size, executor] = bce_stress::Plan(p);
    ASSERT_NE(executor, nullptr);
    std::vector<char> workspace(workspace_size + 1);
    const RaceOutcome r = RaceFromAllThreads(
        [&] { return aclnnBinaryCrossEntropyWithLogitsBackward(workspace.data(), workspace_size, executor, nullptr); });
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    EXPECT_EQ(r.successes, 1);
    EXPECT_EQ(r.refusals, kThreads - 1);
    EXPECT_EQ(out->StorageBytes(), p.golden);
  }
}

TEST_F(Concurrency, ExecutorDestroyedFromEightThreadsIsDestroyedExactlyOnce) {
  for (int trial = 0; trial < 20; ++trial) {
    const StressProblem& p = problem(1);
    auto [out, workspace_size, executor] = bce_stress::Plan(p);
    ASSERT_NE(executor, nullptr);
    if (trial % 2 == 1) {
      ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
    }
    const RaceOutcome r = RaceFromAllThreads([&] { return aclDestroyAclOpExecutor(executor); });
    EXPECT_EQ(r.successes, 1);
    EXPECT_EQ(r.refusals, kThreads - 1);
  }
}

TEST_F(Concurrency, RecentErrorMessageBelongsToTheThreadThatFailed) {
  const StressProblem& p = problem(0);
  std::atomic<int> wrong{0};
  std::barrier start(2);
  auto fail_with_reduction = [&] {
    start.arrive_and_wait();
    auto out = p.MakeOut();
    for (int k = 0; k < 200; ++k) {
      uint64_t ws = 0;
      aclOpExecutor* e = nullptr;
      if (aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(p.dout->get(), p.self->get(), p.target->get(),
                                                                    nullptr, nullptr, 7, out->get(), &ws,
                                                                    &e) != ACLNN_ERR_PARAM_INVALID ||
          std::strstr(aclGetRecentErrMsg(), "reduction") == nullptr) {
        ++wrong;
      }
    }
  };
  auto fail_with_null = [&] {
    start.arrive_and_wait();
    for (int k = 0; k < 200; ++k) {
      uint64_t ws = 0;
      aclOpExecutor* e = nullptr;
      if (aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(p.dout->get(), p.self->get(), nullptr, nullptr,
                                                                    nullptr, 0, nullptr, &ws,
                                                                    &e) != ACLNN_ERR_PARAM_NULLPTR ||
          std::strstr(aclGetRecentErrMsg(), "target") == nullptr) {
        ++wrong;
      }
    }
  };
  std::thread a(fail_with_reduction), b(fail_with_null);
  a.join();
  b.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
