#include "tiling_test_util.h"

#include <algorithm>

namespace bce_host_test {

using aclnn_cpu::bce_grad::BlockBegin;
using aclnn_cpu::bce_grad::BlockTile;
using aclnn_cpu::bce_grad::BlockTileNum;
using aclnn_cpu::bce_grad::KernelDTypeSize;
using aclnn_cpu::bce_grad::TileRange;

PlatformInfo TestCpuPlatform(const TestCpu& cpu, uint64_t cores) {
  PlatformInfo platform = aclnn_cpu::DescribeCpuPlatform(cpu.caches, cores);
  platform.name = cpu.label;
  return platform;
}

std::vector<PlatformInfo> TestCpuPlatforms(uint64_t cores) {
  std::vector<PlatformInfo> platforms;
  for (const TestCpu& cpu : kTestCpus) platforms.push_back(TestCpuPlatform(cpu, cores));
  return platforms;
}

std::vector<PlatformInfo> AllPlatforms() {
  std::vector<PlatformInfo> platforms;
  for (const TestCpu& cpu : kTestCpus) {
    for (uint64_t cores : {1, 2, 3, 16, 64}) platforms.push_back(TestCpuPlatform(cpu, cores));
  }
  platforms.push_back(aclnn_cpu::AtlasA2Platform());
  return platforms;
}

std::string PlatformLabel(const PlatformInfo& platform) {
  for (const TestCpu& cpu : kTestCpus) {
    if (platform.name == cpu.label) return platform.name + "Cpu" + std::to_string(platform.core_num);
  }
  std::string label;
  for (char c : platform.name) {
    if (c != ' ') label += c;
  }
  return label;
}

TilingProblem DenseProblem(uint64_t total_elems, KernelDType dtype, bool has_weight, bool has_pos_weight,
                           ReductionType reduction) {
  return aclnn_cpu::bce_grad::DenseTilingProblem(total_elems, dtype, has_weight, has_pos_weight, reduction);
}

uint64_t UnitElems(const PlatformInfo& platform, KernelDType dtype) {
  return std::max<uint64_t>(platform.block_size / KernelDTypeSize(dtype), 1);
}

namespace {
uint64_t BlockDataNum(const SigmoidCrossEntropyWithLogitsGradV2TilingData& t, uint64_t block) {
  return block < t.tailBlockNum ? t.bigCoreDataNum : t.smallCoreDataNum;
}
uint64_t BlockTailNum(const SigmoidCrossEntropyWithLogitsGradV2TilingData& t, uint64_t block) {
  return block < t.tailBlockNum ? t.bigTailDataNum : t.smallTailDataNum;
}
}  // namespace

::testing::AssertionResult TilesCoverDataOnceInOrder(const SigmoidCrossEntropyWithLogitsGradV2TilingData& t,
                                                     uint64_t max_walked_tiles) {
  if (t.blockDim == 0) return ::testing::AssertionFailure() << "blockDim is 0";
  if (t.tileDataNum == 0) return ::testing::AssertionFailure() << "tileDataNum is 0";
  uint64_t next = 0;  // first element not yet covered
  // A tile range must continue exactly where the previous one ended; an empty one may only
  // lie past the data.
  auto take = [&](const TileRange& r, uint64_t block, uint64_t tile) -> ::testing::AssertionResult {
    if (r.begin == r.end) {
      if (r.begin != t.totalDataNum) {
        return ::testing::AssertionFailure() << "block " << block << " tile " << tile << " is empty at " << r.begin
                                             << " inside the data (" << t.totalDataNum << " elements)";
      }
      return ::testing::AssertionSuccess();
    }
    if (r.begin != next) {
      return ::testing::AssertionFailure() << "block " << block << " tile " << tile << " starts at " << r.begin
                                           << " but the previous tile ended at " << next
                                           << (r.begin < next ? " (overlap)" : " (gap)");
    }
    if (r.end > t.totalDataNum) {
      return ::testing::AssertionFailure() << "block " << block << " tile " << tile << " ends at " << r.end
                                           << " past the data (" << t.totalDataNum << ")";
    }
    next = r.end;
    return ::testing::AssertionSuccess();
  };
  for (uint64_t b = 0; b < t.blockDim; ++b) {
    const uint64_t begin = BlockBegin(t, b);
    if (next < t.totalDataNum && begin != next) {
      return ::testing::AssertionFailure() << "block " << b << " begins at " << begin << ", expected " << next;
    }
    const uint64_t tiles = BlockTileNum(t, b);
    if (tiles == 0) return ::testing::AssertionFailure() << "block " << b << " has no tiles";
    const uint64_t tail = BlockTailNum(t, b);
    if (tail == 0 || tail > t.tileDataNum) {
      return ::testing::AssertionFailure() << "block " << b << " last tile holds " << tail
                                           << " elements, tileDataNum is " << t.tileDataNum;
    }
    if ((tiles - 1) * t.tileDataNum + tail != BlockDataNum(t, b)) {
      return ::testing::AssertionFailure() << "block " << b << ": " << tiles << " tiles of " << t.tileDataNum
                                           << " with a last of " << tail << " do not add up to "
                                           << BlockDataNum(t, b);
    }
    if (tiles <= max_walked_tiles) {
      for (uint64_t i = 0; i < tiles; ++i) {
        if (auto ok = take(BlockTile(t, b, i), b, i); !ok) return ok;
      }
    } else {
      // Too many tiles to walk: check the first two and the last two, and that the tiles are
      // laid end to end by construction (begin = block begin + i * tileDataNum).
      for (uint64_t i : {uint64_t{0}, uint64_t{1}}) {
        if (auto ok = take(BlockTile(t, b, i), b, i); !ok) return ok;
      }
      const TileRange before_last = BlockTile(t, b, tiles - 2);
      if (before_last.begin != begin + (tiles - 2) * t.tileDataNum) {
        return ::testing::AssertionFailure() << "block " << b << " tile " << tiles - 2 << " begins at "
                                             << before_last.begin;
      }
      next = before_last.begin;
      for (uint64_t i : {tiles - 2, tiles - 1}) {
        if (auto ok = take(BlockTile(t, b, i), b, i); !ok) return ok;
      }
    }
  }
  if (next != t.totalDataNum) {
    return ::testing::AssertionFailure() << "tiles end at " << next << " of " << t.totalDataNum << " elements";
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult EveryElementVisitedOnce(const SigmoidCrossEntropyWithLogitsGradV2TilingData& t) {
  std::vector<uint8_t> visits(t.totalDataNum, 0);
  for (uint64_t b = 0; b < t.blockDim; ++b) {
    for (uint64_t i = 0; i < BlockTileNum(t, b); ++i) {
      const TileRange r = BlockTile(t, b, i);
      for (uint64_t e = r.begin; e < r.end; ++e) {
        if (e >= t.totalDataNum) return ::testing::AssertionFailure() << "element " << e << " is past the data";
        if (visits[e]++ != 0) return ::testing::AssertionFailure() << "element " << e << " visited twice";
      }
    }
  }
  for (uint64_t e = 0; e < t.totalDataNum; ++e) {
    if (visits[e] != 1) return ::testing::AssertionFailure() << "element " << e << " never visited";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace bce_host_test
