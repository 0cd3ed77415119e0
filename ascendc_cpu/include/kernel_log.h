// kernel_log.h: included by ops-nn's `<op>_tiling_def.h` headers in CPU debug builds.
#ifndef ASCENDC_CPU_KERNEL_LOG_H
#define ASCENDC_CPU_KERNEL_LOG_H

#include <cstdio>

#include "ascendc_cpu/base.h"

#ifndef KERNEL_LOG
#define KERNEL_LOG(level, format, ...) std::fprintf(stderr, "[" #level "] " format "\n", ##__VA_ARGS__)
#endif

#endif  // ASCENDC_CPU_KERNEL_LOG_H
