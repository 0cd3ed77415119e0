#include "platform/platform_info.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>

namespace aclnn_cpu {

namespace {
constexpr uint64_t kDefaultL2Bytes = 1ull << 20;
constexpr uint64_t kCacheLineBytes = 64;
// Waking a worker costs a few microseconds (a futex wake and a cold start); at the ~10 GB/s one
// core streams, that is ~64 KiB of traffic, below which a second core does not pay for itself.
constexpr uint64_t kCpuMinBytesPerCore = 64 * 1024;
// A hand-off to a stream's thread costs ~10 us; below ~8 MiB of traffic (about a millisecond)
// that is a noticeable share of the call, above it asynchrony is worth it.
constexpr uint64_t kCpuInlineLaunchMaxBytes = 8ull << 20;
// Atlas A2: the original estimates one core per 1024 elements of fp32 across five inputs and an
// output, i.e. about 24 KiB of traffic.
constexpr uint64_t kAtlasA2MinBytesPerCore = 24 * 1024;
constexpr uint64_t kAtlasA2Cores = 48;
constexpr uint64_t kAtlasA2UbBytes = 196608;
constexpr uint64_t kAtlasA2BlockBytes = 32;

constexpr uint64_t kDefaultLlcBytes = 32ull << 20;
constexpr uint64_t kMinL2Bytes = 64 * 1024;
constexpr uint64_t kMinLlcBytes = 1024 * 1024;
constexpr uint64_t kMaxCacheBytes = uint64_t{1} << 40;

/// "<digits>[K|M|G]" as a byte count within [1, kMaxCacheBytes], or std::nullopt: a cache size as
/// sysfs writes it ("2048K") and as ACLNN_CPU_CACHES gives it.
std::optional<uint64_t> ParseByteCount(std::string_view text) {
  uint64_t value = 0;
  size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    value = value * 10 + static_cast<uint64_t>(text[i] - '0');
    if (value > kMaxCacheBytes) return std::nullopt;
  }
  if (i == 0) return std::nullopt;
  int shift = 0;
  if (i < text.size()) {
    switch (text[i++]) {
      case 'K': case 'k': shift = 10; break;
      case 'M': case 'm': shift = 20; break;
      case 'G': case 'g': shift = 30; break;
      default: return std::nullopt;
    }
  }
  if (i != text.size() || value == 0 || value > (kMaxCacheBytes >> shift)) return std::nullopt;
  return value << shift;
}

/// Size of the cache of @p level described by /sys/.../cpu0/cache/index<index>, or 0.
uint64_t SysCacheBytes(int index, int level) {
  const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
  std::ifstream level_file(dir + "level");
  std::ifstream size_file(dir + "size");
  int lvl = 0;
  std::string text;
  if ((level_file >> lvl) && lvl == level && (size_file >> text)) return ParseByteCount(text).value_or(0);
  return 0;
}
}  // namespace

uint64_t CpuL2BytesPerCore() {
  const uint64_t bytes = SysCacheBytes(2, 2);
  if (bytes >= kMinL2Bytes) return bytes;
#ifdef _SC_LEVEL2_CACHE_SIZE
  const long sc = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (sc >= static_cast<long>(kMinL2Bytes)) return static_cast<uint64_t>(sc);
#endif
  return kDefaultL2Bytes;
}

uint64_t CpuLastLevelCacheBytes() {
  const uint64_t bytes = SysCacheBytes(3, 3);
  if (bytes >= kMinLlcBytes) return bytes;
#ifdef _SC_LEVEL3_CACHE_SIZE
  const long sc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (sc >= static_cast<long>(kMinLlcBytes)) return static_cast<uint64_t>(sc);
#endif
  return kDefaultLlcBytes;
}

std::optional<CpuCaches> ParseCpuCaches(std::string_view text, std::string* error) {
  const size_t comma = text.find(',');
  const auto l2 = ParseByteCount(text.substr(0, comma));
  const auto llc = comma == std::string_view::npos ? std::nullopt : ParseByteCount(text.substr(comma + 1));
  if (!l2 || !llc) {
    *error = "must be '<L2 per core>,<last-level cache>', each a byte count with an optional K, M or G suffix "
             "(for example 2M,260M)";
    return std::nullopt;
  }
  if (*l2 < kMinL2Bytes || *llc < kMinLlcBytes) {
    *error = "the L2 per core must be at least 64K and the last-level cache at least 1M";
    return std::nullopt;
  }
  return CpuCaches{*l2, *llc};
}

CpuCaches ProbeCpuCaches() {
  if (const char* env = std::getenv("ACLNN_CPU_CACHES")) {
    std::string error;
    if (const auto caches = ParseCpuCaches(env, &error)) return *caches;
    static std::once_flag warned;  // the probe runs once per process in the library; tests call it more
    std::call_once(warned, [&] {
      std::fprintf(stderr, "aclnn_bce: warning: ACLNN_CPU_CACHES='%s' is ignored: %s; using this machine's caches\n",
                   env, error.c_str());
    });
  }
  return CpuCaches{CpuL2BytesPerCore(), CpuLastLevelCacheBytes()};
}

PlatformInfo DescribeCpuPlatform(const CpuCaches& caches, uint64_t core_num) {
  PlatformInfo p;
  p.name = "cpu";
  p.core_num = core_num == 0 ? 1 : core_num;
  // Half of L2 for tile buffers: the other half keeps the streamed lines and the code.
  p.ub_size = caches.l2_bytes_per_core / 2;
  p.block_size = kCacheLineBytes;
  p.min_bytes_per_core = kCpuMinBytesPerCore;
  p.llc_bytes = caches.llc_bytes;
  p.inline_launch_max_bytes = kCpuInlineLaunchMaxBytes;
  return p;
}

namespace {
// Relaxed atomics: a test pins before it launches anything; the two fields need not change as one.
std::atomic<uint64_t> g_pinned_l2{0};
std::atomic<uint64_t> g_pinned_llc{0};
std::atomic<uint64_t> g_platform_epoch{0};
}  // namespace

void PinCpuCachesForTesting(const CpuCaches& caches) {
  g_pinned_l2.store(caches.l2_bytes_per_core, std::memory_order_relaxed);
  g_pinned_llc.store(caches.llc_bytes, std::memory_order_relaxed);
  g_platform_epoch.fetch_add(1, std::memory_order_relaxed);
}

uint64_t CpuPlatformEpoch() { return g_platform_epoch.load(std::memory_order_relaxed); }

// Note [Blocks per thread]
// With more than one thread, a launch is cut into kCpuBlocksPerThread blocks per thread (each
// still at least min_bytes_per_core of traffic), which the pool hands out one at a time. With one
// block per thread, a worker that shares its core with another process's or pool's thread (the
// OpenMP workers PyTorch leaves spinning for milliseconds) runs at half speed and the launch takes
// as long as on one thread: the caller cannot take over a block the worker has started. With
// four, the caller takes the blocks the slow worker does not reach. Results do not depend on the
// block count (Note [Deterministic reduction]).

PlatformInfo CpuPlatform(uint64_t threads) {
  const uint64_t blocks = threads > 1 ? threads * kCpuBlocksPerThread : 1;
  // See Note [Describing a CPU versus probing the host].
  const uint64_t pinned_l2 = g_pinned_l2.load(std::memory_order_relaxed);
  if (pinned_l2 != 0) {
    return DescribeCpuPlatform(CpuCaches{pinned_l2, g_pinned_llc.load(std::memory_order_relaxed)}, blocks);
  }
  static const CpuCaches host_caches = ProbeCpuCaches();
  return DescribeCpuPlatform(host_caches, blocks);
}

PlatformInfo AtlasA2Platform() {
  PlatformInfo p;
  p.name = "Atlas A2";
  p.core_num = kAtlasA2Cores;
  p.ub_size = kAtlasA2UbBytes;
  p.block_size = kAtlasA2BlockBytes;
  p.min_bytes_per_core = kAtlasA2MinBytesPerCore;
  return p;
}

}  // namespace aclnn_cpu
