// GmAlloc/GmFree, SetKernelMode, ICPU_SET_TILING_KEY and ICPU_RUN_KF: the host side of a kernel
// unit test. ICPU_RUN_KF names each GM buffer by the text of its argument for the findings.
#ifndef ASCENDC_CPU_LAUNCH_H
#define ASCENDC_CPU_LAUNCH_H

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ascendc_cpu/base.h"
#include "ascendc_cpu/runtime.h"

namespace AscendC {

/// GM memory for a kernel: `size` bytes, zero-filled, backed lazily (a large size costs nothing
/// until touched). Findings check accesses against exactly `size`.
inline void* GmAlloc(size_t size)
{
    return ::ascendc_cpu::rt::GmAllocate(size);
}

inline void GmFree(void* ptr)
{
    ::ascendc_cpu::rt::GmRelease(ptr);
}

inline void SetKernelMode(KernelMode mode)
{
    ::ascendc_cpu::rt::SetKernelMode(mode);
}

}  // namespace AscendC

namespace ascendc_cpu {
namespace detail {

template <typename T>
inline const void* PointerOf(const T& argument)
{
    if constexpr (std::is_pointer<T>::value) {
        return reinterpret_cast<const void*>(argument);
    } else {
        return nullptr;
    }
}

template <typename Body, typename... Args>
inline void RunKf(const char* kernel, int64_t block_dim, const char* arguments_text, Body& body, const Args&... args)
{
    const void* pointers[sizeof...(Args) + 1] = {PointerOf(args)..., nullptr};
    ::ascendc_cpu::rt::Launch(
        kernel, block_dim, arguments_text, pointers, sizeof...(Args),
        [](void* context) { (*static_cast<Body*>(context))(); }, &body);
}

}  // namespace detail
}  // namespace ascendc_cpu

#define ICPU_SET_TILING_KEY(tilingKey) ::ascendc_cpu::rt::SetTilingKey(static_cast<uint64_t>(tilingKey))

/// Runs `func(args...)` on `blockDim` simulated AI vector cores (ASCENDC_CPU_ORDER picks their
/// order), checks the run and prints its findings; ASCENDC_CPU_FATAL=1 exits after an error.
#define ICPU_RUN_KF(func, blockDim, ...)                                                                         \
    do {                                                                                                         \
        auto ascendc_cpu_kernel_body_ = [&]() { func(__VA_ARGS__); };                                            \
        ::ascendc_cpu::detail::RunKf(#func, static_cast<int64_t>(blockDim), #__VA_ARGS__, ascendc_cpu_kernel_body_, \
                                     __VA_ARGS__);                                                               \
    } while (0)

#endif  // ASCENDC_CPU_LAUNCH_H
