// The per-thread recent error message (aclGetRecentErrMsg): kept in a fixed buffer, so setting
// it allocates nothing and a thread's first error needs no memory (see common/error.cpp).
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "acl/acl.h"
#include "common/error.h"

namespace aclnn_cpu {
namespace {

TEST(RecentError, AMessageUpToTheLimitIsKeptWhole) {
  const std::string message(kMaxRecentErrorBytes, 'm');
  SetRecentError(message);
  EXPECT_EQ(std::string(aclGetRecentErrMsg()), message);
  SetRecentError("short");
  EXPECT_STREQ(aclGetRecentErrMsg(), "short");
}

TEST(RecentError, ALongerMessageIsCutAndEndsInAnEllipsis) {
  std::string message(kMaxRecentErrorBytes + 100, 'x');
  message.replace(0, 5, "start");
  SetRecentError(message);
  const std::string kept = aclGetRecentErrMsg();
  ASSERT_EQ(kept.size(), kMaxRecentErrorBytes);
  EXPECT_EQ(kept.substr(0, 5), "start");
  EXPECT_EQ(kept.substr(kept.size() - 3), "...");
}

TEST(RecentError, AStaticMessageReplacesAndIsReplacedByAFormattedOne) {
  SetRecentError("formatted");
  SetStaticRecentError("static");
  EXPECT_STREQ(aclGetRecentErrMsg(), "static");
  EXPECT_EQ(Fail(7, "code ", 7, " at ", 1.5), 7);
  EXPECT_STREQ(aclGetRecentErrMsg(), "code 7 at 1.5");
}

TEST(RecentError, ANewThreadStartsWithAnEmptyMessage) {
  SetRecentError("this thread's");
  std::string other = "unset";
  std::thread([&other] { other = aclGetRecentErrMsg(); }).join();
  EXPECT_EQ(other, "");
  EXPECT_STREQ(aclGetRecentErrMsg(), "this thread's");
}

}  // namespace
}  // namespace aclnn_cpu
