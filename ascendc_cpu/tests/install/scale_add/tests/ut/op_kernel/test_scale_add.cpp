// Kernel UT of scale_add in the form of ops-nn's op_kernel UTs (gtest, ICPU_RUN_KF over
// hand-built tiling data), checking every element.
#include <array>
#include <vector>
#include <cmath>
#include "gtest/gtest.h"
#include <cstdint>

#ifdef __CCE_KT_TEST__
#include "tikicpulib.h"
#include "data_utils.h"
#include "string.h"
#include <string>
#endif
#include "../../../op_kernel/scale_add.cpp"
#include "../../../op_kernel/scale_add_tiling_data.h"

class ScaleAddTest : public testing::Test {
protected:
    static void SetUpTestCase() {}
    static void TearDownTestCase() {}
};

TEST_F(ScaleAddTest, test_case_multi_core_with_tails)
{
    const uint32_t total = 5000;
    const uint32_t blockDim = 6;
    size_t byteSize = total * sizeof(DTYPE_X);
    uint8_t* x = (uint8_t*)AscendC::GmAlloc(byteSize);
    uint8_t* y = (uint8_t*)AscendC::GmAlloc(byteSize);
    uint8_t* z = (uint8_t*)AscendC::GmAlloc(byteSize);
    uint8_t* ws = (uint8_t*)AscendC::GmAlloc(16 * 1024 * 1024);
    uint8_t* tl = (uint8_t*)AscendC::GmAlloc(sizeof(ScaleAddTilingData));
    for (uint32_t i = 0; i < total; ++i) {
        ((DTYPE_X*)x)[i] = static_cast<DTYPE_X>(static_cast<float>(i % 97) * 0.25f);
        ((DTYPE_X*)y)[i] = static_cast<DTYPE_X>(1.0f - static_cast<float>(i % 13));
    }
    ScaleAddTilingData* tilingData = reinterpret_cast<ScaleAddTilingData*>(tl);
    tilingData->totalLength = total;
    tilingData->coreLength = (total + blockDim - 1) / blockDim;
    tilingData->tileLength = 256;
    tilingData->alpha = 2.0f;

    ICPU_SET_TILING_KEY(0);
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    auto kf = [](GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR w, GM_ADDR tl) { ::scale_add<0>(x, y, z, w, tl); };
    ICPU_RUN_KF(kf, blockDim, x, y, z, ws, tl);

    EXPECT_TRUE(ascendc_cpu::LastRunFindings().empty());
    for (uint32_t i = 0; i < total; ++i) {
        const float expected = static_cast<float>(static_cast<DTYPE_X>(
            2.0f * static_cast<float>(((DTYPE_X*)x)[i]) + static_cast<float>(((DTYPE_X*)y)[i])));
        ASSERT_EQ(static_cast<float>(((DTYPE_X*)z)[i]), expected) << "element " << i;
    }

    AscendC::GmFree((void*)x);
    AscendC::GmFree((void*)y);
    AscendC::GmFree((void*)z);
    AscendC::GmFree((void*)ws);
    AscendC::GmFree((void*)tl);
}
