#include "runtime/stream.h"

#include <unordered_set>

#include "runtime/executor.h"

namespace aclnn_cpu {

// Note [Streams]
// A stream keeps CANN's contract: launches run in the order they were made, asynchronously to the
// host, and aclrtSynchronizeStream waits for them. Each stream has a dispatcher thread (started
// at its first queued launch) that runs queued launches one after another; the blocks of a launch
// run on the shared worker pool. A launch the tiling judged too short to be worth a thread
// hand-off (TilingResult::run_inline_if_idle: under about a millisecond of traffic) runs on the
// calling thread when the stream is idle, which keeps order (nothing is queued before it) and
// saves the microseconds of a cross-thread wake-up that would otherwise dominate such calls.
// aclrtSynchronizeStream does not only wait: while launches are queued and none is running, the
// synchronizing thread pops and runs them itself, in order, exactly as the stream's thread would
// (one launch at a time, under `busy_`). The host is blocked anyway, and the common launch-then-
// synchronize pattern then never waits for the stream's thread to wake up (on a VM an idle vCPU
// can take milliseconds). The queue is a ring buffer of (plan, workspace) pairs, so launching
// allocates nothing once the ring has grown to the stream's usual depth.

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
    idle_.wait(lock, [this] { return size_ == 0 && !busy_; });
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Stream::EnsureThreadLocked() {
  if (!thread_.joinable()) thread_ = std::thread([this] { Dispatch(); });
}

void Stream::PushLocked(StreamWork work) {
  if (size_ == ring_.size()) {  // full: grow, keeping FIFO order
    std::vector<StreamWork> bigger(ring_.empty() ? 8 : ring_.size() * 2);
    for (size_t k = 0; k < size_; ++k) bigger[k] = std::move(ring_[(head_ + k) % ring_.size()]);
    ring_ = std::move(bigger);
    head_ = 0;
  }
  ring_[(head_ + size_) % ring_.size()] = std::move(work);
  ++size_;
}

StreamWork Stream::PopLocked() {
  StreamWork work = std::move(ring_[head_]);
  head_ = (head_ + 1) % ring_.size();
  --size_;
  return work;
}

void Stream::RunBusy(std::unique_lock<std::mutex>& lock, StreamWork work) {
  busy_ = true;
  lock.unlock();
  RunLaunch(work);
  work.plan.reset();  // release the plan before reporting idle
  lock.lock();
  busy_ = false;
}

void Stream::Launch(StreamWork work, bool run_inline_if_idle) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (run_inline_if_idle && size_ == 0 && !busy_) {
    RunBusy(lock, std::move(work));
    if (size_ == 0) {
      idle_.notify_all();
    } else {
      wake_.notify_one();  // launches queued by other threads meanwhile
    }
    return;
  }
  PushLocked(std::move(work));
  EnsureThreadLocked();
  wake_.notify_one();
}

void Stream::Dispatch() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || (size_ != 0 && !busy_); });
    if (stop_ && size_ == 0) return;
    RunBusy(lock, PopLocked());
    if (size_ == 0) idle_.notify_all();
  }
}

void Stream::Synchronize() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (size_ == 0 && !busy_) return;
    if (busy_) {
      idle_.wait(lock);  // woken when the running launch ends with nothing queued, or by a helper
      continue;
    }
    // Queued work that no thread has taken (the stream's thread may still be waking up): run it
    // here, in order, as the stream's thread would. See Note [Streams].
    RunBusy(lock, PopLocked());
    if (size_ == 0) idle_.notify_all();
  }
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
