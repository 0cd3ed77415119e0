// CreateVecIndex (dst[i] = firstValue + i), Gather (dst[i] = the src element at byte offset
// srcBaseAddr + srcOffset[i]), "tensor前n个数据计算" forms, Gatherb (32-byte blocks by byte
// offsets), GatherMask, and Brcb (each of 8 elements a repeat
// fills one 32-byte block), with the types Atlas A2 has for them.
#ifndef ASCENDC_CPU_GATHER_H
#define ASCENDC_CPU_GATHER_H

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

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
    // One pass without an early exit (it vectorises: this loop is hot in gathered kernels), then
    // the first misaligned offset found again for the report.
    uint64_t end = 0;
    uint64_t misaligned = 0;
    for (uint32_t i = 0; i < count; ++i) {
        const uint64_t at = static_cast<uint64_t>(srcBaseAddr) + offsets[i];
        misaligned |= at % sizeof(T);
        end = std::max(end, at + sizeof(T));
    }
    for (uint32_t i = 0; misaligned != 0 && i < count; ++i) {
        const uint64_t at = static_cast<uint64_t>(srcBaseAddr) + offsets[i];
        if (!rt::CheckMultiple(api, "srcBaseAddr + srcOffset[i] (bytes)", at, sizeof(T))) {
            return;
        }
    }
    const uint8_t* in = op.Read(src.UbView(), end, sizeof(T));
    if (!op.Issue()) {
        return;
    }
    for (uint32_t i = 0; i < count; ++i) {
        const uint64_t at = static_cast<uint64_t>(srcBaseAddr) + offsets[i];
        std::memcpy(out + static_cast<uint64_t>(i) * sizeof(T), in + at, sizeof(T));
    }
    if (op.Tracking()) {
        // An element is written when its offset and its source element are (byte by byte: the
        // shadow holds 0xff per written byte). The shadows are looked up once per instruction.
        const uint8_t* offset_shadow = op.Shadow(offsets_data);
        const uint8_t* in_shadow = op.Shadow(in);
        uint8_t* out_shadow = op.Shadow(out);
        for (uint32_t i = 0; offset_shadow != nullptr && in_shadow != nullptr && out_shadow != nullptr && i < count;
             ++i) {
            const uint64_t at = static_cast<uint64_t>(srcBaseAddr) + offsets[i];
            bool written = true;
            for (uint64_t b = 0; b < sizeof(uint32_t); ++b) written = written && offset_shadow[i * sizeof(uint32_t) + b] != 0;
            for (uint64_t b = 0; b < sizeof(T); ++b) written = written && in_shadow[at + b] != 0;
            std::memset(out_shadow + static_cast<uint64_t>(i) * sizeof(T), written ? 0xff : 0, sizeof(T));
        }
    }
}

struct GatherRepeatParams {
    GatherRepeatParams() {}
    GatherRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t dstRepStrideIn)
        : dstRepStride(dstRepStrideIn), dstBlkStride(dstBlkStrideIn)
    {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;        // not used (documented as reserved)
    uint16_t dstRepStride = DEFAULT_REPEAT_STRIDE;  // 32-byte blocks between repeats of dst
    uint8_t dstBlkStride = DEFAULT_BLK_STRIDE;      // 32-byte blocks between a repeat's blocks (0: 1)
    uint8_t src0BlkStride = DEFAULT_BLK_STRIDE;     // the rest: reserved, not used
    uint8_t src1BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src0RepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

/// Gatherb: repeat r writes 8 blocks of 32 bytes, block j at (r * dstRepStride + j * dstBlkStride)
/// blocks of dst, from the block at byte offset[8r + j] of src0 (a multiple of 32). uint16_t and
/// uint32_t on A2; dst may not overlap src0.
template <typename T>
inline void Gatherb(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<uint32_t>& offset,
                    const uint8_t repeatTime, const GatherRepeatParams& repeatParams)
{
    namespace rt = ::ascendc_cpu::rt;
    constexpr const char* api = "Gatherb";
    constexpr uint64_t kBlock = ::ascendc_cpu::kBlockBytes;
    constexpr uint64_t kBlocks = ::ascendc_cpu::kRepeatBytes / kBlock;
    if (repeatTime == 0) {
        return;
    }
    if (!detail::kOneOf<T, uint16_t, uint32_t>) {
        rt::ReportUnsupportedType(api, detail::TypeName<T>());
        return;
    }
    const uint64_t blocks = repeatTime * kBlocks;
    const uint64_t block_stride = (repeatParams.dstBlkStride == 0 ? 1 : repeatParams.dstBlkStride) * kBlock;
    const uint64_t repeat_stride = repeatParams.dstRepStride * kBlock;
    rt::VectorOp op(api);
    op.AllowOverlap();  // strided destination blocks; dst against src0 is checked below
    const uint8_t* offsets_data = op.Read(offset.UbView(), blocks * sizeof(uint32_t), sizeof(uint32_t));
    if (offsets_data == nullptr) {
        return;
    }
    uint64_t src_end = 0;
    for (uint64_t b = 0; b < blocks; ++b) {
        uint32_t at;
        std::memcpy(&at, offsets_data + b * sizeof(uint32_t), sizeof(at));
        if (!rt::CheckMultiple(api, "offset[i] (bytes, 32-byte blocks)", at, kBlock)) {
            return;
        }
        src_end = std::max<uint64_t>(src_end, uint64_t{at} + kBlock);
    }
    const uint64_t dst_end = (repeatTime - 1) * repeat_stride + (kBlocks - 1) * block_stride + kBlock;
    uint8_t* out = op.Write(dst.UbView(), dst_end, sizeof(T));
    const uint8_t* in = op.Read(src0.UbView(), src_end, sizeof(T));
    if (out != nullptr && in != nullptr && out < in + src_end && in < out + dst_end) {
        rt::CheckArgument(api, "src0 overlapping dst (not supported)", 1, 0, 0);
        return;
    }
    if (!op.Issue()) {
        return;
    }
    for (uint64_t r = 0; r < repeatTime; ++r) {
        for (uint64_t j = 0; j < kBlocks; ++j) {
            uint32_t at;
            std::memcpy(&at, offsets_data + (r * kBlocks + j) * sizeof(uint32_t), sizeof(at));
            uint8_t* block = out + r * repeat_stride + j * block_stride;
            std::memcpy(block, in + at, kBlock);
            if (op.Tracking()) {
                const bool written =
                    rt::ShadowAll(op.Shadow(offsets_data) + (r * kBlocks + j) * sizeof(uint32_t), sizeof(uint32_t));
                std::memcpy(op.Shadow(block), op.Shadow(in + at), kBlock);
                if (!written) {
                    rt::ShadowFill(op.Shadow(block), kBlock, false);
                }
            }
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

// --- GatherMask --------------------------------------------------------------------------------------------
enum class GatherMaskMode : uint8_t { VERSION_V1 = 0, VERSION_V2 = 1 };
/// A2's (and the only modelled) mode; the second spelling is the documentation's older one.
constexpr GatherMaskMode defaultGatherMaskMode = GatherMaskMode::VERSION_V2;
constexpr GatherMaskMode defaultGahterMaskMode = GatherMaskMode::VERSION_V2;

struct GatherMaskParams {
    GatherMaskParams() {}
    GatherMaskParams(const uint8_t src0BlockStrideIn, const uint16_t repeatTimesIn, const uint16_t src0RepeatStrideIn,
                     const uint8_t src1RepeatStrideIn)
        : src0BlockStride(src0BlockStrideIn),
          repeatTimes(repeatTimesIn),
          src0RepeatStride(src0RepeatStrideIn),
          src1RepeatStride(src1RepeatStrideIn)
    {}
    uint8_t src0BlockStride = DEFAULT_BLK_STRIDE;      // 32-byte blocks between a repeat's blocks
    uint16_t repeatTimes = 0;
    uint16_t src0RepeatStride = DEFAULT_REPEAT_STRIDE;  // 32-byte blocks between repeats of src0
    uint8_t src1RepeatStride = DEFAULT_REPEAT_STRIDE;   // 32-byte blocks between repeats of the pattern
};

namespace detail {
/// GatherMask: repeat r takes `per_repeat` elements of src0 (256 bytes' worth in normal mode,
/// `mask` in counter mode, reduceMode = true), element j of it at 32-byte block
/// r * src0RepeatStride + (j / elements per block) * src0BlockStride; element j is kept if bit j of
/// the repeat's pattern is 1 (a user pattern: the LSB-first bits starting r * src1RepeatStride
/// blocks into src1Pattern; a built-in one, 1..7: even, odd, first/second/third/fourth of every 4,
/// all). Kept elements are written to dst one after another; rsvdCnt is their number. The
/// instruction leaves the mask in normal mode, as documented.
template <typename T, typename PatternBit>
inline void GatherMaskRun(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                          const ::ascendc_cpu::rt::UbRef* pattern_ref,
                          uint32_t pattern_unit_bytes, PatternBit bit_of, const bool reduceMode, const uint32_t mask,
                          const GatherMaskParams& params, GatherMaskMode mode, uint64_t& rsvdCnt)
{
    namespace rt = ::ascendc_cpu::rt;
    constexpr const char* api = "GatherMask";
    constexpr uint64_t kBlock = ::ascendc_cpu::kBlockBytes;
    constexpr uint64_t kPerBlock = kBlock / sizeof(T);
    rsvdCnt = 0;
    if (!kOneOf<T, half, bfloat16_t, uint16_t, int16_t, float, uint32_t, int32_t>) {
        rt::ReportUnsupportedType(api, TypeName<T>());
        return;
    }
    if (mode != GatherMaskMode::VERSION_V2) {
        rt::ReportNotModelled(api, "GatherMaskMode::VERSION_V1 (A2 uses VERSION_V2)");
        return;
    }
    if (reduceMode && !rt::CheckArgument(api, "mask (counter mode, reduceMode = true)", mask, 1, UINT32_MAX)) {
        return;
    }
    const uint64_t per_repeat = reduceMode ? mask : ::ascendc_cpu::kRepeatBytes / sizeof(T);
    const uint64_t repeats = params.repeatTimes;
    rt::SetMaskCounterMode(false);
    if (repeats == 0) {
        return;
    }
    auto src_offset = [&](uint64_t r, uint64_t j) {
        return (r * params.src0RepeatStride + (j / kPerBlock) * params.src0BlockStride) * kBlock +
               (j % kPerBlock) * sizeof(T);
    };
    uint64_t src_end = 0;
    for (uint64_t r = 0; r < repeats; ++r) {
        // The last element of a repeat is the furthest unless block strides are 0.
        src_end = std::max(src_end, src_offset(r, per_repeat - 1) + sizeof(T));
        src_end = std::max(src_end, src_offset(r, std::min<uint64_t>(per_repeat, kPerBlock) - 1) + sizeof(T));
    }
    // Pattern bits of repeat r start at bit r * src1RepeatStride * 256; a repeat reads whole words.
    const uint64_t pattern_bits_per_repeat =
        (per_repeat + pattern_unit_bytes * 8 - 1) / (pattern_unit_bytes * 8) * (pattern_unit_bytes * 8);
    const uint64_t pattern_bytes =
        (repeats - 1) * params.src1RepeatStride * kBlock + pattern_bits_per_repeat / 8;
    rt::VectorOp op(api);
    op.AllowOverlap();  // a strided source; dst against src0 is checked below
    const uint8_t* in = op.Read(src0.UbView(), src_end, sizeof(T));
    const uint8_t* pattern =
        pattern_ref != nullptr ? op.Read(*pattern_ref, pattern_bytes, pattern_unit_bytes) : nullptr;
    if (in == nullptr || (pattern_ref != nullptr && pattern == nullptr)) {
        return;
    }
    uint64_t kept = 0;
    for (uint64_t r = 0; r < repeats; ++r) {
        for (uint64_t j = 0; j < per_repeat; ++j) {
            kept += bit_of(pattern, r * params.src1RepeatStride * kBlock * 8 + j, j) ? 1 : 0;
        }
    }
    uint8_t* out = op.Write(dst.UbView(), kept * sizeof(T), sizeof(T));
    if (out != nullptr && out < in + src_end && in < out + kept * sizeof(T)) {
        rt::CheckArgument(api, "dst overlapping src0 (not supported)", 1, 0, 0);
        return;
    }
    if (!op.Issue()) {
        return;
    }
    uint64_t k = 0;
    for (uint64_t r = 0; r < repeats; ++r) {
        for (uint64_t j = 0; j < per_repeat; ++j) {
            const uint64_t bit = r * params.src1RepeatStride * kBlock * 8 + j;
            if (!bit_of(pattern, bit, j)) {
                continue;
            }
            const uint64_t from = src_offset(r, j);
            std::memcpy(out + k * sizeof(T), in + from, sizeof(T));
            if (op.Tracking()) {
                const bool written = rt::ShadowAll(op.Shadow(in + from), sizeof(T)) &&
                                     (pattern == nullptr || rt::ShadowAll(op.Shadow(pattern + bit / 8), 1));
                rt::ShadowFill(op.Shadow(out + k * sizeof(T)), sizeof(T), written);
            }
            ++k;
        }
    }
    rsvdCnt = kept;
}
}  // namespace detail

/// GatherMask with a user pattern in UB (uint16_t for 2-byte T, uint32_t for 4-byte T).
template <typename T, typename U, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<U>& src1Pattern,
                       const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                       uint64_t& rsvdCnt)
{
    rsvdCnt = 0;
    if (sizeof(U) != sizeof(T) || !(std::is_same<U, uint16_t>::value || std::is_same<U, uint32_t>::value)) {
        ::ascendc_cpu::rt::Report(::ascendc_cpu::Check::kInvalidArgument, ::ascendc_cpu::Severity::kError,
                                  "GatherMask",
                                  std::string("src1Pattern is a LocalTensor<") + detail::TypeName<U>() +
                                      ">: the documentation takes uint16_t for 2-byte elements and uint32_t for "
                                      "4-byte ones; the instruction was not executed");
        return;
    }
    const auto bit_of = [](const uint8_t* pattern, uint64_t bit, uint64_t) {
        return ((pattern[bit / 8] >> (bit % 8)) & 1u) != 0;  // little-endian words: LSB first
    };
    const ::ascendc_cpu::rt::UbRef pattern = src1Pattern.UbView();
    detail::GatherMaskRun(dst, src0, &pattern, sizeof(U), bit_of, reduceMode, mask, gatherMaskParams, mode, rsvdCnt);
}

/// GatherMask with a built-in pattern 1..7 (the same for every repeat).
template <typename T, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t src1Pattern,
                       const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                       uint64_t& rsvdCnt)
{
    rsvdCnt = 0;
    if (!::ascendc_cpu::rt::CheckArgument("GatherMask", "src1Pattern (built-in pattern)", src1Pattern, 1, 7)) {
        return;
    }
    const uint32_t p = src1Pattern;
    const auto bit_of = [p](const uint8_t*, uint64_t, uint64_t j) {
        switch (p) {
            case 1: return j % 2 == 0;
            case 2: return j % 2 == 1;
            case 7: return true;
            default: return j % 4 == p - 3;  // 3..6: the first..fourth of every four
        }
    };
    GatherMaskParams params = gatherMaskParams;
    params.src1RepeatStride = 0;  // not used by built-in patterns
    detail::GatherMaskRun(dst, src0, nullptr, 2, bit_of, reduceMode, mask, params, mode, rsvdCnt);
}

}  // namespace AscendC

#endif  // ASCENDC_CPU_GATHER_H
