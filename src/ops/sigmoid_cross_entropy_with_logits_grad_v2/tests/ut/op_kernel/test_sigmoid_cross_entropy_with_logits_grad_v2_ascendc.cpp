// The kernel UT in the NPU original's style: gtest + ICPU_RUN_KF over hand-built TilingData, one
// build per data type (-DDTYPE_PREDICT), the entry of the kernel's own translation unit; unlike
// the original, every element is asserted against the float64 reference.
#include <string>

#include "gtest/gtest.h"
#ifdef __CCE_KT_TEST__
#include "tikicpulib.h"
#endif
#include "ascendc_grad_harness.h"
#include "op_kernel/ascendc/sigmoid_cross_entropy_with_logits_grad_v2_ascendc_tiling_data.h"

extern "C" __global__ __aicore__ void sigmoid_cross_entropy_with_logits_grad_v2(GM_ADDR predict, GM_ADDR target,
                                                                                GM_ADDR dout, GM_ADDR weight,
                                                                                GM_ADDR pos_weight, GM_ADDR gradient,
                                                                                GM_ADDR workspace, GM_ADDR tiling);

namespace bce_grad_ascendc_test {
namespace {

using DataType = DTYPE_PREDICT;

const bool kFatalChecks = (setenv("ASCENDC_CPU_FATAL", "1", 0), true);

class SigmoidCrossEntropyWithLogitsGradV2AscendcTest : public testing::Test {
protected:
    void SetUp() override { AscendC::SetKernelMode(KernelMode::AIV_MODE); }

    static SigmoidCrossEntropyWithLogitsGradV2TilingData OneTile(uint64_t elements, bool weight, bool pos_weight,
                                                                 float scale)
    {
        return OneTileTiling<DataType>(elements, weight, pos_weight, scale);
    }

    static void Expect(const Problem& p, const SigmoidCrossEntropyWithLogitsGradV2TilingData& t, uint32_t cores)
    {
        ErrorStats stats;
        std::string message;
        EXPECT_TRUE(RunAndCheck<DataType>(&sigmoid_cross_entropy_with_logits_grad_v2, p, t, cores, 1, &stats, &message))
            << message;
    }
};

TEST_F(SigmoidCrossEntropyWithLogitsGradV2AscendcTest, test_case_smoke_128)
{
    Expect(Problem{128, 128, 0, 0, 1.0f}, OneTile(128, false, false, 1.0f), 1);
}

TEST_F(SigmoidCrossEntropyWithLogitsGradV2AscendcTest, test_case_weight_pos_weight_mean_128)
{
    Expect(Problem{128, 128, 128, 128, 1.0f / 128}, OneTile(128, true, true, 1.0f / 128), 1);
}

/// Two big cores of 256 (tiles of 128) and a small core of 77: a ragged tail through DataCopyPad.
TEST_F(SigmoidCrossEntropyWithLogitsGradV2AscendcTest, test_case_big_and_small_cores_589)
{
    const SigmoidCrossEntropyWithLogitsGradV2TilingData t = BigAndSmallCores589Tiling<DataType>(true, false);
    Expect(Problem{589, 589, 589, 0, 1.0f}, t, 3);
}

/// [12, 50] with a 0-dim dout and pos_weight [50]: read through their periods, never copied out.
TEST_F(SigmoidCrossEntropyWithLogitsGradV2AscendcTest, test_case_broadcast_scalar_dout_row_pos_weight_600)
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

}  // namespace
}  // namespace bce_grad_ascendc_test
