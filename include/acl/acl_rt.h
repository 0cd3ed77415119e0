/// @file acl_rt.h
/// The CANN runtime subset: devices, contexts, streams and memory. The CPU is device 0.
#ifndef ACL_ACL_RT_H_
#define ACL_ACL_RT_H_

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    ACL_MEM_MALLOC_HUGE_FIRST = 0,
    ACL_MEM_MALLOC_HUGE_ONLY = 1,
    ACL_MEM_MALLOC_NORMAL_ONLY = 2,
    ACL_MEM_MALLOC_HUGE_FIRST_P2P = 3,
    ACL_MEM_MALLOC_HUGE_ONLY_P2P = 4,
    ACL_MEM_MALLOC_NORMAL_ONLY_P2P = 5,
} aclrtMemMallocPolicy;

typedef enum {
    ACL_MEMCPY_HOST_TO_HOST = 0,
    ACL_MEMCPY_HOST_TO_DEVICE = 1,
    ACL_MEMCPY_DEVICE_TO_HOST = 2,
    ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
} aclrtMemcpyKind;

/// Makes @p deviceId (only 0 exists) current for the calling thread.
/// @return ACL_SUCCESS, or ACL_ERROR_RT_INVALID_DEVICEID for any other id.
ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId);
/// Releases the device: waits for the launches made on every stream before the call, destroys
/// the streams still alive (their handles are then unknown to every function) and stops the
/// runtime's threads (the stream threads and the worker pool; they start again when needed).
ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId);
/// Writes the current device id (0) to @p deviceId.
ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t *deviceId);
/// Writes the number of devices (1) to @p count.
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t *count);
/// Waits for every launch made on any stream of the device before the call (launches made
/// meanwhile by other threads are not waited for).
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void);

/// Contexts exist for source compatibility; the CPU device has a single implicit context.
ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context);
ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context);
ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext *context);

/// Creates a stream. Launches on a stream run in the order they were made, asynchronously to the
/// caller; aclrtSynchronizeStream waits for them. A stream holds at most 1024 queued launches: a
/// launch onto a full stream waits for room. The caller owns the stream (aclrtDestroyStream).
/// @return ACL_ERROR_RT_MEMORY_ALLOCATION when the stream's queue cannot be allocated.
ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream *stream);
/// Waits for the stream's work, then destroys it. A null or unknown stream gives ACL_ERROR_INVALID_PARAM.
ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream);
/// Blocks until every launch made on @p stream before the call has finished (nullptr: the default
/// stream); launches made meanwhile by other threads are not waited for.
/// @return ACL_SUCCESS, ACL_ERROR_INVALID_PARAM for an unknown stream.
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream);

/// Allocates @p size bytes of device memory (host memory on the CPU device), 64-byte aligned.
/// @return ACL_ERROR_INVALID_PARAM for a null @p devPtr, size 0 or an unknown policy;
///         ACL_ERROR_RT_MEMORY_ALLOCATION when the memory cannot be had.
ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
/// Frees memory from aclrtMalloc. As cudaFree, it first waits for every launch made on any stream
/// before the call, so no queued launch reads or writes the memory after it is freed.
/// A null or unknown pointer gives ACL_ERROR_INVALID_PARAM.
ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr);
/// Page-locked host memory; on the CPU device the same as aclrtMalloc.
ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void **hostPtr, size_t size);
ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void *hostPtr);
/// Copies @p count bytes. Fails with ACL_ERROR_INVALID_PARAM when a pointer is null,
/// @p count > @p destMax, @p kind is not one of aclrtMemcpyKind, or the ranges overlap.
ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                                         aclrtMemcpyKind kind);
/// Sets @p count bytes to @p value; fails when @p count > @p maxCount or @p devPtr is null.
ACL_FUNC_VISIBILITY aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count);

#ifdef __cplusplus
}
#endif

#endif  // ACL_ACL_RT_H_
