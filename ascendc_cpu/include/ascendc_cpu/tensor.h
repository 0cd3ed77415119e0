// GlobalTensor (a view of a GmAlloc buffer) and LocalTensor (a view of a TPipe buffer in UB).
// Every access goes through the runtime, which checks it against the buffer it belongs to.
#ifndef ASCENDC_CPU_TENSOR_H
#define ASCENDC_CPU_TENSOR_H

#include <cstdint>
#include <type_traits>

#include "ascendc_cpu/runtime.h"

namespace AscendC {

template <typename T>
class LocalTensor {
public:
    using PrimType = T;

    LocalTensor() = default;

    /// The view starting `offset` elements further, up to the same end.
    LocalTensor operator[](uint32_t offset) const
    {
        LocalTensor view = *this;
        const uint64_t shift = static_cast<uint64_t>(offset) * sizeof(T);
        view.ref_.offset = static_cast<uint32_t>(ref_.offset + shift);
        view.ref_.bytes = shift <= ref_.bytes ? static_cast<uint32_t>(ref_.bytes - shift) : 0;
        return view;
    }

    T GetValue(uint32_t index) const
    {
        T value{};
        ::ascendc_cpu::rt::UbScalarRead("LocalTensor::GetValue", ref_, static_cast<uint64_t>(index) * sizeof(T),
                                        &value, sizeof(T));
        return value;
    }
    template <typename U>
    void SetValue(uint32_t index, U value) const
    {
        const T stored = static_cast<T>(value);
        ::ascendc_cpu::rt::UbScalarWrite("LocalTensor::SetValue", ref_, static_cast<uint64_t>(index) * sizeof(T),
                                         &stored, sizeof(T));
    }
    T& operator()(uint32_t index) const
    {
        return *static_cast<T*>(::ascendc_cpu::rt::UbScalarReference(
            "LocalTensor::operator()", ref_, static_cast<uint64_t>(index) * sizeof(T), sizeof(T)));
    }

    uint32_t GetSize() const { return ref_.bytes / static_cast<uint32_t>(sizeof(T)); }
    void SetSize(uint32_t size)
    {
        const uint64_t bytes = static_cast<uint64_t>(size) * sizeof(T);
        ref_.bytes = bytes < ref_.bytes ? static_cast<uint32_t>(bytes) : ref_.bytes;
    }
    uint32_t GetLength() const { return ref_.bytes; }
    T* GetPhyAddr() const { return reinterpret_cast<T*>(::ascendc_cpu::rt::UbAddress(ref_)); }
    T* GetPhyAddr(uint32_t offset) const
    {
        T* base = GetPhyAddr();
        return base == nullptr ? nullptr : base + offset;
    }

    template <typename U>
    LocalTensor<U> ReinterpretCast() const
    {
        LocalTensor<U> other;
        other.ref_ = ref_;
        return other;
    }

    /// The twin's view of UB (not an AscendC API).
    const ::ascendc_cpu::rt::UbRef& UbView() const { return ref_; }
    static LocalTensor FromUbView(const ::ascendc_cpu::rt::UbRef& ref)
    {
        LocalTensor tensor;
        tensor.ref_ = ref;
        return tensor;
    }

private:
    template <typename U>
    friend class LocalTensor;
    ::ascendc_cpu::rt::UbRef ref_;
};

template <typename T>
class GlobalTensor {
public:
    using PrimType = T;

    GlobalTensor() = default;

    void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize)
    {
        ref_.address = reinterpret_cast<uint8_t*>(buffer);
        ref_.buffer = ::ascendc_cpu::rt::FindGm(buffer);
        size_ = bufferSize;
    }
    void SetGlobalBuffer(__gm__ T* buffer) { SetGlobalBuffer(buffer, 0); }

    GlobalTensor operator[](uint64_t offset) const
    {
        GlobalTensor view = *this;
        view.ref_.address = ref_.address + offset * sizeof(T);
        view.size_ = offset <= size_ ? size_ - offset : 0;
        return view;
    }

    T GetValue(uint64_t offset) const
    {
        T value{};
        ::ascendc_cpu::rt::GmScalarRead("GlobalTensor::GetValue", ref_, offset * sizeof(T), &value, sizeof(T));
        return value;
    }
    template <typename U>
    void SetValue(uint64_t offset, U value) const
    {
        const T stored = static_cast<T>(value);
        ::ascendc_cpu::rt::GmScalarWrite("GlobalTensor::SetValue", ref_, offset * sizeof(T), &stored, sizeof(T));
    }
    T& operator()(uint64_t offset) const
    {
        return *static_cast<T*>(
            ::ascendc_cpu::rt::GmScalarReference("GlobalTensor::operator()", ref_, offset * sizeof(T), sizeof(T)));
    }

    __gm__ T* GetPhyAddr() const { return reinterpret_cast<T*>(ref_.address); }
    __gm__ T* GetPhyAddr(uint64_t offset) const { return GetPhyAddr() + offset; }
    uint64_t GetSize() const { return size_; }
    template <typename... Args>
    void SetL2CacheHint(Args...)
    {}

    template <typename U>
    GlobalTensor<U> ReinterpretCast() const
    {
        GlobalTensor<U> other;
        other.ref_ = ref_;
        other.size_ = size_ * sizeof(T) / sizeof(U);
        return other;
    }

    /// The twin's view of GM (not an AscendC API).
    const ::ascendc_cpu::rt::GmRef& GmView() const { return ref_; }

private:
    template <typename U>
    friend class GlobalTensor;
    ::ascendc_cpu::rt::GmRef ref_;
    uint64_t size_ = 0;
};

}  // namespace AscendC

#endif  // ASCENDC_CPU_TENSOR_H
