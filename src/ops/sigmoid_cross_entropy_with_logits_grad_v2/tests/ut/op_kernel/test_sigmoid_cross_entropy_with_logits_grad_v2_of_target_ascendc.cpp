// The kernel UT of the gradient with respect to the target in the NPU original's style: gtest +
// ICPU_RUN_KF over hand-built TilingData, one build per data type (-DDTYPE_PREDICT), the entry of
// the kernel's own translation unit; every element asserted against the float64 reference
// (ComputeTargetReferenceTerms) within TargetErrorBound. The target's GM buffer is null: the
// kernel does not read it.
#include <string>

#include "gtest/gtest.h"
#ifdef __CCE_KT_TEST__
#include "tikicpulib.h"
#endif
#include "ascendc_grad_harness.h"
#include "op_kernel/ascendc/sigmoid_cross_entropy_with_logits_grad_v2_ascendc_tiling_data.h"

extern "C" __global__ __aicore__ void sigmoid_cross_entropy_with_logits_grad_v2_of_target(
    GM_ADDR predict, GM_ADDR target, GM_ADDR dout, GM_ADDR weight, GM_ADDR pos_weight, GM_ADDR gradient,
    GM_ADDR workspace, GM_ADDR tiling);

namespace bce_grad_ascendc_test {
namespace {

using DataType = DTYPE_PREDICT;

const bool kFatalChecks = (setenv("ASCENDC_CPU_FATAL", "1", 0), true);

class SigmoidCrossEntropyWithLogitsGradV2OfTargetAscendcTest : public testing::Test {
protected:
    void SetUp() override { AscendC::SetKernelMode(KernelMode::AIV_MODE); }

    static SigmoidCrossEntropyWithLogitsGradV2TilingData OneTile(uint64_t elements, bool weight, bool pos_weight,
                                                                 float scale)
    {
        return OneTileTiling<DataType>(elements, weight, pos_weight, scale);
    }

    static SigmoidCrossEntropyWithLogitsGradV2TilingData BigAndSmallCores589(bool weight, bool pos_weight)
    {
        return BigAndSmallCores589Tiling<DataType>(weight, pos_weight);
    }

    static void Expect(Problem p, const SigmoidCrossEntropyWithLogitsGradV2TilingData& t, uint32_t cores)
    {
        p.of_target = true;
        ErrorStats stats;
        std::string message;
        EXPECT_TRUE(RunAndCheck<DataType>(&sigmoid_cross_entropy_with_logits_grad_v2_of_target, p, t, cores, 1, &stats,
                                          &message))
            << message;
    }
};

/// Without pos_weight the gradient is -x * dout.
TEST_F(SigmoidCrossEntropyWithLogitsGradV2OfTargetAscendcTest, test_case_smoke_128)
{
    Expect(Problem{128, 128, 0, 0, 1.0f}, OneTile(128, false, false, 1.0f), 1);
}

TEST_F(SigmoidCrossEntropyWithLogitsGradV2OfTargetAscendcTest, test_case_weight_pos_weight_mean_128)
{
    Expect(Problem{128, 128, 128, 128, 1.0f / 128}, OneTile(128, true, true, 1.0f / 128), 1);
}

/// pos_weight 1: the softplus terms cancel exactly, t = -x as without pos_weight.
TEST_F(SigmoidCrossEntropyWithLogitsGradV2OfTargetAscendcTest, test_case_pos_weight_one_128)
{
    Problem p{128, 128, 0, 128, 1.0f};
    p.pos_weight_value = 1.0;
    Expect(p, OneTile(128, false, true, 1.0f), 1);
}

/// pos_weight 0: no linear part for x < 0 (t = -softplus(x)).
TEST_F(SigmoidCrossEntropyWithLogitsGradV2OfTargetAscendcTest, test_case_pos_weight_zero_128)
{
    Problem p{128, 128, 128, 128, 1.0f};
    p.pos_weight_value = 0.0;
    Expect(p, OneTile(128, true, true, 1.0f), 1);
}

/// Big and small cores with a ragged tail through DataCopyPad, pos_weight without weight.
TEST_F(SigmoidCrossEntropyWithLogitsGradV2OfTargetAscendcTest, test_case_big_and_small_cores_589)
{
    Expect(Problem{589, 589, 0, 589, 1.0f}, BigAndSmallCores589(false, true), 3);
}

/// The same cores with weight and without pos_weight.
TEST_F(SigmoidCrossEntropyWithLogitsGradV2OfTargetAscendcTest, test_case_big_and_small_cores_weight_589)
{
    Expect(Problem{589, 589, 589, 0, 1.0f}, BigAndSmallCores589(true, false), 3);
}

/// [12, 50] with a 0-dim dout and pos_weight [50]: read through their periods (tiles of 128 wrap).
TEST_F(SigmoidCrossEntropyWithLogitsGradV2OfTargetAscendcTest, test_case_broadcast_scalar_dout_row_pos_weight_600)
{
    SigmoidCrossEntropyWithLogitsGradV2TilingData t = OneTile(128, false, true, 1.0f);
    t.bigCoreDataNum = 512;
    t.finalBigTileNum = 4;
    t.bigTailDataNum = 128;
    t.smallCoreDataNum = 88;
    t.finalSmallTileNum = 1;
    t.smallTailDataNum = 88;
    t.tailBlockNum = 1;
    t.doutDataNum = 1;
    t.posWeightDataNum = 50;
    Expect(Problem{600, 1, 0, 50, 1.0f}, t, 2);
}

/// [3, 200] with weight [200] (a period longer than a tile: tiles wrap once) and a 0-dim
/// pos_weight (one value per core), mean.
TEST_F(SigmoidCrossEntropyWithLogitsGradV2OfTargetAscendcTest, test_case_broadcast_row_weight_scalar_pos_weight_600)
{
    SigmoidCrossEntropyWithLogitsGradV2TilingData t = OneTile(128, true, true, 1.0f / 600);
    t.bigCoreDataNum = 384;
    t.finalBigTileNum = 3;
    t.bigTailDataNum = 128;
    t.smallCoreDataNum = 216;
    t.finalSmallTileNum = 2;
    t.smallTailDataNum = 88;
    t.tailBlockNum = 1;
    t.doutDataNum = 600;
    t.weightDataNum = 200;
    t.posWeightDataNum = 1;
    Expect(Problem{600, 600, 200, 1, 1.0f / 600}, t, 2);
}

}  // namespace
}  // namespace bce_grad_ascendc_test
