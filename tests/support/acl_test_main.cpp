// main() of the unit tests: the ACL runtime is initialised once for the whole process, as a
// CANN program does.
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
