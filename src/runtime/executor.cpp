#include "runtime/executor.h"

#include <new>

#include "common/error.h"
#include "runtime/handle_registry.h"
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

// Live executors, with a quarantine as for tensors (Note [Live handles]): a stale handle of a
// recently consumed or destroyed executor is reported as not live, never taken for a new one.
// The executor's fields are read and written only under the registry's lock (Visit, Take).
constexpr size_t kQuarantine = 1024;
using ExecutorRegistry = HandleRegistry<aclOpExecutor*, NoEntry, kQuarantine>;
ExecutorRegistry& LiveExecutors() {
  static auto* live = new ExecutorRegistry;  // leaked: usable during exit
  return *live;
}
const bool g_registry_made = (LiveExecutors(), true);  // at load time; see HandleRegistry()

/// Takes @p e out of the live set when @p may_take(*e) agrees, releases its plan and retires it
/// into the quarantine; false when it is not live or @p may_take refused.
template <class MayTake>
bool Retire(aclOpExecutor* e, MayTake may_take) {
  std::shared_ptr<const LaunchPlan> plan;  // released after the lock, by this thread
  const auto taken = LiveExecutors().Take(e, [&](NoEntry) {
    if (!may_take(*e)) return false;
    plan = std::move(e->plan);  // a quarantined executor holds only its memory
    return true;
  });
  if (!taken) return false;
  delete taken->evicted;
  return true;
}

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
  if (!LiveExecutors().Insert(e, {})) {
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
  bool available = false;
  uint64_t needed = 0;
  LiveExecutors().Visit(executor, [&](NoEntry) {
    available = !executor->claimed;
    if (!available) return;
    needed = executor->plan->WorkspaceSize();
    if (workspace_size < needed || (needed != 0 && workspace == nullptr)) return;
    plan = executor->plan;
    consumes = !executor->repeatable;
    executor->claimed = consumes;  // no other thread can launch or destroy it meanwhile
  });
  if (!available) {
    return Fail(ACLNN_ERR_PARAM_INVALID, api,
                ": executor is not a live executor (already run and not repeatable, destroyed, or never made)");
  }
  if (workspace_size < needed) {
    return Fail(ACLNN_ERR_PARAM_INVALID, api, ": workspaceSize ", workspace_size,
                " is smaller than the ", needed, " bytes the first phase asked for");
  }
  if (plan == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, api, ": workspace is null but ", needed, " bytes are needed");
  }
  // Start what the launch needs (the pool's workers, the stream's thread) before the executor
  // is consumed: a failure leaves nothing queued and the executor as it was.
  aclnnStatus run_status = ACLNN_SUCCESS;  // of a plan run by the caller
  const aclnnStatus status = Guarded(api, kLaunchCodes, [&] {
    if (plan->HasWork() && plan->RunsOnCaller()) {  // Note [Launches run by the caller]
      stream->Synchronize();
      run_status = plan->RunOnCaller(api, workspace);
      return ACLNN_SUCCESS;
    }
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
    if (status == ACLNN_SUCCESS) {  // consumed by this launch: only this thread may take it
      Retire(executor, [](aclOpExecutor&) { return true; });
    } else {
      LiveExecutors().Visit(executor, [executor](NoEntry) { executor->claimed = false; });
    }
  }
  return status != ACLNN_SUCCESS ? status : run_status;
}

}  // namespace aclnn_cpu

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor* executor) {
  using namespace aclnn_cpu;
  if (executor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclSetAclOpExecutorRepeatable: executor is null");
  bool available = false;
  LiveExecutors().Visit(executor, [&](NoEntry) {
    available = !executor->claimed;
    if (available) executor->repeatable = true;
  });
  if (!available) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "aclSetAclOpExecutorRepeatable: executor is not a live executor");
  }
  return ACLNN_SUCCESS;
}

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor) {
  using namespace aclnn_cpu;
  if (executor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclDestroyAclOpExecutor: executor is null");
  // A launch still queued keeps the plan alive through its own shared_ptr.
  if (!Retire(executor, [](const aclOpExecutor& e) { return !e.claimed; })) {
    return Fail(ACLNN_ERR_PARAM_INVALID, "aclDestroyAclOpExecutor: executor is not a live executor");
  }
  return ACLNN_SUCCESS;
}
