// The mask/repeat forms of vector instructions ("高维切分"): `repeatTime` repeats of 256 bytes,
// each repeat 8 data blocks of 32 bytes, operands addressed by block and repeat strides (in 32-byte
// blocks), the elements of a repeat chosen by a mask: `mask` (the first `mask` elements), `mask[2]`
// (one bit per element) or, with isSetMask = false, what SetVectorMask set. In counter mode
// (SetMaskCount) the mask value is the number of elements over all repeats.
#ifndef ASCENDC_CPU_REPEAT_H
#define ASCENDC_CPU_REPEAT_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "ascendc_cpu/compare_reduce.h"
#include "ascendc_cpu/runtime.h"
#include "ascendc_cpu/tensor.h"
#include "ascendc_cpu/vector.h"

namespace AscendC {

struct UnaryRepeatParams {
    UnaryRepeatParams() {}
    UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn, const uint8_t dstRepStrideIn,
                      const uint8_t srcRepStrideIn)
        : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn),
          srcRepStride(srcRepStrideIn)
    {}
    UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn, const uint8_t dstRepStrideIn,
                      const uint8_t srcRepStrideIn, const bool halfBlockIn)
        : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn),
          srcRepStride(srcRepStrideIn), halfBlock(halfBlockIn)
    {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint16_t srcBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t srcRepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
    bool halfBlock = false;
};

struct BinaryRepeatParams {
    BinaryRepeatParams() {}
    BinaryRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t src0BlkStrideIn, const uint8_t src1BlkStrideIn,
                       const uint8_t dstRepStrideIn, const uint8_t src0RepStrideIn, const uint8_t src1RepStrideIn)
        : dstBlkStride(dstBlkStrideIn), src0BlkStride(src0BlkStrideIn), src1BlkStride(src1BlkStrideIn),
          dstRepStride(dstRepStrideIn), src0RepStride(src0RepStrideIn), src1RepStride(src1RepStrideIn)
    {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint8_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src0BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src1BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src0RepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };

constexpr uint64_t MASK_PLACEHOLDER = 0;
constexpr uint64_t MASK_PLACEHOLDER_LIST[2] = {0, 0};

template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow)
{
    ::ascendc_cpu::rt::SetVectorMaskBits(maskHigh, maskLow);
}

template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(int32_t len)
{
    ::ascendc_cpu::rt::SetVectorMaskLength(static_cast<uint64_t>(len), sizeof(T));
}

inline void SetMaskCount()
{
    ::ascendc_cpu::rt::SetMaskCounterMode(true);
}

inline void SetMaskNorm()
{
    ::ascendc_cpu::rt::SetMaskCounterMode(false);
}

inline void ResetMask()
{
    ::ascendc_cpu::rt::SetVectorMaskBits(~0ull, ~0ull);
}

namespace detail {

/// Which elements of which repeats an instruction processes, for an element type of `bytes`.
struct RepeatPlan {
    uint64_t per_repeat = 0;  // elements of a full repeat
    uint64_t repeats = 0;
    bool counter = false;     // counter mode: the first `count` elements over all repeats
    uint64_t count = 0;
    uint64_t bits[2] = {0, 0};  // normal mode: one bit per element of a repeat

    bool Active(uint64_t repeat, uint64_t j) const
    {
        if (counter) {
            return repeat * per_repeat + j < count;
        }
        return j < 128 && ((bits[j / 64] >> (j % 64)) & 1u) != 0;
    }
};

inline RepeatPlan PlanFromMask(uint32_t element_bytes, bool is_set_mask, const uint64_t* mask_bits,
                               uint64_t mask_length, bool bit_mode, uint8_t repeat_time)
{
    RepeatPlan plan;
    plan.per_repeat = ::ascendc_cpu::kRepeatBytes / element_bytes;
    uint64_t lo = 0;
    uint64_t hi = 0;
    bool counter = false;
    if (!is_set_mask) {
        ::ascendc_cpu::rt::VectorMaskState(&counter, &hi, &lo);
    } else if (bit_mode) {
        lo = mask_bits[0];
        hi = mask_bits[1];
    } else {
        const uint64_t m = std::min<uint64_t>(mask_length, plan.per_repeat);
        lo = m >= 64 ? ~0ull : ((1ull << m) - 1);
        hi = m <= 64 ? 0 : (m >= 128 ? ~0ull : ((1ull << (m - 64)) - 1));
    }
    if (counter) {
        plan.counter = true;
        plan.count = lo;
        plan.repeats = (lo + plan.per_repeat - 1) / plan.per_repeat;
    } else {
        plan.bits[0] = lo;
        plan.bits[1] = hi;
        plan.repeats = repeat_time;
    }
    return plan;
}

/// The plan from either form of an instruction's mask argument: `mask` (the first elements of each
/// repeat) or `mask[2]` (one bit per element).
inline RepeatPlan PlanOfMask(uint32_t element_bytes, bool is_set_mask, uint64_t mask, uint8_t repeat_time)
{
    return PlanFromMask(element_bytes, is_set_mask, nullptr, mask, false, repeat_time);
}
inline RepeatPlan PlanOfMask(uint32_t element_bytes, bool is_set_mask, const uint64_t* mask, uint8_t repeat_time)
{
    return PlanFromMask(element_bytes, is_set_mask, mask, 0, true, repeat_time);
}

/// Where an operand's element j of repeat r lies: strides in 32-byte blocks.
struct Layout {
    uint32_t element_bytes;
    uint64_t block_stride;
    uint64_t repeat_stride;
    uint64_t Offset(uint64_t repeat, uint64_t j) const
    {
        const uint64_t per_block = ::ascendc_cpu::kBlockBytes / element_bytes;
        return repeat * repeat_stride * ::ascendc_cpu::kBlockBytes +
               (j / per_block) * block_stride * ::ascendc_cpu::kBlockBytes + (j % per_block) * element_bytes;
    }
};

/// Calls f(r, j) for every active element j of every repeat r, repeats in order.
template <typename F>
inline void ForEachActive(const RepeatPlan& plan, F f)
{
    for (uint64_t r = 0; r < plan.repeats; ++r) {
        for (uint64_t j = 0; j < plan.per_repeat; ++j) {
            if (plan.Active(r, j)) {
                f(r, j);
            }
        }
    }
}

/// False (and the instruction reported when A2 lacks it for the type) unless it has work to do.
inline bool WillRun(const char* api, const RepeatPlan& plan, bool supported, const char* type)
{
    if (plan.repeats == 0) {
        return false;
    }
    if (!supported) {
        ::ascendc_cpu::rt::ReportUnsupportedType(api, type);
        return false;
    }
    return true;
}

/// The bytes from the operand's start up to its last active element's end.
inline uint64_t Extent(const RepeatPlan& plan, const Layout& layout)
{
    uint64_t end = 0;
    ForEachActive(plan, [&](uint64_t r, uint64_t j) { end = std::max(end, layout.Offset(r, j) + layout.element_bytes); });
    return end;
}

template <typename D, typename F, typename... S, size_t... I>
inline void RepeatedImpl(const char* api, const RepeatPlan& plan, const LocalTensor<D>& dst, const Layout& dst_layout,
                         F f, std::index_sequence<I...>, const std::pair<const LocalTensor<S>*, Layout>&... srcs)
{
    namespace rt = ::ascendc_cpu::rt;
    rt::VectorOp op(api);
    op.AllowOverlap();  // strided operands may interleave
    uint8_t* out = op.Write(dst.UbView(), Extent(plan, dst_layout), sizeof(D));
    const uint8_t* in[sizeof...(S) + 1] = {op.Read(srcs.first->UbView(), Extent(plan, srcs.second), sizeof(S))...,
                                           nullptr};
    const Layout layouts[sizeof...(S) + 1] = {srcs.second..., dst_layout};
    (void)in;
    (void)layouts;
    if (!op.Issue()) {
        return;
    }
    ForEachActive(plan, [&](uint64_t r, uint64_t j) {
        const uint64_t at = dst_layout.Offset(r, j);
        D value = f(*reinterpret_cast<const S*>(in[I] + layouts[I].Offset(r, j))...);
        std::memcpy(out + at, &value, sizeof(D));
        if (op.Tracking()) {
            const bool written = (true && ... && rt::ShadowAll(op.Shadow(in[I]) + layouts[I].Offset(r, j), sizeof(S)));
            rt::ShadowFill(op.Shadow(out) + at, sizeof(D), written);
        }
    });
}

/// dst(r, j) = f(src(r, j)...) for the active elements: one vector instruction.
template <typename D, typename F, typename... S>
inline void Repeated(const char* api, bool supported, const RepeatPlan& plan, const LocalTensor<D>& dst,
                     const Layout& dst_layout, F f, const std::pair<const LocalTensor<S>*, Layout>&... srcs)
{
    if (!WillRun(api, plan, supported, TypeName<D>())) {
        return;
    }
    RepeatedImpl(api, plan, dst, dst_layout, f, std::index_sequence_for<S...>{}, srcs...);
}

template <typename T>
inline Layout Unary(const UnaryRepeatParams& p, bool dst)
{
    return Layout{sizeof(T), dst ? p.dstBlkStride : p.srcBlkStride, dst ? p.dstRepStride : p.srcRepStride};
}

}  // namespace detail

#define ASCENDC_CPU_BINARY_REPEAT(NAME, SUPPORTED, EXPR)                                                              \
    namespace detail {                                                                                                \
    template <typename T>                                                                                             \
    inline void NAME##Repeated(const RepeatPlan& plan, const LocalTensor<T>& dst, const LocalTensor<T>& src0,         \
                               const LocalTensor<T>& src1, const BinaryRepeatParams& p)                               \
    {                                                                                                                 \
        using L = Lane<T>;                                                                                            \
        Repeated(                                                                                                     \
            #NAME, SUPPORTED, plan, dst, Layout{sizeof(T), p.dstBlkStride, p.dstRepStride},                           \
            [](T x, T y) {                                                                                            \
                const auto a = L::Load(x);                                                                            \
                const auto b = L::Load(y);                                                                            \
                return L::Store(EXPR);                                                                                \
            },                                                                                                        \
            std::pair<const LocalTensor<T>*, Layout>{&src0, {sizeof(T), p.src0BlkStride, p.src0RepStride}},           \
            std::pair<const LocalTensor<T>*, Layout>{&src1, {sizeof(T), p.src1BlkStride, p.src1RepStride}});          \
    }                                                                                                                 \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,               \
                     uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& p)                            \
    {                                                                                                                 \
        detail::NAME##Repeated(detail::PlanOfMask(sizeof(T), isSetMask, mask, repeatTime), dst,     \
                               src0, src1, p);                                                                        \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,               \
                     const uint64_t mask[], const uint8_t repeatTime, const BinaryRepeatParams& p)                    \
    {                                                                                                                 \
        detail::NAME##Repeated(detail::PlanOfMask(sizeof(T), isSetMask, mask, repeatTime), dst, src0,      \
                               src1, p);                                                                              \
    }

ASCENDC_CPU_BINARY_REPEAT(Add, detail::kArithmeticType<T>, a + b)
ASCENDC_CPU_BINARY_REPEAT(Sub, detail::kArithmeticType<T>, a - b)
ASCENDC_CPU_BINARY_REPEAT(Mul, detail::kArithmeticType<T>, a * b)
ASCENDC_CPU_BINARY_REPEAT(Div, detail::kFloatType<T>, a / b)
ASCENDC_CPU_BINARY_REPEAT(Max, detail::kArithmeticType<T>, detail::MaxOf(a, b))
ASCENDC_CPU_BINARY_REPEAT(Min, detail::kArithmeticType<T>, detail::MinOf(a, b))
#undef ASCENDC_CPU_BINARY_REPEAT

#define ASCENDC_CPU_UNARY_REPEAT(NAME, SUPPORTED, EXPR)                                                               \
    namespace detail {                                                                                                \
    template <typename T>                                                                                             \
    inline void NAME##Repeated(const RepeatPlan& plan, const LocalTensor<T>& dst, const LocalTensor<T>& src,          \
                               const UnaryRepeatParams& p)                                                            \
    {                                                                                                                 \
        using L = Lane<T>;                                                                                            \
        Repeated(                                                                                                     \
            #NAME, SUPPORTED, plan, dst, Unary<T>(p, true),                                                           \
            [](T x) {                                                                                                 \
                const auto a = L::Load(x);                                                                            \
                return L::Store(EXPR);                                                                                \
            },                                                                                                        \
            std::pair<const LocalTensor<T>*, Layout>{&src, Unary<T>(p, false)});                                      \
    }                                                                                                                 \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, const uint8_t repeatTime,   \
                     const UnaryRepeatParams& p)                                                                      \
    {                                                                                                                 \
        detail::NAME##Repeated(detail::PlanOfMask(sizeof(T), isSetMask, mask, repeatTime), dst,     \
                               src, p);                                                                               \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],                     \
                     const uint8_t repeatTime, const UnaryRepeatParams& p)                                            \
    {                                                                                                                 \
        detail::NAME##Repeated(detail::PlanOfMask(sizeof(T), isSetMask, mask, repeatTime), dst, src, p);   \
    }

ASCENDC_CPU_UNARY_REPEAT(Exp, detail::kFloatType<T>, static_cast<decltype(a)>(std::exp(static_cast<double>(a))))
ASCENDC_CPU_UNARY_REPEAT(Ln, detail::kFloatType<T>, static_cast<decltype(a)>(std::log(static_cast<double>(a))))
ASCENDC_CPU_UNARY_REPEAT(Abs, detail::kFloatType<T>, std::fabs(a))
ASCENDC_CPU_UNARY_REPEAT(Sqrt, detail::kFloatType<T>, std::sqrt(a))
ASCENDC_CPU_UNARY_REPEAT(Reciprocal, detail::kFloatType<T>, static_cast<decltype(a)>(1) / a)
ASCENDC_CPU_UNARY_REPEAT(Relu, (detail::kOneOf<T, half, int32_t, float>),
                         (detail::IsNan(a) ? a : (a > static_cast<decltype(a)>(0) ? a : static_cast<decltype(a)>(0))))
#undef ASCENDC_CPU_UNARY_REPEAT

#define ASCENDC_CPU_SCALAR_REPEAT(NAME, SUPPORTED, EXPR)                                                              \
    namespace detail {                                                                                                \
    template <typename T, typename S>                                                                                 \
    inline void NAME##Repeated(const RepeatPlan& plan, const LocalTensor<T>& dst, const LocalTensor<T>& src,          \
                               const S& scalarValue, const UnaryRepeatParams& p)                                      \
    {                                                                                                                 \
        using L = Lane<T>;                                                                                            \
        const auto s = L::Load(static_cast<T>(scalarValue));                                                          \
        Repeated(                                                                                                     \
            #NAME, SUPPORTED, plan, dst, Unary<T>(p, true),                                                           \
            [s](T x) {                                                                                                \
                const auto a = L::Load(x);                                                                            \
                return L::Store(EXPR);                                                                                \
            },                                                                                                        \
            std::pair<const LocalTensor<T>*, Layout>{&src, Unary<T>(p, false)});                                      \
    }                                                                                                                 \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true, typename S = T, typename = std::enable_if_t<detail::kScalarLike<S>>> \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const S& scalarValue, uint64_t mask,       \
                     const uint8_t repeatTime, const UnaryRepeatParams& p)                                            \
    {                                                                                                                 \
        detail::NAME##Repeated(detail::PlanOfMask(sizeof(T), isSetMask, mask, repeatTime), dst,     \
                               src, scalarValue, p);                                                                  \
    }                                                                                                                 \
    template <typename T, bool isSetMask = true, typename S = T, typename = std::enable_if_t<detail::kScalarLike<S>>> \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const S& scalarValue,                      \
                     const uint64_t mask[], const uint8_t repeatTime, const UnaryRepeatParams& p)                     \
    {                                                                                                                 \
        detail::NAME##Repeated(detail::PlanOfMask(sizeof(T), isSetMask, mask, repeatTime), dst, src,       \
                               scalarValue, p);                                                                       \
    }

ASCENDC_CPU_SCALAR_REPEAT(Adds, detail::kArithmeticType<T>, a + s)
ASCENDC_CPU_SCALAR_REPEAT(Muls, detail::kArithmeticType<T>, a * s)
ASCENDC_CPU_SCALAR_REPEAT(Maxs, detail::kArithmeticType<T>, detail::MaxOf(a, s))
ASCENDC_CPU_SCALAR_REPEAT(Mins, detail::kArithmeticType<T>, detail::MinOf(a, s))
#undef ASCENDC_CPU_SCALAR_REPEAT

/// Duplicate(dst, scalar, mask, repeatTime, dstBlockStride, dstRepeatStride).
template <typename T, bool isSetMask = true, typename S = T, typename = std::enable_if_t<detail::kScalarLike<S>>>
inline void Duplicate(const LocalTensor<T>& dst, const S& scalarValue, uint64_t mask, const uint8_t repeatTime,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride)
{
    const T value = static_cast<T>(scalarValue);
    const auto plan = detail::PlanFromMask(sizeof(T), isSetMask, nullptr, mask, false, repeatTime);
    detail::Repeated("Duplicate", detail::kOneOf<T, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float>,
                     plan, dst, detail::Layout{sizeof(T), dstBlockStride, dstRepeatStride}, [value]() { return value; });
}

/// Cast(dst, src, roundMode, mask, repeatTime, UnaryRepeatParams): the mask counts elements of the
/// wider of the two types.
template <typename T, typename U, bool isSetMask = true>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode, uint64_t mask,
                 const uint8_t repeatTime, const UnaryRepeatParams& p)
{
    constexpr unsigned modes = detail::CastModes<T, U>();
    const unsigned mode_index = static_cast<unsigned>(roundMode);
    if (mode_index > static_cast<unsigned>(RoundMode::CAST_ODD) || (modes & (1u << mode_index)) == 0) {
        ::ascendc_cpu::rt::ReportUnsupportedCast("Cast", detail::TypeName<U>(), detail::TypeName<T>(),
                                                 static_cast<int>(roundMode), modes == 0);
        return;
    }
    const auto r = detail::RoundingOf(roundMode);
    const uint32_t wider = static_cast<uint32_t>(sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U));
    const auto plan = detail::PlanFromMask(wider, isSetMask, nullptr, mask, false, repeatTime);
    detail::Repeated(
        "Cast", true, plan, dst, detail::Layout{sizeof(T), p.dstBlkStride, p.dstRepStride},
        [r](U v) { return detail::Convert<T>(v, r); },
        std::pair<const LocalTensor<U>*, detail::Layout>{&src, {sizeof(U), p.srcBlkStride, p.srcRepStride}});
}

namespace detail {

/// Compare/Compares with mask and repeats: the result bits of repeat r start at bit
/// r * (256 / sizeof(T)) of dst.
template <typename T, typename U, typename Rhs>
inline void CompareRepeated(const char* api, const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                            const LocalTensor<T>* src1, const Layout& l0, const Layout& l1, CMPMODE mode,
                            const RepeatPlan& plan, Rhs rhs)
{
    namespace rt = ::ascendc_cpu::rt;
    if (!WillRun(api, plan, kOneOf<T, half, float> || (std::is_same<T, int32_t>::value && mode == CMPMODE::EQ),
                 TypeName<T>())) {
        return;
    }
    rt::VectorOp op(api);
    op.AllowOverlap();
    const uint64_t bits = plan.repeats * plan.per_repeat;
    uint8_t* out = op.Write(dst.UbView(), (bits + 7) / 8, 1);
    const uint8_t* a = op.Read(src0.UbView(), Extent(plan, l0), sizeof(T));
    const uint8_t* b = src1 != nullptr ? op.Read(src1->UbView(), Extent(plan, l1), sizeof(T)) : nullptr;
    if (!op.Issue()) {
        return;
    }
    ForEachActive(plan, [&](uint64_t r, uint64_t j) {
        const uint64_t bit = r * plan.per_repeat + j;
        const T x = *reinterpret_cast<const T*>(a + l0.Offset(r, j));
        const bool result = CompareValues(Lane<T>::Load(x), rhs(b, l1.Offset(r, j)), mode);
        out[bit / 8] = static_cast<uint8_t>((out[bit / 8] & ~(1u << (bit % 8))) | (unsigned(result) << (bit % 8)));
        if (op.Tracking()) {
            const bool written = rt::ShadowAll(op.Shadow(a) + l0.Offset(r, j), sizeof(T)) &&
                                 (b == nullptr || rt::ShadowAll(op.Shadow(b) + l1.Offset(r, j), sizeof(T)));
            uint8_t* shadow = op.Shadow(out) + bit / 8;
            *shadow = (bit % 8 == 0 || *shadow != 0) && written ? 0xff : 0;
        }
    });
}

}  // namespace detail

namespace detail {

template <typename T, typename U>
inline void CompareTensorsRepeated(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                                   CMPMODE mode, const RepeatPlan& plan, const BinaryRepeatParams& p)
{
    CompareRepeated("Compare", dst, src0, &src1, Layout{sizeof(T), p.src0BlkStride, p.src0RepStride},
                    Layout{sizeof(T), p.src1BlkStride, p.src1RepStride}, mode, plan,
                    [](const uint8_t* y, uint64_t at) { return Lane<T>::Load(*reinterpret_cast<const T*>(y + at)); });
}

template <typename T, typename U, typename S>
inline void CompareScalarRepeated(const char* api, const LocalTensor<U>& dst, const LocalTensor<T>& src0, S scalar,
                                  CMPMODE mode, const RepeatPlan& plan, const UnaryRepeatParams& p)
{
    const auto s = Lane<T>::Load(static_cast<T>(scalar));
    CompareRepeated(api, dst, src0, static_cast<const LocalTensor<T>*>(nullptr), Unary<T>(p, false),
                    Unary<T>(p, false), mode, plan, [s](const uint8_t*, uint64_t) { return s; });
}

}  // namespace detail

template <typename T, typename U, bool isSetMask = true>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                    uint64_t mask, uint8_t repeatTime, const BinaryRepeatParams& p)
{
    detail::CompareTensorsRepeated(dst, src0, src1, cmpMode, detail::PlanOfMask(sizeof(T), isSetMask, mask, repeatTime), p);
}

template <typename T, typename U, bool isSetMask = true>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                    const uint64_t mask[], uint8_t repeatTime, const BinaryRepeatParams& p)
{
    detail::CompareTensorsRepeated(dst, src0, src1, cmpMode, detail::PlanOfMask(sizeof(T), isSetMask, mask, repeatTime), p);
}

#define ASCENDC_CPU_COMPARES_REPEAT(NAME, MASK_TYPE)                                                                 \
    template <typename T, typename U, bool isSetMask = true, typename S = T,                                        \
              typename = std::enable_if_t<detail::kScalarLike<S>>>                                                   \
    inline void NAME(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const S src1Scalar, CMPMODE cmpMode,    \
                     MASK_TYPE mask, uint8_t repeatTime, const UnaryRepeatParams& p)                                 \
    {                                                                                                                \
        detail::CompareScalarRepeated(#NAME, dst, src0, src1Scalar, cmpMode,                                         \
                                      detail::PlanOfMask(sizeof(T), isSetMask, mask, repeatTime), p);                \
    }

ASCENDC_CPU_COMPARES_REPEAT(Compares, uint64_t)
ASCENDC_CPU_COMPARES_REPEAT(Compares, const uint64_t*)
ASCENDC_CPU_COMPARES_REPEAT(CompareScalar, uint64_t)
ASCENDC_CPU_COMPARES_REPEAT(CompareScalar, const uint64_t*)
#undef ASCENDC_CPU_COMPARES_REPEAT

namespace detail {

/// Select with mask and repeats: element j of repeat r takes its mask bit j (mode 0: the first
/// 256/sizeof(T) bits in every repeat) or r * (256/sizeof(T)) + j (modes 1 and 2).
template <typename T, typename U, typename Other>
inline void SelectRepeated(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                           const LocalTensor<T>* src1, SELMODE selMode, const RepeatPlan& plan,
                           const BinaryRepeatParams& p, Other other)
{
    namespace rt = ::ascendc_cpu::rt;
    if (!WillRun("Select", plan, kOneOf<T, half, float>, TypeName<T>())) {
        return;
    }
    const Layout ld{sizeof(T), p.dstBlkStride, p.dstRepStride};
    const Layout l0{sizeof(T), p.src0BlkStride, p.src0RepStride};
    const Layout l1{sizeof(T), p.src1BlkStride, p.src1RepStride};
    const bool reuse = selMode == SELMODE::VSEL_CMPMASK_SPR;
    const uint64_t mask_bits = reuse ? plan.per_repeat : plan.repeats * plan.per_repeat;
    rt::VectorOp op("Select");
    op.AllowOverlap();
    uint8_t* out = op.Write(dst.UbView(), Extent(plan, ld), sizeof(T));
    const uint8_t* mask = op.Read(selMask.UbView(), (mask_bits + 7) / 8, 1);
    const uint8_t* a = op.Read(src0.UbView(), Extent(plan, l0), sizeof(T));
    const uint8_t* b = src1 != nullptr ? op.Read(src1->UbView(), Extent(plan, l1), sizeof(T)) : nullptr;
    if (!op.Issue()) {
        return;
    }
    ForEachActive(plan, [&](uint64_t r, uint64_t j) {
        const uint64_t bit = reuse ? j : r * plan.per_repeat + j;
        const bool take_src0 = ((mask[bit / 8] >> (bit % 8)) & 1u) != 0;
        const T value = take_src0 ? *reinterpret_cast<const T*>(a + l0.Offset(r, j)) : other(b, l1.Offset(r, j));
        std::memcpy(out + ld.Offset(r, j), &value, sizeof(T));
        if (op.Tracking()) {
            const bool written = op.Shadow(mask)[bit / 8] != 0 &&
                                 rt::ShadowAll(op.Shadow(a) + l0.Offset(r, j), sizeof(T)) &&
                                 (b == nullptr || rt::ShadowAll(op.Shadow(b) + l1.Offset(r, j), sizeof(T)));
            rt::ShadowFill(op.Shadow(out) + ld.Offset(r, j), sizeof(T), written);
        }
    });
}

}  // namespace detail

#define ASCENDC_CPU_SELECT_REPEAT(MASK_TYPE)                                                                         \
    template <typename T, typename U, bool isSetMask = true>                                                         \
    inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,        \
                       const LocalTensor<T>& src1, SELMODE selMode, MASK_TYPE mask, uint8_t repeatTime,             \
                       const BinaryRepeatParams& p)                                                                  \
    {                                                                                                                \
        detail::SelectRepeated(dst, selMask, src0, &src1, selMode,                                                   \
                               detail::PlanOfMask(sizeof(T), isSetMask, mask, repeatTime), p,                        \
                               [](const uint8_t* y, uint64_t at) { return *reinterpret_cast<const T*>(y + at); });  \
    }                                                                                                                \
    template <typename T, typename U, bool isSetMask = true, typename S = T,                                        \
              typename = std::enable_if_t<detail::kScalarLike<S>>>                                                   \
    inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,        \
                       S src1, SELMODE selMode, MASK_TYPE mask, uint8_t repeatTime, const BinaryRepeatParams& p)    \
    {                                                                                                                \
        const T value = static_cast<T>(src1);                                                                        \
        detail::SelectRepeated(dst, selMask, src0, static_cast<const LocalTensor<T>*>(nullptr), selMode,             \
                               detail::PlanOfMask(sizeof(T), isSetMask, mask, repeatTime), p,                        \
                               [value](const uint8_t*, uint64_t) { return value; });                                 \
    }

ASCENDC_CPU_SELECT_REPEAT(uint64_t)
ASCENDC_CPU_SELECT_REPEAT(const uint64_t*)
#undef ASCENDC_CPU_SELECT_REPEAT

}  // namespace AscendC

#endif  // ASCENDC_CPU_REPEAT_H
