// The ACL runtime of the CPU device: init, device, contexts, streams, memory, error message.
#include <atomic>
#include <cstdlib>
#include <cstring>

#include <sys/mman.h>

#include "acl/acl.h"
#include "aclnn/aclnn_cpu.h"
#include "common/alignment.h"
#include "common/dtype.h"
#include "common/error.h"
#include "runtime/handle_registry.h"
#include "runtime/stream.h"
#include "runtime/thread_pool.h"

using aclnn_cpu::Fail;
using aclnn_cpu::Stream;

namespace {

constexpr int32_t kCpuDeviceId = 0;
using aclnn_cpu::kDeviceAlignment;
constexpr size_t kHugePageBytes = size_t{2} << 20;  // x86-64 and most AArch64 kernels

std::atomic<bool> g_initialized{false};
thread_local int32_t t_current_device = kCpuDeviceId;

/// Live allocations of aclrtMalloc and their sizes, so that aclrtFree can reject pointers it did
/// not hand out (Note [Live handles]). No quarantine: freed memory goes back to the C allocator.
using AllocationRegistry = aclnn_cpu::HandleRegistry<void*, size_t>;
AllocationRegistry& LiveAllocations() {
  static auto* a = new AllocationRegistry;  // leaked: frees may come during static destruction
  return *a;
}
const bool g_registry_made = (LiveAllocations(), true);  // at load time; see HandleRegistry()

/// What a runtime function returns when its body throws (Note [No exceptions across the C API]).
constexpr aclnn_cpu::ExceptionCodes<aclError> kRuntimeCodes{ACL_ERROR_RT_MEMORY_ALLOCATION,
                                                            ACL_ERROR_RT_INTERNAL_ERROR};
using aclnn_cpu::Guarded;

// The single implicit context of device 0; its address is the handle.
int g_context_tag = 0;

aclError CheckDevice(const char* fn, int32_t deviceId) {
  if (deviceId != kCpuDeviceId) {
    return Fail(ACL_ERROR_RT_INVALID_DEVICEID, fn, ": deviceId ", deviceId,
                " is invalid: the CPU device is the only device, id 0");
  }
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

ACL_FUNC_VISIBILITY size_t aclDataTypeSize(aclDataType dataType) { return aclnn_cpu::DTypeSize(dataType); }

ACL_FUNC_VISIBILITY aclError aclInit(const char* /*configPath*/) {
  bool expected = false;
  if (!g_initialized.compare_exchange_strong(expected, true)) {
    return Fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: the runtime is already initialized");
  }
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclFinalize(void) {
  bool expected = true;
  if (!g_initialized.compare_exchange_strong(expected, false)) {
    return Fail(ACL_ERROR_UNINITIALIZE, "aclFinalize: the runtime is not initialized");
  }
  // Releases the device as aclrtResetDevice does (a program may finalize without resetting).
  return Guarded("aclFinalize", kRuntimeCodes, [] {
    Stream::DestroyAll();
    aclnn_cpu::ThreadPool::Instance().Shutdown();
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY const char* aclGetRecentErrMsg(void) { return aclnn_cpu::RecentError(); }

ACL_FUNC_VISIBILITY aclnnCpuErrorKind aclnnCpuGetRecentErrorKind(void) { return aclnn_cpu::RecentErrorKind(); }

ACL_FUNC_VISIBILITY const char* aclnnCpuDataTypeName(aclDataType dataType) {
  const char* name = aclnn_cpu::DTypeName(dataType);
  return std::strcmp(name, aclnn_cpu::kUnknownDTypeName) == 0 ? nullptr : name;
}

ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId) {
  if (aclError e = CheckDevice("aclrtSetDevice", deviceId)) return e;
  t_current_device = deviceId;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId) {
  if (aclError e = CheckDevice("aclrtResetDevice", deviceId)) return e;
  return Guarded("aclrtResetDevice", kRuntimeCodes, [] {
    Stream::DestroyAll();
    aclnn_cpu::ThreadPool::Instance().Shutdown();
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t* deviceId) {
  if (deviceId == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDevice: deviceId is null");
  *deviceId = t_current_device;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t* count) {
  if (count == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount: count is null");
  *count = 1;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void) {
  return Guarded("aclrtSynchronizeDevice", kRuntimeCodes, [] {
    Stream::SynchronizeAll();
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId) {
  if (context == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateContext: context is null");
  if (aclError e = CheckDevice("aclrtCreateContext", deviceId)) return e;
  *context = &g_context_tag;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context) {
  if (context != &g_context_tag) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyContext: unknown context");
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context) {
  if (context != &g_context_tag) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtSetCurrentContext: unknown context");
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext* context) {
  if (context == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetCurrentContext: context is null");
  *context = &g_context_tag;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream* stream) {
  if (stream == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream: stream is null");
  return Guarded("aclrtCreateStream", kRuntimeCodes, [stream] {
    *stream = Stream::Create();
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream) {
  return Guarded("aclrtDestroyStream", kRuntimeCodes, [stream] {
    if (!Stream::Destroy(stream)) {
      return Fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream: stream is null or not a live stream");
    }
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream) {
  return Guarded("aclrtSynchronizeStream", kRuntimeCodes, [stream] {
    const std::shared_ptr<Stream> s = Stream::FromHandle(stream);
    if (s == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeStream: stream is not a live stream");
    s->Synchronize();
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  if (devPtr == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: devPtr is null");
  if (size == 0) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: size must be > 0");
  if (policy < ACL_MEM_MALLOC_HUGE_FIRST || policy > ACL_MEM_MALLOC_NORMAL_ONLY_P2P) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: policy ", static_cast<int>(policy),
                " is not an aclrtMemMallocPolicy");
  }
  if (size > SIZE_MAX - kDeviceAlignment) {
    return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtMalloc: size ", size, " bytes cannot be allocated");
  }
  // Huge-page policies: a large block is aligned to and padded to whole 2 MiB pages and marked
  // for transparent huge pages (best effort: HUGE_ONLY cannot be promised on a CPU either). A
  // tensor walked with a large stride (a transposed view) then touches a few TLB entries instead
  // of one per 4 KiB page, and first touches fault 512 times less often.
  const bool huge = policy != ACL_MEM_MALLOC_NORMAL_ONLY && policy != ACL_MEM_MALLOC_NORMAL_ONLY_P2P &&
                    size >= kHugePageBytes && size <= SIZE_MAX - kHugePageBytes;
  const size_t alignment = huge ? kHugePageBytes : kDeviceAlignment;
  const size_t rounded = (size + alignment - 1) / alignment * alignment;
  void* p = std::aligned_alloc(alignment, rounded);
#ifdef MADV_HUGEPAGE
  if (p != nullptr && huge) madvise(p, rounded, MADV_HUGEPAGE);
#endif
  if (p == nullptr) {
    return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtMalloc: size ", size, " bytes cannot be allocated");
  }
  if (!LiveAllocations().Insert(p, size)) {
    std::free(p);
    return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtMalloc: out of memory for the allocation's bookkeeping");
  }
  *devPtr = p;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtFree(void* devPtr) {
  if (devPtr == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtFree: devPtr is null");
  if (!LiveAllocations().Contains(devPtr)) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtFree: devPtr was not allocated by aclrtMalloc or is already freed");
  }
  // As cudaFree: wait for the launches made before the call, on every stream, so that no queued
  // launch reads or writes the memory after it is freed.
  if (aclError e = Guarded("aclrtFree", kRuntimeCodes, [] {
        Stream::SynchronizeAll();
        return ACL_SUCCESS;
      })) {
    return e;
  }
  // Another thread may have freed it while this one waited.
  if (!LiveAllocations().Take(devPtr)) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtFree: devPtr was not allocated by aclrtMalloc or is already freed");
  }
  std::free(devPtr);
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void** hostPtr, size_t size) {
  return aclrtMalloc(hostPtr, size, ACL_MEM_MALLOC_HUGE_FIRST);
}

ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void* hostPtr) { return aclrtFree(hostPtr); }

ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                                         aclrtMemcpyKind kind) {
  if (dst == nullptr || src == nullptr) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: ", dst == nullptr ? "dst" : "src", " is null");
  }
  if (count > destMax) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: count ", count, " exceeds destMax ", destMax);
  }
  if (kind < ACL_MEMCPY_HOST_TO_HOST || kind > ACL_MEMCPY_DEVICE_TO_DEVICE) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: kind ", static_cast<int>(kind),
                " is not an aclrtMemcpyKind (0..3)");
  }
  const auto d = reinterpret_cast<uintptr_t>(dst);
  const auto s = reinterpret_cast<uintptr_t>(src);
  if (count != 0 && d < s + count && s < d + count) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: the source and destination ranges overlap");
  }
  // Copies are synchronous with the host, as CANN's aclrtMemcpy; work still queued on streams
  // is the caller's to synchronize first, as on an NPU.
  if (count != 0) std::memcpy(dst, src, count);
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  if (devPtr == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMemset: devPtr is null");
  if (count > maxCount) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMemset: count ", count, " exceeds maxCount ", maxCount);
  }
  std::memset(devPtr, value, count);
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclnnCpuSetNumThreads(int32_t numThreads) {
  if (numThreads < 0 || numThreads > ACLNN_CPU_MAX_THREADS) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclnnCpuSetNumThreads: numThreads ", numThreads, " must be in [0, ",
                ACLNN_CPU_MAX_THREADS, "] (0 = default)");
  }
  return Guarded("aclnnCpuSetNumThreads", kRuntimeCodes, [numThreads] {
    auto& pool = aclnn_cpu::ThreadPool::Instance();
    pool.SetNumThreads(numThreads == 0 ? aclnn_cpu::ThreadPool::DefaultNumThreads() : numThreads);
    return ACL_SUCCESS;
  });
}

ACL_FUNC_VISIBILITY int32_t aclnnCpuGetNumThreads(void) { return aclnn_cpu::ThreadPool::Instance().NumThreads(); }

}  // extern "C"
