#include "common/error.h"

#include <algorithm>
#include <cstring>

#include "aclnn/aclnn_base.h"

namespace aclnn_cpu {

// Note [No exceptions across the C API]
// Every extern "C" function of the library runs its body through Guarded (or cannot throw): a
// std::bad_alloc, a std::system_error from a thread that could not be started, or any other
// exception becomes an error code and a message, never an exception in a C caller's frame (which
// would be undefined behaviour, in practice std::terminate). Bodies are written so that a throw
// leaves nothing half done: they allocate what they need before they change any state a caller
// can see (a queued launch, a consumed executor, a registered handle).

namespace {
// Plain arrays, not std::string: a thread_local with a destructor makes the thread's first use
// register it with the C library, which allocates, and glibc aborts the process when that fails.
// The first error of a thread may well be "out of memory".
thread_local char g_recent_error[kMaxRecentErrorBytes + 1];
thread_local const char* g_static_error = nullptr;  // set instead of g_recent_error when out of memory
thread_local aclnnCpuErrorKind g_recent_error_kind = ACLNN_CPU_ERROR_NONE;
}  // namespace

void SetRecentError(std::string_view message) noexcept {
  size_t n = message.size();
  std::memcpy(g_recent_error, message.data(), std::min(n, kMaxRecentErrorBytes));
  if (n > kMaxRecentErrorBytes) {
    n = kMaxRecentErrorBytes;
    std::memcpy(g_recent_error + n - 3, "...", 3);
  }
  g_recent_error[n] = '\0';
  g_static_error = nullptr;
}

void SetStaticRecentError(const char* message) noexcept { g_static_error = message; }

const char* RecentError() noexcept { return g_static_error != nullptr ? g_static_error : g_recent_error; }

void SetRecentErrorKind(aclnnCpuErrorKind kind) noexcept { g_recent_error_kind = kind; }

aclnnCpuErrorKind RecentErrorKind() noexcept { return g_recent_error_kind; }

aclnnCpuErrorKind KindOfCode(int64_t code) noexcept {
  switch (code) {
    case ACLNN_ERR_PARAM_NULLPTR: return ACLNN_CPU_ERROR_NULL_POINTER;
    case ACLNN_ERR_PARAM_INVALID:
    case ACL_ERROR_INVALID_PARAM:
    case ACL_ERROR_RT_PARAM_INVALID: return ACLNN_CPU_ERROR_VALUE;
    default: return ACLNN_CPU_ERROR_RUNTIME;
  }
}

std::string FormatDims(std::span<const int64_t> dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i != 0) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

}  // namespace aclnn_cpu
