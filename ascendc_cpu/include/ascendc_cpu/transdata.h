// TransDataTo5HD: a repeat takes 16 source blocks of 32 bytes and writes 16 destination blocks,
// each address from a list (LocalTensors, GetPhyAddr values, or those values in a
// LocalTensor<uint64_t>). 2-byte types: destination block j, element i = source block i, element
// j (a 16x16 transpose). 1-byte types: destination block j's low or high 16 bytes (dstHighHalf),
// byte i = source block i, byte j of its low or high half (srcHighHalf). 4-byte types are reported
// (unsupported): their block order is documented only in a figure. Repeat r reads r * srcRepStride
// and writes r * dstRepStride blocks further on, except that a single repeat uses one stride (as
// documented: set the strides to 0 to start at the listed addresses).
#ifndef ASCENDC_CPU_TRANSDATA_H
#define ASCENDC_CPU_TRANSDATA_H

#include <array>
#include <cstdint>
#include <cstring>

#include "ascendc_cpu/runtime.h"
#include "ascendc_cpu/tensor.h"
#include "ascendc_cpu/vector.h"

namespace AscendC {

constexpr int32_t NCHW_CONV_ADDR_LIST_SIZE = 16;

struct TransDataTo5HDParams {
    TransDataTo5HDParams() {}
    TransDataTo5HDParams(const bool dstHighHalfIn, const bool srcHighHalfIn, const uint8_t repeatTimesIn,
                         const uint16_t dstRepStrideIn, const uint16_t srcRepStrideIn)
        : dstHighHalf(dstHighHalfIn),
          srcHighHalf(srcHighHalfIn),
          repeatTimes(repeatTimesIn),
          dstRepStride(dstRepStrideIn),
          srcRepStride(srcRepStrideIn)
    {}
    bool dstHighHalf = false;  // 1-byte types: write the high 16 bytes of each destination block
    bool srcHighHalf = false;  // 1-byte types: read the high 16 bytes of each source block
    uint8_t repeatTimes = 1;
    uint16_t dstRepStride = 0;  // 32-byte blocks between repeats
    uint16_t srcRepStride = 0;
};

namespace detail {
template <typename T>
inline void TransDataTo5HDRun(const ::ascendc_cpu::rt::UbRef (&dst)[NCHW_CONV_ADDR_LIST_SIZE],
                              const ::ascendc_cpu::rt::UbRef (&src)[NCHW_CONV_ADDR_LIST_SIZE],
                              const TransDataTo5HDParams& params)
{
    namespace rt = ::ascendc_cpu::rt;
    constexpr const char* api = "TransDataTo5HD";
    constexpr uint32_t kBlock = ::ascendc_cpu::kBlockBytes;
    constexpr int kList = NCHW_CONV_ADDR_LIST_SIZE;
    if (!kOneOf<T, int8_t, uint8_t, int16_t, uint16_t, half, int32_t, uint32_t, float>) {
        rt::ReportUnsupportedType(api, TypeName<T>());
        return;
    }
    if (sizeof(T) == 4) {
        rt::ReportNotModelled(api, "4-byte types (their block order is documented only in a figure)");
        return;
    }
    if (params.repeatTimes == 0) {
        return;
    }
    for (uint32_t r = 0; r < params.repeatTimes; ++r) {
        const uint64_t step = params.repeatTimes == 1 ? 1 : r;
        std::array<const uint8_t*, kList> in{};
        for (int group = 0; group < kList; group += rt::VectorOp::kMaxOperands) {
            // The sources of a repeat, read (and checked) four operands at a time.
            rt::VectorOp op(api);
            op.AllowOverlap();
            for (int i = group; i < group + rt::VectorOp::kMaxOperands; ++i) {
                rt::UbRef ref = src[i];
                ref.offset += static_cast<uint32_t>(step * params.srcRepStride * kBlock);
                in[static_cast<size_t>(i)] = op.Read(ref, kBlock, sizeof(T));
            }
            if (!op.Issue()) {
                return;
            }
        }
        std::array<uint8_t, kList * kBlock> block{};
        std::array<bool, kList * kBlock> written{};
        rt::VectorOp probe(api);
        for (int j = 0; j < kList; ++j) {
            for (int i = 0; i < kList; ++i) {
                const uint32_t half_offset = params.srcHighHalf ? kBlock / 2 : 0;
                const uint32_t from = sizeof(T) == 2 ? static_cast<uint32_t>(j) * 2 : half_offset + j;
                const uint32_t to = sizeof(T) == 2 ? static_cast<uint32_t>(i) * 2
                                                   : (params.dstHighHalf ? kBlock / 2 : 0) + static_cast<uint32_t>(i);
                std::memcpy(block.data() + j * kBlock + to, in[static_cast<size_t>(i)] + from, sizeof(T));
                const uint8_t* shadow = probe.Tracking() ? probe.Shadow(in[static_cast<size_t>(i)] + from) : nullptr;
                written[j * kBlock + to] = rt::ShadowAll(shadow, sizeof(T));
            }
        }
        for (int j = 0; j < kList; ++j) {
            rt::VectorOp op(api);
            rt::UbRef ref = dst[j];
            ref.offset += static_cast<uint32_t>(step * params.dstRepStride * kBlock);
            uint8_t* out = op.Write(ref, kBlock, sizeof(T));
            if (!op.Issue()) {
                return;
            }
            // 1-byte types write only the chosen half of the block.
            const uint32_t begin = sizeof(T) == 1 && params.dstHighHalf ? kBlock / 2 : 0;
            const uint32_t end = sizeof(T) == 1 && !params.dstHighHalf ? kBlock / 2 : kBlock;
            std::memcpy(out + begin, block.data() + j * kBlock + begin, end - begin);
            if (op.Tracking()) {
                for (uint32_t b = begin; b < end; b += sizeof(T)) {
                    rt::ShadowFill(op.Shadow(out + b), sizeof(T), written[j * kBlock + b]);
                }
            }
        }
    }
}
}  // namespace detail

template <typename T>
inline void TransDataTo5HD(const LocalTensor<T> (&dstList)[NCHW_CONV_ADDR_LIST_SIZE],
                           const LocalTensor<T> (&srcList)[NCHW_CONV_ADDR_LIST_SIZE],
                           const TransDataTo5HDParams& nchwconvParams)
{
    ::ascendc_cpu::rt::UbRef dst[NCHW_CONV_ADDR_LIST_SIZE];
    ::ascendc_cpu::rt::UbRef src[NCHW_CONV_ADDR_LIST_SIZE];
    for (int i = 0; i < NCHW_CONV_ADDR_LIST_SIZE; ++i) {
        dst[i] = dstList[i].UbView();
        src[i] = srcList[i].UbView();
    }
    detail::TransDataTo5HDRun<T>(dst, src, nchwconvParams);
}

/// The address-list form: GetPhyAddr values of LocalTensors.
template <typename T>
inline void TransDataTo5HD(uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE], uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE],
                           const TransDataTo5HDParams& nchwconvParams)
{
    namespace rt = ::ascendc_cpu::rt;
    rt::UbRef dst[NCHW_CONV_ADDR_LIST_SIZE];
    rt::UbRef src[NCHW_CONV_ADDR_LIST_SIZE];
    for (int i = 0; i < NCHW_CONV_ADDR_LIST_SIZE; ++i) {
        dst[i] = rt::UbRefAt("TransDataTo5HD", dstList[i], ::ascendc_cpu::kBlockBytes);
        src[i] = rt::UbRefAt("TransDataTo5HD", srcList[i], ::ascendc_cpu::kBlockBytes);
        if (dst[i].buffer < 0 || src[i].buffer < 0) {
            return;
        }
    }
    detail::TransDataTo5HDRun<T>(dst, src, nchwconvParams);
}

/// The address-tensor form: the 16 GetPhyAddr values of each list stored in a LocalTensor<uint64_t>.
template <typename T>
inline void TransDataTo5HD(const LocalTensor<uint64_t>& dst, const LocalTensor<uint64_t>& src,
                           const TransDataTo5HDParams& nchwconvParams)
{
    uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE];
    uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE];
    for (int i = 0; i < NCHW_CONV_ADDR_LIST_SIZE; ++i) {
        dstList[i] = dst.GetValue(static_cast<uint32_t>(i));
        srcList[i] = src.GetValue(static_cast<uint32_t>(i));
    }
    TransDataTo5HD<T>(dstList, srcList, nchwconvParams);
}

}  // namespace AscendC

#endif  // ASCENDC_CPU_TRANSDATA_H
