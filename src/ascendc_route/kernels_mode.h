// Which kernels the operators with an AscendC kernel run: the library's CPU kernels (the default)
// or the AscendC kernels on the CPU twin (ACLNN_BCE_KERNELS=ascendc). See Note [AscendC route].
#pragma once

#include <string>
#include <string_view>

#include "aclnn/acl_meta.h"
#include "ascendc_route/twin_interface.h"

namespace aclnn_cpu::ascendc_route {

/// The environment variable that chooses the kernels, read once when the library is loaded.
inline constexpr const char* kKernelsVariable = "ACLNN_BCE_KERNELS";

enum class KernelsMode {
  kCpu,      ///< the library's CPU kernels: unset, empty or "cpu"
  kAscendc,  ///< the A2 tiling and the AscendC kernels on the twin: "ascendc"
  kInvalid,  ///< any other value: the affected first phases fail (ChooseKernels)
};

/// The mode a value of ACLNN_BCE_KERNELS asks for (null: unset). Exact, case-sensitive words.
KernelsMode ParseKernelsMode(const char* value);

/// The process's mode and the value it was read from ("" when unset), as read at load time.
struct KernelsSetting {
  KernelsMode mode = KernelsMode::kCpu;
  std::string value;
};
const KernelsSetting& ProcessKernelsSetting();

/// What a first phase with an AscendC kernel asks before it plans: whether to plan for the twin
/// (@p use_twin) under the process's mode. Fails (ACLNN_ERR_RUNTIME_ERROR, a message naming @p api,
/// the variable, its value and the allowed values) for a value that is not a mode, and for
/// "ascendc" in a build without the twin.
aclnnStatus ChooseKernels(const char* api, bool& use_twin);

/// The same decision for @p setting and @p twin_built (ChooseKernels is it for the process's).
aclnnStatus ChooseKernelsFor(const char* api, const KernelsSetting& setting, bool twin_built, bool& use_twin);

}  // namespace aclnn_cpu::ascendc_route
