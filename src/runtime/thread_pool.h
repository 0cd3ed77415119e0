// The CPU device's "cores": a persistent pool of worker threads that runs the blocks of a launch.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace aclnn_cpu {

/// Runs block `b` of a launch; `context` is the launch's own data.
using BlockFn = void (*)(const void* context, int64_t block);

/// See Note [Worker pool]: block b of a launch runs on one thread; the calling thread takes part,
/// so a launch of one block never leaves the caller. Waking idle workers costs one futex wake.
class ThreadPool {
 public:
  /// The process-wide pool of the CPU device.
  static ThreadPool& Instance();

  /// Runs fn(context, b) for b in [0, num_blocks) on up to NumThreads() threads and returns when
  /// all are done. Safe to call from several threads at once: a caller that finds the pool busy
  /// runs its blocks itself (results do not depend on which thread runs a block).
  void Run(int64_t num_blocks, BlockFn fn, const void* context);

  /// Threads a launch may use (workers + the caller).
  int NumThreads() const { return num_threads_.load(std::memory_order_relaxed); }
  /// Changes the thread count (>= 1); workers start or stop at the next Run.
  void SetNumThreads(int n);
  /// The default count: $ACLNN_CPU_NUM_THREADS if set and valid, else the usable cores.
  static int DefaultNumThreads();

  ~ThreadPool();

 private:
  ThreadPool();
  struct Job {
    BlockFn fn;
    const void* context;
    int64_t num_blocks;
    std::atomic<int64_t> next_block{0};
    std::atomic<int64_t> blocks_done{0};
    std::atomic<int> workers_inside{0};  // workers that took the job and have not left it
  };

  void Resize(int workers);  // requires run_mutex_
  void WorkerLoop(uint64_t seen_generation);
  static void RunBlocks(Job& job);

  std::atomic<int> num_threads_;
  std::mutex run_mutex_;  // one launch uses the workers at a time
  std::vector<std::thread> workers_;

  // The current job, published under job_mutex_ so that a worker waking late can never pick up
  // a job that has already ended (see Note [Worker pool]).
  std::mutex job_mutex_;
  Job* job_ = nullptr;
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stop_{false};
};

}  // namespace aclnn_cpu
