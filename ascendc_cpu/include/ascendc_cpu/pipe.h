// TPipe, TQue/TQueBind and TBuf: the UB buffers of a core and the queues that pass them between
// pipes. EnQue/DeQue and FreeTensor/AllocTensor carry the synchronisation the TPipe-TQue framework
// inserts (README, "Execution model").
#ifndef ASCENDC_CPU_PIPE_H
#define ASCENDC_CPU_PIPE_H

#include <cstdint>

#include "ascendc_cpu/runtime.h"
#include "ascendc_cpu/sync.h"
#include "ascendc_cpu/tensor.h"

namespace AscendC {

class TPipe;

template <TPosition src, TPosition dst, int32_t depth, auto mask = 0>
class TQueBind {
public:
    TQueBind() = default;

    template <typename T>
    LocalTensor<T> AllocTensor()
    {
        return LocalTensor<T>::FromUbView(::ascendc_cpu::rt::QueueAlloc(id_, "TQue::AllocTensor"));
    }
    template <typename T>
    void AllocTensor(LocalTensor<T>& tensor)
    {
        tensor = AllocTensor<T>();
    }
    template <typename T>
    void FreeTensor(LocalTensor<T>& tensor)
    {
        ::ascendc_cpu::rt::QueueFree(id_, tensor.UbView(), "TQue::FreeTensor");
    }
    template <typename T>
    bool EnQue(const LocalTensor<T>& tensor)
    {
        return ::ascendc_cpu::rt::QueueEnQue(id_, tensor.UbView(), "TQue::EnQue");
    }
    template <TPosition srcUserPos, TPosition dstUserPos, typename T>
    bool EnQue(const LocalTensor<T>& tensor)
    {
        return ::ascendc_cpu::rt::QueueEnQue(id_, tensor.UbView(), "TQue::EnQue", static_cast<int>(srcUserPos));
    }
    template <typename T>
    LocalTensor<T> DeQue()
    {
        return LocalTensor<T>::FromUbView(::ascendc_cpu::rt::QueueDeQue(id_, "TQue::DeQue"));
    }
    template <TPosition srcUserPos, TPosition dstUserPos, typename T>
    LocalTensor<T> DeQue()
    {
        return LocalTensor<T>::FromUbView(
            ::ascendc_cpu::rt::QueueDeQue(id_, "TQue::DeQue", static_cast<int>(dstUserPos)));
    }
    template <typename T>
    void DeQue(LocalTensor<T>& tensor)
    {
        tensor = DeQue<T>();
    }
    bool VacantInQue() { return ::ascendc_cpu::rt::QueueTensorCount(id_) < (depth > 0 ? depth : 1); }
    bool HasTensorInQue() { return ::ascendc_cpu::rt::QueueHasTensor(id_); }
    int32_t GetTensorCountInQue() { return ::ascendc_cpu::rt::QueueTensorCount(id_); }
    bool HasIdleBuffer() { return ::ascendc_cpu::rt::QueueHasIdleBuffer(id_); }
    void FreeAllEvent() {}

private:
    friend class TPipe;
    static constexpr TPosition kSrc = src;
    static constexpr TPosition kDst = dst;
    static constexpr int32_t kDepth = depth;
    int32_t id_ = -1;
};

/// A queue's configuration, given as `TQue<pos, depth, &config>`. Its fields describe the cube's
/// format conversions (ND<->NZ on A1/B1/CO2) and buffer hints; the twin's vector queues read none
/// of them.
struct TQueConfig {
    bool nd2nz = false;
    bool nz2nd = false;
    bool scmBlockGroup = false;
    uint32_t bufferLen = 0;
    uint32_t bufferNumber = 0;
    uint32_t consumerSize = 0;
    TPosition consumer[8] = {};
};

template <TPosition pos, int32_t depth, auto mask = 0>
class TQue : public TQueBind<pos, pos, depth, mask> {
public:
    TQue() = default;
};

template <TPosition pos = TPosition::LCM>
class TBuf {
public:
    TBuf() = default;

    template <typename T>
    LocalTensor<T> Get()
    {
        return LocalTensor<T>::FromUbView(::ascendc_cpu::rt::TBufGet(id_, UINT32_MAX, 0, "TBuf::Get"));
    }
    template <typename T>
    LocalTensor<T> Get(uint32_t len)
    {
        const uint64_t bytes = static_cast<uint64_t>(len) * sizeof(T);
        return LocalTensor<T>::FromUbView(::ascendc_cpu::rt::TBufGet(
            id_, bytes > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(bytes), 0, "TBuf::Get"));
    }
    template <typename T>
    LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset)
    {
        const uint64_t bytes = static_cast<uint64_t>(size) * sizeof(T);
        return LocalTensor<T>::FromUbView(::ascendc_cpu::rt::TBufGet(
            id_, bytes > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(bytes), bufOffset, "TBuf::GetWithOffset"));
    }
    template <typename T>
    LocalTensor<T> AllocTensor()
    {
        return Get<T>();
    }
    template <typename T>
    void FreeTensor(LocalTensor<T>&)
    {}
    template <typename T>
    void EnQue(const LocalTensor<T>&)
    {}
    template <typename T>
    LocalTensor<T> DeQue()
    {
        return Get<T>();
    }
    uint32_t GetBufLen() const { return ::ascendc_cpu::rt::TBufLength(id_); }

private:
    friend class TPipe;
    int32_t id_ = -1;
};

class TPipe {
public:
    TPipe() : id_(::ascendc_cpu::rt::PipeCreate(this)) {}
    ~TPipe() { Destroy(); }
    TPipe(const TPipe&) = delete;
    TPipe& operator=(const TPipe&) = delete;

    void Init() {}

    template <class Q>
    bool InitBuffer(Q& que, uint8_t num, uint32_t len)
    {
        que.id_ = ::ascendc_cpu::rt::QueueInit(id_, Q::kSrc, Q::kDst, Q::kDepth, num, len);
        return que.id_ >= 0;
    }
    template <TPosition bufPos>
    bool InitBuffer(TBuf<bufPos>& buf, uint32_t len)
    {
        buf.id_ = ::ascendc_cpu::rt::TBufInit(id_, bufPos, len);
        return buf.id_ >= 0;
    }

    template <HardEvent evt>
    TEventID AllocEventID()
    {
        return static_cast<TEventID>(::ascendc_cpu::rt::FetchEventId(evt, true));
    }
    template <HardEvent evt>
    void ReleaseEventID(TEventID id)
    {
        ::ascendc_cpu::rt::ReleaseEventId(evt, id);
    }
    template <HardEvent evt>
    TEventID FetchEventID()
    {
        return static_cast<TEventID>(::ascendc_cpu::rt::FetchEventId(evt, false));
    }
    TEventID FetchEventID(HardEvent evt) { return static_cast<TEventID>(::ascendc_cpu::rt::FetchEventId(evt, false)); }

    void Destroy()
    {
        if (id_ >= 0) {
            ::ascendc_cpu::rt::PipeDestroy(id_);
            id_ = -1;
        }
    }
    void Reset()
    {
        Destroy();
        id_ = ::ascendc_cpu::rt::PipeCreate(this);
    }

private:
    int32_t id_;
};

inline TPipe* GetTPipePtr()
{
    return static_cast<TPipe*>(::ascendc_cpu::rt::CurrentPipe());
}

}  // namespace AscendC

#endif  // ASCENDC_CPU_PIPE_H
