// aclrtStream: an in-order queue of launches with its own dispatcher thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace aclnn_cpu {

class LaunchPlan;

/// One launch: a plan and the workspace it runs with. Copying it allocates nothing.
struct StreamWork {
  std::shared_ptr<const LaunchPlan> plan;
  void* workspace = nullptr;
};

/// See Note [Streams].
class Stream {
 public:
  /// Launches a stream holds before a new one makes the launching thread wait (see Note [Streams]).
  static constexpr size_t kQueueCapacity = 1024;

  Stream();  // allocates the queue: throws std::bad_alloc
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream();  // runs or waits for the queued work, then stops the stream's thread

  /// Runs @p work after every launch made on this stream before it. When @p run_inline_if_idle is
  /// set and the stream has nothing queued or running, the work runs on the calling thread before
  /// Launch returns (no hand-off); otherwise it is queued for the stream's thread, waiting first
  /// while the queue holds kQueueCapacity launches. Throws std::system_error when the stream's
  /// thread cannot be started; nothing is queued then.
  void Launch(StreamWork work, bool run_inline_if_idle);

  /// Blocks until every launch made on this stream before the call has finished (launches made
  /// meanwhile by other threads are not waited for).
  void Synchronize() noexcept;

  /// The stream behind a user handle (nullptr: the default stream, made on first use), or null
  /// for a handle that is not a live stream. The reference keeps the stream alive while it is
  /// used, even if another thread destroys the handle meanwhile. Throws std::bad_alloc when the
  /// default stream cannot be made.
  static std::shared_ptr<Stream> FromHandle(void* handle);
  /// Creates a stream, registers it and returns its handle. Throws std::bad_alloc.
  static void* Create();
  /// Unregisters the stream of @p handle, waits for its launches and destroys it; false for a
  /// null or unknown handle.
  static bool Destroy(void* handle);
  /// Waits for every launch made on any stream before the call (device synchronize, aclrtFree).
  static void SynchronizeAll();
  /// Device reset: every registered stream is synchronized and destroyed (its handle is then
  /// unknown), and the default stream is synchronized and its thread stopped.
  static void DestroyAll();
  /// Installs the process-wide handlers of Note [Exit and fork] (once).
  static void InstallProcessHandlers() noexcept;

 private:
  void EnsureThreadLocked();
  void Dispatch(uint64_t epoch);
  void PushLocked(StreamWork work);
  StreamWork PopLocked();
  /// Runs @p work as the stream's one running launch: sets busy_, releases @p lock while it runs,
  /// and returns with the lock held again, busy_ clear and the launch counted as finished.
  void RunBusy(std::unique_lock<std::mutex>& lock, StreamWork work);
  /// Waits (running queued launches itself when none runs) until launch number @p target has
  /// finished.
  void WaitForLocked(std::unique_lock<std::mutex>& lock, uint64_t target);
  void StopThread() noexcept;

  // Note [Exit and fork] helpers.
  static void AtExit() noexcept;
  static void PrepareFork() noexcept;
  static void ParentAfterFork() noexcept;
  static void ChildAfterFork() noexcept;
  void LockIdleForFork() noexcept;
  void DiscardQueuedLocked() noexcept;

  std::mutex mutex_;
  std::condition_variable wake_;      // work queued, or stop
  std::condition_variable progress_;  // a launch finished (or was discarded)
  // FIFO ring buffer of fixed capacity: launching never allocates.
  std::vector<StreamWork> ring_;
  size_t head_ = 0;
  size_t size_ = 0;
  uint64_t launched_ = 0;  // launches made so far (queued or inline), numbered from 1
  uint64_t finished_ = 0;  // launches finished; launches finish in the order they were made
  bool busy_ = false;      // a launch is running (inline, on the thread, or in a synchronizer)
  uint64_t epoch_ = 0;     // bumped to make the stream's thread leave (Note [Streams])
  std::thread thread_;
};

}  // namespace aclnn_cpu
