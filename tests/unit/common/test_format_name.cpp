// FormatName (common/dtype.h): the names messages print for aclFormat values, as acl_base.h
// spells them without the ACL_FORMAT_ prefix.
#include <gtest/gtest.h>

#include <string>

#include "common/dtype.h"

namespace {

using aclnn_cpu::FormatName;

TEST(FormatName, NamesEveryFormatOfAclBase) {
  const std::pair<aclFormat, const char*> names[] = {
      {ACL_FORMAT_NCHW, "NCHW"},          {ACL_FORMAT_NHWC, "NHWC"},           {ACL_FORMAT_ND, "ND"},
      {ACL_FORMAT_NC1HWC0, "NC1HWC0"},    {ACL_FORMAT_FRACTAL_Z, "FRACTAL_Z"}, {ACL_FORMAT_NC1HWC0_C04, "NC1HWC0_C04"},
      {ACL_FORMAT_HWCN, "HWCN"},          {ACL_FORMAT_NDHWC, "NDHWC"},         {ACL_FORMAT_FRACTAL_NZ, "FRACTAL_NZ"},
      {ACL_FORMAT_NCDHW, "NCDHW"},        {ACL_FORMAT_NDC1HWC0, "NDC1HWC0"},   {ACL_FRACTAL_Z_3D, "FRACTAL_Z_3D"},
      {ACL_FORMAT_NC, "NC"},              {ACL_FORMAT_NCL, "NCL"},
  };
  for (const auto& [format, name] : names) EXPECT_STREQ(FormatName(format), name) << static_cast<int>(format);
}

TEST(FormatName, UndefinedIsNamed) { EXPECT_STREQ(FormatName(ACL_FORMAT_UNDEFINED), "UNDEFINED"); }

TEST(FormatName, ValuesAclBaseDoesNotDefineAreUnknown) {
  for (int value : {5, 11, 28, 34, 99, -2}) {
    EXPECT_STREQ(FormatName(static_cast<aclFormat>(value)), "UNKNOWN") << value;
  }
}

}  // namespace
