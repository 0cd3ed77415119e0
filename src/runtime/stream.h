// aclrtStream: an in-order queue of launches with its own dispatcher thread.
#pragma once

#include <condition_variable>
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

/// Runs all blocks of @p work on the worker pool (the calling thread takes part).
void RunLaunch(const StreamWork& work);

/// See Note [Streams].
class Stream {
 public:
  Stream() = default;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream();  // waits for the queued work

  /// Runs @p work after every launch made on this stream before it. When @p run_inline_if_idle is
  /// set and the stream has nothing queued or running, the work runs on the calling thread before
  /// Launch returns (no hand-off); otherwise it is queued for the stream's thread.
  void Launch(StreamWork work, bool run_inline_if_idle);

  /// Blocks until every launch made so far has finished.
  void Synchronize();

  /// The stream behind a user handle: nullptr is the default stream; an unknown handle is null.
  static Stream* FromHandle(void* handle);
  /// Creates a stream and registers its handle.
  static Stream* Create();
  /// Unregisters and destroys a stream made by Create; false for unknown handles.
  static bool Destroy(void* handle);
  /// Synchronizes every live stream (device synchronize, reset and finalize).
  static void SynchronizeAll();

 private:
  void EnsureThreadLocked();
  void Dispatch();
  void PushLocked(StreamWork work);
  StreamWork PopLocked();
  /// Runs @p work as the stream's one running launch: sets busy_, releases @p lock while it runs,
  /// and returns with the lock held again and busy_ clear.
  void RunBusy(std::unique_lock<std::mutex>& lock, StreamWork work);

  std::mutex mutex_;
  std::condition_variable wake_;  // work queued or stop
  std::condition_variable idle_;  // queue drained
  // FIFO ring buffer: grows only when full, so steady-state launches allocate nothing.
  std::vector<StreamWork> ring_;
  size_t head_ = 0;
  size_t size_ = 0;
  bool busy_ = false;  // a launch is running (inline or on the thread)
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace aclnn_cpu
