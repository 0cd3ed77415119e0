// CreateVecIndex (dst[i] = firstValue + i), Gather (dst[i] = the src element at byte offset
// srcBaseAddr + srcOffset[i]), "tensor前n个数据计算" forms, and Brcb (each of 8 elements a repeat
// fills one 32-byte block), with the types Atlas A2 has for them.
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


struct BrcbRepeatParams {
    BrcbRepeatParams() {}
    BrcbRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t dstRepStrideIn)
        : dstRepStride(dstRepStrideIn), dstBlkStride(dstBlkStrideIn)
    {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint16_t dstRepStride = DEFAULT_REPEAT_STRIDE;  // 32-byte blocks between repeats
    uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;     // 32-byte blocks between a repeat's blocks
};

/// Repeat r reads src0[8r .. 8r+8) and fills destination block k of the repeat (at
/// (r * dstRepStride + k * dstBlkStride) blocks) with src0[8r + k]. The operands may not overlap.
template <typename T>
inline void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t repeatTime,
                 const BrcbRepeatParams& repeatParams)
{
    namespace rt = ::ascendc_cpu::rt;
    constexpr const char* api = "Brcb";
    constexpr uint64_t kBlocks = ::ascendc_cpu::kRepeatBytes / ::ascendc_cpu::kBlockBytes;
    constexpr uint64_t kPerBlock = ::ascendc_cpu::kBlockBytes / sizeof(T);
    if (repeatTime == 0) {
        return;
    }
    if (!detail::kOneOf<T, int16_t, uint16_t, int32_t, uint32_t, half, bfloat16_t, float>) {
        rt::ReportUnsupportedType(api, detail::TypeName<T>());
        return;
    }
    const uint64_t block_stride = repeatParams.dstBlkStride * uint64_t{::ascendc_cpu::kBlockBytes};
    const uint64_t repeat_stride = repeatParams.dstRepStride * uint64_t{::ascendc_cpu::kBlockBytes};
    uint64_t dst_bytes = 0;
    for (uint64_t k = 0; k < kBlocks; ++k) {
        dst_bytes = std::max(dst_bytes, (repeatTime - 1) * repeat_stride + k * block_stride + ::ascendc_cpu::kBlockBytes);
    }
    const uint64_t src_bytes = static_cast<uint64_t>(repeatTime) * kBlocks * sizeof(T);
    rt::VectorOp op(api);
    op.AllowOverlap();  // strided destination blocks; dst against src0 is checked below
    uint8_t* out = op.Write(dst.UbView(), dst_bytes, sizeof(T));
    const uint8_t* in = op.Read(src0.UbView(), src_bytes, sizeof(T));
    if (out != nullptr && in != nullptr && out < in + src_bytes && in < out + dst_bytes) {
        rt::CheckArgument(api, "src0 overlapping dst (not supported)", 1, 0, 0);
        return;
    }
    if (!op.Issue()) {
        return;
    }
    for (uint64_t r = 0; r < repeatTime; ++r) {
        for (uint64_t k = 0; k < kBlocks; ++k) {
            const uint64_t from = (r * kBlocks + k) * sizeof(T);
            uint8_t* block = out + r * repeat_stride + k * block_stride;
            for (uint64_t j = 0; j < kPerBlock; ++j) {
                std::memcpy(block + j * sizeof(T), in + from, sizeof(T));
            }
            if (op.Tracking()) {
                rt::ShadowFill(op.Shadow(block), ::ascendc_cpu::kBlockBytes, rt::ShadowAll(op.Shadow(in + from), sizeof(T)));
            }
        }
    }
}

}  // namespace AscendC

#endif  // ASCENDC_CPU_GATHER_H
