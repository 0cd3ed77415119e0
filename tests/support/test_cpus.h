// The kinds of CPU the project runs on, described by hand by their caches, for tests that tile
// or describe a platform without reading the host (Note [Describing a CPU versus probing the
// host], src/platform/platform_info.h).
#pragma once

#include <cstdint>

#include "platform/platform_info.h"

namespace acl_test {

/// A kind of CPU the project runs on, described by hand: tests never tile on the host's caches
/// (see Note [Describing a CPU versus probing the host]).
struct TestCpu {
  const char* label;  ///< usable in test names
  aclnn_cpu::CpuCaches caches;
};

inline constexpr uint64_t kMiB = uint64_t{1} << 20;
/// AMD EPYC (Zen 5): 1 MiB of L2 per core, 32 MiB of L3 per CCD.
inline constexpr TestCpu kEpycZen5 = {"EpycZen5", {1 * kMiB, 32 * kMiB}};
/// Intel Xeon: 2 MiB of L2 per core, 260 MiB of L3.
inline constexpr TestCpu kXeon = {"Xeon", {2 * kMiB, 260 * kMiB}};
inline constexpr TestCpu kTestCpus[] = {kEpycZen5, kXeon};

}  // namespace acl_test
