#include "common/error.h"

namespace aclnn_cpu {

// Note [No exceptions across the C API]
// Every extern "C" function of the library runs its body through Guarded (or cannot throw): a
// std::bad_alloc, a std::system_error from a thread that could not be started, or any other
// exception becomes an error code and a message, never an exception in a C caller's frame (which
// would be undefined behaviour, in practice std::terminate). Bodies are written so that a throw
// leaves nothing half done: they allocate what they need before they change any state a caller
// can see (a queued launch, a consumed executor, a registered handle).

namespace {
thread_local std::string g_recent_error;
thread_local const char* g_static_error = nullptr;  // set instead of g_recent_error when out of memory
}  // namespace

void SetRecentError(std::string message) noexcept {
  g_recent_error = std::move(message);  // a move assignment never allocates
  g_static_error = nullptr;
}

void SetStaticRecentError(const char* message) noexcept { g_static_error = message; }

const char* RecentError() noexcept { return g_static_error != nullptr ? g_static_error : g_recent_error.c_str(); }

std::string FormatDims(std::span<const int64_t> dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i != 0) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

}  // namespace aclnn_cpu
