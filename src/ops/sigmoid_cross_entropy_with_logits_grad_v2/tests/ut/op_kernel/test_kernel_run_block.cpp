// The kernel on hand-built tiling data (docs/contract.md §6, §7): RunBlock for every block of a launch filled
// in by hand, as the NPU original's kernel tests do, against the float64 reference, with every
// operand access (direct, constant, staged) and on every SIMD target of this machine.
#include <gtest/gtest.h>

#include <cmath>

#include "kernel_test_util.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_host/sigmoid_cross_entropy_with_logits_grad_v2_tiling.h"

namespace bce_kernel_test {
namespace {

using aclnn_cpu::bce_grad::ComputeTiling;
using aclnn_cpu::bce_grad::kDout;
using aclnn_cpu::bce_grad::KernelDTypeSize;
using aclnn_cpu::bce_grad::kGradient;
using aclnn_cpu::bce_grad::kPosWeight;
using aclnn_cpu::bce_grad::kPredict;
using aclnn_cpu::bce_grad::kTarget;
using aclnn_cpu::bce_grad::kTilingKeyCount;
using aclnn_cpu::bce_grad::kWeight;
using aclnn_cpu::bce_grad::TilingKeyDType;
using aclnn_cpu::bce_grad::TilingKeyHasPosWeight;
using aclnn_cpu::bce_grad::TilingKeyHasWeight;
using aclnn_cpu::bce_grad::TilingProblem;
using TilingData = SigmoidCrossEntropyWithLogitsGradV2TilingData;

class KernelRunBlock : public OnEverySimdTarget {};

/// The NPU test's test_case_fp32_smoke: 128 fp32 elements, one core, one tile, scale 1.
TilingData Fp32SmokeTiling() {
  TilingData t;
  t.totalDataNum = 128;
  t.blockDim = 1;
  t.smallCoreDataNum = 128;
  t.bigCoreDataNum = 144;
  t.finalBigTileNum = 1;
  t.finalSmallTileNum = 1;
  t.tileDataNum = 128;
  t.smallTailDataNum = 128;
  t.bigTailDataNum = 144;
  t.tailBlockNum = 0;
  t.globalScale = 1.0f;
  t.globalScaleDouble = 1.0;
  t.has_weight = 1;
  t.has_pos_weight = 1;
  return t;
}

/// Three blocks in alignment units of @p unit elements: one big block of 4 units and two small
/// ones of 3, tiles of 2 units (so each block ends with a short tile), and data 3 elements short
/// of the 10 units, so the last tile is clipped.
TilingData BigSmallTailTiling(uint64_t unit) {
  TilingData t;
  t.totalDataNum = 10 * unit - 3;
  t.blockDim = 3;
  t.tailBlockNum = 1;
  t.bigCoreDataNum = 4 * unit;
  t.smallCoreDataNum = 3 * unit;
  t.tileDataNum = 2 * unit;
  t.finalBigTileNum = 2;
  t.bigTailDataNum = 2 * unit;
  t.finalSmallTileNum = 2;
  t.smallTailDataNum = unit;
  return t;
}

/// 64 bytes of elements: a cache line, the CPU platform's alignment unit.
uint64_t CacheLineUnit(KernelDType dtype) { return 64 / KernelDTypeSize(dtype); }

void DirectAll(HandLaunch& launch, bool weight, bool pos_weight) {
  for (OperandIndex o : {kPredict, kTarget, kDout, kGradient}) launch.Direct(o);
  if (weight) launch.Direct(kWeight);
  if (pos_weight) launch.Direct(kPosWeight);
}

TEST_P(KernelRunBlock, Fp32SmokeOneCoreOneTileMatchesReference) {
  HandLaunch launch(Fp32SmokeTiling(), KernelDType::kFloat, {128});
  DirectAll(launch, true, true);
  launch.FillInputs(1);
  launch.Run();
  EXPECT_TRUE(launch.OutputMatchesReference());
  EXPECT_TRUE(launch.WroteExactlyTheOutputView());
}

TEST_P(KernelRunBlock, SeedExampleWithMeanOver32x32Gives9_43241e_05) {
  // docs/contract.md §1: x = 1, y = 0.5, dout = 1, weight = 1, pos_weight = 2, mean over 1024 elements.
  TilingData t = Fp32SmokeTiling();
  t.totalDataNum = t.smallCoreDataNum = t.tileDataNum = t.smallTailDataNum = 1024;
  t.globalScale = 1.0f / 1024;
  t.globalScaleDouble = 1.0 / 1024;
  HandLaunch launch(t, KernelDType::kFloat, {32, 32});
  DirectAll(launch, true, true);
  const double values[] = {1.0, 0.5, 1.0, 1.0, 2.0};
  for (int64_t i = 0; i < 1024; ++i) {
    for (OperandIndex o : {kPredict, kTarget, kDout, kWeight, kPosWeight}) launch.SetInput(o, i, values[o]);
  }
  launch.SnapshotInputs();
  launch.Run();
  for (int64_t i = 0; i < 1024; ++i) {
    // The subtraction 1.5 p - 1 cancels about 11x: a few fp32 ulps of 9.4e-05 (each 7.3e-12).
    ASSERT_NEAR(launch.Output(i), 9.4324090e-05, 8 * 7.3e-12) << i;
  }
  EXPECT_TRUE(launch.OutputMatchesReference());
}

TEST_P(KernelRunBlock, OneBlockOfManyTilesWithAShortLastTile) {
  TilingData t;
  t.totalDataNum = 1000;
  t.blockDim = 1;
  t.smallCoreDataNum = 1008;  // 63 units of 16
  t.bigCoreDataNum = 1024;
  t.tileDataNum = 96;
  t.finalSmallTileNum = 11;  // 10 x 96 + 48, clipped to 40 by the data
  t.smallTailDataNum = 48;
  t.finalBigTileNum = 11;
  t.bigTailDataNum = 64;
  HandLaunch launch(t, KernelDType::kFloat, {1000});
  DirectAll(launch, false, false);
  launch.FillInputs(2);
  launch.Run();
  EXPECT_TRUE(launch.OutputMatchesReference());
  EXPECT_TRUE(launch.WroteExactlyTheOutputView());
}

TEST_P(KernelRunBlock, BigAndSmallBlocksWithShortLastTilesAndAClippedEnd) {
  HandLaunch launch(BigSmallTailTiling(16), KernelDType::kFloat, {157});
  DirectAll(launch, false, true);
  launch.FillInputs(3);
  launch.Run();
  EXPECT_TRUE(launch.OutputMatchesReference());
  EXPECT_TRUE(launch.WroteExactlyTheOutputView());
}

TEST_P(KernelRunBlock, MeanScaleComesFromTheTilingData) {
  TilingData t = BigSmallTailTiling(16);
  t.globalScale = static_cast<float>(1.0 / 157);
  t.globalScaleDouble = 1.0 / 157;
  HandLaunch launch(t, KernelDType::kFloat, {157});
  DirectAll(launch, true, false);
  launch.FillInputs(4);
  launch.Run();
  EXPECT_TRUE(launch.OutputMatchesReference());
  // The scale is applied: |g| <= |dout * weight| / N with |dout| <= 2 and weight <= 2.
  for (int64_t i = 0; i < launch.numel(); ++i) ASSERT_LE(std::fabs(launch.Output(i)), 4.0 / 157 * 1.0001) << i;
}

TEST_P(KernelRunBlock, EveryDTypeAndOptionalInputCombinationOnBigAndSmallBlocks) {
  for (uint32_t key = 0; key < kTilingKeyCount; ++key) {
    const KernelDType dtype = TilingKeyDType(key);
    TilingData t = BigSmallTailTiling(CacheLineUnit(dtype));
    t.globalScale = 0.5f;
    t.globalScaleDouble = 0.5;
    HandLaunch launch(t, dtype, {static_cast<int64_t>(t.totalDataNum)});
    DirectAll(launch, TilingKeyHasWeight(key), TilingKeyHasPosWeight(key));
    launch.FillInputs(100 + key);
    launch.Run();
    EXPECT_TRUE(launch.OutputMatchesReference()) << TilingKeyLabel(key);
    EXPECT_TRUE(launch.WroteExactlyTheOutputView()) << TilingKeyLabel(key);
  }
}

TEST_P(KernelRunBlock, ConstantOperandsBroadcastOneValueConvertedOnce) {
  for (KernelDType dtype : kAllKernelDTypes) {
    HandLaunch launch(BigSmallTailTiling(CacheLineUnit(dtype)), dtype, {static_cast<int64_t>(10 * CacheLineUnit(dtype) - 3)});
    launch.Direct(kPredict);
    launch.Direct(kTarget);
    launch.Direct(kGradient);
    launch.Constant(kDout, ACL_FLOAT, 0.75);        // a 0-dim gradOutput
    launch.Constant(kWeight, ACL_DOUBLE, 1.25);     // another dtype, converted to the kernel's
    launch.Constant(kPosWeight, ACL_FLOAT16, 2.5);
    launch.FillInputs(5);
    launch.Run();
    EXPECT_TRUE(launch.OutputMatchesReference()) << KernelDTypeLabel(dtype);
    EXPECT_TRUE(launch.WroteExactlyTheOutputView()) << KernelDTypeLabel(dtype);
  }
}

TEST_P(KernelRunBlock, StagedStridedInputsAndOutputTouchOnlyTheView) {
  for (KernelDType dtype : kAllKernelDTypes) {
    const aclDataType acl = AclDTypeOf(dtype);
    const auto n = static_cast<int64_t>(10 * CacheLineUnit(dtype) - 3);
    HandLaunch launch(BigSmallTailTiling(CacheLineUnit(dtype)), dtype, {n});
    launch.Staged(kPredict, acl, {3}, 1);
    launch.Staged(kTarget, acl, {2});
    launch.Direct(kDout);
    launch.Staged(kWeight, acl, {5}, 4);
    launch.Staged(kGradient, acl, {2}, 1);  // every other element: the rest must stay poisoned
    launch.FillInputs(6);
    launch.Run();
    EXPECT_TRUE(launch.OutputMatchesReference()) << KernelDTypeLabel(dtype);
    EXPECT_TRUE(launch.WroteExactlyTheOutputView()) << KernelDTypeLabel(dtype);
  }
}

/// 20 x 24 elements in three blocks of 10 units of 16 and tiles of 64, which cut rows.
TilingData Rows20x24Tiling() {
  TilingData t;
  t.totalDataNum = 480;
  t.blockDim = 3;
  t.tailBlockNum = 0;
  t.smallCoreDataNum = 160;
  t.bigCoreDataNum = 176;
  t.tileDataNum = 64;
  t.finalSmallTileNum = 3;
  t.smallTailDataNum = 32;
  t.finalBigTileNum = 3;
  t.bigTailDataNum = 48;
  return t;
}

TEST_P(KernelRunBlock, StagedRowAndColumnBroadcastsAndTransposedViews) {
  HandLaunch launch(Rows20x24Tiling(), KernelDType::kFloat, {20, 24});
  launch.Staged(kPredict, ACL_FLOAT, {1, 20});     // a transposed [24, 20] storage (wide stride)
  launch.Direct(kTarget);
  launch.Staged(kDout, ACL_FLOAT, {1, 0});         // [20, 1]: one value per row
  launch.Staged(kWeight, ACL_FLOAT, {0, 3}, 2);    // [24] strided, broadcast over rows
  launch.Staged(kPosWeight, ACL_FLOAT, {0, 1});    // [24]: pos_weight per column
  launch.Staged(kGradient, ACL_FLOAT, {1, 20});    // written through a transposed view
  launch.FillInputs(7);
  launch.Run();
  EXPECT_TRUE(launch.OutputMatchesReference());
  EXPECT_TRUE(launch.WroteExactlyTheOutputView());
}

TEST_P(KernelRunBlock, StagedInputsOfOtherDTypesAreConvertedOnCopyIn) {
  for (KernelDType dtype : {KernelDType::kFloat, KernelDType::kDouble}) {
    HandLaunch launch(BigSmallTailTiling(CacheLineUnit(dtype)), dtype, {static_cast<int64_t>(10 * CacheLineUnit(dtype) - 3)});
    launch.Staged(kPredict, ACL_FLOAT16, {1});
    launch.Staged(kTarget, ACL_BF16, {1});
    launch.Staged(kDout, dtype == KernelDType::kFloat ? ACL_DOUBLE : ACL_FLOAT, {1});
    launch.Staged(kWeight, ACL_FLOAT16, {2});
    launch.Direct(kGradient);
    launch.FillInputs(8);
    launch.Run();
    EXPECT_TRUE(launch.OutputMatchesReference()) << KernelDTypeLabel(dtype);
    EXPECT_TRUE(launch.WroteExactlyTheOutputView()) << KernelDTypeLabel(dtype);
  }
}

TEST_P(KernelRunBlock, StagedOutputOfAnotherDTypeIsRoundedOnCopyOut) {
  for (aclDataType out : {ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
    HandLaunch launch(BigSmallTailTiling(16), KernelDType::kFloat, {157});
    DirectAll(launch, true, true);
    launch.Staged(kGradient, out, {1});
    launch.FillInputs(9);
    launch.Run();
    EXPECT_TRUE(launch.OutputMatchesReference()) << out;
    EXPECT_TRUE(launch.WroteExactlyTheOutputView()) << out;
  }
}

TEST_P(KernelRunBlock, OutputMayOverwritePredictInPlace) {
  for (KernelDType dtype : kAllKernelDTypes) {
    HandLaunch launch(BigSmallTailTiling(CacheLineUnit(dtype)), dtype, {static_cast<int64_t>(10 * CacheLineUnit(dtype) - 3)});
    DirectAll(launch, true, true);
    launch.OutputAliasesPredict();
    launch.FillInputs(10);
    launch.Run();
    EXPECT_TRUE(launch.OutputMatchesReference()) << KernelDTypeLabel(dtype);
    EXPECT_TRUE(launch.WroteExactlyTheOutputView()) << KernelDTypeLabel(dtype);
  }
}

TEST_P(KernelRunBlock, NonTemporalOutputGivesTheSameBitsAndStaysInTheView) {
  for (KernelDType dtype : kAllKernelDTypes) {
    TilingData t = BigSmallTailTiling(8 * CacheLineUnit(dtype));
    const auto n = static_cast<int64_t>(t.totalDataNum);
    HandLaunch plain(t, dtype, {n});
    DirectAll(plain, true, false);
    plain.FillInputs(11);
    plain.Run();
    t.nonTemporalOut = 1;
    HandLaunch streamed(t, dtype, {n});
    DirectAll(streamed, true, false);
    streamed.FillInputs(11);
    streamed.Run();
    EXPECT_TRUE(streamed.OutputMatchesReference()) << KernelDTypeLabel(dtype);
    EXPECT_TRUE(streamed.WroteExactlyTheOutputView()) << KernelDTypeLabel(dtype);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(streamed.OutputBits(i), plain.OutputBits(i)) << KernelDTypeLabel(dtype) << " element " << i;
    }
  }
}

TEST_P(KernelRunBlock, CoversEveryElementOfAHostTilingWithManySmallTiles) {
  // The host tiling on a made-up platform with a tiny UB: 5 blocks of many tiles each.
  aclnn_cpu::PlatformInfo platform;
  platform.name = "tiny";
  platform.core_num = 5;
  platform.ub_size = 2048;
  platform.block_size = 64;
  platform.min_bytes_per_core = 1024;
  for (KernelDType dtype : kAllKernelDTypes) {
    TilingProblem problem;
    problem.total_elems = 12345;
    problem.kernel_dtype = dtype;
    problem.has_weight = true;
    problem.has_pos_weight = true;
    problem.bytes_per_element = 6 * KernelDTypeSize(dtype);
    problem.ub_bytes_per_element = 6 * KernelDTypeSize(dtype);
    const auto tiling = ComputeTiling(platform, problem);
    ASSERT_TRUE(tiling.has_value());
    ASSERT_EQ(tiling->data.blockDim, 5u);
    ASSERT_GT(tiling->data.finalSmallTileNum, 10u);
    HandLaunch launch(tiling->data, dtype, {12345});
    DirectAll(launch, true, true);
    launch.FillInputs(12);
    launch.Run();
    EXPECT_TRUE(launch.OutputMatchesReference()) << KernelDTypeLabel(dtype);
    EXPECT_TRUE(launch.WroteExactlyTheOutputView()) << KernelDTypeLabel(dtype);
  }
}

INSTANTIATE_TEST_SUITE_P(SimdTargets, KernelRunBlock, ::testing::ValuesIn(hwy::SupportedAndGeneratedTargets()),
                         SimdTargetName);

}  // namespace
}  // namespace bce_kernel_test
