// DataCopy and DataCopyPad between GM and UB (MTE2 in, MTE3 out) and inside UB (the vector pipe),
// with their parameter structs. Units follow the AscendC documentation for Atlas A2: DataCopy
// moves 32-byte blocks; DataCopyPad's blockLen counts bytes, its UB-side stride 32-byte blocks and
// its GM-side stride bytes.
#ifndef ASCENDC_CPU_DATA_COPY_H
#define ASCENDC_CPU_DATA_COPY_H

#include <cstdint>
#include <cstring>

#include "ascendc_cpu/runtime.h"
#include "ascendc_cpu/tensor.h"

namespace AscendC {

struct DataCopyParams {
    DataCopyParams() {}
    DataCopyParams(const uint16_t count, const uint16_t len, const uint16_t srcStrideIn, const uint16_t dstStrideIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn)
    {}
    uint16_t blockCount = DEFAULT_DATA_COPY_NBURST;
    uint16_t blockLen = 0;
    union {
        uint16_t srcGap = 0;
        uint16_t srcStride;
    };
    union {
        uint16_t dstGap = 0;
        uint16_t dstStride;
    };
};

struct DataCopyExtParams {
    DataCopyExtParams() {}
    DataCopyExtParams(const uint16_t count, const uint32_t len, const uint32_t srcStrideIn, const uint32_t dstStrideIn,
                      const uint32_t rsvIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn)
    {}
    uint16_t blockCount = DEFAULT_DATA_COPY_NBURST;
    uint32_t blockLen = 0;
    uint32_t srcStride = DEFAULT_DATA_COPY_STRIDE;
    uint32_t dstStride = DEFAULT_DATA_COPY_STRIDE;
    uint32_t rsv = 0;
};

struct DataCopyPadParams {
    DataCopyPadParams() {}
    DataCopyPadParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue,
                      const uint64_t padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue)
    {}
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    uint64_t paddingValue = 0;
};

template <typename T>
struct DataCopyPadExtParams {
    DataCopyPadExtParams() {}
    DataCopyPadExtParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue, T padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue)
    {}
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    T paddingValue = 0;
};

namespace detail {

inline uint64_t RoundUpToBlock(uint64_t bytes)
{
    return (bytes + ::ascendc_cpu::kBlockBytes - 1) / ::ascendc_cpu::kBlockBytes * ::ascendc_cpu::kBlockBytes;
}

/// DataCopy's contiguous form: `bytes` moved in whole 32-byte blocks.
inline ::ascendc_cpu::rt::DmaShape ContiguousShape(uint64_t bytes)
{
    ::ascendc_cpu::rt::DmaShape shape;
    shape.block_count = 1;
    shape.block_bytes = bytes;
    shape.whole_blocks = true;
    return shape;
}

/// DataCopy's strided form (DataCopyParams: lengths and gaps in 32-byte blocks on both sides;
/// blockCount in [0, 4095], blockLen and the gaps in [0, 65535] by their type).
inline bool StridedShape(const char* api, const DataCopyParams& params, ::ascendc_cpu::rt::DmaShape& shape)
{
    namespace rt = ::ascendc_cpu::rt;
    const bool valid = rt::CheckArgument(api, "blockCount", params.blockCount, 0, 4095);
    shape.block_count = params.blockCount;
    shape.block_bytes = static_cast<uint64_t>(params.blockLen) * ::ascendc_cpu::kBlockBytes;
    shape.src_step = (static_cast<uint64_t>(params.blockLen) + params.srcStride) * ::ascendc_cpu::kBlockBytes;
    shape.dst_step = (static_cast<uint64_t>(params.blockLen) + params.dstStride) * ::ascendc_cpu::kBlockBytes;
    return valid && params.blockCount != 0 && params.blockLen != 0;  // a zero count or length moves nothing
}

template <typename T>
inline uint64_t ElementBits(const T& value)
{
    uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T) < sizeof(bits) ? sizeof(T) : sizeof(bits));
    return bits;
}

/// DataCopyPad GM->UB: blocks of blockLen bytes, each padded in UB to a 32-byte multiple.
template <typename T>
inline void PadIn(const char* api, const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t blockCount,
                  uint32_t blockLen, uint64_t srcStrideBytes, uint64_t dstStrideBlocks, bool isPad, uint32_t left,
                  uint32_t right, uint64_t padBits)
{
    namespace rt = ::ascendc_cpu::rt;
    bool valid = rt::CheckArgument(api, "blockCount", blockCount, 0, 4095) &&
                 rt::CheckArgument(api, "blockLen", blockLen, 0, 2097151) &&
                 rt::CheckArgument(api, "leftPadding bytes", static_cast<uint64_t>(left) * sizeof(T), 0,
                                   ::ascendc_cpu::kBlockBytes) &&
                 rt::CheckArgument(api, "rightPadding bytes", static_cast<uint64_t>(right) * sizeof(T), 0,
                                   ::ascendc_cpu::kBlockBytes);
    valid = valid && rt::CheckMultiple(api, "blockLen", blockLen, sizeof(T));
    if (!valid || blockCount == 0 || blockLen == 0) {
        return;  // a zero blockCount or blockLen is a NOP on A2
    }
    rt::DmaShape shape;
    shape.block_count = blockCount;
    shape.block_bytes = blockLen;
    shape.src_step = blockLen + srcStrideBytes;
    shape.dst_step = RoundUpToBlock(blockLen + static_cast<uint64_t>(left + right) * sizeof(T)) +
                     dstStrideBlocks * ::ascendc_cpu::kBlockBytes;
    rt::DmaPadding pad;
    pad.left_bytes = static_cast<uint32_t>(left * sizeof(T));
    pad.right_bytes = static_cast<uint32_t>(right * sizeof(T));
    pad.align_block = true;
    pad.pad_value_given = isPad;
    pad.pad_value = padBits;
    pad.element_bytes = sizeof(T);
    rt::DmaGmToUb(api, dst.UbView(), src.GmView(), shape, pad);
}

/// DataCopyPad UB->GM: blocks of blockLen bytes, each starting at a 32-byte boundary in UB.
template <typename T>
inline void PadOut(const char* api, const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t blockCount,
                   uint32_t blockLen, uint64_t srcStrideBlocks, uint64_t dstStrideBytes)
{
    namespace rt = ::ascendc_cpu::rt;
    bool valid = rt::CheckArgument(api, "blockCount", blockCount, 0, 4095) &&
                 rt::CheckArgument(api, "blockLen", blockLen, 0, 2097151);
    valid = valid && rt::CheckMultiple(api, "blockLen", blockLen, sizeof(T));
    if (!valid || blockCount == 0 || blockLen == 0) {
        return;
    }
    rt::DmaShape shape;
    shape.block_count = blockCount;
    shape.block_bytes = blockLen;
    shape.src_step = RoundUpToBlock(blockLen) + srcStrideBlocks * ::ascendc_cpu::kBlockBytes;
    shape.dst_step = blockLen + dstStrideBytes;
    rt::DmaUbToGm(api, dst.GmView(), src.UbView(), shape);
}

}  // namespace detail

// GM -> UB (MTE2)
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count)
{
    ::ascendc_cpu::rt::DmaGmToUb("DataCopy", dst.UbView(), src.GmView(),
                                 detail::ContiguousShape(static_cast<uint64_t>(count) * sizeof(T)),
                                 ::ascendc_cpu::rt::DmaPadding{});
}

template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& params)
{
    ::ascendc_cpu::rt::DmaShape shape;
    if (detail::StridedShape("DataCopy", params, shape)) {
        ::ascendc_cpu::rt::DmaGmToUb("DataCopy", dst.UbView(), src.GmView(), shape, ::ascendc_cpu::rt::DmaPadding{});
    }
}

// UB -> GM (MTE3)
template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count)
{
    ::ascendc_cpu::rt::DmaUbToGm("DataCopy", dst.GmView(), src.UbView(),
                                 detail::ContiguousShape(static_cast<uint64_t>(count) * sizeof(T)));
}

template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params)
{
    ::ascendc_cpu::rt::DmaShape shape;
    if (detail::StridedShape("DataCopy", params, shape)) {
        ::ascendc_cpu::rt::DmaUbToGm("DataCopy", dst.GmView(), src.UbView(), shape);
    }
}

// UB -> UB (the vector pipe)
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count)
{
    ::ascendc_cpu::rt::UbCopy("DataCopy", dst.UbView(), src.UbView(),
                              detail::ContiguousShape(static_cast<uint64_t>(count) * sizeof(T)));
}

template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params)
{
    ::ascendc_cpu::rt::DmaShape shape;
    if (detail::StridedShape("DataCopy", params, shape)) {
        ::ascendc_cpu::rt::UbCopy("DataCopy", dst.UbView(), src.UbView(), shape);
    }
}

// DataCopyPad GM -> UB
template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& params,
                        const DataCopyPadExtParams<T>& padParams)
{
    detail::PadIn("DataCopyPad", dst, src, params.blockCount, params.blockLen, params.srcStride, params.dstStride,
                  padParams.isPad, padParams.leftPadding, padParams.rightPadding,
                  detail::ElementBits(padParams.paddingValue));
}

template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& params,
                        const DataCopyPadParams& padParams)
{
    detail::PadIn("DataCopyPad", dst, src, params.blockCount, params.blockLen, params.srcStride, params.dstStride,
                  padParams.isPad, padParams.leftPadding, padParams.rightPadding, padParams.paddingValue);
}

// DataCopyPad UB -> GM
template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& params)
{
    detail::PadOut("DataCopyPad", dst, src, params.blockCount, params.blockLen, params.srcStride, params.dstStride);
}

template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params)
{
    detail::PadOut("DataCopyPad", dst, src, params.blockCount, params.blockLen, params.srcStride, params.dstStride);
}

}  // namespace AscendC

#endif  // ASCENDC_CPU_DATA_COPY_H
