#include "runtime/launch_plan.h"

#include "runtime/thread_pool.h"

namespace aclnn_cpu {

bool LaunchPlan::HasWork() const {
  for (const LaunchStage& stage : Stages()) {
    if (stage.blocks != 0) return true;
  }
  return false;
}

uint64_t LaunchPlan::StageWorkspaceOffset(size_t stage) const {
  const std::span<const LaunchStage> stages = Stages();
  uint64_t offset = 0;
  for (size_t s = 0; s < stage && s < stages.size(); ++s) {
    offset += AlignUp(stages[s].blocks * stages[s].workspace_bytes_per_block, kWorkspaceAlignment);
  }
  return offset;
}

char* LaunchPlan::BlockWorkspace(char* workspace, size_t stage, uint64_t block) const {
  return workspace + StageWorkspaceOffset(stage) + block * Stages()[stage].workspace_bytes_per_block;
}

uint64_t LaunchPlan::WorkspaceSize() const {
  const uint64_t regions = StageWorkspaceOffset(Stages().size());
  return regions == 0 ? 0 : regions + kWorkspaceAlignment;
}

namespace {

struct StageContext {
  const LaunchPlan* plan;
  size_t stage;
  char* workspace;
};

void RunOneBlock(const void* context, int64_t block) {
  const auto* c = static_cast<const StageContext*>(context);
  c->plan->RunBlock(c->stage, static_cast<uint64_t>(block), c->workspace);
}

}  // namespace

void RunLaunch(const LaunchPlan& plan, void* workspace) noexcept {
  constexpr uint64_t kAlign = LaunchPlan::kWorkspaceAlignment;
  const auto address = reinterpret_cast<uintptr_t>(workspace);
  char* aligned = static_cast<char*>(workspace) + ((kAlign - address % kAlign) % kAlign);
  const std::span<const LaunchStage> stages = plan.Stages();
  for (size_t s = 0; s < stages.size(); ++s) {
    if (stages[s].blocks == 0) continue;
    const StageContext context{&plan, s, aligned};
    // ThreadPool::Run returns when every block has run: the next stage sees all of this one.
    ThreadPool::Instance().Run(static_cast<int64_t>(stages[s].blocks), &RunOneBlock, &context);
  }
}

}  // namespace aclnn_cpu
