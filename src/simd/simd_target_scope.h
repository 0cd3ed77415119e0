// The SIMD target the library's run-time dispatch picks, chosen for a while: for the tests that
// check every target and the benchmark that measures one by name (the library itself always
// runs the best target of the CPU).
#pragma once

#include <cstdint>
#include <cstring>

#include "hwy/targets.h"

namespace aclnn_cpu {

/// Makes HWY_DYNAMIC_DISPATCH (so every table the library dispatches) pick @p target while alive.
class SimdTargetScope {
 public:
  explicit SimdTargetScope(int64_t target) {
    hwy::SetSupportedTargetsForTest(target);
    hwy::GetChosenTarget().Update(hwy::SupportedTargets());
  }
  ~SimdTargetScope() {
    hwy::SetSupportedTargetsForTest(0);
    hwy::GetChosenTarget().Update(hwy::SupportedTargets());
  }
  SimdTargetScope(const SimdTargetScope&) = delete;
  SimdTargetScope& operator=(const SimdTargetScope&) = delete;
};

/// The target named @p name ("AVX2", hwy::TargetName's spelling) among those this build has and
/// this CPU supports, or 0 where there is none.
inline int64_t FindSimdTarget(const char* name) {
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    if (std::strcmp(hwy::TargetName(target), name) == 0) return target;
  }
  return 0;
}

}  // namespace aclnn_cpu
