// tikicpulib.h: the CPU debug entry of AscendC, as CANN's tikicpulib provides it, on the twin.
//   void* AscendC::GmAlloc(size_t size);   GM memory, zero-filled; costs nothing until touched
//   void AscendC::GmFree(void* ptr);
//   void AscendC::SetKernelMode(KernelMode mode);
//   ICPU_SET_TILING_KEY(key);               the key TILING_KEY_IS() compares with
//   ICPU_RUN_KF(kernel, blockDim, args...); runs blockDim cores of the kernel in this process
// See ascendc_cpu/README.md for the environment variables and the checks.
#ifndef ASCENDC_CPU_TIKICPULIB_H
#define ASCENDC_CPU_TIKICPULIB_H

#include "ascendc_cpu/launch.h"
#include "kernel_operator.h"

#endif  // ASCENDC_CPU_TIKICPULIB_H
