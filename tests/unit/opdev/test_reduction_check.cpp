// opdev/tensor_checks.h: the first phase's one check of ACLNN's integer reduction, which every
// operator with a reduction calls, so each refuses a bad value with the same message.
#include "opdev/tensor_checks.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "aclnn/acl_meta.h"
#include "acl/acl.h"

namespace aclnn_cpu {
namespace {

TEST(CheckAclnnReduction, MapsNoneMeanSumToTheTilingEncoding) {
  const struct {
    int64_t aclnn;
    ReductionType parsed;
  } cases[] = {{0, ReductionType::kNone}, {1, ReductionType::kMean}, {2, ReductionType::kSum}};
  for (const auto& c : cases) {
    ReductionType parsed = c.aclnn == 0 ? ReductionType::kSum : ReductionType::kNone;  // not the answer
    EXPECT_EQ(CheckAclnnReduction("aclnnX", c.aclnn, parsed), ACLNN_SUCCESS) << c.aclnn;
    EXPECT_EQ(parsed, c.parsed) << c.aclnn;
  }
}

TEST(CheckAclnnReduction, RefusesOtherValuesNamingTheApiTheValueAndTheRule) {
  for (const int64_t bad : {int64_t{-1}, int64_t{3}, INT64_MIN, INT64_MAX}) {
    ReductionType parsed = ReductionType::kMean;
    EXPECT_EQ(CheckAclnnReduction("aclnnXGetWorkspaceSize", bad, parsed), ACLNN_ERR_PARAM_INVALID) << bad;
    EXPECT_EQ(parsed, ReductionType::kMean) << "left as it was";
    EXPECT_EQ(std::string(aclGetRecentErrMsg()),
              "aclnnXGetWorkspaceSize: reduction " + std::to_string(bad) + " must be 0 (none), 1 (mean) or 2 (sum)");
  }
}

}  // namespace
}  // namespace aclnn_cpu
