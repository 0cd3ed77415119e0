// Helpers of the op_host tests: the platforms and problems the tiling is exercised on, and a
// walker that checks a TilingData covers every element exactly once, in order.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "platform/platform_info.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_host/sigmoid_cross_entropy_with_logits_grad_v2_tiling.h"
#include "test_cpus.h"

namespace bce_host_test {

using aclnn_cpu::PlatformInfo;
using aclnn_cpu::bce_grad::KernelDType;
using aclnn_cpu::ReductionType;
using aclnn_cpu::bce_grad::SigmoidCrossEntropyWithLogitsGradV2TilingData;
using aclnn_cpu::bce_grad::TilingProblem;
using aclnn_cpu::bce_grad::TilingResult;

inline constexpr KernelDType kAllKernelDTypes[] = {KernelDType::kFloat, KernelDType::kFloat16,
                                                    KernelDType::kBFloat16, KernelDType::kDouble};

// The kinds of CPU the tiling is tested on (tests/support/test_cpus.h).
using acl_test::kEpycZen5;
using acl_test::kMiB;
using acl_test::kTestCpus;
using acl_test::kXeon;
using acl_test::TestCpu;

/// @p cpu with @p cores threads; its name is the CPU's label.
PlatformInfo TestCpuPlatform(const TestCpu& cpu, uint64_t cores);

/// Every kind of test CPU with @p cores threads.
std::vector<PlatformInfo> TestCpuPlatforms(uint64_t cores);

/// The platforms every tiling property is checked on: each kind of test CPU at several widths
/// (odd ones included, so that units do not divide evenly) and the NPU of the original.
std::vector<PlatformInfo> AllPlatforms();

/// "EpycZen5Cpu16", "XeonCpu3", "AtlasA2": usable in test names.
std::string PlatformLabel(const PlatformInfo& platform);

/// Element counts around alignment units and vector widths, up to sizes that only the
/// arithmetic (not an element walk) can check.
inline constexpr uint64_t kTilingSizes[] = {1,     2,     7,           15,           16,
                                            17,    31,    32,          33,           63,
                                            64,    65,    1023,        1024,         1025,
                                            4096,  65537, 1000003,     (1ull << 31) + 5,
                                            (1ull << 40) + 1};

/// The problem the op_api builds for dense operands of @p dtype: 4 + weight + pos_weight
/// operands read or written once per element, and one tile buffer per operand.
TilingProblem DenseProblem(uint64_t total_elems, KernelDType dtype, bool has_weight, bool has_pos_weight,
                           ReductionType reduction = ReductionType::kNone);

/// Elements of one alignment unit (block_size bytes) of @p dtype on @p platform.
uint64_t UnitElems(const PlatformInfo& platform, KernelDType dtype);

/// Checks that walking blocks 0..blockDim-1 and their tiles (BlockBegin / BlockTileNum /
/// BlockTile) visits [0, totalDataNum) exactly once, in increasing order, without gaps or
/// overlaps; only tiles wholly past the data may be empty. Blocks with more than
/// @p max_walked_tiles tiles are checked by the arithmetic of their first and last tiles.
::testing::AssertionResult TilesCoverDataOnceInOrder(const SigmoidCrossEntropyWithLogitsGradV2TilingData& t,
                                                     uint64_t max_walked_tiles = 1u << 16);

/// Element by element: counts the visits of every element (for small problems only).
::testing::AssertionResult EveryElementVisitedOnce(const SigmoidCrossEntropyWithLogitsGradV2TilingData& t);

}  // namespace bce_host_test
