// ACLNN_BCE_KERNELS (Note [Kernels mode at load time], Note [AscendC route]): the values it
// takes, and the refusal of every other value, and of ascendc without the twin, with the
// variable, its value and the allowed values in the message.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "acl/acl.h"
#include "ascendc_route/kernels_mode.h"

namespace aclnn_cpu::ascendc_route {
namespace {

constexpr const char* kApi = "aclnnSomethingGetWorkspaceSize";

TEST(KernelsMode, UnsetEmptyAndCpuAreTheCpuKernels) {
  EXPECT_EQ(ParseKernelsMode(nullptr), KernelsMode::kCpu);
  EXPECT_EQ(ParseKernelsMode(""), KernelsMode::kCpu);
  EXPECT_EQ(ParseKernelsMode("cpu"), KernelsMode::kCpu);
}

TEST(KernelsMode, AscendcIsTheAscendcKernels) { EXPECT_EQ(ParseKernelsMode("ascendc"), KernelsMode::kAscendc); }

TEST(KernelsMode, EveryOtherValueIsInvalid) {
  for (const char* value :
       {"CPU", "AscendC", "ASCENDC", " ascendc", "ascendc ", "npu", "0", "1", "twin", "cpu,ascendc"}) {
    EXPECT_EQ(ParseKernelsMode(value), KernelsMode::kInvalid) << "'" << value << "'";
  }
}

TEST(KernelsMode, TheProcessSettingIsTheEnvironmentAtLoad) {
  const char* value = std::getenv(kKernelsVariable);
  EXPECT_EQ(ProcessKernelsSetting().mode, ParseKernelsMode(value));
  EXPECT_EQ(ProcessKernelsSetting().value, value != nullptr ? value : "");
}

TEST(KernelsMode, CpuChoosesTheCpuKernelsWithOrWithoutTheTwin) {
  for (const bool twin_built : {false, true}) {
    bool use_twin = true;
    EXPECT_EQ(ChooseKernelsFor(kApi, {KernelsMode::kCpu, ""}, twin_built, use_twin), ACLNN_SUCCESS);
    EXPECT_FALSE(use_twin);
  }
}

TEST(KernelsMode, AscendcChoosesTheTwinWhereItIsBuilt) {
  bool use_twin = false;
  EXPECT_EQ(ChooseKernelsFor(kApi, {KernelsMode::kAscendc, "ascendc"}, true, use_twin), ACLNN_SUCCESS);
  EXPECT_TRUE(use_twin);
}

TEST(KernelsMode, AscendcWithoutTheTwinFailsSayingHowTheBuildLacksIt) {
  bool use_twin = true;
  EXPECT_EQ(ChooseKernelsFor(kApi, {KernelsMode::kAscendc, "ascendc"}, false, use_twin), ACLNN_ERR_RUNTIME_ERROR);
  EXPECT_FALSE(use_twin);
  const std::string message = aclGetRecentErrMsg();
  EXPECT_EQ(message.rfind(std::string(kApi) + ": ACLNN_BCE_KERNELS=ascendc", 0), 0u) << message;
  EXPECT_NE(message.find("ACLNN_BCE_BUILD_ASCENDC_CPU=OFF"), std::string::npos) << message;
}

TEST(KernelsMode, AnInvalidValueFailsNamingTheVariableTheValueAndTheAllowedValues) {
  for (const bool twin_built : {false, true}) {
    bool use_twin = true;
    EXPECT_EQ(ChooseKernelsFor(kApi, {KernelsMode::kInvalid, "npu"}, twin_built, use_twin), ACLNN_ERR_RUNTIME_ERROR);
    EXPECT_FALSE(use_twin);
    EXPECT_EQ(std::string(aclGetRecentErrMsg()),
              std::string(kApi) +
                  ": ACLNN_BCE_KERNELS='npu' is not a kernels mode: the allowed values are 'cpu' (the default, also "
                  "when unset or empty) and 'ascendc' (the AscendC kernels on the CPU twin); the variable is read "
                  "when the process starts");
  }
}

TEST(KernelsMode, ChooseKernelsIsTheDecisionForTheProcessSetting) {
  bool use_twin = false;
  bool expected_use = false;
  const aclnnStatus expected = ChooseKernelsFor(kApi, ProcessKernelsSetting(), TwinBuilt(), expected_use);
  EXPECT_EQ(ChooseKernels(kApi, use_twin), expected);
  EXPECT_EQ(use_twin, expected_use);
}

}  // namespace
}  // namespace aclnn_cpu::ascendc_route
