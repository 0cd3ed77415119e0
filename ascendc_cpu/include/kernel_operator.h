// kernel_operator.h: the AscendC kernel API (the subset the twin implements, README "API").
#ifndef ASCENDC_CPU_KERNEL_OPERATOR_H
#define ASCENDC_CPU_KERNEL_OPERATOR_H

#include "ascendc_cpu/base.h"
#include "ascendc_cpu/compare_reduce.h"
#include "ascendc_cpu/data_copy.h"
#include "ascendc_cpu/gather.h"
#include "ascendc_cpu/kernel.h"
#include "ascendc_cpu/pipe.h"
#include "ascendc_cpu/repeat.h"
#include "ascendc_cpu/repeat_reduce.h"
#include "ascendc_cpu/sort.h"
#include "ascendc_cpu/sync.h"
#include "ascendc_cpu/tensor.h"
#include "ascendc_cpu/transdata.h"
#include "ascendc_cpu/vector.h"

#endif  // ASCENDC_CPU_KERNEL_OPERATOR_H
