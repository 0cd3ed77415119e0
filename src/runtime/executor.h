// aclOpExecutor: the plan an operator's first phase makes, run by its second phase on a stream.
#pragma once

#include <cstdint>
#include <memory>

#include "aclnn/acl_meta.h"
#include "runtime/launch_plan.h"

namespace aclnn_cpu {

/// Wraps @p plan in a new executor registered as live; nullptr when out of memory.
aclOpExecutor* CreateExecutor(std::shared_ptr<const LaunchPlan> plan);

/// The second phase shared by operators: validates the executor, workspace and stream, then
/// launches the plan on the stream (consuming a non-repeatable executor), or, for a plan that
/// RunsOnCaller, runs it on the calling thread after the stream's earlier launches and returns
/// its status (Note [Launches run by the caller]). @p api names the calling function in error
/// messages.
/// A runtime failure (a worker or stream thread that cannot be started, no memory) gives
/// ACLNN_ERR_RUNTIME_ERROR with nothing queued and the executor not consumed. Never throws.
aclnnStatus LaunchExecutor(const char* api, void* workspace, uint64_t workspace_size, aclOpExecutor* executor,
                           void* stream) noexcept;

}  // namespace aclnn_cpu
