/// @file aclnn_cpu.h
/// Extensions of the CPU implementation (not part of CANN): worker threads and kernel selection.
#ifndef ACLNN_ACLNN_CPU_H_
#define ACLNN_ACLNN_CPU_H_

#include "acl/acl_base.h"

/// The most threads aclnnCpuSetNumThreads (and ACLNN_CPU_NUM_THREADS) accepts.
#define ACLNN_CPU_MAX_THREADS 1024

#ifdef __cplusplus
extern "C" {
#endif

/// Sets how many threads run the blocks of one launch (the "cores" of the CPU device), >= 1.
/// 0 restores the default: the environment variable ACLNN_CPU_NUM_THREADS if set, else the number
/// of cores this process may run on. Affects executors made afterwards. The worker threads are
/// started (or stopped) by the call itself.
/// @return ACL_SUCCESS, ACL_ERROR_INVALID_PARAM for a negative count or more than
///         ACLNN_CPU_MAX_THREADS, or
///         ACL_ERROR_RT_INTERNAL_ERROR / ACL_ERROR_RT_MEMORY_ALLOCATION when the threads cannot
///         be started (a thread or address-space limit); the count is then unchanged.
ACL_FUNC_VISIBILITY aclError aclnnCpuSetNumThreads(int32_t numThreads);
/// The number of threads a launch may use now.
ACL_FUNC_VISIBILITY int32_t aclnnCpuGetNumThreads(void);
/// Name of the SIMD instruction set the kernels run on (e.g. "AVX3", "AVX2", "SSE4", "EMU128").
ACL_FUNC_VISIBILITY const char *aclnnCpuSimdTargetName(void);

#ifdef __cplusplus
}
#endif

#endif  // ACLNN_ACLNN_CPU_H_
