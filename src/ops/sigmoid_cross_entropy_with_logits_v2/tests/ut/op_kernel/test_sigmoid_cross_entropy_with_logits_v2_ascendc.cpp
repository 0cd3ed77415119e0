// The AscendC kernel's UT in the NPU original's style: gtest + ICPU_RUN_KF over hand-built
// TilingData, one build per data type (-DDTYPE_PREDICT), the entry of the kernel's own
// translation unit; unlike the original, every result is asserted against the float64
// reference (the harness of ../op_kernel_ascendc). Built by ../op_kernel_ascendc/CMakeLists.txt.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#ifdef __CCE_KT_TEST__
#include "tikicpulib.h"
#endif
#include "ascendc_loss_harness.h"
#include "op_kernel/ascendc/sigmoid_cross_entropy_with_logits_v2_ascendc_tiling_data.h"

extern "C" __global__ __aicore__ void sigmoid_cross_entropy_with_logits_v2(GM_ADDR predict, GM_ADDR target,
                                                                           GM_ADDR weight, GM_ADDR posWeight,
                                                                           GM_ADDR loss, GM_ADDR workspace,
                                                                           GM_ADDR tiling);

namespace bce_loss_ascendc_test {
namespace {

using DataType = DTYPE_PREDICT;
using aclnn_cpu::bce_loss::a2::A2LossWorkspaceBytes;

const bool kFatalChecks = (setenv("ASCENDC_CPU_FATAL", "1", 0), true);

constexpr uint32_t DTypeEnum()
{
    return sizeof(DataType) == 4 ? TILING_KEY_FLOAT
                                 : (std::is_same<DataType, half>::value ? TILING_KEY_HALF : TILING_KEY_BFLOAT16);
}

class SigmoidCrossEntropyWithLogitsV2AscendcTest : public testing::Test {
protected:
    void SetUp() override
    {
        ICPU_SET_TILING_KEY(DTypeEnum());
        AscendC::SetKernelMode(KernelMode::AIV_MODE);
    }

    /// tileNum tiles of tileLength per core over total elements, same-shape operands.
    static TilingData Tiles(const Problem& p, uint32_t tileNum, uint32_t tileLength)
    {
        TilingData t{};
        t.totalLength = static_cast<uint32_t>(p.total);
        t.tileNum = tileNum;
        t.tileLength = tileLength;
        t.has_weight = p.weight_count != 0 ? 1 : 0;
        t.has_pos_weight = p.pos_weight_count != 0 ? 1 : 0;
        t.dtype_enum = DTypeEnum();
        t.weightDataNum = static_cast<uint32_t>(p.weight_count);
        t.posWeightDataNum = static_cast<uint32_t>(p.pos_weight_count);
        t.reduction = p.reduction;
        t.globalScale = p.reduction == BCE_LOSS_REDUCTION_MEAN ? static_cast<float>(1.0 / p.total) : 1.0f;
        return t;
    }

    static uint32_t Cores(const TilingData& t)
    {
        const uint64_t capacity = static_cast<uint64_t>(t.tileNum) * t.tileLength;
        return static_cast<uint32_t>((t.totalLength + capacity - 1) / capacity);
    }

    static void Expect(const Problem& p, const TilingData& t, std::vector<float>* out = nullptr)
    {
        ReductionStats stats;
        std::string message;
        EXPECT_TRUE(RunAndCheck<DataType>(&sigmoid_cross_entropy_with_logits_v2, p, t, Cores(t),
                                          A2LossWorkspaceBytes(p.total, p.reduction), 1, &stats, &message, out))
            << message;
    }
};

TEST_F(SigmoidCrossEntropyWithLogitsV2AscendcTest, test_case_smoke_128)
{
    const Problem p{128, 0, 0, BCE_LOSS_REDUCTION_NONE};
    Expect(p, Tiles(p, 1, 128));
}

TEST_F(SigmoidCrossEntropyWithLogitsV2AscendcTest, test_case_weight_pos_weight_128)
{
    const Problem p{128, 128, 128, BCE_LOSS_REDUCTION_NONE};
    Expect(p, Tiles(p, 1, 128));
}

/// Two big cores of two tiles of 128 and a small core of 77: a ragged tail through DataCopyPad.
TEST_F(SigmoidCrossEntropyWithLogitsV2AscendcTest, test_case_big_and_small_cores_589)
{
    const Problem p{589, 589, 0, BCE_LOSS_REDUCTION_NONE};
    Expect(p, Tiles(p, 2, 128));
}

/// [12, 50] with a 0-dim weight and pos_weight [50]: read through their periods, never copied out.
TEST_F(SigmoidCrossEntropyWithLogitsV2AscendcTest, test_case_broadcast_scalar_weight_row_pos_weight_600)
{
    const Problem p{600, 1, 50, BCE_LOSS_REDUCTION_NONE};
    Expect(p, Tiles(p, 2, 128));
}

/// [3, 1100] with weight [1100] and pos_weight [1]: a period longer than a tile wraps once.
TEST_F(SigmoidCrossEntropyWithLogitsV2AscendcTest, test_case_broadcast_long_period_3300)
{
    const Problem p{3300, 1100, 1, BCE_LOSS_REDUCTION_NONE};
    Expect(p, Tiles(p, 3, 256));
}

TEST_F(SigmoidCrossEntropyWithLogitsV2AscendcTest, test_case_mean_one_chunk_1000)
{
    const Problem p{1000, 1000, 1000, BCE_LOSS_REDUCTION_MEAN};
    Expect(p, Tiles(p, 1, 1024));
}

/// Three cores, the last one's chunk ragged, partials folded on core 0 after SyncAll.
TEST_F(SigmoidCrossEntropyWithLogitsV2AscendcTest, test_case_sum_three_cores_2500)
{
    const Problem p{2500, 0, 50, BCE_LOSS_REDUCTION_SUM};
    Expect(p, Tiles(p, 1, 1024));
}

/// 137 chunks: core 0 folds the first level of partials over two tiles, then a second level.
TEST_F(SigmoidCrossEntropyWithLogitsV2AscendcTest, test_case_mean_two_levels_140000)
{
    const Problem p{140000, 1, 0, BCE_LOSS_REDUCTION_MEAN};
    Expect(p, Tiles(p, 20, 1024));
}

/// The sum's tree depends on the element count only: 1, 2, 3 and 5 cores, and tiles of one or
/// two chunks, give the same bits.
TEST_F(SigmoidCrossEntropyWithLogitsV2AscendcTest, test_case_sum_same_bits_for_every_core_count_5000)
{
    for (uint32_t reduction : {BCE_LOSS_REDUCTION_SUM, BCE_LOSS_REDUCTION_MEAN}) {
        const Problem p{5000, 5000, 100, reduction};
        std::vector<float> first;
        Expect(p, Tiles(p, 5, 1024), &first);
        for (const auto& [tiles, length] : {std::pair{3u, 1024u}, {2u, 1024u}, {1u, 1024u}, {2u, 2048u}}) {
            std::vector<float> again;
            Expect(p, Tiles(p, tiles, length), &again);
            ASSERT_EQ(first.size(), 1u);
            ASSERT_EQ(again.size(), 1u);
            EXPECT_EQ(std::memcmp(first.data(), again.data(), sizeof(float)), 0)
                << ReductionName(reduction) << ": " << tiles << " tiles of " << length << ": " << again[0]
                << " vs " << first[0];
        }
    }
}

}  // namespace
}  // namespace bce_loss_ascendc_test
