#include "runtime/executor.h"

#include <mutex>
#include <new>
#include <unordered_set>

#include "common/error.h"
#include "runtime/fork_locks.h"
#include "runtime/stream.h"
#include "runtime/thread_pool.h"

struct aclOpExecutor {
  std::shared_ptr<const aclnn_cpu::LaunchPlan> plan;
  bool repeatable = false;
  /// A second phase is launching this non-repeatable executor: it is consumed when the launch
  /// is made and live again when the launch fails (nothing was queued).
  bool claimed = false;
};

namespace aclnn_cpu {
namespace {

/// What the second phase returns when the runtime fails (a thread or memory it cannot get).
constexpr ExceptionCodes<aclnnStatus> kLaunchCodes{ACLNN_ERR_RUNTIME_ERROR, ACLNN_ERR_RUNTIME_ERROR};

// Live executors. An executor pointer is looked up here before it is touched, so a null, foreign,
// destroyed or consumed executor gives an error code instead of a crash.
std::mutex g_executors_mutex;
std::unordered_set<aclOpExecutor*>& LiveExecutors() {
  static auto* live = new std::unordered_set<aclOpExecutor*>;  // leaked: usable during exit
  return *live;
}
const bool g_fork_lock = (RegisterForkLock(&g_executors_mutex), true);

/// Whether @p e is live and not being launched; requires g_executors_mutex.
bool IsAvailableLocked(aclOpExecutor* e) { return LiveExecutors().count(e) != 0 && !e->claimed; }

/// Whether some stage of the plan has more than one block to share out.
bool NeedsWorkers(const LaunchPlan& plan) {
  for (const LaunchStage& stage : plan.Stages()) {
    if (stage.blocks > 1) return true;
  }
  return false;
}

}  // namespace

aclOpExecutor* CreateExecutor(std::shared_ptr<const LaunchPlan> plan) {
  auto* e = new (std::nothrow) aclOpExecutor;
  if (e == nullptr) return nullptr;
  e->plan = std::move(plan);
  try {
    std::lock_guard<std::mutex> lock(g_executors_mutex);
    LiveExecutors().insert(e);
  } catch (const std::bad_alloc&) {
    delete e;
    return nullptr;
  }
  return e;
}

aclnnStatus LaunchExecutor(const char* api, void* workspace, uint64_t workspace_size, aclOpExecutor* executor,
                           void* stream_handle) noexcept {
  if (executor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, api, ": executor is null");
  std::shared_ptr<Stream> stream;
  if (aclnnStatus s = Guarded(api, kLaunchCodes, [&] {
        stream = Stream::FromHandle(stream_handle);
        return ACLNN_SUCCESS;
      })) {
    return s;
  }
  if (stream == nullptr) return Fail(ACLNN_ERR_PARAM_INVALID, api, ": stream is not a live stream");

  std::shared_ptr<const LaunchPlan> plan;
  bool consumes = false;
  {
    std::lock_guard<std::mutex> lock(g_executors_mutex);
    if (!IsAvailableLocked(executor)) {
      return Fail(ACLNN_ERR_PARAM_INVALID, api,
                  ": executor is not a live executor (already run and not repeatable, destroyed, or never made)");
    }
    const uint64_t needed = executor->plan->WorkspaceSize();
    if (workspace_size < needed) {
      return Fail(ACLNN_ERR_PARAM_INVALID, api, ": workspaceSize ", workspace_size,
                  " is smaller than the ", needed, " bytes the first phase asked for");
    }
    if (needed != 0 && workspace == nullptr) {
      return Fail(ACLNN_ERR_PARAM_NULLPTR, api, ": workspace is null but ", needed, " bytes are needed");
    }
    plan = executor->plan;
    consumes = !executor->repeatable;
    executor->claimed = consumes;  // no other thread can launch or destroy it meanwhile
  }
  // Start what the launch needs (the pool's workers, the stream's thread) before the executor
  // is consumed: a failure leaves nothing queued and the executor as it was.
  const aclnnStatus status = Guarded(api, kLaunchCodes, [&] {
    if (plan->HasWork()) {
      if (NeedsWorkers(*plan)) ThreadPool::Instance().EnsureWorkers();
      // Launches shorter than a thread hand-off is worth run on the caller when the stream is
      // idle; see Note [Streams].
      const bool run_inline = plan->RunInlineIfIdle();
      stream->Launch(StreamWork{plan, workspace}, run_inline);
    }
    return ACLNN_SUCCESS;
  });
  if (consumes) {
    std::lock_guard<std::mutex> lock(g_executors_mutex);
    executor->claimed = false;
    if (status == ACLNN_SUCCESS) {  // consumed by this launch
      LiveExecutors().erase(executor);
      delete executor;
    }
  }
  return status;
}

}  // namespace aclnn_cpu

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor* executor) {
  using namespace aclnn_cpu;
  if (executor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclSetAclOpExecutorRepeatable: executor is null");
  std::lock_guard<std::mutex> lock(g_executors_mutex);
  if (!IsAvailableLocked(executor)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "aclSetAclOpExecutorRepeatable: executor is not a live executor");
  }
  executor->repeatable = true;
  return ACLNN_SUCCESS;
}

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor) {
  using namespace aclnn_cpu;
  if (executor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclDestroyAclOpExecutor: executor is null");
  {
    std::lock_guard<std::mutex> lock(g_executors_mutex);
    if (!IsAvailableLocked(executor)) {
      return Fail(ACLNN_ERR_PARAM_INVALID, "aclDestroyAclOpExecutor: executor is not a live executor");
    }
    LiveExecutors().erase(executor);
  }
  delete executor;  // a launch still queued keeps the plan alive through its shared_ptr
  return ACLNN_SUCCESS;
}
