// Descriptions of the machines the tiling can target: the CPU this process runs on, and the
// Atlas A2 NPU of the original operator.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace aclnn_cpu {

/// What the tiling needs to know about a device. See Note [Tiling cost model].
struct PlatformInfo {
  std::string name;
  uint64_t core_num = 1;          ///< cores (threads) a launch may use
  uint64_t ub_size = 0;           ///< per-core fast memory budget for tile buffers, bytes
  uint64_t block_size = 32;       ///< alignment unit of a block's data, bytes
  uint64_t min_bytes_per_core = 0;  ///< bytes of traffic that pay for starting one more core
  /// Last-level cache bytes; problems moving more stream their output past it (0: never).
  uint64_t llc_bytes = 0;
  /// Problems moving fewer bytes run on the launching thread when its stream is idle instead of
  /// being handed to the stream's thread (0: always handed over).
  uint64_t inline_launch_max_bytes = 0;
};

/// The caches of a CPU that the tiling depends on.
struct CpuCaches {
  uint64_t l2_bytes_per_core = 0;  ///< L2 cache bytes of one core
  uint64_t llc_bytes = 0;          ///< last-level (L3) cache bytes
};

// Note [Describing a CPU versus probing the host]
// The description of a CPU is a pure function of its caches and core count, so that tests pin
// the machines they tile for (AMD EPYC with 1 MiB of L2 per core, Intel Xeon with 2 MiB, ...) and
// pass on any host. Only CpuPlatform reads this machine; the library calls it, tests do not.
// Tests that go through the C API (whose first phase calls CpuPlatform) pin the caches it uses
// with PinCpuCachesForTesting, so that they tile, and so cover code paths, the same on any host.

/// A CPU with @p caches and @p core_num threads (0 means 1): half the L2 per core as the "UB",
/// 64-byte (cache line) blocks so that no two blocks write the same line, and a per-core start
/// cost measured on the worker pool. Reads nothing of the host.
PlatformInfo DescribeCpuPlatform(const CpuCaches& caches, uint64_t core_num);
/// Blocks of a launch per thread of the worker pool, when it has several (Note [Blocks per thread]).
inline constexpr uint64_t kCpuBlocksPerThread = 4;
/// This machine with @p threads threads of the worker pool: DescribeCpuPlatform(ProbeCpuCaches(),
/// blocks), with kCpuBlocksPerThread blocks per thread when there are several (Note [Blocks per thread]) and the
/// caches probed once per process (or the caches pinned by PinCpuCachesForTesting).
PlatformInfo CpuPlatform(uint64_t threads);
/// Makes CpuPlatform describe a CPU with @p caches instead of this machine's ({0, 0}: this
/// machine again). For test programs, before their first launch; internal, not exported.
void PinCpuCachesForTesting(const CpuCaches& caches);
/// Changes whenever PinCpuCachesForTesting changes what CpuPlatform describes (Note [Plan cache]).
uint64_t CpuPlatformEpoch();
/// Atlas A2 training series (ascend910b): 48 vector cores, 192 KiB UB, 32-byte blocks.
PlatformInfo AtlasA2Platform();

// Note [Caches from the environment]
// ACLNN_CPU_CACHES="<L2 per core>,<last-level cache>" (sizes in bytes with an optional K, M or G
// suffix, e.g. "2M,260M") makes ProbeCpuCaches report those caches instead of this machine's, so
// that one host can run the library, and its whole test suite, as another kind of host would:
// the tiling is a pure function of the caches. scripts/test.sh runs the release tests as an AMD
// EPYC (1M,32M), as an Intel Xeon (2M,260M) and with the real probe. A value that does not parse
// is reported once on stderr and the real probe is used.

/// Parses an ACLNN_CPU_CACHES value: the caches, or std::nullopt with @p error saying why.
std::optional<CpuCaches> ParseCpuCaches(std::string_view text, std::string* error);
/// The caches the tiling uses for this machine: ACLNN_CPU_CACHES when it is set and valid
/// (Note [Caches from the environment]), else CpuL2BytesPerCore() and CpuLastLevelCacheBytes().
CpuCaches ProbeCpuCaches();
/// L2 cache bytes per core of this machine's hardware (1 MiB when the system does not say).
uint64_t CpuL2BytesPerCore();
/// Last-level (L3) cache bytes of this machine's hardware (32 MiB when the system does not say).
uint64_t CpuLastLevelCacheBytes();

}  // namespace aclnn_cpu
