// CreateVecIndex (dst[i] = firstValue + i) and Gather (dst[i] = the src element at byte offset
// srcBaseAddr + srcOffset[i]), "tensor前n个数据计算" forms, with the types Atlas A2 has for them.
#ifndef ASCENDC_CPU_GATHER_H
#define ASCENDC_CPU_GATHER_H

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "ascendc_cpu/runtime.h"
#include "ascendc_cpu/tensor.h"
#include "ascendc_cpu/vector.h"

namespace AscendC {

/// dst[i] = firstValue + i for i < count, each value rounded to T (int16_t/int32_t wrap).
template <typename T>
inline void CreateVecIndex(LocalTensor<T> dst, const T& firstValue, uint32_t count)
{
    using L = detail::Lane<T>;
    const auto first = L::Load(firstValue);
    uint64_t next = 0;  // the Elementwise loop visits the elements in order
    detail::Elementwise("CreateVecIndex", detail::kOneOf<T, int16_t, half, int32_t, float>, dst, count,
                        [first, &next]() {
                            using W = typename L::Wide;
                            return L::Store(first + static_cast<W>(next++));
                        });
}

/// dst[i] = the T at byte srcBaseAddr + srcOffset[i] of src, for i < count. An offset that is not
/// a multiple of sizeof(T) is invalid; one past src's buffer is out of bounds (not executed).
template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   const uint32_t srcBaseAddr, const uint32_t count)
{
    namespace rt = ::ascendc_cpu::rt;
    constexpr const char* api = "Gather";
    if (count == 0) {
        return;
    }
    if (!detail::kOneOf<T, int16_t, uint16_t, int32_t, uint32_t, float, half, bfloat16_t>) {
        rt::ReportUnsupportedType(api, detail::TypeName<T>());
        return;
    }
    rt::VectorOp op(api);
    uint8_t* out = op.Write(dst.UbView(), static_cast<uint64_t>(count) * sizeof(T), sizeof(T));
    const uint8_t* offsets_data = op.Read(srcOffset.UbView(), static_cast<uint64_t>(count) * sizeof(uint32_t),
                                          sizeof(uint32_t));
    if (offsets_data == nullptr || out == nullptr) {
        return;  // reported by Read/Write; nothing runs
    }
    const uint32_t* offsets = reinterpret_cast<const uint32_t*>(offsets_data);
    uint64_t end = 0;
    for (uint32_t i = 0; i < count; ++i) {
        const uint64_t at = static_cast<uint64_t>(srcBaseAddr) + offsets[i];
        if (!rt::CheckMultiple(api, "srcBaseAddr + srcOffset[i] (bytes)", at, sizeof(T))) {
            return;
        }
        end = std::max(end, at + sizeof(T));
    }
    const uint8_t* in = op.Read(src.UbView(), end, sizeof(T));
    if (!op.Issue()) {
        return;
    }
    for (uint32_t i = 0; i < count; ++i) {
        const uint64_t at = static_cast<uint64_t>(srcBaseAddr) + offsets[i];
        std::memcpy(out + static_cast<uint64_t>(i) * sizeof(T), in + at, sizeof(T));
        if (op.Tracking()) {
            const bool written = rt::ShadowAll(op.Shadow(offsets_data) + static_cast<uint64_t>(i) * sizeof(uint32_t),
                                               sizeof(uint32_t)) &&
                                 rt::ShadowAll(op.Shadow(in) + at, sizeof(T));
            rt::ShadowFill(op.Shadow(out) + static_cast<uint64_t>(i) * sizeof(T), sizeof(T), written);
        }
    }
}

}  // namespace AscendC

#endif  // ASCENDC_CPU_GATHER_H
