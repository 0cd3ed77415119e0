#include "memory_budget.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "common/dtype.h"

namespace aclnn_bce_cli {

uint64_t SaturatingMul(uint64_t a, uint64_t b) {
  uint64_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? UINT64_MAX : product;
}

uint64_t SaturatingAdd(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

uint64_t TensorBytes(const std::vector<int64_t>& dims, aclDataType dtype) {
  uint64_t bytes = aclnn_cpu::DTypeSize(dtype);
  for (int64_t dim : dims) bytes = SaturatingMul(bytes, static_cast<uint64_t>(dim));
  return bytes;
}

uint64_t UsableMemoryBytes() {
  uint64_t usable = UINT64_MAX;
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_bytes = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_bytes > 0) {
    usable = SaturatingMul(static_cast<uint64_t>(pages), static_cast<uint64_t>(page_bytes));
  }
  for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    rlimit limit{};
    if (getrlimit(resource, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
      usable = std::min<uint64_t>(usable, limit.rlim_cur);
    }
  }
  return usable;
}

std::string ByteText(uint64_t bytes) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  if (bytes == UINT64_MAX) return "16 EiB (2^64 bytes) or more";
  char text[64];
  std::snprintf(text, sizeof(text), "%llu bytes (%.1f GiB)", static_cast<unsigned long long>(bytes),
                static_cast<double>(bytes) / kGiB);
  return text;
}

}  // namespace aclnn_bce_cli
