// The ASCENDC_TPL_* declarations as a kernel unit test sees them: GET_TPL_TILING_KEY packs each
// argument's code (UINT arguments by their index among the declared values) from the low bits up.
#include "ascendc/host_api/tiling/template_argument.h"
#include "gtest/gtest.h"

namespace {

ASCENDC_TPL_ARGS_DECL(Demo, ASCENDC_TPL_DATATYPE_DECL(D_T_X, C_DT_FLOAT, C_DT_FLOAT16, ASCENDC_TPL_INPUT(0)),
                      ASCENDC_TPL_UINT_DECL(schMode, ASCENDC_TPL_2_BW, ASCENDC_TPL_UI_LIST, 0, 5, 7),
                      ASCENDC_TPL_UINT_DECL(split, ASCENDC_TPL_4_BW, ASCENDC_TPL_UI_RANGE, 1, 10, 13),
                      ASCENDC_TPL_BOOL_DECL(hasBias, 0, 1));
ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_DATATYPE_SEL(D_T_X, C_DT_FLOAT),
                                     ASCENDC_TPL_UINT_SEL(schMode, ASCENDC_TPL_UI_LIST, 0)));

TEST(TemplateArgument, KeyPacksCodesAndUintIndicesFromTheLowBits)
{
    EXPECT_EQ(GET_TPL_TILING_KEY(C_DT_FLOAT, 0, 10, 0), 0u);
    // float16 (1), schMode 7 (index 2) at bit 8, split 12 (index 2) at bit 10, hasBias at bit 14
    EXPECT_EQ(GET_TPL_TILING_KEY(C_DT_FLOAT16, 7, 12, 1), 1u | (2u << 8) | (2u << 10) | (1u << 14));
}

TEST(TemplateArgument, UndeclaredUintValueGivesTheInvalidKey)
{
    EXPECT_EQ(GET_TPL_TILING_KEY(C_DT_FLOAT, 3), UINT64_MAX);
}

}  // namespace
