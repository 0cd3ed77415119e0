// Tiling of the scale_add test operator (the install tests' kernel; written here).
#ifndef SCALE_ADD_TILING_DATA_H
#define SCALE_ADD_TILING_DATA_H

#include <cstdint>
#include "kernel_tiling/kernel_tiling.h"

struct ScaleAddTilingData {
    uint32_t totalLength;  // elements
    uint32_t coreLength;   // elements per core (the last core takes what is left)
    uint32_t tileLength;   // elements per tile, a multiple of 16
    float alpha;
};

#endif  // SCALE_ADD_TILING_DATA_H
