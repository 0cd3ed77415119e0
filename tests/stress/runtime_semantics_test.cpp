// Runtime semantics under misuse and contention (ctest label `concurrency`, so that the TSan and
// ASan builds run them too): synchronize waits only for earlier launches, the launch queue is
// bounded, aclrtFree waits for the launches that may use the memory, device reset destroys the
// streams and stops their threads, tensor handles are checked without reading freed memory.
//   ctest --preset release -L concurrency
#include <gtest/gtest.h>

#include <dirent.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "aclnn/aclnn_cpu.h"
#include "common/bce_test_util.h"
#include "runtime/executor.h"
#include "runtime/stream.h"

namespace {

using bce_test::TestTensor;
using namespace std::chrono_literals;

/// Launches of one plan block at a gate until it is opened; every run is counted. The plan is
/// queued (never run inline), one block, so it runs on the stream's thread or a synchronizer.
class GatePlan final : public aclnn_cpu::LaunchPlan {
 public:
  explicit GatePlan(uint64_t workspace_bytes = 0) : workspace_bytes_(workspace_bytes), stage_{1, workspace_bytes} {}
  std::span<const aclnn_cpu::LaunchStage> Stages() const override { return {&stage_, 1}; }
  bool RunInlineIfIdle() const override { return false; }
  void RunBlock(size_t, uint64_t, char* workspace) const override {
    std::unique_lock<std::mutex> lock(mutex_);
    ++entered_;
    entered_cv_.notify_all();
    open_cv_.wait(lock, [this] { return open_; });
    // Touch the workspace after the gate, so that a free that did not wait is a use after free.
    // Under the lock: launches on two streams may share one workspace in a test, and their writes
    // must not race each other (only a free that did not wait should be reported).
    if (workspace_bytes_ != 0) std::memset(workspace, 0x5a, workspace_bytes_);
    runs_.fetch_add(1, std::memory_order_acq_rel);
  }
  void Open() const {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    open_cv_.notify_all();
  }
  /// Waits until a run has reached the gate.
  bool WaitEntered(std::chrono::milliseconds timeout) const {
    std::unique_lock<std::mutex> lock(mutex_);
    return entered_cv_.wait_for(lock, timeout, [this] { return entered_ > 0; });
  }
  int64_t runs() const { return runs_.load(std::memory_order_acquire); }

 private:
  uint64_t workspace_bytes_;
  aclnn_cpu::LaunchStage stage_;
  mutable std::mutex mutex_;
  mutable std::condition_variable open_cv_, entered_cv_;
  mutable bool open_ = false;
  mutable int64_t entered_ = 0;
  mutable std::atomic<int64_t> runs_{0};
};

/// A repeatable executor of @p plan (destroyed by the caller).
aclOpExecutor* RepeatableExecutor(std::shared_ptr<const aclnn_cpu::LaunchPlan> plan) {
  aclOpExecutor* e = aclnn_cpu::CreateExecutor(std::move(plan));
  EXPECT_NE(e, nullptr);
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(e), ACLNN_SUCCESS);
  return e;
}

aclnnStatus Launch(aclOpExecutor* e, aclrtStream stream, void* workspace = nullptr, uint64_t size = 0) {
  return aclnn_cpu::LaunchExecutor("test", workspace, size, e, stream);
}

// ---------------------------------------------------------------------------------------------
// Synchronize waits for the launches made before it, not for later ones.
// ---------------------------------------------------------------------------------------------

/// A problem of 1 Mi fp32 elements with a 0-dim gradOutput: 12 MiB of traffic, above the inline
/// limit, so every launch is queued for the stream's thread.
struct QueuedProblem {
  static constexpr int64_t kElems = int64_t{1} << 20;
  TestTensor x{{kElems}, ACL_FLOAT}, y{{kElems}, ACL_FLOAT}, dout{{}, ACL_FLOAT}, out{{kElems}, ACL_FLOAT};
  aclOpExecutor* executor = nullptr;
  uint64_t workspace_size = 0;
  QueuedProblem() {
    std::mt19937_64 rng(7);
    x.FillUniform(rng, -4, 4);
    y.FillUniform(rng, 0, 1);
    dout.Set(0, 0.5);
    EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(dout.get(), x.get(), y.get(), nullptr, nullptr,
                                                                        0, out.get(), &workspace_size, &executor),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    EXPECT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
    if (workspace_size != 0) {
      EXPECT_EQ(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    }
  }
  ~QueuedProblem() {
    aclDestroyAclOpExecutor(executor);
    if (workspace != nullptr) aclrtFree(workspace);  // waits for the launches (see FreeWhileQueued)
  }
  aclnnStatus Launch(aclrtStream stream) const {
    return aclnnBinaryCrossEntropyWithLogitsBackward(workspace, workspace_size, executor, stream);
  }
  void* workspace = nullptr;
};

/// While one thread keeps launching on @p stream, @p synchronize (called from another thread)
/// must return: it waits only for what was launched before it. Returns whether it did.
bool SynchronizeReturnsWhileAnotherThreadKeepsLaunching(aclrtStream stream, aclError (*synchronize)(aclrtStream)) {
  QueuedProblem p;
  std::atomic<bool> synchronized{false};
  std::atomic<bool> gave_up{false};  // the launcher stopped on its own: the synchronize waited for it
  std::atomic<int64_t> launches{0};
  // The synchronize waits for at most the queue's capacity of earlier launches, and meanwhile the
  // launcher (blocked by the full queue) makes about as many: far fewer than the cap, whatever the
  // machine's speed or the sanitizer's slowdown. A synchronize that waits for the launcher to stop
  // lets it reach the cap.
  constexpr int64_t kCap = 16 * static_cast<int64_t>(aclnn_cpu::Stream::kQueueCapacity);
  std::thread launcher([&] {
    while (!synchronized.load()) {
      if (launches.load() >= kCap) {
        gave_up = true;
        break;
      }
      EXPECT_EQ(p.Launch(stream), ACLNN_SUCCESS);
      launches.fetch_add(1);
    }
  });
  while (launches.load() < 8) std::this_thread::yield();
  EXPECT_EQ(synchronize(stream), ACL_SUCCESS);
  synchronized = true;
  launcher.join();
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  return !gave_up.load();
}

TEST(SynchronizeScope, StreamSynchronizeDoesNotWaitForLaterLaunches) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  EXPECT_TRUE(SynchronizeReturnsWhileAnotherThreadKeepsLaunching(stream, aclrtSynchronizeStream));
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST(SynchronizeScope, DefaultStreamSynchronizeDoesNotWaitForLaterLaunches) {
  EXPECT_TRUE(SynchronizeReturnsWhileAnotherThreadKeepsLaunching(nullptr, aclrtSynchronizeStream));
}

TEST(SynchronizeScope, DeviceSynchronizeDoesNotWaitForLaterLaunches) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  auto device = [](aclrtStream) { return aclrtSynchronizeDevice(); };
  EXPECT_TRUE(SynchronizeReturnsWhileAnotherThreadKeepsLaunching(stream, device));
  EXPECT_TRUE(SynchronizeReturnsWhileAnotherThreadKeepsLaunching(nullptr, device));
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST(SynchronizeScope, DeviceResetDoesNotWaitForLaterLaunchesOnTheDefaultStream) {
  auto reset = [](aclrtStream) { return aclrtResetDevice(0); };
  EXPECT_TRUE(SynchronizeReturnsWhileAnotherThreadKeepsLaunching(nullptr, reset));
}

TEST(SynchronizeScope, SynchronizeWaitsForEveryEarlierLaunch) {
  // The exact scope: a synchronize returns only after the launches before it, and at once when
  // only launches after it are left. A gate holds the first launch; a second thread's
  // synchronize must wait for it.
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  auto plan = std::make_shared<GatePlan>();
  aclOpExecutor* e = RepeatableExecutor(plan);
  ASSERT_EQ(Launch(e, stream), ACLNN_SUCCESS);
  ASSERT_EQ(Launch(e, stream), ACLNN_SUCCESS);
  ASSERT_TRUE(plan->WaitEntered(10s));
  auto sync = std::async(std::launch::async, [stream] { return aclrtSynchronizeStream(stream); });
  EXPECT_EQ(sync.wait_for(100ms), std::future_status::timeout) << "synchronize returned before its launches ran";
  plan->Open();
  EXPECT_EQ(sync.get(), ACL_SUCCESS);
  EXPECT_EQ(plan->runs(), 2);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// The launch queue is bounded: a full queue makes the launching thread wait.
// ---------------------------------------------------------------------------------------------
TEST(LaunchQueue, AFullQueueMakesTheLauncherWaitUntilThereIsRoom) {
  constexpr int64_t kCapacity = static_cast<int64_t>(aclnn_cpu::Stream::kQueueCapacity);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  auto plan = std::make_shared<GatePlan>();
  aclOpExecutor* e = RepeatableExecutor(plan);
  ASSERT_EQ(Launch(e, stream), ACLNN_SUCCESS);  // taken by the stream's thread, held at the gate
  ASSERT_TRUE(plan->WaitEntered(10s));
  std::atomic<int64_t> made{0};
  std::thread launcher([&] {
    for (int64_t k = 0; k < kCapacity + 3; ++k) {
      EXPECT_EQ(Launch(e, stream), ACLNN_SUCCESS);
      made.fetch_add(1);
    }
  });
  // The queue fills up to its capacity; the next launch waits.
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (made.load() < kCapacity && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(made.load(), kCapacity) << "launches beyond the queue's capacity must wait";
  EXPECT_EQ(plan->runs(), 0);
  plan->Open();
  launcher.join();
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_EQ(plan->runs(), kCapacity + 4);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// aclrtFree waits for the launches made before it (as cudaFree).
// ---------------------------------------------------------------------------------------------
TEST(FreeWhileQueued, FreeWaitsForTheLaunchesThatUseTheMemory) {
  constexpr uint64_t kBytes = 4096;
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  auto plan = std::make_shared<GatePlan>(kBytes);
  aclOpExecutor* e = RepeatableExecutor(plan);
  void* workspace = nullptr;
  ASSERT_EQ(aclrtMalloc(&workspace, plan->WorkspaceSize(), ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
  ASSERT_EQ(Launch(e, stream, workspace, plan->WorkspaceSize()), ACLNN_SUCCESS);
  ASSERT_EQ(Launch(e, nullptr, workspace, plan->WorkspaceSize()), ACLNN_SUCCESS);  // default stream too
  ASSERT_TRUE(plan->WaitEntered(10s));
  auto freed = std::async(std::launch::async, [workspace] { return aclrtFree(workspace); });
  EXPECT_EQ(freed.wait_for(100ms), std::future_status::timeout) << "aclrtFree returned while a launch used the memory";
  plan->Open();  // the launches write the workspace after the gate: ASan flags a free that did not wait
  EXPECT_EQ(freed.get(), ACL_SUCCESS);
  EXPECT_EQ(plan->runs(), 2);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// aclrtResetDevice destroys the streams still alive and stops the runtime's threads.
// ---------------------------------------------------------------------------------------------
int ThreadCount() {
  // A sanitizer runtime starts a background thread of its own at the process's first thread
  // start (TSan does); start and join one first so that it is counted in every baseline.
  static const bool sanitizer_threads_started = [] {
    std::thread([] {}).join();
    return true;
  }();
  (void)sanitizer_threads_started;
  int n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* entry = readdir(d)) n += entry->d_name[0] != '.';
    closedir(d);
  }
  return n;
}

TEST(DeviceReset, DestroysTheStreamsStillAliveAndStopsTheirThreads) {
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  const int baseline = ThreadCount();
  ASSERT_EQ(aclnnCpuSetNumThreads(3), ACL_SUCCESS);
  aclrtStream streams[2] = {nullptr, nullptr};
  for (auto& s : streams) ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  // One problem per stream: launches on different streams are unordered, so they must not write
  // the same out.
  QueuedProblem problems[3];
  const aclrtStream targets[3] = {streams[0], streams[1], nullptr};
  for (int i = 0; i < 3; ++i) ASSERT_EQ(problems[i].Launch(targets[i]), ACLNN_SUCCESS);
  EXPECT_GT(ThreadCount(), baseline);
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(ThreadCount(), baseline) << "stream and worker threads outlived aclrtResetDevice";
  for (aclrtStream s : streams) {
    EXPECT_EQ(aclrtSynchronizeStream(s), ACL_ERROR_INVALID_PARAM) << "a reset destroys the streams";
    EXPECT_EQ(aclrtDestroyStream(s), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(problems[0].Launch(s), ACLNN_ERR_PARAM_INVALID);
  }
  // Every launch made before the reset ran: each result is the reference's.
  for (QueuedProblem& p : problems) {
    const bce_test::Problem problem{&p.dout, &p.x, &p.y, nullptr, nullptr, 0, &p.out};
    EXPECT_EQ(bce_test::CheckAgainstReference(problem).mismatches, 0);
  }
  // The device works again after a reset: the default stream and the pool start new threads.
  QueuedProblem& p = problems[0];
  ASSERT_EQ(p.Launch(nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclnnCpuSetNumThreads(0), ACL_SUCCESS);
}

TEST(DeviceReset, FinalizeAlsoStopsTheThreadsAndInitWorksAgain) {
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  const int baseline = ThreadCount();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  {
    QueuedProblem p;
    ASSERT_EQ(p.Launch(stream), ACLNN_SUCCESS);
    ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
    EXPECT_EQ(ThreadCount(), baseline);
    EXPECT_EQ(aclrtDestroyStream(stream), ACL_ERROR_INVALID_PARAM);
  }
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);  // the test environment finalizes at the end
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// Tensor handles are checked without reading freed memory.
// ---------------------------------------------------------------------------------------------
TEST(TensorHandles, DestroyedTensorPassedToTheFirstPhaseIsRejected) {
  TestTensor x({4}, ACL_FLOAT), y({4}, ACL_FLOAT), dout({}, ACL_FLOAT), out({4}, ACL_FLOAT);
  const int64_t dims[] = {4};
  float data[4] = {1, 2, 3, 4};
  struct Slot {
    const char* name;
    int index;
  };
  for (const Slot slot : {Slot{"gradOutput", 0}, Slot{"self", 1}, Slot{"target", 2}, Slot{"weightOptional", 3},
                          Slot{"posWeightOptional", 4}, Slot{"out", 5}}) {
    aclTensor* dead = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, data);
    ASSERT_NE(dead, nullptr);
    ASSERT_EQ(aclDestroyTensor(dead), ACLNN_SUCCESS);
    // A new tensor made right after must not be confused with the destroyed one.
    aclTensor* fresh = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, data);
    ASSERT_NE(fresh, nullptr);
    EXPECT_NE(fresh, dead) << "a destroyed tensor's address is reused at once";
    const aclTensor* args[6] = {dout.get(), x.get(), y.get(), nullptr, nullptr, out.get()};
    args[slot.index] = dead;
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(args[0], args[1], args[2], args[3], args[4], 0,
                                                                        const_cast<aclTensor*>(args[5]), &ws, &e),
              ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(std::strstr(aclGetRecentErrMsg(), slot.name), nullptr) << aclGetRecentErrMsg();
    EXPECT_NE(std::strstr(aclGetRecentErrMsg(), "not a live tensor"), nullptr) << aclGetRecentErrMsg();
    EXPECT_EQ(e, nullptr);
    EXPECT_EQ(aclDestroyTensor(fresh), ACLNN_SUCCESS);
  }
}

TEST(TensorHandles, PointerThatIsNoTensorIsRejectedWithoutBeingRead) {
  TestTensor x({4}, ACL_FLOAT), y({4}, ACL_FLOAT), dout({}, ACL_FLOAT), out({4}, ACL_FLOAT);
  // Heap memory that ASan poisons on every read: the check must decide without reading it.
  auto* block = static_cast<unsigned char*>(::operator new(512));
  std::memset(block, 0, 512);
  const volatile uintptr_t address = reinterpret_cast<uintptr_t>(block);  // kept past the delete on purpose
  ::operator delete(block);
  const auto* fake = reinterpret_cast<const unsigned char*>(address);
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
                dout.get(), reinterpret_cast<const aclTensor*>(fake), y.get(), nullptr, nullptr, 0, out.get(), &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::strstr(aclGetRecentErrMsg(), "self"), nullptr) << aclGetRecentErrMsg();
}

TEST(TensorHandles, DestroyingATensorTwiceGivesAnErrorCode) {
  const int64_t dims[] = {2};
  float data[2] = {1, 2};
  aclTensor* t = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, data);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(aclDestroyTensor(t), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyTensor(t), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::strstr(aclGetRecentErrMsg(), "not a live tensor"), nullptr) << aclGetRecentErrMsg();
  int not_a_tensor = 0;
  EXPECT_EQ(aclDestroyTensor(reinterpret_cast<const aclTensor*>(&not_a_tensor)), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyTensor(nullptr), ACLNN_SUCCESS) << "null stays accepted, as in CANN";
}

TEST(TensorHandles, TensorsCreatedAndDestroyedFromManyThreadsStayConsistent) {
  const int64_t dims[] = {3};
  float data[3] = {1, 2, 3};
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int k = 0; k < 2000; ++k) {
        aclTensor* a = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, data);
        if (a == nullptr || aclDestroyTensor(a) != ACLNN_SUCCESS || aclDestroyTensor(a) != ACLNN_ERR_PARAM_INVALID) {
          failures.fetch_add(1);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
