// The one registry of live handles behind every opaque pointer of the C API: tensors, executors,
// streams and device allocations.
#pragma once

#include <array>
#include <cstddef>
#include <mutex>
#include <new>
#include <optional>
#include <span>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "runtime/fork_locks.h"

namespace aclnn_cpu {

// Note [Live handles]
// Every handle the C API hands out (aclTensor*, aclOpExecutor*, aclrtStream, an aclrtMalloc
// pointer) is an address, so whether it is live is decided by looking it up in a registry, never
// by reading the object: a destroyed one is freed memory, and a marker inside it proves nothing
// once the allocator reuses the block. A call that gets a null, foreign, destroyed or consumed
// handle therefore returns an error code instead of crashing.
//
// A registry maps each live handle to an entry of the owner's choosing (nothing, a size, the
// shared_ptr that owns a stream) under one mutex that is only held briefly and never while
// another registry's is taken (so fork() can hold them all; see Note [Exit and fork]).
//
// Quarantine (kQuarantine > 0): a handle taken out of the registry is not freed at once. It waits
// in a FIFO ring of kQuarantine retired handles, and Take hands the owner the handle it evicts,
// to free outside the lock. The next objects made therefore get other addresses, and a stale
// handle of a recently destroyed object is reported as destroyed instead of being taken for a new
// object that happens to reuse its address (after kQuarantine further retirements it may be
// reused, as with any pointer handle). Quarantined objects hold only their memory: owners release
// what they own before retiring them.

/// The entry of a registry that needs only the handle.
struct NoEntry {};

/// Whether a registry's mutex joins the runtime's fork locks on its own (kRegistered) or is taken
/// by its owner in an order of its own around fork() (kOwnerOrdered: the stream registry, whose
/// lock must be held before each stream's).
enum class ForkLocking { kRegistered, kOwnerOrdered };

template <class Handle, class Entry = NoEntry, size_t kQuarantine = 0>
class HandleRegistry {
 public:
  using Map = std::unordered_map<Handle, Entry>;

  /// Construct the registry once, at load time (a namespace-scope initializer), and never destroy
  /// it: handles may be released while the process exits, and fork locks are registered before any
  /// thread exists.
  explicit HandleRegistry(ForkLocking fork = ForkLocking::kRegistered) noexcept {
    if (fork == ForkLocking::kRegistered) RegisterForkLock(&mutex_);
  }
  HandleRegistry(const HandleRegistry&) = delete;
  HandleRegistry& operator=(const HandleRegistry&) = delete;

  /// Registers @p handle as live with @p entry. False, with nothing changed, when memory for the
  /// bookkeeping runs out (the caller still owns the object and frees it). A handle that is
  /// already live keeps its entry (owners register fresh objects only).
  bool Insert(Handle handle, const Entry& entry) noexcept {
    try {
      std::lock_guard<std::mutex> lock(mutex_);
      live_.try_emplace(handle, entry);
      return true;
    } catch (const std::bad_alloc&) {
      return false;
    }
  }

  bool Contains(Handle handle) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return live_.count(handle) != 0;
  }

  /// The index of the first of @p handles that is neither null nor live, or -1: one lookup under
  /// one lock for all the operands of a call.
  int FirstDead(std::span<const Handle> handles) const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < handles.size(); ++i) {
      if (handles[i] != Handle{} && live_.count(handles[i]) == 0) return static_cast<int>(i);
    }
    return -1;
  }

  /// A copy of the entry of @p handle, or nothing when it is not live.
  std::optional<Entry> Find(Handle handle) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = live_.find(handle);
    if (it == live_.end()) return std::nullopt;
    return it->second;
  }

  /// Runs @p f(entry) under the lock when @p handle is live (the object cannot be taken meanwhile)
  /// and returns true; false, without calling @p f, when it is not.
  template <class F>
  bool Visit(Handle handle, F&& f) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = live_.find(handle);
    if (it == live_.end()) return false;
    std::forward<F>(f)(it->second);
    return true;
  }

  /// What Take returns: the entry of the handle taken, and the handle whose object the owner now
  /// frees: the one the quarantine evicted to make room (Handle{} while it fills), or without a
  /// quarantine the handle taken itself.
  struct Taken {
    Entry entry;
    Handle evicted{};
  };

  /// Takes @p handle out of the live set when it is live and @p may_take(entry) agrees (both under
  /// the lock: @p may_take may also release what the entry's object owns), retiring it into the
  /// quarantine. Nothing when it is not live or @p may_take refused.
  template <class MayTake>
  std::optional<Taken> Take(Handle handle, MayTake&& may_take) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = live_.find(handle);
    if (it == live_.end() || !std::forward<MayTake>(may_take)(it->second)) return std::nullopt;
    Taken taken{std::move(it->second), Handle{}};
    live_.erase(it);
    if constexpr (kQuarantine > 0) {
      taken.evicted = std::exchange(quarantine_[next_], handle);
      next_ = (next_ + 1) % kQuarantine;
    } else {
      taken.evicted = handle;  // no quarantine: the owner frees the handle itself at once
    }
    return taken;
  }
  std::optional<Taken> Take(Handle handle) {
    return Take(handle, [](const Entry&) { return true; });
  }

  /// Runs @p f(map) under the lock and returns what it returns: for visits of every live handle
  /// (synchronize all, reset) and for find-or-create. @p f must not take another registry's lock.
  template <class F>
  decltype(auto) Locked(F&& f) {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::forward<F>(f)(live_);
  }

  // For a ForkLocking::kOwnerOrdered registry, in its owner's fork handlers: lock before fork()
  // and read the map while the lock is held; unlock in the parent; re-make the lock in the child.
  void LockForFork() noexcept { mutex_.lock(); }
  Map& MapWhileForkLocked() noexcept { return live_; }
  void UnlockAfterFork() noexcept { mutex_.unlock(); }
  void ResetLockInChild() noexcept { new (&mutex_) std::mutex(); }

 private:
  struct NoQuarantine {};

  mutable std::mutex mutex_;
  Map live_;
  [[no_unique_address]] std::conditional_t<(kQuarantine > 0), std::array<Handle, kQuarantine>, NoQuarantine>
      quarantine_{};
  size_t next_ = 0;  // the quarantine slot retired into next
};

}  // namespace aclnn_cpu
