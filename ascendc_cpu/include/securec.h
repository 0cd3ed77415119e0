// The bounded memory functions of the secure C library that CANN ships beside its kernel headers
// (kernels' CPU-debug tiling macros use memcpy_s). Each returns EOK on success; on an error it
// returns the error's code, memcpy_s having zeroed the destination where it can.
#ifndef ASCENDC_CPU_SECUREC_H
#define ASCENDC_CPU_SECUREC_H

#include <cstddef>
#include <cstdint>
#include <cstring>

#ifndef EOK
#define EOK 0
#endif

using errno_t = int;

namespace ascendc_cpu {
namespace securec {
constexpr errno_t kInvalid = 22;        // a null pointer or a zero destination size
constexpr errno_t kRangeReset = 162;    // count past the destination size: destination zeroed
constexpr errno_t kOverlapReset = 182;  // source and destination overlap: destination zeroed
}  // namespace securec
}  // namespace ascendc_cpu

inline errno_t memcpy_s(void* dest, size_t destMax, const void* src, size_t count)
{
    namespace sc = ::ascendc_cpu::securec;
    if (dest == nullptr || destMax == 0) {
        return sc::kInvalid;
    }
    if (src == nullptr) {
        std::memset(dest, 0, destMax);
        return sc::kInvalid;
    }
    if (count > destMax) {
        std::memset(dest, 0, destMax);
        return sc::kRangeReset;
    }
    const uintptr_t d = reinterpret_cast<uintptr_t>(dest);
    const uintptr_t s = reinterpret_cast<uintptr_t>(src);
    if (count != 0 && d < s + count && s < d + count) {
        std::memset(dest, 0, destMax);
        return sc::kOverlapReset;
    }
    std::memmove(dest, src, count);  // cannot overlap here; memmove keeps GCC's -Wrestrict quiet
    return EOK;
}

inline errno_t memset_s(void* dest, size_t destMax, int c, size_t count)
{
    namespace sc = ::ascendc_cpu::securec;
    if (dest == nullptr || destMax == 0) {
        return sc::kInvalid;
    }
    if (count > destMax) {
        std::memset(dest, c, destMax);
        return sc::kRangeReset;
    }
    std::memset(dest, c, count);
    return EOK;
}

#endif  // ASCENDC_CPU_SECUREC_H
