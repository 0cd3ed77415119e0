// Sort32 and MrgSort. Sort32: each repeat sorts 32 scores (half or float) with their uint32_t indices, largest score
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
#include <vector>

#include "ascendc_cpu/runtime.h"
#include "ascendc_cpu/tensor.h"
#include "ascendc_cpu/vector.h"

namespace AscendC {

constexpr int32_t MRG_SORT_ELEMENT_LEN = 4;

/// MrgSort's parameters: the lengths of the four queues in 8-byte structures, whether to stop when
/// a queue runs out, the valid queues (3: two, 7: three, 15: four) and the repeats.
struct MrgSort4Info {
    MrgSort4Info() {}
    MrgSort4Info(const uint16_t elementLengthsIn[MRG_SORT_ELEMENT_LEN], const bool ifExhaustedSuspensionIn,
                 const uint16_t validBitIn, const uint16_t repeatTimesIn)
        : ifExhaustedSuspension(ifExhaustedSuspensionIn),
          validBit(validBitIn),
          repeatTimes(static_cast<uint8_t>(repeatTimesIn))
    {
        for (int32_t i = 0; i < MRG_SORT_ELEMENT_LEN; ++i) {
            elementLengths[i] = elementLengthsIn[i];
        }
    }
    uint16_t elementLengths[MRG_SORT_ELEMENT_LEN] = {0};
    bool ifExhaustedSuspension = false;
    uint16_t validBit = 0;
    uint8_t repeatTimes = 1;
};

/// The (up to) four sorted queues of MrgSort.
template <typename T>
struct MrgSortSrcList {
    MrgSortSrcList() {}
    MrgSortSrcList(const LocalTensor<T>& src1In, const LocalTensor<T>& src2In, const LocalTensor<T>& src3In,
                   const LocalTensor<T>& src4In)
        : src1(src1In[0]), src2(src2In[0]), src3(src3In[0]), src4(src4In[0])
    {}
    LocalTensor<T> src1;
    LocalTensor<T> src2;
    LocalTensor<T> src3;
    LocalTensor<T> src4;
};

namespace detail {
/// The order of Sort32 and MrgSort: the larger score first, NaN before any number.
inline bool ScoreBefore(float a, float b)
{
    const bool a_nan = a != a;
    const bool b_nan = b != b;
    return a_nan != b_nan ? a_nan : a > b;
}

inline void ReportNaNScores(const char* api)
{
    ::ascendc_cpu::rt::Report(::ascendc_cpu::Check::kUnsupported, ::ascendc_cpu::Severity::kWarning, api,
                              "a NaN score: A2's order for NaN is not documented; the twin sorts NaN first");
}

template <typename T>
inline float ScoreAt(const uint8_t* structures, uint64_t k)
{
    T score;
    std::memcpy(&score, structures + k * 8, sizeof(T));
    return static_cast<float>(score);
}

/// The structures consumed from each queue by the last MrgSort of this thread (GetMrgSortResult).
inline uint16_t* MrgSortConsumed()
{
    static thread_local uint16_t consumed[MRG_SORT_ELEMENT_LEN] = {0, 0, 0, 0};
    return consumed;
}
}  // namespace detail

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
        std::stable_sort(order.begin(), order.end(),
                         [&key](uint32_t a, uint32_t b) { return detail::ScoreBefore(key[a], key[b]); });
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
        detail::ReportNaNScores(api);
    }
}

/// MrgSort: merges 2, 3 or 4 queues of 8-byte (score, index) structures, each sorted largest
/// first, into dst, largest first; equal scores in queue order, then position order. With
/// ifExhaustedSuspension it stops after the structure that empties a queue (GetMrgSortResult
/// tells how many it took from each). repeatTimes > 1 takes effect, as documented, only for four
/// valid queues of equal length stored one after another and no suspension: repeat r merges the
/// queues r * (their total) structures further on into dst as far further on; otherwise one merge.
template <typename T>
inline void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& params)
{
    namespace rt = ::ascendc_cpu::rt;
    constexpr const char* api = "MrgSort";
    constexpr uint64_t kPair = 8;
    uint16_t* consumed = detail::MrgSortConsumed();
    std::fill(consumed, consumed + MRG_SORT_ELEMENT_LEN, uint16_t{0});
    if (!detail::kOneOf<T, half, float>) {
        rt::ReportUnsupportedType(api, detail::TypeName<T>());
        return;
    }
    const uint32_t queues = params.validBit == 3 ? 2 : (params.validBit == 7 ? 3 : (params.validBit == 15 ? 4 : 0));
    if (queues == 0) {
        rt::Report(::ascendc_cpu::Check::kInvalidArgument, ::ascendc_cpu::Severity::kError, api,
                   "validBit is " + std::to_string(params.validBit) +
                       ", not one of the documented 3, 7 or 15; the instruction was not executed");
        return;
    }
    if (!rt::CheckArgument(api, "repeatTimes", params.repeatTimes, 1, 255)) {
        return;
    }
    const LocalTensor<T>* lists[MRG_SORT_ELEMENT_LEN] = {&src.src1, &src.src2, &src.src3, &src.src4};
    uint64_t total = 0;
    for (uint32_t q = 0; q < queues; ++q) {
        if (!rt::CheckArgument(api, "elementLengths[i]", params.elementLengths[q], 0, 4095)) {
            return;
        }
        total += params.elementLengths[q];
    }
    bool repeated = queues == 4 && !params.ifExhaustedSuspension;
    for (uint32_t q = 1; q < queues && repeated; ++q) {
        repeated = params.elementLengths[q] == params.elementLengths[0] &&
                   lists[q]->UbView().offset ==
                       lists[0]->UbView().offset + q * uint64_t{params.elementLengths[0]} * kPair;
    }
    const uint64_t repeats = repeated ? params.repeatTimes : 1;
    rt::VectorOp op(api);
    uint8_t* out = op.Write(dst.UbView(), repeats * total * kPair, sizeof(T));
    const uint8_t* in[MRG_SORT_ELEMENT_LEN] = {};
    for (uint32_t q = 0; q < queues; ++q) {
        const uint64_t span = ((repeats - 1) * total + params.elementLengths[q]) * kPair;
        in[q] = op.Read(lists[q]->UbView(), span, sizeof(T), kPair);
    }
    if (!op.Issue()) {
        return;
    }
    bool nan_seen = false;
    std::vector<uint8_t> merged(total * kPair);
    std::vector<uint8_t> shadow(total * kPair);
    for (uint64_t r = 0; r < repeats; ++r) {
        uint64_t next[MRG_SORT_ELEMENT_LEN] = {0, 0, 0, 0};
        uint64_t written = 0;
        for (;;) {
            int best = -1;
            float best_score = 0.0f;
            bool exhausted = false;
            for (uint32_t q = 0; q < queues; ++q) {
                if (next[q] >= params.elementLengths[q]) {
                    exhausted = true;
                    continue;
                }
                const float score = detail::ScoreAt<T>(in[q] + r * total * kPair, next[q]);
                nan_seen = nan_seen || score != score;
                if (best < 0 || detail::ScoreBefore(score, best_score)) {
                    best = static_cast<int>(q);
                    best_score = score;
                }
            }
            if (best < 0 || (exhausted && params.ifExhaustedSuspension)) {
                break;
            }
            const uint8_t* from = in[best] + (r * total + next[best]) * kPair;
            std::memcpy(merged.data() + written * kPair, from, kPair);
            if (op.Tracking()) {
                std::memcpy(shadow.data() + written * kPair, op.Shadow(from), kPair);
            }
            ++next[best];
            ++written;
        }
        // Each merge reads its queues whole before writing dst (an overlap is reported above).
        std::memcpy(out + r * total * kPair, merged.data(), written * kPair);
        if (op.Tracking()) {
            std::memcpy(op.Shadow(out + r * total * kPair), shadow.data(), written * kPair);
        }
        for (uint32_t q = 0; q < queues; ++q) {
            consumed[q] = static_cast<uint16_t>(next[q]);
        }
    }
    if (nan_seen) {
        detail::ReportNaNScores(api);
    }
}

/// How many structures the last MrgSort of this core took from each queue.
inline void GetMrgSortResult(uint16_t& mrgSortList1, uint16_t& mrgSortList2, uint16_t& mrgSortList3,
                             uint16_t& mrgSortList4)
{
    const uint16_t* consumed = detail::MrgSortConsumed();
    mrgSortList1 = consumed[0];
    mrgSortList2 = consumed[1];
    mrgSortList3 = consumed[2];
    mrgSortList4 = consumed[3];
}

}  // namespace AscendC

#endif  // ASCENDC_CPU_SORT_H
