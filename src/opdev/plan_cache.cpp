#include "opdev/plan_cache.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "common/error.h"
#include "platform/platform_info.h"
#include "runtime/executor.h"
#include "runtime/tensor.h"
#include "runtime/thread_pool.h"

namespace aclnn_cpu {
namespace {

struct CachedPlan {
  const PlanTag* tag = nullptr;       // the first phase this entry belongs to
  std::unique_ptr<PlanCacheKey> key;  // on the heap: a key is 3 KiB, too much for every thread's TLS
  std::shared_ptr<const LaunchPlan> plan;
};

// One entry per first phase that has cached a plan on this thread (a handful), in the order they
// first did.
thread_local std::vector<CachedPlan> t_cached;
thread_local uint64_t t_hits = 0;

CachedPlan* EntryOf(const PlanTag* tag) {
  for (CachedPlan& entry : t_cached) {
    if (entry.tag == tag) return &entry;
  }
  return nullptr;
}

}  // namespace

PlanCacheKey::PlanCacheKey(const PlanTag& tag, int64_t reduction, const void* kernels,
                           std::span<const aclTensor* const> tensors)
    : tag_(&tag) {
  Add(reduction);
  Add(static_cast<int64_t>(reinterpret_cast<uintptr_t>(kernels)));
  Add(ThreadPool::Instance().NumThreads());
  Add(static_cast<int64_t>(CpuPlatformEpoch()));
  for (const aclTensor* t : tensors) {
    if (t == nullptr) {
      Add(-1);
      continue;
    }
    Add(static_cast<int64_t>(t->dtype) << 32 | static_cast<int64_t>(t->format));
    Add(t->dims.rank);
    for (const int64_t d : t->dims.span()) Add(d);
    for (const int64_t s : t->strides.span()) Add(s);
    Add(t->offset);
    Add(t->storage_dims.rank);
    for (const int64_t d : t->storage_dims.span()) Add(d);
    Add(t->storage_elems);
    Add(static_cast<int64_t>(reinterpret_cast<uintptr_t>(t->data)));
  }
}

void PlanCacheKey::Add(int64_t word) {
  if (size_ == kCapacity) {
    cacheable_ = false;
    return;
  }
  words_[size_++] = word;
}

bool operator==(const PlanCacheKey& a, const PlanCacheKey& b) {
  return a.tag_ == b.tag_ && a.cacheable_ && b.cacheable_ && a.size_ == b.size_ &&
         std::equal(a.words_.begin(), a.words_.begin() + static_cast<std::ptrdiff_t>(a.size_), b.words_.begin());
}

std::shared_ptr<const LaunchPlan> FindCachedPlan(const PlanCacheKey& key) {
  if (!key.cacheable()) return nullptr;
  const CachedPlan* cached = EntryOf(key.tag());
  if (cached == nullptr || !(*cached->key == key)) return nullptr;
  ++t_hits;
  return cached->plan;
}

void CachePlan(const PlanCacheKey& key, std::shared_ptr<const LaunchPlan> plan) {
  if (!key.cacheable()) return;
  CachedPlan* cached = EntryOf(key.tag());
  if (cached == nullptr) {  // std::bad_alloc, here and below: the entry points' guard
    CachedPlan entry;
    entry.tag = key.tag();
    entry.key = std::make_unique<PlanCacheKey>(key);
    t_cached.push_back(std::move(entry));
    cached = &t_cached.back();
  } else {
    *cached->key = key;
  }
  cached->plan = std::move(plan);
}

aclnnStatus MakeExecutorFor(const char* phase, std::shared_ptr<const LaunchPlan> plan, uint64_t* workspace_size,
                            aclOpExecutor** executor) {
  const uint64_t bytes = plan->WorkspaceSize();
  aclOpExecutor* e = CreateExecutor(std::move(plan));
  if (e == nullptr) return Fail(ACLNN_ERR_RUNTIME_ERROR, phase, ": out of memory");
  *workspace_size = bytes;
  *executor = e;
  return ACLNN_SUCCESS;
}

uint64_t PlanCacheHitsForTesting() { return t_hits; }

}  // namespace aclnn_cpu
