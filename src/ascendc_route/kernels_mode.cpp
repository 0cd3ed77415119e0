#include "ascendc_route/kernels_mode.h"

#include <cstdlib>
#include <cstring>

#include "common/error.h"

namespace aclnn_cpu::ascendc_route {
namespace {

// Note [Kernels mode at load time]
// ACLNN_BCE_KERNELS is read once, by a static initialiser of the library (g_setting_read below),
// so that every call of the process runs the same kernels: changing the variable while the process
// runs changes nothing, as for ACLNN_CPU_NUM_THREADS. The value is kept as read, so that a value
// that is not a mode can be named in every refusal; such a value does not stop the load (a program
// that never calls an affected operator is not hurt) but fails each affected first phase: a golden
// reference must never run other kernels than the ones asked for.
KernelsSetting ReadSetting() {
  KernelsSetting setting;
  const char* value = std::getenv(kKernelsVariable);
  setting.mode = ParseKernelsMode(value);
  if (value != nullptr) setting.value = value;
  return setting;
}

[[maybe_unused]] const bool g_setting_read = (ProcessKernelsSetting(), true);  // at load time

}  // namespace

KernelsMode ParseKernelsMode(const char* value) {
  if (value == nullptr || value[0] == '\0' || std::strcmp(value, "cpu") == 0) return KernelsMode::kCpu;
  if (std::strcmp(value, "ascendc") == 0) return KernelsMode::kAscendc;
  return KernelsMode::kInvalid;
}

const KernelsSetting& ProcessKernelsSetting() {
  static const KernelsSetting setting = ReadSetting();
  return setting;
}

aclnnStatus ChooseKernelsFor(const char* api, const KernelsSetting& setting, bool twin_built, bool& use_twin) {
  use_twin = false;
  switch (setting.mode) {
    case KernelsMode::kCpu:
      return ACLNN_SUCCESS;
    case KernelsMode::kAscendc:
      if (!twin_built) {
        return Fail(ACLNN_ERR_RUNTIME_ERROR, api, ": ", kKernelsVariable,
                    "=ascendc asks for the AscendC kernels on the CPU twin, but this build of the library has no "
                    "twin (it was configured with ACLNN_BCE_BUILD_ASCENDC_CPU=OFF); unset the variable or set it "
                    "to 'cpu' for the CPU kernels");
      }
      use_twin = true;
      return ACLNN_SUCCESS;
    case KernelsMode::kInvalid:
      break;
  }
  return Fail(ACLNN_ERR_RUNTIME_ERROR, api, ": ", kKernelsVariable, "='", setting.value,
              "' is not a kernels mode: the allowed values are 'cpu' (the default, also when unset or empty) and "
              "'ascendc' (the AscendC kernels on the CPU twin); the variable is read when the process starts");
}

aclnnStatus ChooseKernels(const char* api, bool& use_twin) {
  return ChooseKernelsFor(api, ProcessKernelsSetting(), TwinBuilt(), use_twin);
}

}  // namespace aclnn_cpu::ascendc_route
