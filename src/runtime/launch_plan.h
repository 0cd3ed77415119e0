// What an operator's first phase hands the runtime: an opaque plan of stages. The runtime runs
// the stages in order, the blocks of each stage in parallel on the worker pool; it knows nothing
// of operands, tiles or dtypes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "aclnn/acl_meta.h"
#include "common/alignment.h"

namespace aclnn_cpu {

/// One stage of a launch: @p blocks blocks that may run in any order and in parallel, each with
/// its own slice of @p workspace_bytes_per_block bytes. A stage starts after every block of the
/// stage before it has finished, so "partial results per block, then a combine" is two stages.
struct LaunchStage {
  uint64_t blocks = 0;
  uint64_t workspace_bytes_per_block = 0;
};

/// Note [Launch workspace]
/// The caller's workspace holds every stage's slices one after another: stage s starts at
/// StageWorkspaceOffset(s) from the aligned base, block b of it b * workspace_bytes_per_block
/// further. Each stage's region starts kWorkspaceAlignment-aligned; a stage may read what an
/// earlier stage wrote anywhere in the workspace (a combine stage reads the partials).
class LaunchPlan {
 public:
  virtual ~LaunchPlan() = default;
  /// The stages, in order; empty (or all without blocks) for an empty problem.
  virtual std::span<const LaunchStage> Stages() const = 0;
  /// Runs block @p block of stage @p stage. @p workspace is the launch's aligned workspace base
  /// (Note [Launch workspace]); BlockWorkspace gives the block's own slice.
  virtual void RunBlock(size_t stage, uint64_t block, char* workspace) const = 0;
  /// Whether the launch is too short to be worth handing to the stream's thread: it then runs on
  /// the calling thread when the stream is idle (see Note [Streams]).
  virtual bool RunInlineIfIdle() const = 0;

  /// Note [Launches run by the caller]
  /// A plan may instead be run whole by the second phase itself, on the calling thread, after the
  /// launches made before it on the stream have finished, the second phase returning its status
  /// (RunsOnCaller). That is for a run that can fail in a way the caller must be told of: the
  /// AscendC route's (Note [AscendC route]), where a finding of the CPU twin fails the call, and
  /// where ASCENDC_CPU_FATAL=1 may exit() during the run: inside a stream's launch the exit
  /// handler would wait for that very launch (Note [Exit and fork]). The executor is consumed
  /// once such a run has started, whatever its status. Its stages are not run by RunLaunch.
  virtual bool RunsOnCaller() const { return false; }
  /// The run of a plan that RunsOnCaller, with the caller's @p workspace: ACLNN_SUCCESS, or a
  /// failure already recorded with Fail naming @p api.
  virtual aclnnStatus RunOnCaller(const char* api, void* workspace) const noexcept {
    (void)api;
    (void)workspace;
    return ACLNN_SUCCESS;
  }

  /// Whether the launch has any block to run.
  bool HasWork() const;
  /// Offset of stage @p stage's region from the aligned workspace base.
  uint64_t StageWorkspaceOffset(size_t stage) const;
  /// The slice of block @p block of stage @p stage within the aligned base @p workspace.
  char* BlockWorkspace(char* workspace, size_t stage, uint64_t block) const;
  /// Bytes the caller must provide: every stage's region, plus room to align the base to
  /// kWorkspaceAlignment whatever the caller's pointer (0 when no block needs workspace).
  uint64_t WorkspaceSize() const;
  /// Alignment of the base and of each stage's region.
  static constexpr uint64_t kWorkspaceAlignment = kDeviceAlignment;
};

/// Runs every stage of @p plan with the caller's @p workspace (WorkspaceSize bytes, any
/// alignment) on the worker pool; the calling thread takes part.
void RunLaunch(const LaunchPlan& plan, void* workspace) noexcept;

}  // namespace aclnn_cpu
