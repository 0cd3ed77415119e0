// The CPU device's "cores": a persistent pool of worker threads that runs the blocks of a launch.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "aclnn/aclnn_cpu.h"

namespace aclnn_cpu {

/// Runs block `b` of a launch; `context` is the launch's own data.
using BlockFn = void (*)(const void* context, int64_t block);

/// See Note [Worker pool]: block b of a launch runs on one thread; the calling thread takes part,
/// so a launch of one block never leaves the caller. Waking idle workers costs one futex wake.
class ThreadPool {
 public:
  /// The process-wide pool of the CPU device. Never destroyed: stream threads may still run
  /// launches while the process exits (see Note [Exit and fork]).
  static ThreadPool& Instance();

  /// Runs fn(context, b) for b in [0, num_blocks) on the caller and the workers that exist, and
  /// returns when all are done. Never throws and never starts threads except to reach the
  /// thread count on first use (best effort; see EnsureWorkers). Safe to call from several
  /// threads at once: a caller that finds the pool busy runs its blocks itself (results do not
  /// depend on which thread runs a block).
  void Run(int64_t num_blocks, BlockFn fn, const void* context) noexcept;

  /// Threads a launch may use (workers + the caller).
  int NumThreads() const { return num_threads_.load(std::memory_order_relaxed); }
  /// Sets the thread count (1..kMaxThreads) and starts or stops workers now. Throws
  /// std::system_error or std::bad_alloc when a worker cannot be started; the count and the
  /// workers are then as before the call.
  void SetNumThreads(int n);
  /// Starts the workers the current count needs if they are not running yet (the first launch,
  /// or after Shutdown). Throws as SetNumThreads, leaving the pool as it was.
  void EnsureWorkers();
  /// Stops every worker (device reset); the next EnsureWorkers or Run starts them again.
  void Shutdown() noexcept;
  /// The default count: $ACLNN_CPU_NUM_THREADS if set and valid, else the usable cores (Note
  /// [Thread count from the environment]; an invalid value is reported once on stderr).
  static int DefaultNumThreads();
  /// Parses an ACLNN_CPU_NUM_THREADS value: the count, or std::nullopt with @p error saying why.
  static std::optional<int> ParseNumThreads(std::string_view text, std::string* error);
  static constexpr int kMaxThreads = ACLNN_CPU_MAX_THREADS;

  /// fork() handlers (see Note [Exit and fork]): Prepare takes the pool's locks (waiting for a
  /// running launch), Parent releases them, Child forgets the workers the child does not have.
  void PrepareFork() noexcept;
  void ParentAfterFork() noexcept;
  void ChildAfterFork() noexcept;

 private:
  ThreadPool();
  ~ThreadPool() = delete;
  /// Home ranges of a launch's blocks at most (Note [Blocks near their data]).
  static constexpr int kMaxRanges = 64;
  struct Job {
    BlockFn fn;
    const void* context;
    int64_t num_blocks;
    int ranges;  // the blocks in `ranges` consecutive ranges, range r the home of participant r
    std::atomic<int64_t> next_block[kMaxRanges];  // per range: the next block to hand out
    std::atomic<int64_t> blocks_done{0};
    std::atomic<int> workers_inside{0};  // workers that took the job and have not left it
    int64_t RangeEnd(int r) const { return num_blocks * (r + 1) / ranges; }
  };

  void Resize(int workers);  // requires run_mutex_; throws leaving the workers as they were
  void StopWorkersFrom(int keep) noexcept;  // requires run_mutex_; joins workers [keep, size)
  void WorkerLoop(int index, uint64_t seen_generation);
  static void RunBlocks(Job& job, int participant);

  std::atomic<int> num_threads_;
  std::mutex run_mutex_;  // one launch uses the workers at a time; guards workers_
  std::vector<std::thread> workers_;
  std::atomic<int> worker_count_{0};     // workers_.size(), readable without run_mutex_
  std::atomic<int> active_workers_{0};   // a worker whose index is >= this exits
  std::atomic<int> failed_count_{-1};    // thread count whose workers could not all be started

  // The current job, published under job_mutex_ so that a worker waking late can never pick up
  // a job that has already ended (see Note [Worker pool]).
  std::mutex job_mutex_;
  Job* job_ = nullptr;
  std::atomic<uint64_t> generation_{0};
};

}  // namespace aclnn_cpu
