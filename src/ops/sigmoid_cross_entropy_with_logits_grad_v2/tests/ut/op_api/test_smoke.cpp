#include <gtest/gtest.h>

#include "common/bce_test_util.h"

using namespace bce_test;

TEST(BceGradSmoke, SeedExampleMeanOver32x32) {
  TestTensor dout({32, 32}, ACL_FLOAT), x({32, 32}, ACL_FLOAT), y({32, 32}, ACL_FLOAT), w({32, 32}, ACL_FLOAT),
      pw({32, 32}, ACL_FLOAT), out({32, 32}, ACL_FLOAT);
  for (int64_t i = 0; i < 1024; ++i) {
    dout.Set(i, 1.0);
    x.Set(i, 1.0);
    y.Set(i, 0.5);
    w.Set(i, 1.0);
    pw.Set(i, 2.0);
  }
  Problem p{&dout, &x, &y, &w, &pw, 1, &out};
  ASSERT_EQ(RunOperator(p), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(CheckAgainstReference(p).mismatches, 0);
  EXPECT_NEAR(out.Get(0), 9.4324090e-05, 5e-11);
}
