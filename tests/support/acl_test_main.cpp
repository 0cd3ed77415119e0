// main() of the tests that go through the C API: the ACL runtime is initialised once for the
// whole process, as a CANN program does, and the CPU the first phases tile for is pinned to a
// described one (see Note [Describing a CPU versus probing the host]), so that every host runs
// the same tilings and so covers the same code paths.
#include <gtest/gtest.h>

#include "acl/acl.h"
#include "platform/platform_info.h"

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
  // An AMD EPYC Zen 5: 1 MiB of L2 per core, a 32 MiB L3 (the tilings of an Intel Xeon, 2 MiB and
  // 260 MiB, are pinned by the op_host tests).
  aclnn_cpu::PinCpuCachesForTesting(aclnn_cpu::CpuCaches{uint64_t{1} << 20, uint64_t{32} << 20});
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new AclEnvironment);
  return RUN_ALL_TESTS();
}
