#include "runtime/stream.h"

#include <pthread.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <utility>

#include "runtime/fork_locks.h"
#include "runtime/handle_registry.h"
#include "runtime/launch_plan.h"
#include "runtime/thread_pool.h"

namespace aclnn_cpu {

// Note [Streams]
// A stream keeps CANN's contract: launches run in the order they were made, asynchronously to the
// host, and aclrtSynchronizeStream waits for them. Each stream has a dispatcher thread (started
// at its first queued launch) that runs queued launches one after another; the blocks of a launch
// run on the shared worker pool. A launch the tiling judged too short to be worth a thread
// hand-off (TilingResult::run_inline_if_idle: under about a millisecond of traffic) runs on the
// calling thread when the stream is idle, which keeps order (nothing is queued before it) and
// saves the microseconds of a cross-thread wake-up that would otherwise dominate such calls.
// Launches are numbered as they are made (launched_) and counted as they finish (finished_, in
// the same order). aclrtSynchronizeStream waits for the number made before it was called, so a
// thread that keeps launching cannot keep another thread's synchronize waiting. It does not only
// wait: while launches are queued and none is running, the synchronizing thread pops and runs them
// itself, in order, exactly as the stream's thread would (one launch at a time, under `busy_`).
// The host is blocked anyway, and the common launch-then-synchronize pattern then never waits for
// the stream's thread to wake up (on a VM an idle vCPU can take milliseconds).
// The queue is a ring of kQueueCapacity (plan, workspace) pairs allocated with the stream, so
// launching allocates nothing; a launch onto a full queue waits for room (running the oldest
// queued launch itself when none runs), as an NPU or GPU runtime blocks on a full command queue.
// The stream's thread leaves when `epoch_` changes, so a stopped thread never takes work queued
// after the stop (a new thread does).
//
// Note [Exit and fork]
// Exit: the worker pool and the stream registry are never destroyed, so a stream's thread that
// still runs a launch while the process exits uses nothing that static destruction has torn down.
// At the first queued launch an atexit handler is installed: it discards the launches still
// queued (they would read memory that the exiting program is freeing) and waits for the running
// ones; launches made after it are refused.
// Fork: pthread_atfork handlers make fork() wait until every stream is idle and hold every lock of
// the runtime across it (registry, streams, worker pool, executors, tensors, allocations), so the
// child inherits idle streams, finished results and unlocked, consistent state. The child has
// none of the parent's threads: its streams and pool forget them (without join) and start new
// ones when they are next needed. A forked child may use, synchronize and destroy what it
// inherited.

namespace {

// Live streams (Note [Live handles]): each handle maps to the shared_ptr that owns its stream, and
// the default stream, made on first use, sits under the null handle. Its lock is taken before any
// stream's and around fork() in that order (PrepareFork), so it is not one of the fork locks.
using StreamRegistry = HandleRegistry<Stream*, std::shared_ptr<Stream>>;
StreamRegistry& GetRegistry() {
  static auto* registry = new StreamRegistry(ForkLocking::kOwnerOrdered);  // leaked: usable during exit
  return *registry;
}
const bool g_registry_made = (GetRegistry(), true);  // at load time; see HandleRegistry()

std::atomic<bool> g_exiting{false};
std::once_flag g_atexit_once;

}  // namespace

Stream::Stream() : ring_(kQueueCapacity) {}

Stream::~Stream() { StopThread(); }

void Stream::StopThread() noexcept {
  std::thread thread;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    WaitForLocked(lock, launched_);
    ++epoch_;
    thread = std::move(thread_);
  }
  wake_.notify_all();
  if (thread.joinable()) thread.join();
}

void Stream::EnsureThreadLocked() {
  if (thread_.joinable()) return;
  std::call_once(g_atexit_once, [] { std::atexit(&Stream::AtExit); });
  const uint64_t epoch = epoch_;
  thread_ = std::thread([this, epoch] { Dispatch(epoch); });  // throws std::system_error
}

void Stream::PushLocked(StreamWork work) {
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
  RunLaunch(*work.plan, work.workspace);
  work.plan.reset();  // release the plan before reporting the launch finished
  lock.lock();
  busy_ = false;
  ++finished_;
  progress_.notify_all();
}

void Stream::WaitForLocked(std::unique_lock<std::mutex>& lock, uint64_t target) {
  while (finished_ < target) {
    if (!busy_ && size_ != 0) {
      // Queued work that no thread has taken (the stream's thread may still be waking up): run it
      // here, in order, as the stream's thread would. See Note [Streams].
      RunBusy(lock, PopLocked());
      continue;
    }
    progress_.wait(lock);
  }
}

void Stream::Launch(StreamWork work, bool run_inline_if_idle) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (g_exiting.load(std::memory_order_acquire)) {
    throw std::runtime_error("the process is exiting: launches are no longer run");
  }
  if (run_inline_if_idle && size_ == 0 && !busy_) {
    ++launched_;
    RunBusy(lock, std::move(work));
    if (size_ != 0) wake_.notify_one();  // launches queued by other threads meanwhile
    return;
  }
  while (size_ == ring_.size()) {  // full: make room, see Note [Streams]
    if (!busy_) {
      RunBusy(lock, PopLocked());
    } else {
      progress_.wait(lock);
    }
  }
  EnsureThreadLocked();  // a throw leaves nothing queued
  PushLocked(std::move(work));
  ++launched_;
  wake_.notify_one();
}

void Stream::Dispatch(uint64_t epoch) {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this, epoch] { return epoch_ != epoch || (size_ != 0 && !busy_); });
    if (epoch_ != epoch) return;
    RunBusy(lock, PopLocked());
  }
}

void Stream::Synchronize() noexcept {
  std::unique_lock<std::mutex> lock(mutex_);
  WaitForLocked(lock, launched_);
}

std::shared_ptr<Stream> Stream::FromHandle(void* handle) {
  if (handle != nullptr) {
    std::shared_ptr<Stream> stream;  // stays null for a handle that is not a live stream
    GetRegistry().Visit(static_cast<Stream*>(handle), [&stream](const std::shared_ptr<Stream>& s) { stream = s; });
    return stream;
  }
  return GetRegistry().Locked([](StreamRegistry::Map& streams) {
    if (const auto it = streams.find(nullptr); it != streams.end()) return it->second;
    auto default_stream = std::make_shared<Stream>();
    streams.emplace(nullptr, default_stream);  // a throw changes nothing
    return default_stream;
  });
}

void* Stream::Create() {
  auto stream = std::make_shared<Stream>();
  if (!GetRegistry().Insert(stream.get(), stream)) throw std::bad_alloc();
  return stream.get();
}

bool Stream::Destroy(void* handle) {
  if (handle == nullptr) return false;
  auto taken = GetRegistry().Take(static_cast<Stream*>(handle));
  if (!taken) return false;
  taken->entry->Synchronize();
  return true;  // the last reference (this one, or a launcher's) stops the stream's thread
}

void Stream::SynchronizeAll() {
  // The launch count of every stream is read first, then each is waited for: launches made
  // after the call, on any stream, are not waited for.
  std::vector<std::pair<std::shared_ptr<Stream>, uint64_t>> targets;
  GetRegistry().Locked([&targets](const StreamRegistry::Map& streams) {
    targets.reserve(streams.size());  // the only allocation: a throw changes nothing
    for (const auto& [handle, stream] : streams) {
      std::lock_guard<std::mutex> stream_lock(stream->mutex_);
      targets.emplace_back(stream, stream->launched_);
    }
  });
  for (auto& [stream, target] : targets) {
    std::unique_lock<std::mutex> lock(stream->mutex_);
    stream->WaitForLocked(lock, target);
  }
}

void Stream::DestroyAll() {
  std::vector<std::shared_ptr<Stream>> streams;
  std::shared_ptr<Stream> default_stream;
  GetRegistry().Locked([&](StreamRegistry::Map& live) {
    streams.reserve(live.size());  // the only allocation: a throw changes nothing
    for (auto it = live.begin(); it != live.end();) {
      if (it->first == nullptr) {  // the default stream stays registered
        default_stream = it->second;
        ++it;
        continue;
      }
      streams.push_back(std::move(it->second));
      it = live.erase(it);
    }
  });
  for (auto& stream : streams) stream->Synchronize();
  streams.clear();  // joins the threads of the streams nobody else holds
  if (default_stream != nullptr) default_stream->StopThread();
}

void Stream::DiscardQueuedLocked() noexcept {
  while (size_ != 0) {
    StreamWork dropped = PopLocked();
    ++finished_;  // counted as finished, so that no synchronize waits for it
  }
  progress_.notify_all();
}

void Stream::AtExit() noexcept {
  g_exiting.store(true, std::memory_order_release);
  GetRegistry().Locked([](StreamRegistry::Map& streams) {
    for (auto& [handle, stream] : streams) {
      std::unique_lock<std::mutex> stream_lock(stream->mutex_);
      stream->DiscardQueuedLocked();
      stream->progress_.wait(stream_lock, [&s = *stream] { return !s.busy_; });
    }
  });
}

void Stream::LockIdleForFork() noexcept {
  std::unique_lock<std::mutex> lock(mutex_);
  while (size_ != 0 || busy_) WaitForLocked(lock, launched_);
  lock.release();  // held across fork(); released by the parent, re-made by the child
}

void Stream::PrepareFork() noexcept {
  StreamRegistry& r = GetRegistry();
  r.LockForFork();
  for (auto& [handle, stream] : r.MapWhileForkLocked()) stream->LockIdleForFork();
  ThreadPool::Instance().PrepareFork();
  LockForkLocks();
}

void Stream::ParentAfterFork() noexcept {
  UnlockForkLocks();
  ThreadPool::Instance().ParentAfterFork();
  StreamRegistry& r = GetRegistry();
  for (auto& [handle, stream] : r.MapWhileForkLocked()) stream->mutex_.unlock();
  r.UnlockAfterFork();
}

void Stream::ChildAfterFork() noexcept {
  ResetForkLocksInChild();
  ThreadPool::Instance().ChildAfterFork();
  StreamRegistry& r = GetRegistry();
  auto reset = [](Stream& s) {
    // The parent's dispatcher thread does not exist here: forget its handle without joining it
    // (the stream is idle: PrepareFork waited for that) and re-make the locks the fork held.
    new (&s.thread_) std::thread();
    new (&s.mutex_) std::mutex();
    new (&s.wake_) std::condition_variable();
    new (&s.progress_) std::condition_variable();
  };
  for (auto& [handle, stream] : r.MapWhileForkLocked()) reset(*stream);
  r.ResetLockInChild();
}

void Stream::InstallProcessHandlers() noexcept {
  static const bool installed = [] {
    return pthread_atfork(&Stream::PrepareFork, &Stream::ParentAfterFork, &Stream::ChildAfterFork) == 0;
  }();
  (void)installed;
}

namespace {
// The fork handlers are installed when the library is loaded, before any thread of it exists.
const bool g_process_handlers = (Stream::InstallProcessHandlers(), true);
}  // namespace

}  // namespace aclnn_cpu
