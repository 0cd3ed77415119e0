// aclOpExecutor: the plan an operator's first phase makes, run by its second phase on a stream.
#pragma once

#include <cstdint>
#include <memory>

#include "aclnn/acl_meta.h"
#include "common/alignment.h"

namespace aclnn_cpu {

/// What an operator hands the runtime: blocks to run, each with its slice of the workspace.
class LaunchPlan {
 public:
  virtual ~LaunchPlan() = default;
  /// Blocks of the launch (0 for an empty problem).
  virtual uint64_t NumBlocks() const = 0;
  /// Workspace bytes the launch needs (each block gets WorkspaceBytesPerBlock of it).
  virtual uint64_t WorkspaceBytesPerBlock() const = 0;
  /// Runs block @p block; @p block_workspace has WorkspaceBytesPerBlock bytes, 64-byte aligned.
  virtual void RunBlock(uint64_t block, void* block_workspace) const = 0;
  /// Whether the launch is too short to be worth handing to the stream's thread: it then runs on
  /// the calling thread when the stream is idle (see Note [Streams]).
  virtual bool RunInlineIfIdle() const = 0;

  /// Bytes the caller must provide: every block's slice, plus room to align the first one to
  /// kDeviceAlignment whatever the caller's pointer (0 when no block needs workspace).
  uint64_t WorkspaceSize() const {
    const uint64_t slices = NumBlocks() * WorkspaceBytesPerBlock();
    return slices == 0 ? 0 : slices + kWorkspaceAlignment;
  }
  /// Alignment of each block's workspace slice.
  static constexpr uint64_t kWorkspaceAlignment = kDeviceAlignment;
};

/// Wraps @p plan in a new executor registered as live; nullptr when out of memory.
aclOpExecutor* CreateExecutor(std::shared_ptr<const LaunchPlan> plan);

/// The second phase shared by operators: validates the executor, workspace and stream, then
/// launches the plan on the stream (consuming a non-repeatable executor). @p api names the
/// calling function in error messages.
/// A runtime failure (a worker or stream thread that cannot be started, no memory) gives
/// ACLNN_ERR_RUNTIME_ERROR with nothing queued and the executor not consumed. Never throws.
aclnnStatus LaunchExecutor(const char* api, void* workspace, uint64_t workspace_size, aclOpExecutor* executor,
                           void* stream) noexcept;

}  // namespace aclnn_cpu
