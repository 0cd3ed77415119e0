// Runs a test body once per SIMD target that this build has and this CPU supports, with
// HWY_DYNAMIC_DISPATCH choosing that target meanwhile (for per-target tests compiled through
// hwy/foreach_target.h, and for tests of code the library dispatches per target).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "hwy/targets.h"
#include "simd/simd_target_scope.h"

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

using aclnn_cpu::SimdTargetScope;

/// Fixture of tests that run once per SIMD target (the parameter, instantiated over
/// hwy::SupportedAndGeneratedTargets() with SimdTargetName): that target is chosen for the
/// duration of the test.
class OnEverySimdTargetTest : public ::testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override { scope_.emplace(GetParam()); }
  void TearDown() override { scope_.reset(); }
  const char* target_name() const { return hwy::TargetName(GetParam()); }

 private:
  std::optional<SimdTargetScope> scope_;
};

/// Test-name suffix: the target's name ("AVX2").
inline std::string SimdTargetName(const ::testing::TestParamInfo<int64_t>& info) {
  return hwy::TargetName(info.param);
}

}  // namespace acl_test
