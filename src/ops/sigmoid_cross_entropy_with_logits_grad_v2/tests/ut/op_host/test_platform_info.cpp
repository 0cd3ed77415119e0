// The tiling's platform descriptions (SPEC §6): the CPU read from this machine, and Atlas A2.
#include <gtest/gtest.h>

#include "op_host/platform_info.h"

namespace {

using aclnn_cpu::AtlasA2Platform;
using aclnn_cpu::CpuL2BytesPerCore;
using aclnn_cpu::CpuPlatform;
using aclnn_cpu::PlatformInfo;

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;

TEST(CpuPlatform, ReadsAPlausibleL2CacheSize) {
  const uint64_t l2 = CpuL2BytesPerCore();
  EXPECT_GE(l2, 64 * kKiB);
  EXPECT_LE(l2, 256 * kMiB);  // no CPU has an L2 that large per core
}

TEST(CpuPlatform, ReadsAPlausibleLastLevelCacheSize) {
  const uint64_t llc = aclnn_cpu::CpuLastLevelCacheBytes();
  EXPECT_GE(llc, 1 * kMiB);
  EXPECT_LE(llc, 4096 * kMiB);
  EXPECT_EQ(CpuPlatform(8).llc_bytes, llc);
}

TEST(CpuPlatform, UsesTheRequestedCoreCount) {
  for (uint64_t cores : {1, 2, 3, 16, 64}) EXPECT_EQ(CpuPlatform(cores).core_num, cores);
}

TEST(CpuPlatform, ZeroCoresMeansOne) { EXPECT_EQ(CpuPlatform(0).core_num, 1u); }

TEST(CpuPlatform, UbBudgetIsPartOfL2) {
  const PlatformInfo p = CpuPlatform(4);
  EXPECT_GT(p.ub_size, 0u);
  EXPECT_LE(p.ub_size, CpuL2BytesPerCore());
  EXPECT_GE(p.ub_size, 32 * kKiB);
}

TEST(CpuPlatform, BlocksAreCacheLines) { EXPECT_EQ(CpuPlatform(4).block_size, 64u); }

TEST(CpuPlatform, StartingACoreHasACost) { EXPECT_GT(CpuPlatform(4).min_bytes_per_core, 0u); }

TEST(CpuPlatform, DescriptionDoesNotDependOnCoreCountOtherwise) {
  const PlatformInfo one = CpuPlatform(1);
  const PlatformInfo many = CpuPlatform(64);
  EXPECT_EQ(one.ub_size, many.ub_size);
  EXPECT_EQ(one.block_size, many.block_size);
  EXPECT_EQ(one.min_bytes_per_core, many.min_bytes_per_core);
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
