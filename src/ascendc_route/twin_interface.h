// The boundary between the library and the translation units compiled as AscendC kernels for the
// CPU twin (src/ascendc_route/twin/, Note [AscendC route]): plain C++, no acl type and no header of
// the twin, so that neither side sees the other's macros and types. In a build without the twin
// (ACLNN_BCE_BUILD_ASCENDC_CPU=OFF) no_twin.cpp defines these functions: TwinBuilt() is false and
// nothing else is reached.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace aclnn_cpu::ascendc_route {

/// The AscendC kernels the route launches, one per kernel entry (Note [Plugging in an AscendC
/// kernel]). The twin side's table (twin/twin_kernels.cpp) gives each its launch.
enum class AscendcKernel : uint32_t {
  kSigmoidCrossEntropyWithLogitsGradV2,          ///< aclnnBinaryCrossEntropyWithLogitsBackward
  kSigmoidCrossEntropyWithLogitsGradV2OfTarget,  ///< aclnnBinaryCrossEntropyWithLogitsTargetBackward
  kSigmoidCrossEntropyWithLogitsV2,              ///< aclnnBinaryCrossEntropyWithLogits
  kCount
};

/// Whether this build has the twin (ACLNN_BCE_BUILD_ASCENDC_CPU=ON).
bool TwinBuilt();

/// The data types of A2's kernels (no fp64 on A2).
enum class TwinDType : uint32_t { kFloat, kFloat16, kBFloat16 };

/// Most GM arguments a kernel entry takes (its tensors, workspace and tiling).
inline constexpr size_t kMaxTwinArgs = 16;

/// A kernel's launch on the twin: ICPU_RUN_KF of its entry for @p dtype on @p block_dim cores with
/// the GM arguments @p gm, in the entry's order (null for an absent operand).
using TwinLaunchFn = void (*)(TwinDType dtype, uint32_t block_dim, uint8_t* const* gm);

/// A kernel of the table: its name in messages and its launch.
struct TwinKernelEntry {
  const char* name = nullptr;
  TwinLaunchFn launch = nullptr;
};

/// The table's entry of @p kernel; an entry with a null launch when the build has no twin.
TwinKernelEntry FindTwinKernel(AscendcKernel kernel);

/// What one launch left: the twin's findings counted, and the first error as the twin prints it.
struct TwinRunReport {
  uint64_t errors = 0;
  uint64_t warnings = 0;
  std::string first_error;  ///< FormatFinding of the first error finding; empty when none
};

/// Runs @p launch (one ICPU_RUN_KF) and reads that run's findings, one launch of the process at a
/// time (Note [One launch on the twin at a time]). The twin prints its findings itself, and ends
/// the process under ASCENDC_CPU_FATAL=1 after a run with an error.
TwinRunReport RunOnTwin(TwinLaunchFn launch, TwinDType dtype, uint32_t block_dim, uint8_t* const* gm);

/// GM of the twin (GmAlloc): @p bytes bytes, zero-filled, checked against exactly that size.
uint8_t* TwinGmAllocate(size_t bytes);
void TwinGmRelease(uint8_t* gm);

}  // namespace aclnn_cpu::ascendc_route
