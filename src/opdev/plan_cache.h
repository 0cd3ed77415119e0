// The calling thread's last plan of each first phase, reused when a call describes its operands
// exactly as the previous one did (Note [Plan cache]).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "aclnn/acl_meta.h"
#include "runtime/launch_plan.h"

namespace aclnn_cpu {

// Note [Plan cache]
// A first phase reads nothing but its arguments and a little global state: every field of every
// tensor (dtype, format, shape, strides, offset, storage shape and size, data address), the
// reduction, the pool's thread count, the SIMD target's kernel table and the platform
// description. Given the same, it passes the same checks and builds the same plan; and plans are
// immutable once built (executors hold them as shared_ptr<const LaunchPlan>). So each thread keeps
// the plan of each first phase's last successful call with that description (PlanCacheKey),
// and a call that describes the same reuses it: it still checks its pointers and that every
// tensor is live (a destroyed tensor's fields must not be read), then compares the description
// and hands out a new executor on the cached plan. A training loop calls each operator on the
// same buffers step after step; a client that makes a fresh executor per call, as CANN's examples
// do, then pays a fraction of its first phase's cost; a call that finds no plan pays a little
// more than it did before the cache, for making, comparing and keeping its key (docs/perf.md).
// Nothing is locked (thread_local), and a description the key cannot hold (very high storage
// ranks) is never cached.

/// Which first phase a plan belongs to. Each first phase owns one PlanTag, a constant in its
/// operator's folder, and keys its plans by it (by its address): a plan of one first phase is
/// never taken for another's, and this layer needs no list of the operators.
struct PlanTag {
  const char* first_phase;  ///< the first phase's name (for a reader; the address is the tag)
};

/// Everything a first phase tagged @p tag reads (Note [Plan cache]), as a list of words.
class PlanCacheKey {
 public:
  /// @p tag: the first phase's own tag, alive for the whole process (a namespace-scope constant).
  /// @p tensors: the call's tensors in a fixed order, null for an absent one; every non-null one
  /// must be live. @p kernels: the address of the kernel table the plan would take kernels from.
  PlanCacheKey(const PlanTag& tag, int64_t reduction, const void* kernels, std::span<const aclTensor* const> tensors);

  const PlanTag* tag() const { return tag_; }
  /// False when the description did not fit: such a call is neither looked up nor cached.
  bool cacheable() const { return cacheable_; }
  friend bool operator==(const PlanCacheKey& a, const PlanCacheKey& b);

 private:
  static constexpr size_t kCapacity = 384;
  void Add(int64_t word);
  const PlanTag* tag_;
  bool cacheable_ = true;
  size_t size_ = 0;
  std::array<int64_t, kCapacity> words_;  // the first size_ are meaningful
};

/// The calling thread's cached plan for @p key, or null.
std::shared_ptr<const LaunchPlan> FindCachedPlan(const PlanCacheKey& key);
/// Caches @p plan, the plan a first phase built for @p key, replacing the thread's previous plan
/// of that first phase (the key's tag). Does nothing for a key that is not cacheable.
void CachePlan(const PlanCacheKey& key, std::shared_ptr<const LaunchPlan> plan);

/// A new executor on @p plan with its workspace size; ACLNN_ERR_RUNTIME_ERROR (naming @p phase)
/// when out of memory.
aclnnStatus MakeExecutorFor(const char* phase, std::shared_ptr<const LaunchPlan> plan, uint64_t* workspace_size,
                            aclOpExecutor** executor);

/// First phases that reused a cached plan on the calling thread (for tests).
uint64_t PlanCacheHitsForTesting();

}  // namespace aclnn_cpu
