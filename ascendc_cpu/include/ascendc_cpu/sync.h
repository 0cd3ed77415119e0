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

template <typename T>
inline void SetAtomicAdd()
{
    ::ascendc_cpu::rt::SetAtomic(1, sizeof(T), std::is_floating_point<T>::value || std::is_same<T, half>::value ||
                                                     std::is_same<T, bfloat16_t>::value);
}

inline void SetAtomicNone()
{
    ::ascendc_cpu::rt::SetAtomic(0, 0, false);
}

template <typename T>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>&)
{}

template <typename T, typename... Rest>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>&, Rest...)
{}

}  // namespace AscendC

#endif  // ASCENDC_CPU_SYNC_H
