// main() of the tests that go through the C API: the ACL runtime is initialised once for the
// whole process, as a CANN program does. The CPU the first phases tile for is the one
// ProbeCpuCaches reports: scripts/test.sh runs these tests as an AMD EPYC, as an Intel Xeon
// (ACLNN_CPU_CACHES, Note [Caches from the environment]) and as the host itself, so a test that
// holds on one kind of host only fails on every host. Tests that need one tiling pin it.
#include <gtest/gtest.h>

#include "acl/acl.h"

namespace {
class AclEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  }
};
}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new AclEnvironment);
  return RUN_ALL_TESTS();
}
