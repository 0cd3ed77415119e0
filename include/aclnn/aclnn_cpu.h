/// @file aclnn_cpu.h
/// Extensions of the CPU implementation (not part of CANN): worker threads, kernel selection, the
/// kind of the recent error and dtype names.
#ifndef ACLNN_ACLNN_CPU_H_
#define ACLNN_ACLNN_CPU_H_

#include "acl/acl_base.h"

/// The most threads aclnnCpuSetNumThreads (and ACLNN_CPU_NUM_THREADS) accepts.
#define ACLNN_CPU_MAX_THREADS 1024

/// What kind of error the calling thread's recent error message (aclGetRecentErrMsg) reports, so
/// that a caller can tell a refused dtype from a refused value without reading the message.
typedef enum {
  ACLNN_CPU_ERROR_NONE = 0,          ///< no error recorded in this thread yet
  ACLNN_CPU_ERROR_NULL_POINTER = 1,  ///< a required pointer was null (ACLNN_ERR_PARAM_NULLPTR, ...)
  ACLNN_CPU_ERROR_TYPE = 2,          ///< a dtype rule: a dtype not supported, dtypes that must match, promotion
  ACLNN_CPU_ERROR_VALUE = 3,         ///< any other rule on a parameter: shape, format, reduction, memory, handle
  ACLNN_CPU_ERROR_RUNTIME = 4,       ///< the call was valid and could not be done: memory, threads, internal
} aclnnCpuErrorKind;

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
/// The kind of the calling thread's recent error, the one aclGetRecentErrMsg describes: set with
/// the message by every failing call of this library and kept until the next failure (a call that
/// succeeds changes neither); ACLNN_CPU_ERROR_NONE before this thread's first error.
ACL_FUNC_VISIBILITY aclnnCpuErrorKind aclnnCpuGetRecentErrorKind(void);
/// The name of @p dataType as the library's messages write it, CANN's enumerator without "ACL_"
/// ("FLOAT", "FLOAT16", "BF16", "DOUBLE", "INT32", ...), or NULL for a value that is not an
/// aclDataType the library names. The string is static.
ACL_FUNC_VISIBILITY const char *aclnnCpuDataTypeName(aclDataType dataType);

#ifdef __cplusplus
}
#endif

#endif  // ACLNN_ACLNN_CPU_H_
