// The reductions inside a repeat (mask/repeat form, see repeat.h): WholeReduceSum/Max/Min reduce
// the active elements of each repeat to one result, BlockReduceSum/Max/Min reduce each of a
// repeat's eight 32-byte data blocks to one result. Atlas A2 has them for half and float.
//
// Note [Repeat reductions]
// - Sums add in a binary tree inside the group (consecutive pairs, then pairs of pairs), as the
//   documentation describes; each addition is one addition of the element type (half saturates
//   at 65504, as documented). Masked-off elements take no part.
// - Max/Min return the first extreme element; a NaN wins from where it stands (as ReduceMax).
//   WholeReduceMax/Min's index is the element's position inside its repeat, stored as an integer
//   in the element's bytes (ORDER_ONLY_INDEX: a uint32_t per repeat).
// - Destination strides count results: WholeReduceSum one element; WholeReduceMax/Min one
//   (value, index) pair, one element (ORDER_ONLY_VALUE) or one uint32_t (ORDER_ONLY_INDEX);
//   BlockReduce* eight elements.
// - Repeats run one after another, each reading its sources before writing its results, so a
//   reduction in place (dst == src) works as on the hardware's in-order pipeline.
// - What A2 writes for a data block with no active element is not documented: the twin writes
//   nothing there (the bytes stay as they were; never written bytes reaching GM are reported).
#ifndef ASCENDC_CPU_REPEAT_REDUCE_H
#define ASCENDC_CPU_REPEAT_REDUCE_H

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ascendc_cpu/repeat.h"
#include "ascendc_cpu/runtime.h"
#include "ascendc_cpu/tensor.h"
#include "ascendc_cpu/vector.h"

namespace AscendC {

enum class ReduceOrder { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };

namespace detail {

constexpr uint64_t kMaxRepeatTimes = 255;  // repeatTime's documented range is [0, 255]
// The strides are int32_t arguments; the twin rejects negative ones and ones past 16 bits (no
// stride field of A2's vector instructions is wider).
constexpr uint64_t kMaxStride = 65535;

/// The reduction of some active elements: `any` false when none was active.
template <typename T>
struct GroupResult {
    bool any = false;
    T value{};
    uint32_t index = 0;    // position inside the repeat (Max/Min)
    bool written = true;   // every active source element was written
};

/// Sums positions [first, first + n) of repeat r (n a power of two) in a binary tree.
template <typename T>
inline GroupResult<T> TreeSumGroup(const uint8_t* src, const uint8_t* shadow, const Layout& layout,
                                   const RepeatPlan& plan, uint64_t r, uint64_t first, uint64_t n)
{
    GroupResult<T> result;
    if (n == 1) {
        if (plan.Active(r, first)) {
            const uint64_t at = layout.Offset(r, first);
            result.any = true;
            std::memcpy(&result.value, src + at, sizeof(T));
            result.written = shadow == nullptr || ::ascendc_cpu::rt::ShadowAll(shadow + at, sizeof(T));
        }
        return result;
    }
    const GroupResult<T> left = TreeSumGroup<T>(src, shadow, layout, plan, r, first, n / 2);
    const GroupResult<T> right = TreeSumGroup<T>(src, shadow, layout, plan, r, first + n / 2, n / 2);
    if (!left.any || !right.any) {
        return left.any ? left : right;
    }
    using L = Lane<T>;
    result.any = true;
    result.value = L::Store(L::Load(left.value) + L::Load(right.value));
    result.written = left.written && right.written;
    return result;
}

/// The first maximum (or minimum) of positions [first, first + n) of repeat r.
template <typename T>
inline GroupResult<T> ExtremeGroup(const uint8_t* src, const uint8_t* shadow, const Layout& layout,
                                   const RepeatPlan& plan, uint64_t r, uint64_t first, uint64_t n, bool max)
{
    GroupResult<T> result;
    float best = 0.0f;
    for (uint64_t j = first; j < first + n; ++j) {
        if (!plan.Active(r, j)) {
            continue;
        }
        const uint64_t at = layout.Offset(r, j);
        T value;
        std::memcpy(&value, src + at, sizeof(T));
        const float v = static_cast<float>(value);
        result.written = result.written && (shadow == nullptr || ::ascendc_cpu::rt::ShadowAll(shadow + at, sizeof(T)));
        if (result.any && IsNan(best)) {
            continue;  // a NaN already won
        }
        if (!result.any || IsNan(v) || (max ? v > best : v < best)) {
            result.any = true;
            result.value = value;
            result.index = static_cast<uint32_t>(j);
            best = v;
        }
    }
    return result;
}

enum class RepeatReduceKind { kSum, kMax, kMin };

/// Checks the arguments every repeat reduction shares; false (reported) if one is out of range.
inline bool CheckRepeatReduceArguments(const char* api, bool is_set_mask, bool bit_mode, int64_t mask,
                                       const uint64_t* mask_bits, int64_t repeat_time, int64_t dst_rep_stride,
                                       int64_t src_blk_stride, int64_t src_rep_stride, uint64_t per_repeat)
{
    namespace rt = ::ascendc_cpu::rt;
    bool counter = false;
    uint64_t high = 0;
    uint64_t low = 0;
    rt::VectorMaskState(&counter, &high, &low);
    const bool counter_mode = !is_set_mask && counter;  // repeatTime is then a placeholder
    bool valid = true;
    if (!counter_mode) {
        valid = rt::CheckArgument(api, "repeatTime", static_cast<uint64_t>(repeat_time), 0, kMaxRepeatTimes);
    }
    if (is_set_mask && !bit_mode) {
        valid = valid && rt::CheckArgument(api, "mask", static_cast<uint64_t>(mask), 1, per_repeat);
    }
    if (is_set_mask && bit_mode) {
        valid = valid && rt::CheckArgument(api, "mask bits (some set)", (mask_bits[0] | mask_bits[1]) != 0 ? 1 : 0, 1, 1);
    }
    valid = valid && rt::CheckArgument(api, "dstRepStride", static_cast<uint64_t>(dst_rep_stride), 0, kMaxStride) &&
            rt::CheckArgument(api, "srcBlkStride", static_cast<uint64_t>(src_blk_stride), 0, kMaxStride) &&
            rt::CheckArgument(api, "srcRepStride", static_cast<uint64_t>(src_rep_stride), 0, kMaxStride);
    return valid;
}

/// One repeat reduction. `groups` results per repeat (1: WholeReduce*, 8: BlockReduce*), each of
/// `result_bytes` bytes laid out by `store`; the destination advances `dst_step` bytes a repeat.
template <typename T, typename Store>
inline void RepeatReduce(const char* api, RepeatReduceKind kind, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                         bool is_set_mask, const uint64_t* mask_bits, int64_t mask, int64_t repeat_time,
                         int64_t dst_rep_stride, int64_t src_blk_stride, int64_t src_rep_stride, uint64_t groups,
                         uint64_t result_bytes, uint64_t dst_unit_bytes, uint32_t dst_alignment, Store store)
{
    namespace rt = ::ascendc_cpu::rt;
    if (!kOneOf<T, half, float>) {
        rt::ReportUnsupportedType(api, TypeName<T>());
        return;
    }
    const uint64_t per_repeat = ::ascendc_cpu::kRepeatBytes / sizeof(T);
    const bool bit_mode = mask_bits != nullptr;
    if (!CheckRepeatReduceArguments(api, is_set_mask, bit_mode, mask, mask_bits, repeat_time, dst_rep_stride,
                                    src_blk_stride, src_rep_stride, per_repeat)) {
        return;
    }
    const RepeatPlan plan = PlanFromMask(sizeof(T), is_set_mask, mask_bits, static_cast<uint64_t>(mask), bit_mode,
                                         static_cast<uint8_t>(repeat_time));
    if (plan.repeats == 0) {
        return;
    }
    const Layout src_layout{sizeof(T), static_cast<uint64_t>(src_blk_stride), static_cast<uint64_t>(src_rep_stride)};
    const uint64_t dst_step = static_cast<uint64_t>(dst_rep_stride) * dst_unit_bytes;
    const uint64_t dst_bytes = (plan.repeats - 1) * dst_step + groups * result_bytes;
    rt::VectorOp op(api);
    op.AllowOverlap();  // in place, and repeats whose results share bytes
    uint8_t* out = op.Write(dst.UbView(), dst_bytes, sizeof(T), dst_alignment);
    const uint8_t* in = op.Read(src.UbView(), Extent(plan, src_layout), sizeof(T));
    if (!op.Issue()) {
        return;
    }
    const uint8_t* in_shadow = op.Tracking() ? op.Shadow(in) : nullptr;
    const uint64_t group_elements = per_repeat / groups;
    GroupResult<T> results[::ascendc_cpu::kRepeatBytes / ::ascendc_cpu::kBlockBytes];
    for (uint64_t r = 0; r < plan.repeats; ++r) {
        for (uint64_t g = 0; g < groups; ++g) {
            const uint64_t first = g * group_elements;
            results[g] = kind == RepeatReduceKind::kSum
                             ? TreeSumGroup<T>(in, in_shadow, src_layout, plan, r, first, group_elements)
                             : ExtremeGroup<T>(in, in_shadow, src_layout, plan, r, first, group_elements,
                                               kind == RepeatReduceKind::kMax);
        }
        for (uint64_t g = 0; g < groups; ++g) {
            if (!results[g].any) {
                continue;  // See Note [Repeat reductions]: nothing written for an empty block
            }
            uint8_t* at = out + r * dst_step + g * result_bytes;
            store(at, results[g]);
            if (op.Tracking()) {
                rt::ShadowFill(op.Shadow(at), result_bytes, results[g].written);
            }
        }
    }
}

/// Stores a Max/Min result in the order asked for.
template <typename T>
inline void StoreValueIndex(uint8_t* at, const GroupResult<T>& result, ReduceOrder order)
{
    using Index = std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>;
    const Index index = static_cast<Index>(result.index);
    switch (order) {
        case ReduceOrder::ORDER_VALUE_INDEX:
            std::memcpy(at, &result.value, sizeof(T));
            std::memcpy(at + sizeof(T), &index, sizeof(index));
            break;
        case ReduceOrder::ORDER_INDEX_VALUE:
            std::memcpy(at, &index, sizeof(index));
            std::memcpy(at + sizeof(T), &result.value, sizeof(T));
            break;
        case ReduceOrder::ORDER_ONLY_VALUE: std::memcpy(at, &result.value, sizeof(T)); break;
        case ReduceOrder::ORDER_ONLY_INDEX: std::memcpy(at, &result.index, sizeof(uint32_t)); break;
    }
}

/// The bytes of one WholeReduceMax/Min result in this order.
template <typename T>
constexpr uint64_t ValueIndexBytes(ReduceOrder order)
{
    return order == ReduceOrder::ORDER_ONLY_VALUE ? sizeof(T)
                                                  : (order == ReduceOrder::ORDER_ONLY_INDEX ? sizeof(uint32_t)
                                                                                            : 2 * sizeof(T));
}

template <typename T>
inline void WholeReduceExtreme(const char* api, bool max, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                               bool is_set_mask, const uint64_t* mask_bits, int64_t mask, int64_t repeat_time,
                               int64_t dst_rep_stride, int64_t src_blk_stride, int64_t src_rep_stride,
                               ReduceOrder order)
{
    const uint64_t bytes = ValueIndexBytes<T>(order);
    RepeatReduce(api, max ? RepeatReduceKind::kMax : RepeatReduceKind::kMin, dst, src, is_set_mask, mask_bits, mask,
                 repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride, 1, bytes, bytes,
                 static_cast<uint32_t>(bytes), [order](uint8_t* at, const GroupResult<T>& result) {
                     StoreValueIndex(at, result, order);
                 });
}

template <typename T>
inline void StoreValue(uint8_t* at, const GroupResult<T>& result)
{
    std::memcpy(at, &result.value, sizeof(T));
}

template <typename T>
inline void WholeReduceSumImpl(const LocalTensor<T>& dst, const LocalTensor<T>& src, bool is_set_mask,
                               const uint64_t* mask_bits, int64_t mask, int64_t repeat_time, int64_t dst_rep_stride,
                               int64_t src_blk_stride, int64_t src_rep_stride)
{
    RepeatReduce("WholeReduceSum", RepeatReduceKind::kSum, dst, src, is_set_mask, mask_bits, mask, repeat_time,
                 dst_rep_stride, src_blk_stride, src_rep_stride, 1, sizeof(T), sizeof(T), sizeof(T), StoreValue<T>);
}

template <typename T>
inline void BlockReduce(const char* api, RepeatReduceKind kind, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                        bool is_set_mask, const uint64_t* mask_bits, int64_t mask, int64_t repeat_time,
                        int64_t dst_rep_stride, int64_t src_blk_stride, int64_t src_rep_stride)
{
    constexpr uint64_t blocks = ::ascendc_cpu::kRepeatBytes / ::ascendc_cpu::kBlockBytes;
    RepeatReduce(api, kind, dst, src, is_set_mask, mask_bits, mask, repeat_time, dst_rep_stride, src_blk_stride,
                 src_rep_stride, blocks, sizeof(T), blocks * sizeof(T), static_cast<uint32_t>(blocks * sizeof(T)),
                 StoreValue<T>);
}

}  // namespace detail

// --- one result per repeat --------------------------------------------------------------------------
template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride)
{
    detail::WholeReduceSumImpl(dst, src, isSetMask, mask, 0, repeatTime, dstRepStride, srcBlkStride, srcRepStride);
}
template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride)
{
    detail::WholeReduceSumImpl(dst, src, isSetMask, nullptr, mask, repeatTime, dstRepStride, srcBlkStride,
                               srcRepStride);
}

#define ASCENDC_CPU_WHOLE_REDUCE_EXTREME(NAME, IS_MAX)                                                           \
    template <typename T, bool isSetMask = true>                                                                  \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],                 \
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,            \
                     const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX)              \
    {                                                                                                             \
        detail::WholeReduceExtreme(#NAME, IS_MAX, dst, src, isSetMask, mask, 0, repeatTime, dstRepStride,         \
                                   srcBlkStride, srcRepStride, order);                                            \
    }                                                                                                             \
    template <typename T, bool isSetMask = true>                                                                  \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,                    \
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,            \
                     const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX)              \
    {                                                                                                             \
        detail::WholeReduceExtreme(#NAME, IS_MAX, dst, src, isSetMask, nullptr, mask, repeatTime, dstRepStride,   \
                                   srcBlkStride, srcRepStride, order);                                            \
    }

ASCENDC_CPU_WHOLE_REDUCE_EXTREME(WholeReduceMax, true)
ASCENDC_CPU_WHOLE_REDUCE_EXTREME(WholeReduceMin, false)
#undef ASCENDC_CPU_WHOLE_REDUCE_EXTREME

// --- one result per 32-byte data block (note: repeatTime comes before the mask) ----------------------
#define ASCENDC_CPU_BLOCK_REDUCE(NAME, KIND)                                                                       \
    template <typename T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,              \
                     const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,                \
                     const int32_t srcRepStride)                                                                   \
    {                                                                                                              \
        detail::BlockReduce(#NAME, detail::RepeatReduceKind::KIND, dst, src, isSetMask, mask, 0, repeatTime,       \
                            dstRepStride, srcBlkStride, srcRepStride);                                             \
    }                                                                                                              \
    template <typename T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,              \
                     const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,                   \
                     const int32_t srcRepStride)                                                                   \
    {                                                                                                              \
        detail::BlockReduce(#NAME, detail::RepeatReduceKind::KIND, dst, src, isSetMask, nullptr, mask, repeatTime, \
                            dstRepStride, srcBlkStride, srcRepStride);                                             \
    }

ASCENDC_CPU_BLOCK_REDUCE(BlockReduceSum, kSum)
ASCENDC_CPU_BLOCK_REDUCE(BlockReduceMax, kMax)
ASCENDC_CPU_BLOCK_REDUCE(BlockReduceMin, kMin)
#undef ASCENDC_CPU_BLOCK_REDUCE

}  // namespace AscendC

#endif  // ASCENDC_CPU_REPEAT_REDUCE_H
