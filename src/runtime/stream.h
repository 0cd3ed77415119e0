// aclrtStream: an in-order queue of launches with its own dispatcher thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace aclnn_cpu {

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
  template <class Work>
  void Launch(Work&& work, bool run_inline_if_idle) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (run_inline_if_idle && queue_.empty() && !busy_) {
      busy_ = true;
      lock.unlock();
      work();
      lock.lock();
      busy_ = false;
      if (queue_.empty()) {
        idle_.notify_all();
      } else {
        wake_.notify_one();  // launches queued by other threads meanwhile
      }
      return;
    }
    queue_.emplace_back(std::forward<Work>(work));
    EnsureThreadLocked();
    wake_.notify_one();
  }

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

  std::mutex mutex_;
  std::condition_variable wake_;  // work queued or stop
  std::condition_variable idle_;  // queue drained
  std::deque<std::function<void()>> queue_;
  bool busy_ = false;  // a launch is running (inline or on the thread)
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace aclnn_cpu
