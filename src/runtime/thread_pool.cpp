#include "runtime/thread_pool.h"

#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <string>

namespace aclnn_cpu {

// Note [Worker pool]
// A launch publishes (fn, context, num_blocks) and bumps `generation_`; idle workers spin for a
// short while on the generation (a launch often follows another within microseconds) and then
// sleep in std::atomic::wait (a futex). Blocks are handed out by atomic counters, so a worker
// that is slow to wake costs nothing: the caller and the awake workers take its blocks (Note
// [Blocks near their data]). Results never depend on which thread ran a block (each block writes
// only its own elements).
// The job lives on the launching thread's stack. A worker enters it only under job_mutex_ while it
// is published, and the launcher unpublishes it and then waits for `workers_inside` to reach 0
// before returning, so no worker can touch a job that has gone.

namespace {
// Spin iterations before sleeping: about tens of microseconds, enough to catch back-to-back
// launches without burning a core of a 2-core machine when the device is idle.
constexpr int kSpinIterations = 4000;

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}
}  // namespace

ThreadPool& ThreadPool::Instance() {
  static auto* pool = new ThreadPool;  // leaked on purpose: see Note [Exit and fork]
  return *pool;
}

ThreadPool::ThreadPool() : num_threads_(DefaultNumThreads()) {}

// Note [Thread count from the environment]
// ACLNN_CPU_NUM_THREADS sets the default thread count: a whole number from 1 to
// ACLNN_CPU_MAX_THREADS written in digits only (as aclnn_bce_cli's --threads; no sign, no spaces,
// nothing after the digits). Set but empty counts as unset (`ACLNN_CPU_NUM_THREADS= cmd`). Any
// other value is reported once per process on stderr, naming the variable, the value and the
// rule, and the usable cores are used instead: a typo must not silently run on the wrong count,
// and a library must not end its host process over an environment variable.

namespace {
/// The cores this process may run on (its affinity mask), at least 1.
int UsableCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n >= 1) return n;
  }
  const unsigned hc = std::thread::hardware_concurrency();
  return hc >= 1 ? static_cast<int>(hc) : 1;
}
}  // namespace

std::optional<int> ThreadPool::ParseNumThreads(std::string_view text, std::string* error) {
  constexpr int kBase = 10;
  int value = 0;
  bool valid = !text.empty();
  for (const char c : text) {
    valid = valid && c >= '0' && c <= '9' && value <= kMaxThreads;  // checked before an int could overflow
    if (valid) value = value * kBase + (c - '0');
  }
  if (!valid || value < 1 || value > kMaxThreads) {
    *error = "it must be a whole number from 1 to " + std::to_string(kMaxThreads) + ", digits only";
    return std::nullopt;
  }
  return value;
}

int ThreadPool::DefaultNumThreads() {
  const char* env = std::getenv("ACLNN_CPU_NUM_THREADS");
  if (env == nullptr || *env == '\0') return UsableCores();
  std::string error;
  if (const auto count = ParseNumThreads(env, &error)) return *count;
  const int cores = UsableCores();
  static std::once_flag warned;  // the pool asks once, aclnnCpuSetNumThreads(0) again
  std::call_once(warned, [&] {
    std::fprintf(stderr, "aclnn_bce: warning: ACLNN_CPU_NUM_THREADS='%s' is ignored: %s; using the usable cores, %d\n",
                 env, error.c_str(), cores);
  });
  return cores;
}

void ThreadPool::SetNumThreads(int n) {
  n = n < 1 ? 1 : (n > kMaxThreads ? kMaxThreads : n);
  std::lock_guard<std::mutex> lock(run_mutex_);
  Resize(n - 1);  // throws with the workers as they were; the count is then unchanged too
  num_threads_.store(n, std::memory_order_relaxed);
  failed_count_.store(-1, std::memory_order_relaxed);
}

void ThreadPool::EnsureWorkers() {
  if (worker_count_.load(std::memory_order_acquire) == NumThreads() - 1) return;
  std::lock_guard<std::mutex> lock(run_mutex_);
  Resize(NumThreads() - 1);
  failed_count_.store(-1, std::memory_order_relaxed);
}

void ThreadPool::Shutdown() noexcept {
  std::lock_guard<std::mutex> lock(run_mutex_);
  StopWorkersFrom(0);
}

void ThreadPool::StopWorkersFrom(int keep) noexcept {
  if (static_cast<int>(workers_.size()) <= keep) return;
  active_workers_.store(keep, std::memory_order_release);
  generation_.fetch_add(1, std::memory_order_acq_rel);
  generation_.notify_all();
  for (size_t i = static_cast<size_t>(keep); i < workers_.size(); ++i) workers_[i].join();
  workers_.erase(workers_.begin() + keep, workers_.end());
  worker_count_.store(keep, std::memory_order_release);
}

void ThreadPool::Resize(int workers) {
  const int have = static_cast<int>(workers_.size());
  if (workers <= have) {
    StopWorkersFrom(workers);
    return;
  }
  workers_.reserve(static_cast<size_t>(workers));  // bad_alloc here changes nothing
  active_workers_.store(workers, std::memory_order_release);
  // A worker compares against the generation as of its creation, not as of its first run: a stop
  // or launch published before the new thread first runs must still count as a change.
  const uint64_t generation = generation_.load(std::memory_order_acquire);
  try {
    for (int i = have; i < workers; ++i) {
      workers_.emplace_back([this, i, generation] { WorkerLoop(i, generation); });
    }
  } catch (...) {  // a thread could not be started: stop the ones this call started
    StopWorkersFrom(have);
    throw;
  }
  worker_count_.store(workers, std::memory_order_release);
}

void ThreadPool::PrepareFork() noexcept {
  run_mutex_.lock();  // waits for a running launch
  job_mutex_.lock();
}

void ThreadPool::ParentAfterFork() noexcept {
  job_mutex_.unlock();
  run_mutex_.unlock();
}

void ThreadPool::ChildAfterFork() noexcept {
  // The child has none of the parent's workers: forget their handles without joining or
  // destroying them (either would be undefined for threads that do not exist here; the vector's
  // buffer is leaked), and start from a fresh, unlocked state.
  new (&workers_) std::vector<std::thread>();
  worker_count_.store(0, std::memory_order_relaxed);
  active_workers_.store(0, std::memory_order_relaxed);
  failed_count_.store(-1, std::memory_order_relaxed);
  job_ = nullptr;
  new (&job_mutex_) std::mutex();
  new (&run_mutex_) std::mutex();
}

// Note [Blocks near their data]
// A launch's blocks are cut into one range per participant (the caller is participant 0, worker i
// participant i + 1), each handed out by its own counter. A participant runs its own range first
// and then takes the blocks left in the others, in turn. A program that repeats a launch on the
// same tensors (a training loop, a benchmark) thus runs each block on the same thread every time,
// and the block's data is still in that core's L2 from the last call; with one counter for all,
// the blocks went to whichever thread asked first, and a block that changed threads found its
// data in the other core's cache. A slow or late worker still costs nothing: the others empty its range
// (Note [Blocks per thread]). Results never depend on which thread ran a block. It pays where a
// call's operands fit in the cores' L2s; data that lives in L3 gains nothing (docs/perf.md).
void ThreadPool::RunBlocks(Job& job, int participant) {
  const int home = participant < job.ranges ? participant : 0;
  for (int i = 0; i < job.ranges; ++i) {
    const int r = (home + i) % job.ranges;
    const int64_t end = job.RangeEnd(r);
    for (;;) {
      const int64_t b = job.next_block[r].fetch_add(1, std::memory_order_relaxed);
      if (b >= end) break;
      job.fn(job.context, b);
      if (job.blocks_done.fetch_add(1, std::memory_order_acq_rel) + 1 == job.num_blocks) {
        job.blocks_done.notify_all();
      }
    }
  }
}

void ThreadPool::WorkerLoop(int index, uint64_t seen) {
  for (;;) {
    uint64_t now = seen;
    for (int spin = 0; spin < kSpinIterations; ++spin) {
      now = generation_.load(std::memory_order_acquire);
      if (now != seen) break;
      CpuRelax();
    }
    if (now == seen) {
      generation_.wait(seen, std::memory_order_acquire);
      now = generation_.load(std::memory_order_acquire);
    }
    seen = now;
    if (index >= active_workers_.load(std::memory_order_acquire)) return;
    Job* job = nullptr;
    {
      std::lock_guard<std::mutex> lock(job_mutex_);
      job = job_;
      if (job != nullptr) job->workers_inside.fetch_add(1, std::memory_order_relaxed);
    }
    if (job == nullptr) continue;
    RunBlocks(*job, index + 1);
    if (job->workers_inside.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      job->workers_inside.notify_all();
    }
  }
}

template <class T>
static void WaitUntil(std::atomic<T>& value, T expected) {
  for (int spin = 0; spin < kSpinIterations; ++spin) {
    if (value.load(std::memory_order_acquire) == expected) return;
    CpuRelax();
  }
  for (T now = value.load(std::memory_order_acquire); now != expected;
       now = value.load(std::memory_order_acquire)) {
    value.wait(now, std::memory_order_acquire);
  }
}

void ThreadPool::Run(int64_t num_blocks, BlockFn fn, const void* context) noexcept {
  if (num_blocks <= 0) return;
  if (num_blocks == 1 || NumThreads() == 1) {
    for (int64_t b = 0; b < num_blocks; ++b) fn(context, b);
    return;
  }
  std::unique_lock<std::mutex> lock(run_mutex_, std::try_to_lock);
  if (!lock.owns_lock()) {  // another launch holds the workers: run ours here
    for (int64_t b = 0; b < num_blocks; ++b) fn(context, b);
    return;
  }
  // The second phase starts the workers (EnsureWorkers) and reports when it cannot; here a
  // mismatch (first use by a caller that did not ensure them, a count changed meanwhile) is
  // repaired best effort, and a launch runs on whatever workers there are.
  const int wanted = NumThreads();
  if (worker_count_.load(std::memory_order_relaxed) != wanted - 1 &&
      failed_count_.load(std::memory_order_relaxed) != wanted) {
    try {
      Resize(wanted - 1);
    } catch (...) {
      failed_count_.store(wanted, std::memory_order_relaxed);  // do not retry at every launch
    }
  }
  if (workers_.empty()) {
    for (int64_t b = 0; b < num_blocks; ++b) fn(context, b);
    return;
  }
  Job job;
  job.fn = fn;
  job.context = context;
  job.num_blocks = num_blocks;
  const int64_t participants = static_cast<int64_t>(workers_.size()) + 1;
  job.ranges = static_cast<int>(std::min<int64_t>({participants, num_blocks, kMaxRanges}));
  for (int r = 0; r < job.ranges; ++r) {
    job.next_block[r].store(num_blocks * r / job.ranges, std::memory_order_relaxed);
  }
  {
    std::lock_guard<std::mutex> job_lock(job_mutex_);
    job_ = &job;
  }
  generation_.fetch_add(1, std::memory_order_acq_rel);
  generation_.notify_all();
  RunBlocks(job, 0);
  WaitUntil(job.blocks_done, num_blocks);
  {
    std::lock_guard<std::mutex> job_lock(job_mutex_);
    job_ = nullptr;
  }
  WaitUntil(job.workers_inside, 0);
}

}  // namespace aclnn_cpu
