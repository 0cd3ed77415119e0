// Kernel-level conventions: block index and count, workspace, tiling-data macros, tiling keys,
// kernel types, ASSERT, AscendC::Std type traits.
#ifndef ASCENDC_CPU_KERNEL_H
#define ASCENDC_CPU_KERNEL_H

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <utility>

#include "ascendc_cpu/runtime.h"

namespace AscendC {

inline int64_t GetBlockIdx()
{
    return ::ascendc_cpu::rt::BlockIdx();
}
inline int64_t GetBlockNum()
{
    return ::ascendc_cpu::rt::BlockNum();
}
/// The vector core of an AIC:AIV = 1:2 pair; a vector-only launch has one per block.
inline int64_t GetSubBlockIdx()
{
    return 0;
}
inline int64_t GetTaskRation()
{
    return 1;
}

/// CPU debug mode hands the whole workspace to the kernel (no system reserve in front).
inline GM_ADDR GetUserWorkspace(GM_ADDR workspace)
{
    return workspace;
}
inline void SetSysWorkspace(GM_ADDR) {}
inline GM_ADDR GetSysWorkSpacePtr()
{
    return nullptr;
}

constexpr uint32_t DivCeil(uint32_t a, uint32_t b)
{
    return (a + b - 1) / b;
}
constexpr uint32_t AlignUp(uint32_t a, uint32_t b)
{
    return DivCeil(a, b) * b;
}
constexpr uint32_t ConstCeil(uint32_t a, uint32_t b)
{
    return (a + b - 1) / b;
}
inline uint32_t Ceil(uint32_t a, uint32_t b)
{
    return (a + b - 1) / b;
}
constexpr int32_t CeilDivision(int32_t num1, int32_t num2)
{
    return num2 == 0 ? 0 : (num1 + num2 - 1) / num2;
}

/// A2's system cycle counter runs at 50 MHz (the documentation converts cycles / 50 to
/// microseconds); the twin reads the host's steady clock at that rate. Timing is not modelled: the
/// difference of two readings is host time, not the NPU's.
constexpr int64_t kSystemCyclesPerMicrosecond = 50;
inline int64_t GetSystemCycle()
{
    const auto since_start = std::chrono::steady_clock::now().time_since_epoch();
    return std::chrono::duration_cast<std::chrono::nanoseconds>(since_start).count() * kSystemCyclesPerMicrosecond /
           1000;
}

/// The bytes of a data block (32 on A2) and of a vector instruction's repeat (256).
constexpr uint32_t GetDataBlockSizeInBytes()
{
    return ::ascendc_cpu::kBlockBytes;
}
constexpr uint32_t GetVecLen()
{
    return ::ascendc_cpu::kRepeatBytes;
}

template <typename T, typename U>
struct IsSameType {
    static constexpr bool value = std::is_same<T, U>::value;
};

template <typename... Args>
inline void printf(const char* format, Args... args)
{
    if constexpr (sizeof...(Args) == 0) {
        std::fputs(format, stdout);
    } else {
        std::printf(format, args...);
    }
}

namespace Std {
using std::conditional;
using std::conditional_t;
using std::decay;
using std::decay_t;
using std::enable_if;
using std::enable_if_t;
using std::false_type;
using std::integral_constant;
using std::is_arithmetic;
using std::is_const;
using std::is_floating_point;
using std::is_integral;
using std::is_pointer;
using std::is_reference;
using std::is_same;
using std::is_same_v;
using std::is_signed;
using std::is_unsigned;
using std::is_void;
using std::max;
using std::min;
using std::remove_const;
using std::remove_const_t;
using std::remove_cv;
using std::remove_cv_t;
using std::remove_pointer;
using std::remove_pointer_t;
using std::remove_reference;
using std::remove_reference_t;
using std::true_type;
}  // namespace Std

}  // namespace AscendC

/// Vector-only kernels run on AIV cores (SetKernelMode(KernelMode::AIV_MODE)).
#define ASCEND_IS_AIV (::ascendc_cpu::rt::CoreType() == ::AscendC::AIV)
#define ASCEND_IS_AIC (::ascendc_cpu::rt::CoreType() == ::AscendC::AIC)
#define ASCEND_IS_NOT_AIV (::ascendc_cpu::rt::CoreType() != ::AscendC::AIV)
#define ASCEND_IS_NOT_AIC (::ascendc_cpu::rt::CoreType() != ::AscendC::AIC)

#ifndef ASSERT
#define ASSERT(x) ::ascendc_cpu::rt::KernelAssert(static_cast<bool>(x), #x, __FILE__, __LINE__)
#endif

#define KERNEL_TASK_TYPE_DEFAULT(type) ::ascendc_cpu::rt::NoteKernelType(static_cast<int>(type))
#define KERNEL_TASK_TYPE(key, type) ((void)(key), ::ascendc_cpu::rt::NoteKernelType(static_cast<int>(type)))

/// The tiling key set by ICPU_SET_TILING_KEY.
#define TILING_KEY_IS(key) (::ascendc_cpu::rt::TilingKey() == static_cast<uint64_t>(key))
#define TILING_KEY_VAR (::ascendc_cpu::rt::TilingKey())

// Tiling data lives in GM: the macros copy it out, bounds-checked against the GmAlloc buffer.
// A force-included `<op>_tiling_def.h` of ops-nn may define its own versions first; they win.
#define REGISTER_TILING_DEFAULT(tiling_struct) using AscendCCpuDefaultTiling = tiling_struct
#define REGISTER_TILING_FOR_TILINGKEY(expr, tiling_struct)
#ifndef REGISTER_TILINGDATA_SIZE
#define REGISTER_TILINGDATA_SIZE(tiling_struct, counter)
#endif

#ifndef GET_TILING_DATA
#define GET_TILING_DATA(tiling_data, tiling_arg) \
    AscendCCpuDefaultTiling tiling_data;         \
    ::ascendc_cpu::rt::LoadTiling(&(tiling_data), sizeof(tiling_data), (tiling_arg), "GET_TILING_DATA")
#endif

#ifndef GET_TILING_DATA_WITH_STRUCT
#define GET_TILING_DATA_WITH_STRUCT(tiling_struct, tiling_data, tiling_arg) \
    tiling_struct tiling_data;                                              \
    ::ascendc_cpu::rt::LoadTiling(&(tiling_data), sizeof(tiling_data), (tiling_arg), "GET_TILING_DATA_WITH_STRUCT")
#endif

#ifndef GET_TILING_DATA_MEMBER
#define GET_TILING_DATA_MEMBER(tiling_type, member, var, tiling)                                                 \
    decltype(((tiling_type*)0)->member) var;                                                                    \
    ::ascendc_cpu::rt::LoadTiling(&(var), sizeof(var),                                                          \
                                  (const uint8_t*)(tiling) + offsetof(tiling_type, member), "GET_TILING_DATA_MEMBER")
#endif

#ifndef GET_TILING_DATA_PTR_WITH_STRUCT
#define GET_TILING_DATA_PTR_WITH_STRUCT(tiling_struct, dst_ptr, tiling_ptr) \
    const tiling_struct* dst_ptr = reinterpret_cast<const tiling_struct*>(tiling_ptr)
#endif

#endif  // ASCENDC_CPU_KERNEL_H
