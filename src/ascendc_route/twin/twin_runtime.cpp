// The twin side of the route's boundary (twin_interface.h): GM, and one launch at a time with the
// findings of that launch. Compiled as a kernel unit test is (tikicpulib::ascend910B1's
// definitions), in the object library aclnn_bce_ascendc_kernels.
#include <pthread.h>

#include <mutex>

#include "ascendc_route/twin_interface.h"
#include "tikicpulib.h"

namespace aclnn_cpu::ascendc_route {
namespace {

// Note [One launch on the twin at a time]
// The twin serialises its launches itself (ICPU_RUN_KF holds a process-wide lock while the cores
// run), but the findings of a run are kept in one process-wide place, LastRunFindings(), which the
// next launch replaces: read after ICPU_RUN_KF returns, it may already be another thread's run.
// So the route holds its own lock from the launch until it has read the findings. Leaked: a
// launch may still run while the process exits (ASCENDC_CPU_FATAL=1 calls exit() under it).
std::mutex& LaunchMutex() {
  static auto* mutex = new std::mutex;
  return *mutex;
}

// Fork: a launch running on another thread holds the twin's locks, which a child forked meanwhile
// would inherit held (its first launch would wait forever). fork() waits until no launch of the
// route runs, as it waits for the streams (Note [Exit and fork]); the route's launches never run
// on a stream, so the two waits cannot wait for each other.
[[maybe_unused]] const bool g_fork_handlers_installed = [] {
  return pthread_atfork([] { LaunchMutex().lock(); }, [] { LaunchMutex().unlock(); },
                        [] { LaunchMutex().unlock(); }) == 0;
}();

}  // namespace

bool TwinBuilt() { return true; }

TwinRunReport RunOnTwin(TwinLaunchFn launch, TwinDType dtype, uint32_t block_dim, uint8_t* const* gm) {
  std::lock_guard<std::mutex> lock(LaunchMutex());
  launch(dtype, block_dim, gm);
  TwinRunReport report;
  for (const ascendc_cpu::Finding& finding : ascendc_cpu::LastRunFindings()) {
    if (finding.severity != ascendc_cpu::Severity::kError) {
      ++report.warnings;
      continue;
    }
    if (report.errors++ == 0) report.first_error = ascendc_cpu::FormatFinding(finding);
  }
  return report;
}

uint8_t* TwinGmAllocate(size_t bytes) { return static_cast<uint8_t*>(AscendC::GmAlloc(bytes)); }

void TwinGmRelease(uint8_t* gm) {
  if (gm != nullptr) AscendC::GmFree(gm);
}

}  // namespace aclnn_cpu::ascendc_route
