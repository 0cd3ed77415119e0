// The runtime under real resource limits, exit and fork (ctest label `limits`; release and ASan
// builds). Each scenario runs in a child process: a death test re-executes this binary and runs
// the scenario under setrlimit (RLIMIT_NPROC: no thread can be started; RLIMIT_AS: memory runs
// out), reporting through its exit code. No C++ exception may leave the C API, nothing may hang,
// and after the limit is lifted everything works again.
//   ctest --preset release -L limits
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "aclnn/aclnn_cpu.h"
#include "common/bce_test_util.h"

namespace {

using bce_test::TestTensor;
using namespace std::chrono_literals;

/// Ends the child with @p code after printing @p why (the death test shows it on failure).
[[noreturn]] void ChildFail(int code, const char* why) {
  std::fprintf(stderr, "child check %d failed: %s (recent error: %s)\n", code, why, aclGetRecentErrMsg());
  std::_Exit(code);
}
#define CHILD_CHECK(cond, code) \
  do {                          \
    if (!(cond)) ChildFail(code, #cond); \
  } while (0)

/// Kills the child if the scenario has not ended within @p timeout (a hang is a failure).
void Watchdog(std::chrono::seconds timeout) {
  std::thread([timeout] {
    std::this_thread::sleep_for(timeout);
    std::fprintf(stderr, "child hung\n");
    std::_Exit(99);
  }).detach();
}

/// Makes thread creation fail from now on (RLIMIT_NPROC counts the user's processes and threads;
/// it is not enforced for root, so root first becomes the unprivileged user `nobody`). The soft
/// limit is lowered only, so LiftThreadLimit can raise it again.
void LimitThreads() {
  if (geteuid() == 0) {
    CHILD_CHECK(setgid(65534) == 0, 90);
    CHILD_CHECK(setuid(65534) == 0, 91);
  }
  rlimit limit{};
  CHILD_CHECK(getrlimit(RLIMIT_NPROC, &limit) == 0, 92);
  limit.rlim_cur = 0;
  CHILD_CHECK(setrlimit(RLIMIT_NPROC, &limit) == 0, 93);
}

void LiftThreadLimit() {
  rlimit limit{};
  CHILD_CHECK(getrlimit(RLIMIT_NPROC, &limit) == 0, 94);
  limit.rlim_cur = limit.rlim_max;
  CHILD_CHECK(setrlimit(RLIMIT_NPROC, &limit) == 0, 95);
}

/// Bytes of address space the process uses now (/proc/self/statm, first field).
uint64_t AddressSpaceBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0;
  statm >> pages;
  return pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

/// Caps the address space at what is used now plus @p headroom bytes.
void LimitMemory(uint64_t headroom) {
  rlimit limit{};
  CHILD_CHECK(getrlimit(RLIMIT_AS, &limit) == 0, 96);
  limit.rlim_cur = AddressSpaceBytes() + headroom;
  CHILD_CHECK(setrlimit(RLIMIT_AS, &limit) == 0, 97);
}

void LiftMemoryLimit() {
  rlimit limit{};
  CHILD_CHECK(getrlimit(RLIMIT_AS, &limit) == 0, 98);
  limit.rlim_cur = limit.rlim_max;
  CHILD_CHECK(setrlimit(RLIMIT_AS, &limit) == 0, 98);
}

bool MessageHas(const char* text) { return std::strstr(aclGetRecentErrMsg(), text) != nullptr; }

/// One problem of 1 Mi fp32 elements (above the inline limit: launches are queued for the
/// stream's thread, and they have several blocks), its executor made repeatable.
struct Problem {
  static constexpr int64_t kElems = int64_t{1} << 20;
  TestTensor x{{kElems}, ACL_FLOAT}, y{{kElems}, ACL_FLOAT}, dout{{kElems}, ACL_FLOAT}, out{{kElems}, ACL_FLOAT};
  std::vector<char> workspace;
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;

  explicit Problem(bool repeatable) {
    std::mt19937_64 rng(11);
    x.FillUniform(rng, -5, 5);
    y.FillUniform(rng, 0, 1);
    dout.FillUniform(rng, -1, 1);
    out.Poison();
    CHILD_CHECK(aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(dout.get(), x.get(), y.get(), nullptr,
                                                                          nullptr, 0, out.get(), &workspace_size,
                                                                          &executor) == ACLNN_SUCCESS,
                10);
    workspace.resize(workspace_size + 64);
    if (repeatable) CHILD_CHECK(aclSetAclOpExecutorRepeatable(executor) == ACLNN_SUCCESS, 11);
  }
  aclnnStatus Launch(aclrtStream stream) {
    return aclnnBinaryCrossEntropyWithLogitsBackward(workspace.data(), workspace_size, executor, stream);
  }
  bool Correct() {
    const bce_test::Problem p{&dout, &x, &y, nullptr, nullptr, 0, &out};
    return bce_test::CheckAgainstReference(p).mismatches == 0;
  }
};

// ---------------------------------------------------------------------------------------------
// No thread can be started.
// ---------------------------------------------------------------------------------------------

/// A launch that needs the stream's thread fails with 361001, queues nothing and does not consume
/// the executor; synchronize and destroy return; once threads can start again the same executor
/// runs and gives the right result.
void StreamThreadCannotStart() {
  Watchdog(60s);
  aclrtStream stream = nullptr;
  CHILD_CHECK(aclrtCreateStream(&stream) == ACL_SUCCESS, 1);
  CHILD_CHECK(aclnnCpuSetNumThreads(1) == ACL_SUCCESS, 2);  // the pool needs no thread
  Problem p(/*repeatable=*/false);
  LimitThreads();
  CHILD_CHECK(p.Launch(stream) == ACLNN_ERR_RUNTIME_ERROR, 3);
  CHILD_CHECK(MessageHas("aclnnBinaryCrossEntropyWithLogitsBackward"), 4);
  CHILD_CHECK(MessageHas("resource"), 5);
  CHILD_CHECK(p.Launch(nullptr) == ACLNN_ERR_RUNTIME_ERROR, 6);  // the default stream too
  CHILD_CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS, 7);
  CHILD_CHECK(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS, 8);
  CHILD_CHECK(aclrtSynchronizeDevice() == ACL_SUCCESS, 9);
  LiftThreadLimit();
  CHILD_CHECK(p.Launch(stream) == ACLNN_SUCCESS, 12);  // not consumed by the failed launches
  CHILD_CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS, 13);
  CHILD_CHECK(p.Correct(), 14);
  CHILD_CHECK(aclDestroyAclOpExecutor(p.executor) == ACLNN_ERR_PARAM_INVALID, 15);  // consumed now
  CHILD_CHECK(aclrtDestroyStream(stream) == ACL_SUCCESS, 16);
  std::_Exit(0);
}

TEST(ThreadLimitDeathTest, ALaunchWhoseStreamThreadCannotStartFailsCleanly) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(StreamThreadCannotStart(), ::testing::ExitedWithCode(0), "");
}

/// Worker threads that cannot be started: aclnnCpuSetNumThreads fails and changes nothing, a
/// multi-block launch that needs the workers fails with 361001 without being consumed, and
/// after the limit is lifted the same executor runs.
void WorkersCannotStart() {
  Watchdog(60s);
  aclrtStream stream = nullptr;
  CHILD_CHECK(aclrtCreateStream(&stream) == ACL_SUCCESS, 1);
  CHILD_CHECK(aclnnCpuSetNumThreads(1) == ACL_SUCCESS, 2);
  LimitThreads();
  CHILD_CHECK(aclnnCpuSetNumThreads(1024) == ACL_ERROR_RT_INTERNAL_ERROR, 3);
  CHILD_CHECK(MessageHas("aclnnCpuSetNumThreads"), 4);
  CHILD_CHECK(aclnnCpuGetNumThreads() == 1, 5);  // unchanged
  CHILD_CHECK(aclnnCpuSetNumThreads(4) == ACL_ERROR_RT_INTERNAL_ERROR, 6);
  CHILD_CHECK(aclnnCpuGetNumThreads() == 1, 7);
  LiftThreadLimit();
  CHILD_CHECK(aclnnCpuSetNumThreads(3) == ACL_SUCCESS, 8);
  CHILD_CHECK(aclnnCpuSetNumThreads(1) == ACL_SUCCESS, 9);
  // Plan for 3 threads, then take the workers away: the launch must start them and cannot.
  CHILD_CHECK(aclnnCpuSetNumThreads(3) == ACL_SUCCESS, 10);
  Problem p(/*repeatable=*/false);
  CHILD_CHECK(aclrtResetDevice(0) == ACL_SUCCESS, 17);  // stops the workers; they restart on demand
  LimitThreads();
  CHILD_CHECK(p.Launch(nullptr) == ACLNN_ERR_RUNTIME_ERROR, 18);
  CHILD_CHECK(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS, 19);
  LiftThreadLimit();
  CHILD_CHECK(p.Launch(nullptr) == ACLNN_SUCCESS, 20);
  CHILD_CHECK(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS, 21);
  CHILD_CHECK(p.Correct(), 22);
  std::_Exit(0);
}

TEST(ThreadLimitDeathTest, WorkerThreadsThatCannotStartGiveErrorCodes) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(WorkersCannotStart(), ::testing::ExitedWithCode(0), "");
}

// ---------------------------------------------------------------------------------------------
// Memory runs out (RLIMIT_AS; not under ASan, whose shadow memory needs the address space).
// ---------------------------------------------------------------------------------------------
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kAddressSpaceLimitWorks = false;
#else
constexpr bool kAddressSpaceLimitWorks = true;
#endif

/// Makes first phases, tensors and streams until memory runs out: each failure is an error code
/// (never an exception or an abort), and after the memory is given back everything works.
void FirstPhasesUntilMemoryRunsOut() {
  Watchdog(120s);
  const int64_t dims[] = {64, 64};
  std::vector<float> data(64 * 64, 0.25f);
  aclTensor* t = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, data.data());
  aclTensor* o = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, data.data() + 0);
  std::vector<float> out_data(64 * 64);
  aclTensor* out = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, out_data.data());
  CHILD_CHECK(t != nullptr && o != nullptr && out != nullptr, 1);
  std::vector<aclOpExecutor*> executors;
  std::vector<aclTensor*> tensors;
  std::vector<aclrtStream> streams;
  executors.reserve(1 << 22);
  tensors.reserve(1 << 22);
  streams.reserve(1 << 16);
  LimitMemory(48ull << 20);
  aclnnStatus first = ACLNN_SUCCESS;
  while (first == ACLNN_SUCCESS && executors.size() < executors.capacity()) {
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    first = aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(t, t, o, nullptr, nullptr, 0, out, &ws, &e);
    if (first == ACLNN_SUCCESS) executors.push_back(e);
  }
  CHILD_CHECK(first == ACLNN_ERR_RUNTIME_ERROR, 2);
  CHILD_CHECK(MessageHas("out of memory"), 3);
  aclTensor* made = nullptr;
  do {
    made = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, data.data());
    if (made != nullptr) tensors.push_back(made);
  } while (made != nullptr && tensors.size() < tensors.capacity());
  CHILD_CHECK(made == nullptr && MessageHas("out of memory"), 4);
  aclError stream_status = ACL_SUCCESS;
  while (stream_status == ACL_SUCCESS && streams.size() < streams.capacity()) {
    aclrtStream s = nullptr;
    stream_status = aclrtCreateStream(&s);
    if (stream_status == ACL_SUCCESS) streams.push_back(s);
  }
  CHILD_CHECK(stream_status == ACL_ERROR_RT_MEMORY_ALLOCATION, 5);
  void* big = nullptr;
  CHILD_CHECK(aclrtMalloc(&big, size_t{1} << 30, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_ERROR_RT_MEMORY_ALLOCATION, 6);
  // Give it all back, then everything works again.
  for (aclOpExecutor* e : executors) CHILD_CHECK(aclDestroyAclOpExecutor(e) == ACLNN_SUCCESS, 7);
  for (aclTensor* x : tensors) CHILD_CHECK(aclDestroyTensor(x) == ACLNN_SUCCESS, 8);
  for (aclrtStream s : streams) CHILD_CHECK(aclrtDestroyStream(s) == ACL_SUCCESS, 9);
  LiftMemoryLimit();
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  CHILD_CHECK(aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(t, t, o, nullptr, nullptr, 0, out, &ws, &e) ==
                  ACLNN_SUCCESS,
              10);
  std::vector<char> workspace(ws + 64);
  CHILD_CHECK(aclnnBinaryCrossEntropyWithLogitsBackward(workspace.data(), ws, e, nullptr) == ACLNN_SUCCESS, 11);
  CHILD_CHECK(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS, 12);
  std::_Exit(0);
}

TEST(MemoryLimitDeathTest, FirstPhasesTensorsAndStreamsFailCleanlyWhenMemoryRunsOut) {
  if (!kAddressSpaceLimitWorks) GTEST_SKIP() << "RLIMIT_AS cannot be combined with a sanitizer's shadow memory";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(FirstPhasesUntilMemoryRunsOut(), ::testing::ExitedWithCode(0), "");
}

/// Worker threads whose stacks cannot be mapped (the address-space limit of `ulimit -v`):
/// aclnnCpuSetNumThreads(1024) fails with a code and the count stays as it was.
void ManyThreadsUnderAnAddressSpaceLimit() {
  Watchdog(60s);
  CHILD_CHECK(aclnnCpuSetNumThreads(1) == ACL_SUCCESS, 1);
  LimitMemory(64ull << 20);  // room for a few 8 MiB thread stacks, not for 1023
  const aclError status = aclnnCpuSetNumThreads(1024);
  CHILD_CHECK(status == ACL_ERROR_RT_INTERNAL_ERROR || status == ACL_ERROR_RT_MEMORY_ALLOCATION, 2);
  CHILD_CHECK(aclnnCpuGetNumThreads() == 1, 3);
  Problem p(/*repeatable=*/true);
  CHILD_CHECK(p.Launch(nullptr) == ACLNN_SUCCESS, 4);
  CHILD_CHECK(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS, 5);
  CHILD_CHECK(p.Correct(), 6);
  std::_Exit(0);
}

TEST(MemoryLimitDeathTest, AThousandThreadsUnderAnAddressSpaceLimitGiveAnErrorCode) {
  if (!kAddressSpaceLimitWorks) GTEST_SKIP() << "RLIMIT_AS cannot be combined with a sanitizer's shadow memory";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(ManyThreadsUnderAnAddressSpaceLimit(), ::testing::ExitedWithCode(0), "");
}

// ---------------------------------------------------------------------------------------------
// fork(): the child may use, synchronize and destroy what it inherited.
// ---------------------------------------------------------------------------------------------

/// Waits for @p pid for at most @p timeout; returns its exit status, or -1 after killing it.
int WaitWithTimeout(pid_t pid, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(5ms);
  }
}

TEST(Fork, AChildUsesSynchronizesAndDestroysTheStreamsItInherited) {
  ASSERT_EQ(aclnnCpuSetNumThreads(2), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  Problem p(/*repeatable=*/true);
  // Launches queued on both streams while the fork happens, and a thread launching meanwhile.
  for (int k = 0; k < 6; ++k) {
    ASSERT_EQ(p.Launch(stream), ACLNN_SUCCESS);
    ASSERT_EQ(p.Launch(nullptr), ACLNN_SUCCESS);
  }
  std::atomic<bool> stop{false};
  std::thread launcher([&] {
    while (!stop.load()) EXPECT_EQ(p.Launch(stream), ACLNN_SUCCESS);
  });
  std::this_thread::sleep_for(5ms);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // The child: its results are those of the launches made before the fork.
    if (!p.Correct()) std::_Exit(1);
    p.out.Poison();
    if (p.Launch(stream) != ACLNN_SUCCESS) std::_Exit(2);
    if (aclrtSynchronizeStream(stream) != ACL_SUCCESS) std::_Exit(3);
    if (!p.Correct()) std::_Exit(4);
    p.out.Poison();
    if (p.Launch(nullptr) != ACLNN_SUCCESS) std::_Exit(5);
    if (aclrtSynchronizeDevice() != ACL_SUCCESS) std::_Exit(6);
    if (!p.Correct()) std::_Exit(7);
    if (aclrtDestroyStream(stream) != ACL_SUCCESS) std::_Exit(8);
    aclrtStream fresh = nullptr;
    if (aclrtCreateStream(&fresh) != ACL_SUCCESS || p.Launch(fresh) != ACLNN_SUCCESS) std::_Exit(9);
    if (aclrtDestroyStream(fresh) != ACL_SUCCESS) std::_Exit(10);
    if (aclrtResetDevice(0) != ACL_SUCCESS) std::_Exit(11);
    std::_Exit(0);
  }
  stop = true;
  launcher.join();
  EXPECT_EQ(WaitWithTimeout(pid, 60s), 0) << "-1: the child hung; otherwise the child's failed step";
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_TRUE(p.Correct());
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclnnCpuSetNumThreads(0), ACL_SUCCESS);
}

}  // namespace
