// The route's boundary in a build without the twin (ACLNN_BCE_BUILD_ASCENDC_CPU=OFF): TwinBuilt()
// is false, so ChooseKernels refuses ascendc before anything below is reached.
#include <cstdlib>

#include "ascendc_route/twin_interface.h"

namespace aclnn_cpu::ascendc_route {

bool TwinBuilt() { return false; }

TwinKernelEntry FindTwinKernel(AscendcKernel) { return {}; }

TwinRunReport RunOnTwin(TwinLaunchFn, TwinDType, uint32_t, uint8_t* const*) { std::abort(); }

uint8_t* TwinGmAllocate(size_t) { return nullptr; }

void TwinGmRelease(uint8_t*) {}

}  // namespace aclnn_cpu::ascendc_route
