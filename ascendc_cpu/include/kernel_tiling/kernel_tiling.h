// kernel_tiling/kernel_tiling.h: what kernels and their tiling headers expect from it on the CPU
// (the qualifiers, fixed-width integers, the standard helpers). The advanced APIs' tiling
// structures are not part of the twin.
#ifndef ASCENDC_CPU_KERNEL_TILING_H
#define ASCENDC_CPU_KERNEL_TILING_H

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ascendc_cpu/base.h"

#endif  // ASCENDC_CPU_KERNEL_TILING_H
