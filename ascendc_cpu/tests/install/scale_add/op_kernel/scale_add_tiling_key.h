// Tiling keys of scale_add: one schedule mode, declared as ops-nn kernels declare theirs.
#ifndef SCALE_ADD_TILING_KEY_H
#define SCALE_ADD_TILING_KEY_H

#include "ascendc/host_api/tiling/template_argument.h"

#define SCALE_ADD_TPL_SCH_MODE_0 0
ASCENDC_TPL_ARGS_DECL(ScaleAdd, ASCENDC_TPL_UINT_DECL(schMode, 1, ASCENDC_TPL_UI_LIST, SCALE_ADD_TPL_SCH_MODE_0));
ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_UINT_SEL(schMode, ASCENDC_TPL_UI_LIST, SCALE_ADD_TPL_SCH_MODE_0)));

#endif  // SCALE_ADD_TILING_KEY_H
