#include "runtime/fork_locks.h"

#include <array>
#include <atomic>
#include <cstdlib>
#include <new>

namespace aclnn_cpu {
namespace {

// A fixed table (no allocation, usable from static initializers in any order): the runtime has a
// handful of registry locks.
constexpr size_t kMaxForkLocks = 16;
struct ForkLocks {
  std::array<std::mutex*, kMaxForkLocks> locks{};
  size_t count = 0;
};
ForkLocks& Table() {
  static ForkLocks table;  // constant-initialized: no destructor runs at exit
  return table;
}

}  // namespace

void RegisterForkLock(std::mutex* mutex) noexcept {
  ForkLocks& t = Table();
  if (t.count == kMaxForkLocks) std::abort();  // a programming error caught by every test run
  t.locks[t.count++] = mutex;
}

void LockForkLocks() noexcept {
  ForkLocks& t = Table();
  for (size_t i = 0; i < t.count; ++i) t.locks[i]->lock();
}

void UnlockForkLocks() noexcept {
  ForkLocks& t = Table();
  for (size_t i = t.count; i-- > 0;) t.locks[i]->unlock();
}

void ResetForkLocksInChild() noexcept {
  ForkLocks& t = Table();
  for (size_t i = 0; i < t.count; ++i) new (t.locks[i]) std::mutex();
}

}  // namespace aclnn_cpu
