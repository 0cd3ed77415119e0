// Sort32: each repeat sorts 32 scores (half or float) with their uint32_t indices, largest score
// first, into 32 (score, index) structures of 8 bytes: the score in the low bytes (a half score
// then 2 bytes the twin writes as zero), the index in the high 4 bytes. Equal scores keep their
// order (the lower position first, as documented). The order of NaN scores is not documented:
// the twin reports it (unsupported, a warning) and puts NaN first.
#ifndef ASCENDC_CPU_SORT_H
#define ASCENDC_CPU_SORT_H

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>

#include "ascendc_cpu/runtime.h"
#include "ascendc_cpu/tensor.h"
#include "ascendc_cpu/vector.h"

namespace AscendC {

template <typename T>
inline void Sort32(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<uint32_t>& src1,
                   const int32_t repeatTime)
{
    namespace rt = ::ascendc_cpu::rt;
    constexpr const char* api = "Sort32";
    constexpr uint64_t kGroup = 32;
    constexpr uint64_t kPair = 8;
    if (!detail::kOneOf<T, half, float>) {
        rt::ReportUnsupportedType(api, detail::TypeName<T>());
        return;
    }
    if (repeatTime < 0) {
        rt::Report(::ascendc_cpu::Check::kInvalidArgument, ::ascendc_cpu::Severity::kError, api,
                   "repeatTime is " + std::to_string(repeatTime) + ", outside its documented range [0, 255]");
        return;
    }
    if (!rt::CheckArgument(api, "repeatTime", static_cast<uint64_t>(repeatTime), 0, 255) || repeatTime == 0) {
        return;
    }
    const uint64_t repeats = static_cast<uint64_t>(repeatTime);
    rt::VectorOp op(api);
    uint8_t* out = op.Write(dst.UbView(), repeats * kGroup * kPair, sizeof(T));
    const uint8_t* scores = op.Read(src0.UbView(), repeats * kGroup * sizeof(T), sizeof(T));
    const uint8_t* indices = op.Read(src1.UbView(), repeats * kGroup * sizeof(uint32_t), sizeof(uint32_t));
    if (!op.Issue()) {
        return;
    }
    bool nan_seen = false;
    std::array<uint8_t, kGroup * kPair> sorted{};
    std::array<uint8_t, kGroup * kPair> shadow{};
    for (uint64_t r = 0; r < repeats; ++r) {
        std::array<uint32_t, kGroup> order{};
        std::array<float, kGroup> key{};
        for (uint32_t i = 0; i < kGroup; ++i) {
            T score;
            std::memcpy(&score, scores + (r * kGroup + i) * sizeof(T), sizeof(T));
            key[i] = static_cast<float>(score);
            nan_seen = nan_seen || key[i] != key[i];
            order[i] = i;
        }
        std::stable_sort(order.begin(), order.end(), [&key](uint32_t a, uint32_t b) {
            const bool a_nan = key[a] != key[a];
            const bool b_nan = key[b] != key[b];
            return a_nan != b_nan ? a_nan : key[a] > key[b];
        });
        sorted.fill(0);
        for (uint32_t k = 0; k < kGroup; ++k) {
            const uint64_t from = r * kGroup + order[k];
            std::memcpy(sorted.data() + k * kPair, scores + from * sizeof(T), sizeof(T));
            std::memcpy(sorted.data() + k * kPair + 4, indices + from * sizeof(uint32_t), sizeof(uint32_t));
            if (op.Tracking()) {
                const bool written = rt::ShadowAll(op.Shadow(scores + from * sizeof(T)), sizeof(T)) &&
                                     rt::ShadowAll(op.Shadow(indices + from * sizeof(uint32_t)), sizeof(uint32_t));
                std::memset(shadow.data() + k * kPair, written ? 0xff : 0, kPair);
            }
        }
        // The group is read whole before its structures are written (a dst overlapping the
        // sources partially is reported by VectorOp).
        std::memcpy(out + r * kGroup * kPair, sorted.data(), sorted.size());
        if (op.Tracking()) {
            std::memcpy(op.Shadow(out + r * kGroup * kPair), shadow.data(), shadow.size());
        }
    }
    if (nan_seen) {
        rt::Report(::ascendc_cpu::Check::kUnsupported, ::ascendc_cpu::Severity::kWarning, api,
                   "a NaN score: A2's order for NaN is not documented; the twin sorts NaN first");
    }
}

}  // namespace AscendC

#endif  // ASCENDC_CPU_SORT_H
