// The kind of the recent error (aclnnCpuGetRecentErrorKind, Note [Error kinds] in
// common/error.h): set with the message by every failing call, from the rule that failed, so a
// client tells a dtype rule from any other without reading the message.
#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "acl/acl.h"
#include "aclnn/aclnn_cpu.h"
#include "common/error.h"
#include "opdev/tensor_checks.h"
#include "test_tensor.h"

namespace {

using acl_test::TestTensor;
using aclnn_cpu::NamedTensor;

TEST(ErrorKind, ANewThreadHasNone) {
  aclnnCpuErrorKind kind = ACLNN_CPU_ERROR_VALUE;
  std::thread([&] { kind = aclnnCpuGetRecentErrorKind(); }).join();
  EXPECT_EQ(kind, ACLNN_CPU_ERROR_NONE);
}

TEST(ErrorKind, EachSharedCheckRecordsTheKindOfItsRule) {
  TestTensor float23({2, 3}, ACL_FLOAT), int23({2, 3}, ACL_INT32), double23({2, 3}, ACL_DOUBLE),
      float32({3, 2}, ACL_FLOAT);
  const NamedTensor self{"self", float23.get()};
  const NamedTensor not_float[] = {{"target", int23.get()}};
  const NamedTensor transposed[] = {{"target", float32.get()}};
  aclnn_cpu::ReductionType reduction;
  const struct {
    const char* rule;
    std::function<aclnnStatus()> check;
    aclnnCpuErrorKind kind;
  } cases[] = {
      {"a dtype not supported", [&] { return aclnn_cpu::CheckFloatDTypes("aclnnX", not_float); },
       ACLNN_CPU_ERROR_TYPE},
      {"dtypes that must match", [&] { return aclnn_cpu::CheckSameDType("aclnnX", {"out", double23.get()}, self); },
       ACLNN_CPU_ERROR_TYPE},
      {"a shape", [&] { return aclnn_cpu::CheckSameShape("aclnnX", transposed, self); }, ACLNN_CPU_ERROR_VALUE},
      {"a reduction", [&] { return aclnn_cpu::CheckAclnnReduction("aclnnX", 7, reduction); },
       ACLNN_CPU_ERROR_VALUE},
  };
  for (const auto& c : cases) {
    aclnn_cpu::SetRecentErrorKind(ACLNN_CPU_ERROR_NONE);
    EXPECT_EQ(c.check(), ACLNN_ERR_PARAM_INVALID) << c.rule;
    EXPECT_EQ(aclnnCpuGetRecentErrorKind(), c.kind) << c.rule << ": " << aclGetRecentErrMsg();
  }
}

TEST(ErrorKind, AclCreateTensorSaysWhichRuleFailed) {
  const int64_t dims[2] = {2, 3}, storage[1] = {6}, negative[2] = {2, -3};
  float data[6] = {};
  EXPECT_EQ(aclCreateTensor(dims, 2, static_cast<aclDataType>(99), nullptr, 0, ACL_FORMAT_ND, storage, 1, data),
            nullptr);
  EXPECT_EQ(aclnnCpuGetRecentErrorKind(), ACLNN_CPU_ERROR_TYPE);
  EXPECT_EQ(aclCreateTensor(negative, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, data), nullptr);
  EXPECT_EQ(aclnnCpuGetRecentErrorKind(), ACLNN_CPU_ERROR_VALUE);
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, nullptr), nullptr);
  EXPECT_EQ(aclnnCpuGetRecentErrorKind(), ACLNN_CPU_ERROR_NULL_POINTER);
}

TEST(ErrorKind, AnExecutorMisuseIsAValueAndAFailedAllocationARuntimeError) {
  EXPECT_EQ(aclDestroyAclOpExecutor(reinterpret_cast<aclOpExecutor*>(16)), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnCpuGetRecentErrorKind(), ACLNN_CPU_ERROR_VALUE) << aclGetRecentErrMsg();
  void* p = nullptr;
  EXPECT_NE(aclrtMalloc(&p, SIZE_MAX / 2, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclnnCpuGetRecentErrorKind(), ACLNN_CPU_ERROR_RUNTIME) << aclGetRecentErrMsg();
}

TEST(ErrorKind, ASuccessKeepsTheLastErrorAndItsKind) {
  const int64_t dims[2] = {2, 3}, storage[1] = {6};
  float data[6] = {};
  ASSERT_EQ(aclCreateTensor(dims, 2, static_cast<aclDataType>(99), nullptr, 0, ACL_FORMAT_ND, storage, 1, data),
            nullptr);
  aclTensor* made = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, data);
  ASSERT_NE(made, nullptr);
  EXPECT_EQ(aclnnCpuGetRecentErrorKind(), ACLNN_CPU_ERROR_TYPE);
  aclDestroyTensor(made);
}

TEST(ErrorKind, EachCodeHasItsKind) {
  using aclnn_cpu::KindOfCode;
  EXPECT_EQ(KindOfCode(ACLNN_ERR_PARAM_NULLPTR), ACLNN_CPU_ERROR_NULL_POINTER);
  EXPECT_EQ(KindOfCode(ACLNN_ERR_PARAM_INVALID), ACLNN_CPU_ERROR_VALUE);
  EXPECT_EQ(KindOfCode(ACL_ERROR_INVALID_PARAM), ACLNN_CPU_ERROR_VALUE);
  EXPECT_EQ(KindOfCode(ACLNN_ERR_RUNTIME_ERROR), ACLNN_CPU_ERROR_RUNTIME);
  EXPECT_EQ(KindOfCode(ACL_ERROR_RT_MEMORY_ALLOCATION), ACLNN_CPU_ERROR_RUNTIME);
  EXPECT_EQ(aclnn_cpu::Fail(ACLNN_ERR_PARAM_NULLPTR, "x"), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnCpuGetRecentErrorKind(), ACLNN_CPU_ERROR_NULL_POINTER);
  aclnn_cpu::FailAs(ACLNN_CPU_ERROR_TYPE, ACLNN_ERR_PARAM_INVALID, "y");
  EXPECT_EQ(aclnnCpuGetRecentErrorKind(), ACLNN_CPU_ERROR_TYPE);
}

TEST(ErrorKind, DataTypeNamesAreTheMessagesNames) {
  EXPECT_STREQ(aclnnCpuDataTypeName(ACL_FLOAT), "FLOAT");
  EXPECT_STREQ(aclnnCpuDataTypeName(ACL_BF16), "BF16");
  EXPECT_STREQ(aclnnCpuDataTypeName(ACL_DOUBLE), "DOUBLE");
  EXPECT_STREQ(aclnnCpuDataTypeName(ACL_INT32), "INT32");
  EXPECT_EQ(aclnnCpuDataTypeName(static_cast<aclDataType>(99)), nullptr);
}

}  // namespace
