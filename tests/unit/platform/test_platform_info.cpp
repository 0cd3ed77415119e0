// The tiling's platform descriptions (docs/contract.md §6): a CPU described from its caches, the probe of this
// machine's caches, and Atlas A2. See Note [Describing a CPU versus probing the host]: only the
// probe tests read the host, and they check plausibility, not the values of one machine.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "platform/platform_info.h"
#include "test_cpus.h"

namespace acl_test {
namespace {

using aclnn_cpu::AtlasA2Platform;
using aclnn_cpu::CpuCaches;
using aclnn_cpu::CpuPlatform;
using aclnn_cpu::DescribeCpuPlatform;
using aclnn_cpu::PlatformInfo;
using aclnn_cpu::ProbeCpuCaches;

constexpr uint64_t kKiB = 1024;

TEST(DescribeCpuPlatform, UbBudgetIsHalfTheL2PerCore) {
  EXPECT_EQ(DescribeCpuPlatform(kEpycZen5.caches, 4).ub_size, 512 * kKiB);
  EXPECT_EQ(DescribeCpuPlatform(kXeon.caches, 4).ub_size, 1 * kMiB);
}

TEST(DescribeCpuPlatform, LastLevelCacheIsTheL3) {
  EXPECT_EQ(DescribeCpuPlatform(kEpycZen5.caches, 8).llc_bytes, 32 * kMiB);
  EXPECT_EQ(DescribeCpuPlatform(kXeon.caches, 8).llc_bytes, 260 * kMiB);
}

TEST(DescribeCpuPlatform, UsesTheRequestedCoreCount) {
  for (const TestCpu& cpu : kTestCpus) {
    for (uint64_t cores : {1, 2, 3, 16, 64}) EXPECT_EQ(DescribeCpuPlatform(cpu.caches, cores).core_num, cores);
  }
}

TEST(DescribeCpuPlatform, ZeroCoresMeansOne) { EXPECT_EQ(DescribeCpuPlatform(kEpycZen5.caches, 0).core_num, 1u); }

TEST(DescribeCpuPlatform, BlocksAreCacheLines) {
  for (const TestCpu& cpu : kTestCpus) EXPECT_EQ(DescribeCpuPlatform(cpu.caches, 4).block_size, 64u) << cpu.label;
}

TEST(DescribeCpuPlatform, StartingACoreHasACost) {
  for (const TestCpu& cpu : kTestCpus) {
    EXPECT_GT(DescribeCpuPlatform(cpu.caches, 4).min_bytes_per_core, 0u) << cpu.label;
  }
}

TEST(DescribeCpuPlatform, ShortLaunchesMayRunInline) {
  for (const TestCpu& cpu : kTestCpus) {
    EXPECT_GT(DescribeCpuPlatform(cpu.caches, 4).inline_launch_max_bytes, 0u) << cpu.label;
  }
}

TEST(DescribeCpuPlatform, DescriptionDoesNotDependOnCoreCountOtherwise) {
  for (const TestCpu& cpu : kTestCpus) {
    const PlatformInfo one = DescribeCpuPlatform(cpu.caches, 1);
    const PlatformInfo many = DescribeCpuPlatform(cpu.caches, 64);
    EXPECT_EQ(one.name, many.name) << cpu.label;
    EXPECT_EQ(one.ub_size, many.ub_size) << cpu.label;
    EXPECT_EQ(one.block_size, many.block_size) << cpu.label;
    EXPECT_EQ(one.min_bytes_per_core, many.min_bytes_per_core) << cpu.label;
    EXPECT_EQ(one.llc_bytes, many.llc_bytes) << cpu.label;
    EXPECT_EQ(one.inline_launch_max_bytes, many.inline_launch_max_bytes) << cpu.label;
  }
}

TEST(ProbeCpuCaches, ReadsAPlausibleL2CacheSize) {
  const uint64_t l2 = ProbeCpuCaches().l2_bytes_per_core;
  EXPECT_GE(l2, 64 * kKiB);
  EXPECT_LE(l2, 256 * kMiB);  // no CPU has an L2 that large per core
}

TEST(ProbeCpuCaches, ReadsAPlausibleLastLevelCacheSize) {
  const uint64_t llc = ProbeCpuCaches().llc_bytes;
  EXPECT_GE(llc, 1 * kMiB);
  EXPECT_LE(llc, 4096 * kMiB);
}

TEST(CpuPlatform, DescribesTheProbedCaches) {
  const CpuCaches host = ProbeCpuCaches();
  for (uint64_t cores : {0, 1, 3, 64}) {
    // Several threads: kCpuBlocksPerThread blocks each (Note [Blocks per thread]).
    const uint64_t blocks = cores > 1 ? cores * aclnn_cpu::kCpuBlocksPerThread : 1;
    const PlatformInfo probed = CpuPlatform(cores);
    const PlatformInfo described = DescribeCpuPlatform(host, blocks);
    EXPECT_EQ(probed.name, described.name) << cores;
    EXPECT_EQ(probed.core_num, blocks) << cores;
    EXPECT_EQ(probed.ub_size, described.ub_size) << cores;
    EXPECT_EQ(probed.block_size, described.block_size) << cores;
    EXPECT_EQ(probed.min_bytes_per_core, described.min_bytes_per_core) << cores;
    EXPECT_EQ(probed.llc_bytes, described.llc_bytes) << cores;
    EXPECT_EQ(probed.inline_launch_max_bytes, described.inline_launch_max_bytes) << cores;
  }
}

TEST(ParseCpuCaches, ReadsByteCountsWithSuffixes) {
  std::string error;
  const auto xeon = aclnn_cpu::ParseCpuCaches("2M,260M", &error);
  ASSERT_TRUE(xeon.has_value()) << error;
  EXPECT_EQ(xeon->l2_bytes_per_core, 2 * kMiB);
  EXPECT_EQ(xeon->llc_bytes, 260 * kMiB);
  const auto plain = aclnn_cpu::ParseCpuCaches("1048576,1g", &error);
  ASSERT_TRUE(plain.has_value()) << error;
  EXPECT_EQ(plain->l2_bytes_per_core, 1 * kMiB);
  EXPECT_EQ(plain->llc_bytes, 1024 * kMiB);
  const auto kib = aclnn_cpu::ParseCpuCaches("512K,32M", &error);
  ASSERT_TRUE(kib.has_value()) << error;
  EXPECT_EQ(kib->l2_bytes_per_core, 512 * kKiB);
}

TEST(ParseCpuCaches, RefusesWhatIsNotTwoSizes) {
  for (const char* text : {"", "abc", "2M", "2M,", ",260M", "2M;260M", "2MB,260M", "2M,260M,1M", "-2M,260M",
                           "2X,260M", "0,260M", "2M,0", "99999999999999999999,1M", "2048G,1M"}) {
    std::string error;
    EXPECT_FALSE(aclnn_cpu::ParseCpuCaches(text, &error).has_value()) << text;
    EXPECT_NE(error.find("L2"), std::string::npos) << text << ": " << error;
  }
}

TEST(ParseCpuCaches, RefusesImplausiblySmallCaches) {
  std::string error;
  EXPECT_FALSE(aclnn_cpu::ParseCpuCaches("32K,32M", &error).has_value());
  EXPECT_FALSE(aclnn_cpu::ParseCpuCaches("1M,512K", &error).has_value());
  EXPECT_NE(error.find("at least"), std::string::npos) << error;
}

// Runs in a child process: ACLNN_CPU_CACHES is read where the probe runs, and setting it here
// must not change what the other tests of this process see.
TEST(ProbeCpuCaches, ReportsTheCachesOfTheEnvironment) {
  EXPECT_EXIT(
      {
        setenv("ACLNN_CPU_CACHES", "3M,77M", 1);
        const CpuCaches caches = ProbeCpuCaches();
        std::exit(caches.l2_bytes_per_core == 3 * kMiB && caches.llc_bytes == 77 * kMiB ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(ProbeCpuCaches, WarnsOnceAboutABadEnvironmentValueAndProbes) {
  EXPECT_EXIT(
      {
        setenv("ACLNN_CPU_CACHES", "lots", 1);
        const CpuCaches first = ProbeCpuCaches();
        const CpuCaches second = ProbeCpuCaches();
        const bool hardware = first.l2_bytes_per_core == aclnn_cpu::CpuL2BytesPerCore() &&
                              first.llc_bytes == aclnn_cpu::CpuLastLevelCacheBytes() &&
                              second.llc_bytes == first.llc_bytes;
        std::exit(hardware ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "ACLNN_CPU_CACHES='lots' is ignored: must be");
}

TEST(AtlasA2Platform, Has48VectorCores192KiBUbAnd32ByteBlocks) {
  const PlatformInfo p = AtlasA2Platform();
  EXPECT_EQ(p.core_num, 48u);
  EXPECT_EQ(p.ub_size, 196608u);
  EXPECT_EQ(p.block_size, 32u);
  EXPECT_GT(p.min_bytes_per_core, 0u);
  EXPECT_FALSE(p.name.empty());
}

}  // namespace
}  // namespace acl_test
