// Runs a test body once per SIMD target that this build has and this CPU supports, with
// HWY_DYNAMIC_DISPATCH choosing that target meanwhile (for per-target tests compiled through
// hwy/foreach_target.h).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "hwy/targets.h"

namespace acl_test {

/// Calls body(target name) for every target of hwy::SupportedAndGeneratedTargets(), each
/// under a gtest trace naming it; restores the normal dispatch afterwards.
template <class Body>
void OnEverySimdTarget(Body body) {
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    body(hwy::TargetName(target));
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace acl_test
