// Synchronisation inside a core (PipeBarrier, SetFlag/WaitFlag) and across cores (SyncAll), and
// the DMA atomic modes.
#ifndef ASCENDC_CPU_SYNC_H
#define ASCENDC_CPU_SYNC_H

#include <cstdint>
#include <type_traits>

#include "ascendc_cpu/runtime.h"
#include "ascendc_cpu/tensor.h"

namespace AscendC {

template <pipe_t pipe>
inline void PipeBarrier()
{
    ::ascendc_cpu::rt::PipeBarrier(pipe);
}

template <HardEvent event>
inline void SetFlag(int32_t eventID)
{
    ::ascendc_cpu::rt::SetFlag(event, eventID);
}

template <HardEvent event>
inline void WaitFlag(int32_t eventID)
{
    ::ascendc_cpu::rt::WaitFlag(event, eventID);
}

namespace detail {
constexpr HardEvent EventOf(pipe_t src, pipe_t dst)
{
    return (src == PIPE_MTE2 && dst == PIPE_V)     ? HardEvent::MTE2_V
           : (src == PIPE_V && dst == PIPE_MTE2)   ? HardEvent::V_MTE2
           : (src == PIPE_MTE3 && dst == PIPE_V)   ? HardEvent::MTE3_V
           : (src == PIPE_V && dst == PIPE_MTE3)   ? HardEvent::V_MTE3
           : (src == PIPE_MTE3 && dst == PIPE_MTE2) ? HardEvent::MTE3_MTE2
           : (src == PIPE_MTE2 && dst == PIPE_MTE3) ? HardEvent::MTE2_MTE3
           : (src == PIPE_S && dst == PIPE_V)      ? HardEvent::S_V
           : (src == PIPE_V && dst == PIPE_S)      ? HardEvent::V_S
           : (src == PIPE_S && dst == PIPE_MTE2)   ? HardEvent::S_MTE2
           : (src == PIPE_MTE2 && dst == PIPE_S)   ? HardEvent::MTE2_S
           : (src == PIPE_S && dst == PIPE_MTE3)   ? HardEvent::S_MTE3
           : (src == PIPE_MTE3 && dst == PIPE_S)   ? HardEvent::MTE3_S
           : (src == PIPE_V && dst == PIPE_V)      ? HardEvent::V_V
                                                    : HardEvent::MAX;
}
}  // namespace detail

/// SetFlag/WaitFlag between two pipes named by the template arguments.
template <pipe_t src, pipe_t dst>
class TQueSync {
public:
    void SetFlag(TEventID id) { ::ascendc_cpu::rt::SetFlag(detail::EventOf(src, dst), id); }
    void WaitFlag(TEventID id) { ::ascendc_cpu::rt::WaitFlag(detail::EventOf(src, dst), id); }
};

/// Hardware barrier of all cores of the launch.
template <bool isAIVOnly = true>
inline void SyncAll()
{
    ::ascendc_cpu::rt::SyncAll("SyncAll");
}

/// Software barrier through a GM workspace; the twin treats it as the hardware barrier.
template <bool isAIVOnly = true>
inline void SyncAll(const GlobalTensor<int32_t>&, const LocalTensor<int32_t>&, int32_t = 0)
{
    ::ascendc_cpu::rt::SyncAll("SyncAll");
}

namespace detail {
/// The element types of A2's DMA atomics (int8_t, int16_t, half, bfloat16_t, int32_t, float).
template <typename T>
constexpr int AtomicTypeOf()
{
    namespace rt = ::ascendc_cpu::rt;
    return std::is_same<T, float>::value        ? rt::kAtomicF32
           : std::is_same<T, half>::value       ? rt::kAtomicF16
           : std::is_same<T, bfloat16_t>::value ? rt::kAtomicBf16
           : std::is_same<T, int8_t>::value     ? rt::kAtomicS8
           : std::is_same<T, int16_t>::value    ? rt::kAtomicS16
           : std::is_same<T, int32_t>::value    ? rt::kAtomicS32
                                                : rt::kAtomicTypeNone;
}

template <typename T>
inline const char* AtomicTypeName()
{
    return std::is_same<T, float>::value        ? "float"
           : std::is_same<T, half>::value       ? "half"
           : std::is_same<T, bfloat16_t>::value ? "bfloat16_t"
           : std::is_same<T, int8_t>::value     ? "int8_t"
           : std::is_same<T, int16_t>::value    ? "int16_t"
           : std::is_same<T, int32_t>::value    ? "int32_t"
                                                : "this type";
}
}  // namespace detail

/// UB->GM copies from now on add to GM (in T) instead of overwriting it.
template <typename T>
inline void SetAtomicAdd()
{
    ::ascendc_cpu::rt::SetAtomic("SetAtomicAdd", ::ascendc_cpu::rt::kAtomicAdd, detail::AtomicTypeOf<T>(),
                                 detail::AtomicTypeName<T>());
}

/// UB->GM copies from now on write the larger of the copied and the GM element (in T).
template <typename T>
inline void SetAtomicMax()
{
    ::ascendc_cpu::rt::SetAtomic("SetAtomicMax", ::ascendc_cpu::rt::kAtomicMax, detail::AtomicTypeOf<T>(),
                                 detail::AtomicTypeName<T>());
}

/// UB->GM copies from now on write the smaller of the copied and the GM element (in T).
template <typename T>
inline void SetAtomicMin()
{
    ::ascendc_cpu::rt::SetAtomic("SetAtomicMin", ::ascendc_cpu::rt::kAtomicMin, detail::AtomicTypeOf<T>(),
                                 detail::AtomicTypeName<T>());
}

/// Changes the element type of the atomic mode in force.
template <typename T>
inline void SetAtomicType()
{
    ::ascendc_cpu::rt::SetAtomic("SetAtomicType", -1, detail::AtomicTypeOf<T>(), detail::AtomicTypeName<T>());
}

inline void SetAtomicNone()
{
    ::ascendc_cpu::rt::SetAtomic("SetAtomicNone", ::ascendc_cpu::rt::kAtomicNone, ::ascendc_cpu::rt::kAtomicTypeNone,
                                 "");
}

inline void DisableDmaAtomic()
{
    ::ascendc_cpu::rt::SetAtomic("DisableDmaAtomic", ::ascendc_cpu::rt::kAtomicNone,
                                 ::ascendc_cpu::rt::kAtomicTypeNone, "");
}

enum class CacheLine : uint8_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint8_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };

/// The scalar data cache is not modelled (scalar GM access is coherent here): a no-op.
template <typename T, CacheLine entireType, DcciDst dcciDst>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>&)
{}

template <typename T, CacheLine entireType>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>&)
{}

/// Aborts the kernel on this core (the NPU traps); reported as an error.
inline void Trap()
{
    ::ascendc_cpu::rt::KernelTrap();
}

}  // namespace AscendC

/// CCE's event ids and raw synchronisation intrinsics, as kernels written against them use.
enum event_t : uint8_t { EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };

inline void pipe_barrier(pipe_t pipe)
{
    ::ascendc_cpu::rt::PipeBarrier(pipe);
}

inline void set_flag(pipe_t src, pipe_t dst, int32_t id)
{
    ::ascendc_cpu::rt::SetFlag(::AscendC::detail::EventOf(src, dst), id);
}

inline void wait_flag(pipe_t src, pipe_t dst, int32_t id)
{
    ::ascendc_cpu::rt::WaitFlag(::AscendC::detail::EventOf(src, dst), id);
}

#endif  // ASCENDC_CPU_SYNC_H
