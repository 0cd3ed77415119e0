// Locks of the runtime that fork() must not copy in a held state (see Note [Exit and fork]).
#pragma once

#include <mutex>

namespace aclnn_cpu {

/// Registers @p mutex (a registry lock that is only ever held briefly, and never while another
/// runtime lock is taken) to be held across fork(). Called from static initializers.
void RegisterForkLock(std::mutex* mutex) noexcept;

/// Called by the fork handlers of stream.cpp: lock every registered mutex, unlock them in the
/// parent, re-make them unlocked in the child.
void LockForkLocks() noexcept;
void UnlockForkLocks() noexcept;
void ResetForkLocksInChild() noexcept;

}  // namespace aclnn_cpu
