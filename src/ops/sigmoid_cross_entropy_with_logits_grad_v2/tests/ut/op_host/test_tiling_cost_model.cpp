// Tiling decisions (docs/contract.md §6 and Note [Tiling cost model]): core count from a cost model, the mean
// scale, the tiling key, and rejection of malformed problems.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "tiling_test_util.h"

namespace bce_host_test {
namespace {

using aclnn_cpu::bce_grad::ComputeTiling;
using aclnn_cpu::FromAclnnReduction;
using aclnn_cpu::bce_grad::kKernelDTypeCount;
using aclnn_cpu::bce_grad::KernelDTypeSize;
using aclnn_cpu::bce_grad::kTilingKeyCount;
using aclnn_cpu::bce_grad::MakeTilingKey;
using aclnn_cpu::bce_grad::TilingKeyDType;
using aclnn_cpu::bce_grad::TilingKeyHasPosWeight;
using aclnn_cpu::bce_grad::TilingKeyHasWeight;

uint64_t BlockDim(const PlatformInfo& platform, const TilingProblem& problem) {
  const auto r = ComputeTiling(platform, problem);
  EXPECT_TRUE(r.has_value()) << problem.total_elems << " elements on " << platform.name;
  return r ? r->data.blockDim : 0;
}

// Sizes from 1 to 2^26 growing by about 0.3% (and every size up to 4096), enough to pass through
// every core count of every platform.
std::vector<uint64_t> GrowingSizes() {
  std::vector<uint64_t> sizes;
  for (uint64_t n = 1; n <= 4096; ++n) sizes.push_back(n);
  for (double n = 4096; n <= 0x1p26; n *= 1.003) sizes.push_back(static_cast<uint64_t>(n));
  return sizes;
}

TEST(TilingCostModel, TinyProblemsRunOnOneCore) {
  for (const PlatformInfo& platform : AllPlatforms()) {
    for (KernelDType dtype : kAllKernelDTypes) {
      for (uint64_t total : {1, 2, 7, 15, 16, 17}) {
        EXPECT_EQ(BlockDim(platform, DenseProblem(total, dtype, true, true)), 1u)
            << total << " " << KernelDTypeLabel(dtype) << " on " << PlatformLabel(platform);
      }
    }
  }
}

TEST(TilingCostModel, ProblemsMovingLessThanOneCoresMinimumTrafficRunOnOneCore) {
  for (const PlatformInfo& platform : AllPlatforms()) {
    for (KernelDType dtype : kAllKernelDTypes) {
      const TilingProblem one = DenseProblem(1, dtype, false, false);
      const uint64_t largest_one_core = platform.min_bytes_per_core / one.bytes_per_element;
      ASSERT_GE(largest_one_core, 1u);
      EXPECT_EQ(BlockDim(platform, DenseProblem(largest_one_core, dtype, false, false)), 1u)
          << KernelDTypeLabel(dtype) << " on " << PlatformLabel(platform);
    }
  }
}

TEST(TilingCostModel, LargeProblemsUseEveryCore) {
  for (const PlatformInfo& platform : AllPlatforms()) {
    for (KernelDType dtype : kAllKernelDTypes) {
      for (uint64_t total : {uint64_t{1000003}, (uint64_t{1} << 31) + 5, (uint64_t{1} << 40) + 1}) {
        EXPECT_EQ(BlockDim(platform, DenseProblem(total, dtype, false, false)), platform.core_num)
            << total << " " << KernelDTypeLabel(dtype) << " on " << PlatformLabel(platform);
      }
    }
  }
}

TEST(TilingCostModel, CoreCountNeverDecreasesAsTheProblemGrows) {
  const std::vector<uint64_t> sizes = GrowingSizes();
  for (const PlatformInfo& platform : AllPlatforms()) {
    for (KernelDType dtype : kAllKernelDTypes) {
      uint64_t previous = 1;
      uint64_t previous_total = 0;
      std::set<uint64_t> seen;
      for (uint64_t total : sizes) {
        const uint64_t cores = BlockDim(platform, DenseProblem(total, dtype, true, false));
        ASSERT_GE(cores, previous) << PlatformLabel(platform) << " " << KernelDTypeLabel(dtype) << ": "
                                   << previous_total << " elements get " << previous << " cores, " << total
                                   << " get " << cores;
        previous = cores;
        previous_total = total;
        seen.insert(cores);
      }
      // It ramps up through intermediate counts rather than jumping in bands.
      EXPECT_EQ(seen.size(), platform.core_num) << PlatformLabel(platform) << " " << KernelDTypeLabel(dtype);
    }
  }
}

TEST(TilingCostModel, AnotherCoreStartsOnlyWhenItsShareOfTheTrafficPaysForIt) {
  for (const PlatformInfo& platform : AllPlatforms()) {
    for (uint64_t total : GrowingSizes()) {
      const TilingProblem problem = DenseProblem(total, KernelDType::kFloat, true, true);
      const uint64_t cores = BlockDim(platform, problem);
      const uint64_t total_bytes = total * problem.bytes_per_element;
      EXPECT_LT((cores - 1) * platform.min_bytes_per_core, total_bytes)
          << total << " elements on " << PlatformLabel(platform) << " get " << cores << " cores";
    }
  }
}

TEST(TilingCostModel, CoreCountFollowsTrafficNotElementCountOrDType) {
  // The same bytes in fp32 and in twice as many fp16 (or half as many fp64) elements cost the
  // same: no dtype- or shape-specific bands.
  for (const PlatformInfo& platform : AllPlatforms()) {
    for (uint64_t total = 64; total <= (1u << 22); total = total * 5 / 4) {
      const uint64_t fp32 = BlockDim(platform, DenseProblem(total, KernelDType::kFloat, true, true));
      EXPECT_EQ(BlockDim(platform, DenseProblem(2 * total, KernelDType::kFloat16, true, true)), fp32)
          << total << " on " << PlatformLabel(platform);
      EXPECT_EQ(BlockDim(platform, DenseProblem(2 * total, KernelDType::kBFloat16, true, true)), fp32)
          << total << " on " << PlatformLabel(platform);
      EXPECT_EQ(BlockDim(platform, DenseProblem(total / 2, KernelDType::kDouble, true, true)), fp32)
          << total << " on " << PlatformLabel(platform);
    }
  }
}

TEST(TilingCostModel, BroadcastOperandsThatMoveFewerBytesNeedFewerCores) {
  // A problem reading fewer bytes per element (say a broadcast scalar dout) never gets more cores.
  for (const PlatformInfo& platform : TestCpuPlatforms(64)) {
    for (uint64_t total : GrowingSizes()) {
      TilingProblem dense = DenseProblem(total, KernelDType::kFloat, false, false);
      TilingProblem lighter = dense;
      lighter.bytes_per_element -= KernelDTypeSize(KernelDType::kFloat);
      EXPECT_LE(BlockDim(platform, lighter), BlockDim(platform, dense)) << total << " on " << PlatformLabel(platform);
    }
  }
}

TEST(TilingCostModel, GlobalScaleIsOneOverNForMean) {
  for (uint64_t total : kTilingSizes) {
    for (KernelDType dtype : kAllKernelDTypes) {
      const auto r =
          ComputeTiling(TestCpuPlatform(kEpycZen5, 16), DenseProblem(total, dtype, true, true, ReductionType::kMean));
      ASSERT_TRUE(r.has_value());
      EXPECT_EQ(r->data.globalScale, static_cast<float>(1.0 / static_cast<double>(total))) << total;
      EXPECT_EQ(r->data.globalScaleDouble, 1.0 / static_cast<double>(total)) << total;
    }
  }
}

TEST(TilingCostModel, GlobalScaleIsOneForSumAndNone) {
  for (uint64_t total : kTilingSizes) {
    for (ReductionType reduction : {ReductionType::kSum, ReductionType::kNone}) {
      const auto r = ComputeTiling(aclnn_cpu::AtlasA2Platform(), DenseProblem(total, KernelDType::kFloat, false, false, reduction));
      ASSERT_TRUE(r.has_value());
      EXPECT_EQ(r->data.globalScale, 1.0f) << total;
      EXPECT_EQ(r->data.globalScaleDouble, 1.0) << total;
    }
  }
}

TEST(TilingCostModel, AclnnReductionCodesReachTheTilingAsNoneMeanSum) {
  // ACLNN: 0 none, 1 mean, 2 sum; only mean scales by 1/N.
  const uint64_t total = 1000;
  const PlatformInfo platform = TestCpuPlatform(kEpycZen5, 2);
  const float expected_scale[] = {1.0f, 1.0f / 1000.0f, 1.0f};
  for (int64_t code = 0; code <= 2; ++code) {
    const auto reduction = FromAclnnReduction(code);
    ASSERT_TRUE(reduction.has_value()) << code;
    const auto r = ComputeTiling(platform, DenseProblem(total, KernelDType::kFloat, false, false, *reduction));
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->data.globalScale, expected_scale[code]) << "ACLNN reduction " << code;
  }
}

TEST(TilingKey, IsUniquePerDTypeAndOptionalInputs) {
  std::set<uint32_t> keys;
  for (KernelDType dtype : kAllKernelDTypes) {
    for (bool has_weight : {false, true}) {
      for (bool has_pos_weight : {false, true}) {
        const uint32_t key = MakeTilingKey(dtype, has_weight, has_pos_weight);
        EXPECT_LT(key, kTilingKeyCount);
        EXPECT_TRUE(keys.insert(key).second) << "key " << key << " used twice";
      }
    }
  }
  EXPECT_EQ(keys.size(), kTilingKeyCount);
  EXPECT_EQ(kTilingKeyCount, kKernelDTypeCount * 4);
}

TEST(TilingKey, DecodesBackToDTypeAndOptionalInputs) {
  for (KernelDType dtype : kAllKernelDTypes) {
    for (bool has_weight : {false, true}) {
      for (bool has_pos_weight : {false, true}) {
        const uint32_t key = MakeTilingKey(dtype, has_weight, has_pos_weight);
        EXPECT_EQ(TilingKeyDType(key), dtype) << key;
        EXPECT_EQ(TilingKeyHasWeight(key), has_weight) << key;
        EXPECT_EQ(TilingKeyHasPosWeight(key), has_pos_weight) << key;
      }
    }
  }
}

TEST(TilingKey, ComputeTilingReturnsTheKeyOfTheProblem) {
  for (KernelDType dtype : kAllKernelDTypes) {
    for (bool has_weight : {false, true}) {
      for (bool has_pos_weight : {false, true}) {
        const auto r =
            ComputeTiling(TestCpuPlatform(kEpycZen5, 3), DenseProblem(4096, dtype, has_weight, has_pos_weight));
        ASSERT_TRUE(r.has_value());
        EXPECT_EQ(r->tiling_key, MakeTilingKey(dtype, has_weight, has_pos_weight));
      }
    }
  }
}

TEST(KernelDTypeSize, IsTheStorageSizeOfEachKernelDType) {
  EXPECT_EQ(KernelDTypeSize(KernelDType::kFloat), 4u);
  EXPECT_EQ(KernelDTypeSize(KernelDType::kFloat16), 2u);
  EXPECT_EQ(KernelDTypeSize(KernelDType::kBFloat16), 2u);
  EXPECT_EQ(KernelDTypeSize(KernelDType::kDouble), 8u);
}

TEST(TilingStreaming, OutputIsStreamedOnlyWhenTheTrafficExceedsTheLastLevelCache) {
  for (const PlatformInfo& platform : TestCpuPlatforms(16)) {
    ASSERT_GT(platform.llc_bytes, 0u);
    for (KernelDType dtype : kAllKernelDTypes) {
      const uint64_t bytes_per_element = DenseProblem(1, dtype, true, true).bytes_per_element;
      const uint64_t fits = platform.llc_bytes / bytes_per_element;  // total bytes <= llc
      const auto small = ComputeTiling(platform, DenseProblem(fits, dtype, true, true));
      const auto large = ComputeTiling(platform, DenseProblem(fits + 1, dtype, true, true));
      ASSERT_TRUE(small.has_value() && large.has_value());
      EXPECT_EQ(small->data.nonTemporalOut, 0u) << KernelDTypeLabel(dtype) << " on " << PlatformLabel(platform);
      EXPECT_EQ(large->data.nonTemporalOut, 1u) << KernelDTypeLabel(dtype) << " on " << PlatformLabel(platform);
      EXPECT_EQ(ComputeTiling(platform, DenseProblem(1024, dtype, true, true))->data.nonTemporalOut, 0u);
    }
  }
}

TEST(TilingStreaming, PlatformWithoutALastLevelCacheNeverStreams) {
  const PlatformInfo platform = aclnn_cpu::AtlasA2Platform();
  for (uint64_t total : kTilingSizes) {
    const auto r = ComputeTiling(platform, DenseProblem(total, KernelDType::kFloat, true, true));
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->data.nonTemporalOut, 0u) << total;
  }
}

TEST(TilingMalformed, ZeroElementsGiveNoTiling) {
  for (const PlatformInfo& platform : AllPlatforms()) {
    EXPECT_FALSE(ComputeTiling(platform, DenseProblem(0, KernelDType::kFloat, true, true)).has_value())
        << PlatformLabel(platform);
  }
}

TEST(TilingMalformed, ZeroUbBytesPerElementGivesNoTiling) {
  TilingProblem problem = DenseProblem(1024, KernelDType::kFloat, false, false);
  problem.ub_bytes_per_element = 0;
  for (const PlatformInfo& platform : AllPlatforms()) {
    EXPECT_FALSE(ComputeTiling(platform, problem).has_value()) << PlatformLabel(platform);
  }
}

TEST(TilingMalformed, PlatformWithoutCoresGivesNoTiling) {
  PlatformInfo platform = aclnn_cpu::AtlasA2Platform();
  platform.core_num = 0;
  EXPECT_FALSE(ComputeTiling(platform, DenseProblem(1024, KernelDType::kFloat, false, false)).has_value());
}

TEST(TilingMalformed, PlatformWithZeroBlockSizeGivesNoTiling) {
  PlatformInfo platform = aclnn_cpu::AtlasA2Platform();
  platform.block_size = 0;
  EXPECT_FALSE(ComputeTiling(platform, DenseProblem(1024, KernelDType::kFloat, false, false)).has_value());
}

TEST(TilingMalformed, PlatformWithZeroUbBytesGivesNoTiling) {
  PlatformInfo platform = aclnn_cpu::AtlasA2Platform();
  platform.ub_size = 0;
  EXPECT_FALSE(ComputeTiling(platform, DenseProblem(1024, KernelDType::kFloat, false, false)).has_value());
}

TEST(TilingMalformed, PlatformWhoseUbCannotHoldOneUnitGivesNoTiling) {
  PlatformInfo platform = aclnn_cpu::AtlasA2Platform();
  const auto problem = DenseProblem(1024, KernelDType::kFloat, false, false);
  const uint64_t unit_elems = platform.block_size / 4;
  platform.ub_size = problem.ub_bytes_per_element * unit_elems - 1;
  EXPECT_FALSE(ComputeTiling(platform, problem).has_value());
  platform.ub_size += 1;
  EXPECT_TRUE(ComputeTiling(platform, problem).has_value());
}

}  // namespace
}  // namespace bce_host_test
