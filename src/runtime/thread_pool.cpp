#include "runtime/thread_pool.h"

#include <sched.h>

#include <cstdlib>
#include <string>

namespace aclnn_cpu {

// Note [Worker pool]
// A launch publishes (fn, context, num_blocks) and bumps `generation_`; idle workers spin for a
// short while on the generation (a launch often follows another within microseconds) and then
// sleep in std::atomic::wait (a futex). Blocks are handed out by an atomic counter, so a worker
// that is slow to wake costs nothing: the caller and the awake workers take its blocks. Results
// never depend on which thread ran a block (each block writes only its own elements).
// The job lives on the launching thread's stack. A worker enters it only under job_mutex_ while it
// is published, and the launcher unpublishes it and then waits for `workers_inside` to reach 0
// before returning, so no worker can touch a job that has gone.

namespace {
// Spin iterations before sleeping: about tens of microseconds, enough to catch back-to-back
// launches without burning a core of a 2-core machine when the device is idle.
constexpr int kSpinIterations = 4000;
constexpr int kMaxThreads = 1024;

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}
}  // namespace

ThreadPool& ThreadPool::Instance() {
  static ThreadPool pool;
  return pool;
}

ThreadPool::ThreadPool() : num_threads_(DefaultNumThreads()) {}

ThreadPool::~ThreadPool() {
  std::lock_guard<std::mutex> lock(run_mutex_);
  Resize(0);
}

int ThreadPool::DefaultNumThreads() {
  if (const char* env = std::getenv("ACLNN_CPU_NUM_THREADS")) {
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && n >= 1 && n <= kMaxThreads) return static_cast<int>(n);
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n >= 1) return n;
  }
  const unsigned hc = std::thread::hardware_concurrency();
  return hc >= 1 ? static_cast<int>(hc) : 1;
}

void ThreadPool::SetNumThreads(int n) {
  num_threads_.store(n < 1 ? 1 : (n > kMaxThreads ? kMaxThreads : n), std::memory_order_relaxed);
}

void ThreadPool::Resize(int workers) {
  if (static_cast<int>(workers_.size()) == workers) return;
  if (!workers_.empty()) {
    stop_.store(true, std::memory_order_release);
    generation_.fetch_add(1, std::memory_order_acq_rel);
    generation_.notify_all();
    for (auto& t : workers_) t.join();
    workers_.clear();
    stop_.store(false, std::memory_order_release);
  }
  workers_.reserve(static_cast<size_t>(workers));
  // A worker compares against the generation as of its creation, not as of its first run: a stop
  // or launch published before the new thread first runs must still count as a change.
  const uint64_t generation = generation_.load(std::memory_order_acquire);
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this, generation] { WorkerLoop(generation); });
}

void ThreadPool::RunBlocks(Job& job) {
  for (;;) {
    const int64_t b = job.next_block.fetch_add(1, std::memory_order_relaxed);
    if (b >= job.num_blocks) return;
    job.fn(job.context, b);
    if (job.blocks_done.fetch_add(1, std::memory_order_acq_rel) + 1 == job.num_blocks) {
      job.blocks_done.notify_all();
    }
  }
}

void ThreadPool::WorkerLoop(uint64_t seen) {
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
    if (stop_.load(std::memory_order_acquire)) return;
    Job* job = nullptr;
    {
      std::lock_guard<std::mutex> lock(job_mutex_);
      job = job_;
      if (job != nullptr) job->workers_inside.fetch_add(1, std::memory_order_relaxed);
    }
    if (job == nullptr) continue;
    RunBlocks(*job);
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

void ThreadPool::Run(int64_t num_blocks, BlockFn fn, const void* context) {
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
  Resize(NumThreads() - 1);
  Job job;
  job.fn = fn;
  job.context = context;
  job.num_blocks = num_blocks;
  {
    std::lock_guard<std::mutex> job_lock(job_mutex_);
    job_ = &job;
  }
  generation_.fetch_add(1, std::memory_order_acq_rel);
  generation_.notify_all();
  RunBlocks(job);
  WaitUntil(job.blocks_done, num_blocks);
  {
    std::lock_guard<std::mutex> job_lock(job_mutex_);
    job_ = nullptr;
  }
  WaitUntil(job.workers_inside, 0);
}

}  // namespace aclnn_cpu
