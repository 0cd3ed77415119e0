#include "runtime/stream.h"

#include <unordered_set>

namespace aclnn_cpu {

// Note [Streams]
// A stream keeps CANN's contract: launches run in the order they were made, asynchronously to the
// host, and aclrtSynchronizeStream waits for them. Each stream has a dispatcher thread (started
// at its first queued launch) that runs queued launches one after another; the blocks of a launch
// run on the shared worker pool. A launch the tiling judged too small to be worth a thread hand-off
// (one block) runs on the calling thread when the stream is idle, which keeps order (nothing is
// queued before it) and saves the microseconds of a cross-thread wake-up that would otherwise
// dominate small calls.

namespace {
std::mutex g_registry_mutex;
std::unordered_set<Stream*>& Registry() {
  static auto* streams = new std::unordered_set<Stream*>;  // leaked: usable during exit
  return *streams;
}
Stream& DefaultStream() {
  static auto* stream = new Stream;  // leaked on purpose: launches may be pending at exit
  return *stream;
}
}  // namespace

Stream::~Stream() {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Stream::EnsureThreadLocked() {
  if (!thread_.joinable()) thread_ = std::thread([this] { Dispatch(); });
}

void Stream::Dispatch() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || (!queue_.empty() && !busy_); });
    if (stop_ && queue_.empty()) return;
    std::function<void()> work = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    work();
    work = nullptr;  // release what the launch holds before reporting idle
    lock.lock();
    busy_ = false;
    if (queue_.empty()) idle_.notify_all();
  }
}

void Stream::Synchronize() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

Stream* Stream::FromHandle(void* handle) {
  if (handle == nullptr) return &DefaultStream();
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  auto* s = static_cast<Stream*>(handle);
  return Registry().count(s) != 0 ? s : nullptr;
}

Stream* Stream::Create() {
  auto* s = new Stream;
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  Registry().insert(s);
  return s;
}

bool Stream::Destroy(void* handle) {
  auto* s = static_cast<Stream*>(handle);
  {
    std::lock_guard<std::mutex> lock(g_registry_mutex);
    if (handle == nullptr || Registry().erase(s) == 0) return false;
  }
  delete s;
  return true;
}

void Stream::SynchronizeAll() {
  DefaultStream().Synchronize();
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  for (Stream* s : Registry()) s->Synchronize();
}

}  // namespace aclnn_cpu
