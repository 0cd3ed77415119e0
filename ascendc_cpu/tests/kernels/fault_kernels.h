// Small kernels that each commit one fault the twin must find (and, with other tiling, run
// cleanly). The tests name the expected check, core and tensor.
#ifndef ASCENDC_CPU_TESTS_FAULT_KERNELS_H
#define ASCENDC_CPU_TESTS_FAULT_KERNELS_H

#include <cstdint>

#include "kernel_operator.h"

struct FaultTiling {
    uint32_t mode = 0;    // which variant of the kernel runs
    uint32_t count = 0;   // elements
    uint32_t stride = 0;  // elements between the cores' first elements
    uint32_t flag = 0;
};

/// Core i copies `count` floats from x[i * stride] to out[i * stride] through one queue.
extern "C" __global__ __aicore__ void copy_tiles(GM_ADDR x, GM_ADDR out, GM_ADDR tiling);
/// Core i writes `count` floats of value i + 1 at buf[i * count], then (after SyncAll when `flag`)
/// reads its right neighbour's and writes them to out[i * count].
extern "C" __global__ __aicore__ void neighbour_exchange(GM_ADDR buf, GM_ADDR out, GM_ADDR tiling);
/// mode 0: a TBuf past the 192 KiB of UB; mode 1: 65 buffers; mode 2: a TBuf inside the 256-byte
/// reserve at the top of UB.
extern "C" __global__ __aicore__ void ub_overflow(GM_ADDR x, GM_ADDR tiling);
/// An Add on a view 12 bytes into a buffer.
extern "C" __global__ __aicore__ void ub_misaligned(GM_ADDR out, GM_ADDR tiling);
/// DataCopy of `count` floats in and out (a length that is not a multiple of 32 bytes).
extern "C" __global__ __aicore__ void datacopy_unaligned(GM_ADDR x, GM_ADDR out, GM_ADDR tiling);
/// mode 0: two AllocTensor from a one-buffer queue; 1: DeQue of an empty queue; 2: FreeTensor on
/// another queue; 3: FreeTensor twice; 4: a tensor never freed.
extern "C" __global__ __aicore__ void queue_misuse(GM_ADDR x, GM_ADDR tiling);
/// Adds on a tensor after FreeTensor.
extern "C" __global__ __aicore__ void use_after_free(GM_ADDR out, GM_ADDR tiling);
/// Duplicate of `count` floats into a TBuf of 64.
extern "C" __global__ __aicore__ void ub_out_of_bounds(GM_ADDR out, GM_ADDR tiling);
/// DataCopy to GM of a UB buffer of which only the first `count` floats were written.
extern "C" __global__ __aicore__ void uninitialized(GM_ADDR out, GM_ADDR tiling);
/// DataCopy GM->UB, then Muls on it with (flag 1) or without (flag 0) WaitFlag<MTE2_V>, then out.
extern "C" __global__ __aicore__ void missing_sync(GM_ADDR x, GM_ADDR out, GM_ADDR tiling);
/// mode 0: Cast half -> float in CAST_RINT (A2 has only CAST_NONE); 1: Add on bfloat16_t.
extern "C" __global__ __aicore__ void unsupported(GM_ADDR out, GM_ADDR tiling);
/// Every core writes 8 floats of its index + 1 to out[0, 8), with SetAtomicAdd when `flag`.
extern "C" __global__ __aicore__ void atomic_sum(GM_ADDR out, GM_ADDR tiling);
/// DataCopyPad with a blockLen of 6 bytes for float (not a multiple of 4).
extern "C" __global__ __aicore__ void invalid_argument(GM_ADDR x, GM_ADDR tiling);

#endif  // ASCENDC_CPU_TESTS_FAULT_KERNELS_H
