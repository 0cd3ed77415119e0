#include "common/error.h"

namespace aclnn_cpu {
namespace {
thread_local std::string g_recent_error;
}  // namespace

void SetRecentError(std::string message) { g_recent_error = std::move(message); }

const char* RecentError() { return g_recent_error.c_str(); }

std::string FormatDims(std::span<const int64_t> dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i != 0) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

}  // namespace aclnn_cpu
