// aclnnCpuSimdTargetName (src/simd/simd_target.cpp): the SIMD target the run-time dispatch chose,
// the one every kernel table runs.
#include <gtest/gtest.h>

#include <cstdint>

#include "aclnn/aclnn_cpu.h"
#include "hwy/targets.h"
#include "simd_targets.h"

namespace {

class SimdTargetName : public acl_test::OnEverySimdTargetTest {};

TEST_P(SimdTargetName, NamesTheTargetTheDispatchChose) { EXPECT_STREQ(aclnnCpuSimdTargetName(), target_name()); }

INSTANTIATE_TEST_SUITE_P(SimdTargets, SimdTargetName, ::testing::ValuesIn(hwy::SupportedAndGeneratedTargets()),
                         acl_test::SimdTargetName);

TEST(SimdTargetNameByDefault, IsTheBestTargetThisBuildHasAndThisCpuSupports) {
  // SupportedAndGeneratedTargets lists the best target first.
  EXPECT_STREQ(aclnnCpuSimdTargetName(), hwy::TargetName(hwy::SupportedAndGeneratedTargets().front()));
}

}  // namespace
