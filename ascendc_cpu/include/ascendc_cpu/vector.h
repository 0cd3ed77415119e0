// The vector instructions ("tensor前n个数据计算" forms: the first `count` elements), with the data
// types Atlas A2 supports for each. An instruction A2 lacks for a type is reported (unsupported)
// and not executed. Arithmetic: see README "Numbers".
#ifndef ASCENDC_CPU_VECTOR_H
#define ASCENDC_CPU_VECTOR_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>

#include "ascendc_cpu/number_formats.h"
#include "ascendc_cpu/runtime.h"
#include "ascendc_cpu/tensor.h"

namespace AscendC {
namespace detail {

template <typename T, typename... Ts>
constexpr bool kOneOf = (std::is_same<T, Ts>::value || ...);

template <typename T>
constexpr bool kScalarLike = std::is_arithmetic<T>::value || std::is_same<T, half>::value ||
                             std::is_same<T, bfloat16_t>::value;

/// How the vector unit computes in element type T: values are widened (exactly) to `Wide`, the
/// operation is done there, and the result is rounded to T once (nearest even for half).
template <typename T>
struct Lane {
    using Wide = T;
    static Wide Load(T v) { return v; }
    static T Store(Wide w) { return w; }
};
template <>
struct Lane<half> {
    using Wide = double;  // +,-,*,/ of two halves are exact or correctly rounded in double
    static Wide Load(half v) { return static_cast<float>(v); }
    static half Store(Wide w) { return half(w); }
};
template <>
struct Lane<int16_t> {
    using Wide = int32_t;
    static Wide Load(int16_t v) { return v; }
    static int16_t Store(Wide w) { return static_cast<int16_t>(static_cast<uint16_t>(static_cast<uint32_t>(w))); }
};
template <>
struct Lane<int32_t> {
    using Wide = int64_t;
    static Wide Load(int32_t v) { return v; }
    static int32_t Store(Wide w) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(w))); }
};

template <typename W>
inline bool IsNan(W v)
{
    if constexpr (std::is_floating_point<W>::value) {
        return v != v;
    } else {
        return false;
    }
}

template <typename T>
inline const char* TypeName()
{
    if constexpr (std::is_same<T, float>::value) {
        return "float";
    } else if constexpr (std::is_same<T, half>::value) {
        return "half";
    } else if constexpr (std::is_same<T, bfloat16_t>::value) {
        return "bfloat16_t";
    } else if constexpr (std::is_same<T, int32_t>::value) {
        return "int32_t";
    } else if constexpr (std::is_same<T, uint32_t>::value) {
        return "uint32_t";
    } else if constexpr (std::is_same<T, int16_t>::value) {
        return "int16_t";
    } else if constexpr (std::is_same<T, uint16_t>::value) {
        return "uint16_t";
    } else if constexpr (std::is_same<T, int8_t>::value) {
        return "int8_t";
    } else if constexpr (std::is_same<T, uint8_t>::value) {
        return "uint8_t";
    } else if constexpr (std::is_same<T, int64_t>::value) {
        return "int64_t";
    } else if constexpr (std::is_same<T, uint64_t>::value) {
        return "uint64_t";
    } else if constexpr (std::is_same<T, double>::value) {
        return "double";
    } else {
        return "this type";
    }
}

/// The element loop of a vector instruction, compiled for the baseline and, on x86-64, for AVX2
/// and AVX-512, chosen at run time (rt::SimdLevel). The element function is the same in all three
/// and uses no operation whose result depends on the vector width; no multiply-add contraction
/// (ASCENDC_CPU_NO_CONTRACT; clang: the element functions' own pragmas), so the bits are the same.
#define ASCENDC_CPU_ELEMENT_LOOP(name, attributes)                                                    \
    template <typename D, typename F, typename... S>                                                  \
    attributes ASCENDC_CPU_NO_CONTRACT void name(D* d, uint64_t count, const F& f, const S*... srcs) \
    {                                                                                                 \
        for (uint64_t i = 0; i < count; ++i) {                                                        \
            d[i] = f(srcs[i]...);                                                                     \
        }                                                                                             \
    }
ASCENDC_CPU_ELEMENT_LOOP(ElementLoopBaseline, inline)
#if ASCENDC_CPU_SIMD_DISPATCH
ASCENDC_CPU_ELEMENT_LOOP(ElementLoopAvx2, __attribute__((target("avx2"))))
ASCENDC_CPU_ELEMENT_LOOP(ElementLoopAvx512, __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))))
#endif
#undef ASCENDC_CPU_ELEMENT_LOOP

template <typename D, typename F, typename... S>
inline void ElementLoop(D* d, uint64_t count, const F& f, const S*... srcs)
{
#if ASCENDC_CPU_SIMD_DISPATCH
    switch (::ascendc_cpu::rt::SimdLevel()) {
        case ::ascendc_cpu::rt::kSimdAvx512: ElementLoopAvx512(d, count, f, srcs...); return;
        case ::ascendc_cpu::rt::kSimdAvx2: ElementLoopAvx2(d, count, f, srcs...); return;
        default: break;
    }
#endif
    ElementLoopBaseline(d, count, f, srcs...);
}

/// dst[i] = f(src[i]...) for i < count, as one vector instruction.
template <typename D, typename F, typename... S, size_t... I>
inline void ElementwiseImpl(const char* api, const LocalTensor<D>& dst, uint64_t count, F&& f,
                            std::index_sequence<I...>, const LocalTensor<S>&... srcs)
{
    namespace rt = ::ascendc_cpu::rt;
    rt::VectorOp op(api);
    uint8_t* out = op.Write(dst.UbView(), count * sizeof(D), sizeof(D));
    // One extra slot keeps the arrays non-empty for instructions without sources (Duplicate).
    const uint8_t* in[sizeof...(S) + 1] = {op.Read(srcs.UbView(), count * sizeof(S), sizeof(S))..., nullptr};
    (void)in;  // unused by instructions without sources
    if (!op.Issue()) {
        return;
    }
    if (op.Tracking()) {
        const uint8_t* shadows[sizeof...(S) + 1] = {op.Shadow(in[I])..., nullptr};
        const uint32_t sizes[sizeof...(S) + 1] = {static_cast<uint32_t>(sizeof(S))..., 0};
        rt::ShadowElementwise(op.Shadow(out), sizeof(D), shadows, sizes, sizeof...(S), count);
    }
    ElementLoop(reinterpret_cast<D*>(out), count, f, reinterpret_cast<const S*>(in[I])...);
}

template <typename D, typename F, typename... S>
inline void Elementwise(const char* api, bool supported, const LocalTensor<D>& dst, uint64_t count, F&& f,
                        const LocalTensor<S>&... srcs)
{
    if (count == 0) {
        return;  // a count of 0 is a NOP
    }
    if (!supported) {
        ::ascendc_cpu::rt::ReportUnsupportedType(api, TypeName<D>());
        return;
    }
    ElementwiseImpl(api, dst, count, std::forward<F>(f), std::index_sequence_for<S...>{}, srcs...);
}

template <typename T>
constexpr bool kArithmeticType = kOneOf<T, int16_t, half, int32_t, float>;
template <typename T>
constexpr bool kFloatType = kOneOf<T, half, float>;

template <typename T, typename Op>
inline void Binary(const char* api, bool supported, const LocalTensor<T>& dst, const LocalTensor<T>& a,
                   const LocalTensor<T>& b, uint64_t count, Op op)
{
    using L = Lane<T>;
    Elementwise(
        api, supported, dst, count, [op](T x, T y) { return L::Store(op(L::Load(x), L::Load(y))); }, a, b);
}

template <typename T, typename Op>
inline void Unary(const char* api, bool supported, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                  uint64_t count, Op op)
{
    using L = Lane<T>;
    Elementwise(
        api, supported, dst, count, [op](T x) { return L::Store(op(L::Load(x))); }, src);
}

template <typename W>
inline W MaxOf(W a, W b)
{
    if (IsNan(a) || IsNan(b)) {
        return IsNan(a) ? a : b;
    }
    return a > b ? a : b;
}

template <typename W>
inline W MinOf(W a, W b)
{
    if (IsNan(a) || IsNan(b)) {
        return IsNan(a) ? a : b;
    }
    return a < b ? a : b;
}

/// Transcendental functions are computed in double and rounded once (README, "Numbers").
template <typename W, typename F>
inline W ViaDouble(W x, F f)
{
    if constexpr (std::is_same<W, double>::value) {
        return f(x);  // half's lane: rounded once, to half, when stored
    } else {
        return static_cast<W>(static_cast<float>(f(static_cast<double>(x))));
    }
}

/// exp(x) of a float as the correctly rounded float, but for inputs within 1e-13 (relative) of a
/// tie: computed in double (Taylor series of exp(r) to degree 11 for |r| <= ln2/2, times 2^k from
/// exponent bits) and rounded once. Written with masks instead of branches so that the loop around
/// it vectorises; NaN passes through (quieted), the range is clamped to +-160 so that the result
/// overflows to infinity or underflows to zero as it should.
inline float ExpFloat(float x)
{
#ifdef __clang__
#pragma clang fp contract(off)
#endif
    constexpr double kLog2e = 1.4426950408889634;
    constexpr double kLn2 = 0.6931471805599453;
    constexpr double kRound = 0x1.8p52;                     // adding and subtracting it rounds to an integer
    constexpr uint64_t kRoundBits = 0x4338000000000000ull;  // its bits
    constexpr uint32_t kLimitBits = 0x43200000u;            // 160.0f
    uint32_t x_bits;
    std::memcpy(&x_bits, &x, sizeof(x_bits));
    const uint32_t magnitude = x_bits & 0x7fffffffu;
    const uint32_t beyond = 0u - static_cast<uint32_t>(magnitude > kLimitBits);
    const uint32_t clamped_bits = (((x_bits & 0x80000000u) | kLimitBits) & beyond) | (x_bits & ~beyond);
    float clamped;
    std::memcpy(&clamped, &clamped_bits, sizeof(clamped));
    const double c = clamped;
    const double shifted = c * kLog2e + kRound;  // k sits in the low mantissa bits
    const double k = shifted - kRound;
    const double r = c - k * kLn2;
    double p = 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    uint64_t shifted_bits;
    std::memcpy(&shifted_bits, &shifted, sizeof(shifted_bits));
    const uint64_t scale_bits = (shifted_bits - kRoundBits + 1023) << 52;  // 2^k with integer lanes only
    double scale;
    std::memcpy(&scale, &scale_bits, sizeof(scale));
    const float result = static_cast<float>(p * scale);
    uint32_t result_bits;
    std::memcpy(&result_bits, &result, sizeof(result_bits));
    const uint32_t nan = 0u - static_cast<uint32_t>(magnitude > 0x7f800000u);
    const uint32_t out_bits = ((x_bits | 0x00400000u) & nan) | (result_bits & ~nan);
    float out;
    std::memcpy(&out, &out_bits, sizeof(out));
    return out;
}

}  // namespace detail

// --- two tensors ------------------------------------------------------------------------------------
template <typename T>
inline void Add(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const int32_t& count)
{
    detail::Binary("Add", detail::kArithmeticType<T>, dst, src0, src1, count, [](auto a, auto b) { return a + b; });
}
template <typename T>
inline void Sub(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const int32_t& count)
{
    detail::Binary("Sub", detail::kArithmeticType<T>, dst, src0, src1, count, [](auto a, auto b) { return a - b; });
}
template <typename T>
inline void Mul(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const int32_t& count)
{
    detail::Binary("Mul", detail::kArithmeticType<T>, dst, src0, src1, count, [](auto a, auto b) { return a * b; });
}
template <typename T>
inline void Div(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const int32_t& count)
{
    detail::Binary("Div", detail::kFloatType<T>, dst, src0, src1, count, [](auto a, auto b) { return a / b; });
}
template <typename T>
inline void Max(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const int32_t& count)
{
    detail::Binary("Max", detail::kArithmeticType<T>, dst, src0, src1, count,
                   [](auto a, auto b) { return detail::MaxOf(a, b); });
}
template <typename T>
inline void Min(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const int32_t& count)
{
    detail::Binary("Min", detail::kArithmeticType<T>, dst, src0, src1, count,
                   [](auto a, auto b) { return detail::MinOf(a, b); });
}

// --- a tensor and a scalar ----------------------------------------------------------------------------
template <typename T, typename S, typename = std::enable_if_t<detail::kScalarLike<S>>>
inline void Adds(const LocalTensor<T>& dst, const LocalTensor<T>& src, const S& scalarValue, const int32_t& count)
{
    const auto s = detail::Lane<T>::Load(static_cast<T>(scalarValue));
    detail::Unary("Adds", detail::kArithmeticType<T>, dst, src, count, [s](auto a) { return a + s; });
}
template <typename T, typename S, typename = std::enable_if_t<detail::kScalarLike<S>>>
inline void Muls(const LocalTensor<T>& dst, const LocalTensor<T>& src, const S& scalarValue, const int32_t& count)
{
    const auto s = detail::Lane<T>::Load(static_cast<T>(scalarValue));
    detail::Unary("Muls", detail::kArithmeticType<T>, dst, src, count, [s](auto a) { return a * s; });
}
template <typename T, typename S, typename = std::enable_if_t<detail::kScalarLike<S>>>
inline void Maxs(const LocalTensor<T>& dst, const LocalTensor<T>& src, const S& scalarValue, const int32_t& count)
{
    const auto s = detail::Lane<T>::Load(static_cast<T>(scalarValue));
    detail::Unary("Maxs", detail::kArithmeticType<T>, dst, src, count, [s](auto a) { return detail::MaxOf(a, s); });
}
template <typename T, typename S, typename = std::enable_if_t<detail::kScalarLike<S>>>
inline void Mins(const LocalTensor<T>& dst, const LocalTensor<T>& src, const S& scalarValue, const int32_t& count)
{
    const auto s = detail::Lane<T>::Load(static_cast<T>(scalarValue));
    detail::Unary("Mins", detail::kArithmeticType<T>, dst, src, count, [s](auto a) { return detail::MinOf(a, s); });
}

// --- one tensor -------------------------------------------------------------------------------------------
template <typename T>
inline void Exp(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)
{
    detail::Unary("Exp", detail::kFloatType<T>, dst, src, count,
                  [](auto a) {
                      if constexpr (std::is_same<decltype(a), float>::value) {
                          return detail::ExpFloat(a);
                      } else {
                          return detail::ViaDouble(a, [](double x) { return std::exp(x); });
                      }
                  });
}
template <typename T>
inline void Ln(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)
{
    detail::Unary("Ln", detail::kFloatType<T>, dst, src, count,
                  [](auto a) { return detail::ViaDouble(a, [](double x) { return std::log(x); }); });
}
template <typename T>
inline void Sqrt(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)
{
    detail::Unary("Sqrt", detail::kFloatType<T>, dst, src, count, [](auto a) { return std::sqrt(a); });
}
template <typename T>
inline void Rsqrt(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)
{
    detail::Unary("Rsqrt", detail::kFloatType<T>, dst, src, count,
                  [](auto a) { return static_cast<decltype(a)>(1) / std::sqrt(a); });
}
template <typename T>
inline void Reciprocal(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)
{
    detail::Unary("Reciprocal", detail::kFloatType<T>, dst, src, count,
                  [](auto a) { return static_cast<decltype(a)>(1) / a; });
}
template <typename T>
inline void Abs(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)
{
    detail::Unary("Abs", detail::kFloatType<T>, dst, src, count, [](auto a) { return std::fabs(a); });
}
template <typename T>
inline void Relu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)
{
    detail::Unary("Relu", detail::kOneOf<T, half, int32_t, float>, dst, src, count, [](auto a) {
        using W = decltype(a);
        return detail::IsNan(a) ? a : (a > static_cast<W>(0) ? a : static_cast<W>(0));
    });
}

// --- fill -------------------------------------------------------------------------------------------------
template <typename T, typename S, typename = std::enable_if_t<detail::kScalarLike<S>>>
inline void Duplicate(const LocalTensor<T>& dst, const S& scalarValue, const int32_t& count)
{
    const T value = static_cast<T>(scalarValue);
    detail::Elementwise("Duplicate", detail::kOneOf<T, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float>,
                        dst, count, [value]() { return value; });
}

// --- Cast -------------------------------------------------------------------------------------------------
namespace detail {

constexpr unsigned kModeNone = 1u << static_cast<unsigned>(RoundMode::CAST_NONE);
constexpr unsigned kModesRounding = (1u << static_cast<unsigned>(RoundMode::CAST_RINT)) |
                                    (1u << static_cast<unsigned>(RoundMode::CAST_FLOOR)) |
                                    (1u << static_cast<unsigned>(RoundMode::CAST_CEIL)) |
                                    (1u << static_cast<unsigned>(RoundMode::CAST_ROUND)) |
                                    (1u << static_cast<unsigned>(RoundMode::CAST_TRUNC));
constexpr unsigned kModeOdd = 1u << static_cast<unsigned>(RoundMode::CAST_ODD);

/// The round modes Atlas A2's Cast accepts for dst type D from src type S (the AscendC Cast
/// documentation's table for Atlas A2); 0 if A2 has no such conversion.
template <typename D, typename S>
constexpr unsigned CastModes()
{
    if constexpr (std::is_same<S, half>::value) {
        if constexpr (std::is_same<D, float>::value) return kModeNone;
        if constexpr (kOneOf<D, int8_t, uint8_t>) return kModesRounding | kModeNone;
        if constexpr (kOneOf<D, int16_t, int32_t>) return kModesRounding;
    } else if constexpr (std::is_same<S, bfloat16_t>::value) {
        if constexpr (std::is_same<D, float>::value) return kModeNone;
        if constexpr (std::is_same<D, int32_t>::value) return kModesRounding;
    } else if constexpr (std::is_same<S, float>::value) {
        if constexpr (std::is_same<D, half>::value) return kModesRounding | kModeOdd | kModeNone;
        if constexpr (kOneOf<D, bfloat16_t, float, int16_t, int32_t, int64_t>) return kModesRounding;
    } else if constexpr (std::is_same<S, int32_t>::value) {
        if constexpr (std::is_same<D, float>::value) return kModesRounding | kModeNone;
        if constexpr (kOneOf<D, int16_t, int64_t>) return kModeNone;
    } else if constexpr (std::is_same<S, int16_t>::value) {
        if constexpr (std::is_same<D, half>::value) return kModesRounding | kModeNone;
        if constexpr (std::is_same<D, float>::value) return kModeNone;
    } else if constexpr (kOneOf<S, int8_t, uint8_t>) {
        if constexpr (std::is_same<D, half>::value) return kModeNone;
    } else if constexpr (std::is_same<S, int64_t>::value) {
        if constexpr (std::is_same<D, int32_t>::value) return kModeNone;
        if constexpr (std::is_same<D, float>::value) return kModesRounding;
    }
    return 0;
}

inline ::ascendc_cpu::numbers::Rounding RoundingOf(RoundMode mode)
{
    using ::ascendc_cpu::numbers::Rounding;
    switch (mode) {
        case RoundMode::CAST_FLOOR: return Rounding::kFloor;
        case RoundMode::CAST_CEIL: return Rounding::kCeil;
        case RoundMode::CAST_ROUND: return Rounding::kNearestAway;
        case RoundMode::CAST_TRUNC: return Rounding::kTowardZero;
        case RoundMode::CAST_ODD: return Rounding::kOdd;
        default: return Rounding::kNearestEven;  // CAST_RINT, and CAST_NONE where precision is lost
    }
}

template <typename S>
inline ::ascendc_cpu::numbers::Decomposed DecomposeValue(S v)
{
    if constexpr (std::is_same<S, half>::value || std::is_same<S, bfloat16_t>::value) {
        return ::ascendc_cpu::numbers::Decompose(static_cast<float>(v));
    } else {
        return ::ascendc_cpu::numbers::DecomposeArithmetic(v);
    }
}

/// Converts one value in rounding mode `r`; integer results saturate, NaN becomes 0.
template <typename D, typename S>
inline D Convert(S v, ::ascendc_cpu::numbers::Rounding r)
{
    namespace nf = ::ascendc_cpu::numbers;
    if constexpr (std::is_same<D, half>::value) {
        return half::FromBits(static_cast<uint16_t>(nf::RoundToFormat<10, 5>(DecomposeValue(v), r)));
    } else if constexpr (std::is_same<D, bfloat16_t>::value) {
        return bfloat16_t::FromBits(static_cast<uint16_t>(nf::RoundToFormat<7, 8>(DecomposeValue(v), r)));
    } else if constexpr (std::is_same<D, float>::value && std::is_same<S, float>::value) {
        // float -> float rounds to an integral value.
        switch (r) {
            case nf::Rounding::kFloor: return std::floor(v);
            case nf::Rounding::kCeil: return std::ceil(v);
            case nf::Rounding::kNearestAway: return std::round(v);
            case nf::Rounding::kTowardZero: return std::trunc(v);
            default: return std::nearbyint(v);
        }
    } else if constexpr (std::is_same<D, float>::value) {
        const uint32_t bits = static_cast<uint32_t>(nf::RoundToFormat<23, 8>(DecomposeValue(v), r));
        float out;
        std::memcpy(&out, &bits, sizeof(out));
        return out;
    } else if constexpr (std::is_integral<S>::value) {
        using Limits = std::numeric_limits<D>;
        if (static_cast<long double>(v) > static_cast<long double>(Limits::max())) return Limits::max();
        if (static_cast<long double>(v) < static_cast<long double>(Limits::lowest())) return Limits::lowest();
        return static_cast<D>(v);
    } else {
        const double x = static_cast<float>(v);
        if (x != x) {
            return 0;
        }
        double rounded;
        switch (r) {
            case nf::Rounding::kFloor: rounded = std::floor(x); break;
            case nf::Rounding::kCeil: rounded = std::ceil(x); break;
            case nf::Rounding::kNearestAway: rounded = std::round(x); break;
            case nf::Rounding::kTowardZero: rounded = std::trunc(x); break;
            default: rounded = std::nearbyint(x); break;
        }
        using Limits = std::numeric_limits<D>;
        if (rounded >= static_cast<double>(Limits::max())) return Limits::max();
        if (rounded <= static_cast<double>(Limits::lowest())) return Limits::lowest();
        return static_cast<D>(rounded);
    }
}

/// float -> int32_t, nearest with ties to even, saturating, NaN to 0: Convert<int32_t>(v,
/// kNearestEven). Below 2^23 in magnitude, adding and subtracting 2^23 rounds to an integer in the
/// default rounding mode (nearest-even); from 2^23 up every float is an integer already.
inline int32_t RintToInt32(float v)
{
    if (v != v) {
        return 0;
    }
    const float magnitude = std::fabs(v);
    float rounded = v;
    if (magnitude < 0x1p23f) {
        const float shifted = magnitude + 0x1p23f;  // not folded: IEEE arithmetic (no -ffast-math)
        rounded = std::copysign(shifted - 0x1p23f, v);
    }
    if (rounded >= 2147483648.0f) return std::numeric_limits<int32_t>::max();
    if (rounded < -2147483648.0f) return std::numeric_limits<int32_t>::lowest();
    return static_cast<int32_t>(rounded);
}

}  // namespace detail

template <typename T, typename U>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode,
                 const uint32_t count)
{
    constexpr unsigned modes = detail::CastModes<T, U>();
    if (count == 0) {
        return;
    }
    const unsigned mode_index = static_cast<unsigned>(roundMode);
    if (mode_index > static_cast<unsigned>(RoundMode::CAST_ODD) || (modes & (1u << mode_index)) == 0) {
        ::ascendc_cpu::rt::ReportUnsupportedCast("Cast", detail::TypeName<U>(), detail::TypeName<T>(),
                                                 static_cast<int>(roundMode), modes == 0);
        return;
    }
    if constexpr (modes != 0) {
        const auto r = detail::RoundingOf(roundMode);
        if constexpr (std::is_same<T, float>::value && std::is_same<U, bfloat16_t>::value) {
            detail::Elementwise("Cast", true, dst, count, [](bfloat16_t v) { return static_cast<float>(v); }, src);
        } else if constexpr (std::is_same<T, float>::value && std::is_same<U, half>::value) {
            detail::Elementwise("Cast", true, dst, count, [](half v) { return static_cast<float>(v); }, src);
        } else if constexpr (std::is_same<T, bfloat16_t>::value && std::is_same<U, float>::value) {
            if (roundMode == RoundMode::CAST_RINT) {
                detail::Elementwise(
                    "Cast", true, dst, count,
                    [](float v) { return bfloat16_t::FromBits(::ascendc_cpu::numbers::Bfloat16Bits(v)); }, src);
                return;
            }
            detail::Elementwise("Cast", true, dst, count, [r](U v) { return detail::Convert<T>(v, r); }, src);
        } else if constexpr (std::is_same<T, int32_t>::value && std::is_same<U, float>::value) {
            if (roundMode == RoundMode::CAST_RINT) {
                // The index arithmetic of gathers: a branch-light form of Convert's nearest-even
                // rounding (the same results; the per-element switch and nearbyint call were the
                // cost of gathered kernels).
                detail::Elementwise("Cast", true, dst, count, [](float v) { return detail::RintToInt32(v); }, src);
                return;
            }
            detail::Elementwise("Cast", true, dst, count, [r](U v) { return detail::Convert<T>(v, r); }, src);
        } else {
            detail::Elementwise("Cast", true, dst, count, [r](U v) { return detail::Convert<T>(v, r); }, src);
        }
    }
}


// --- bitwise (int16_t/uint16_t on A2) --------------------------------------------------------------------
template <typename T>
inline void And(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const int32_t& count)
{
    detail::Elementwise(
        "And", detail::kOneOf<T, int16_t, uint16_t>, dst, count,
        [](T a, T b) { return static_cast<T>(a & b); }, src0, src1);
}
template <typename T>
inline void Or(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const int32_t& count)
{
    detail::Elementwise(
        "Or", detail::kOneOf<T, int16_t, uint16_t>, dst, count, [](T a, T b) { return static_cast<T>(a | b); },
        src0, src1);
}
template <typename T>
inline void Not(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)
{
    detail::Elementwise(
        "Not", detail::kOneOf<T, int16_t, uint16_t>, dst, count, [](T a) { return static_cast<T>(~a); }, src);
}
template <typename T, typename S, typename = std::enable_if_t<detail::kScalarLike<S>>>
inline void ShiftLeft(const LocalTensor<T>& dst, const LocalTensor<T>& src, const S& scalarValue, const int32_t& count)
{
    const uint32_t shift = static_cast<uint32_t>(scalarValue);
    detail::Elementwise(
        "ShiftLeft", detail::kOneOf<T, int16_t, uint16_t, int32_t, uint32_t>, dst, count,
        [shift](T a) {
            using U = std::make_unsigned_t<T>;
            return static_cast<T>(shift >= sizeof(T) * 8 ? U(0) : static_cast<U>(static_cast<U>(a) << shift));
        },
        src);
}
template <typename T, typename S, typename = std::enable_if_t<detail::kScalarLike<S>>>
inline void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src, const S& scalarValue, const int32_t& count,
                       bool roundEn = false)
{
    (void)roundEn;
    const uint32_t shift = static_cast<uint32_t>(scalarValue);
    detail::Elementwise(
        "ShiftRight", detail::kOneOf<T, int16_t, uint16_t, int32_t, uint32_t>, dst, count,
        [shift](T a) {
            if (shift >= sizeof(T) * 8) {
                return static_cast<T>(a < 0 ? -1 : 0);
            }
            return static_cast<T>(a >> shift);  // arithmetic for signed types
        },
        src);
}

// --- more arithmetic ---------------------------------------------------------------------------------------
template <typename T, typename S, typename = std::enable_if_t<detail::kScalarLike<S>>>
inline void LeakyRelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const S& scalarValue, const int32_t& count)
{
    const auto slope = detail::Lane<T>::Load(static_cast<T>(scalarValue));
    detail::Unary("LeakyRelu", detail::kFloatType<T>, dst, src, count, [slope](auto a) {
        return a >= static_cast<decltype(a)>(0) ? a : a * slope;
    });
}

/// dst = src * scalar + dst (half, float, or half src into float dst). The product is rounded to
/// dst's type, then the sum, as MulAddDst: two roundings. The documentation gives no fused rounding
/// for Axpy (its advanced form is Muls then Add, "for better precision" than the instruction), and
/// A2's exact bits for the instruction are not documented.
template <typename T, typename U, typename S, typename = std::enable_if_t<detail::kScalarLike<S>>>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const S& scalarValue, const int32_t& count)
{
    const bool supported = (std::is_same<T, U>::value && detail::kFloatType<T>) ||
                           (std::is_same<T, float>::value && std::is_same<U, half>::value);
    const double s = static_cast<float>(static_cast<U>(scalarValue));
    using L = detail::Lane<T>;
    detail::Elementwise(
        "Axpy", supported, dst, count,
        [s](U x, T d) {
            // Exact in double (a product of two floats), rounded once to dst's type.
            const double product = static_cast<double>(static_cast<float>(x)) * s;
            const T rounded = L::Store(static_cast<typename L::Wide>(product));
            return L::Store(L::Load(rounded) + L::Load(d));
        },
        src, dst);
}

/// dst = src0 * src1 + dst for half or float, or half sources into a float dst: the product is
/// rounded to dst's type, then the sum (two roundings: A2 documents no fused rounding).
template <typename T, typename U>
inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                      const int32_t& count)
{
    const bool supported = (std::is_same<T, U>::value && detail::kFloatType<T>) ||
                           (std::is_same<T, float>::value && std::is_same<U, half>::value);
    using L = detail::Lane<T>;
    detail::Elementwise(
        "MulAddDst", supported, dst, count,
        [](U a, U b, T d) {
            // The product of two halves or two floats is exact in double: rounded once here.
            const double product = static_cast<double>(static_cast<float>(a)) * static_cast<float>(b);
            const T rounded = L::Store(static_cast<typename L::Wide>(product));
            return L::Store(L::Load(rounded) + L::Load(d));
        },
        src0, src1, dst);
}

/// Divs (a tensor divided by a scalar, or a scalar by a tensor) is documented for Ascend 950 only,
/// not for Atlas A2: a kernel that calls it compiles and is told (unsupported), nothing computed.
template <typename T = void, bool isSetMask = true, typename U, typename S, typename V>
inline void Divs(const U& dst, const S& src0, const V& src1, const int32_t& count)
{
    (void)dst;
    (void)src0;
    (void)src1;
    if (count != 0) {
        ::ascendc_cpu::rt::ReportUnsupportedType("Divs", "any element type");
    }
}

// --- advanced elementwise functions (computed in double, rounded once) ----------------------------------------
namespace detail {
/// The advanced functions take (dst, src[, sharedTmpBuffer], count): the count is the last argument.
template <typename... Tmp>
inline uint32_t TrailingCount(const Tmp&... tmpAndCount)
{
    return static_cast<uint32_t>(std::get<sizeof...(Tmp) - 1>(std::tie(tmpAndCount...)));
}

/// A double result rounded once to T (half directly from double: no double rounding through float).
template <typename T>
inline T RoundOnce(double value)
{
    if constexpr (std::is_same<T, half>::value) {
        return half(value);
    } else {
        return static_cast<T>(static_cast<float>(value));
    }
}

template <typename T, typename F>
inline void FloatFunction(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count, F f)
{
    Elementwise(
        api, kFloatType<T>, dst, count,
        [f](T x) { return RoundOnce<T>(f(static_cast<double>(static_cast<float>(x)))); }, src);
}

/// Power's elements: pow of the exact inputs in double, rounded once (half, float). A2 also has
/// Power for int32_t; its integer semantics are not documented, so the twin reports it.
template <typename T, typename F, typename... S>
inline void PowerElementwise(const LocalTensor<T>& dst, uint32_t count, F f, const LocalTensor<S>&... srcs)
{
    if (count == 0) {
        return;
    }
    if constexpr (std::is_same<T, int32_t>::value) {
        ::ascendc_cpu::rt::ReportNotModelled("Power", "int32_t");
    } else {
        Elementwise(
            "Power", kFloatType<T>, dst, count,
            [f](auto... x) { return RoundOnce<T>(f(static_cast<double>(static_cast<float>(x))...)); }, srcs...);
    }
}

inline double PowerOf(double base, double exponent)
{
    return std::pow(base, exponent);
}
}  // namespace detail

// --- Power (advanced API): tensor^tensor, tensor^scalar, scalar^tensor; each with or without a
// sharedTmpBuffer (not needed here) and with a count or over all of src's elements.
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                  const LocalTensor<uint8_t>& sharedTmpBuffer, uint32_t calCount)
{
    (void)sharedTmpBuffer;
    detail::PowerElementwise(dst, calCount, detail::PowerOf, src0, src1);
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint32_t calCount)
{
    detail::PowerElementwise(dst, calCount, detail::PowerOf, src0, src1);
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                  const LocalTensor<uint8_t>& sharedTmpBuffer)
{
    Power<T, isReuseSource>(dst, src0, src1, sharedTmpBuffer, src0.GetSize());
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1)
{
    Power<T, isReuseSource>(dst, src0, src1, src0.GetSize());
}

template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const T& src1Scalar,
                  const LocalTensor<uint8_t>& sharedTmpBuffer, uint32_t calCount)
{
    (void)sharedTmpBuffer;
    const double exponent = static_cast<float>(src1Scalar);
    detail::PowerElementwise(dst, calCount, [exponent](double base) { return detail::PowerOf(base, exponent); }, src0);
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const T& src1Scalar, uint32_t calCount)
{
    const double exponent = static_cast<float>(src1Scalar);
    detail::PowerElementwise(dst, calCount, [exponent](double base) { return detail::PowerOf(base, exponent); }, src0);
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const T& src1Scalar,
                  const LocalTensor<uint8_t>& sharedTmpBuffer)
{
    Power<T, isReuseSource>(dst, src0, src1Scalar, sharedTmpBuffer, src0.GetSize());
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const T& src1Scalar)
{
    Power<T, isReuseSource>(dst, src0, src1Scalar, src0.GetSize());
}

template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const T& src0Scalar, const LocalTensor<T>& src1,
                  const LocalTensor<uint8_t>& sharedTmpBuffer, uint32_t calCount)
{
    (void)sharedTmpBuffer;
    const double base = static_cast<float>(src0Scalar);
    detail::PowerElementwise(dst, calCount, [base](double exponent) { return detail::PowerOf(base, exponent); }, src1);
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const T& src0Scalar, const LocalTensor<T>& src1, uint32_t calCount)
{
    const double base = static_cast<float>(src0Scalar);
    detail::PowerElementwise(dst, calCount, [base](double exponent) { return detail::PowerOf(base, exponent); }, src1);
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const T& src0Scalar, const LocalTensor<T>& src1,
                  const LocalTensor<uint8_t>& sharedTmpBuffer)
{
    Power<T, isReuseSource>(dst, src0Scalar, src1, sharedTmpBuffer, src1.GetSize());
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const T& src0Scalar, const LocalTensor<T>& src1)
{
    Power<T, isReuseSource>(dst, src0Scalar, src1, src1.GetSize());
}

template <typename T, bool isReuseSource = false, typename... Tmp>
inline void Sigmoid(const LocalTensor<T>& dst, const LocalTensor<T>& src, const Tmp&... tmpAndCount)
{
    const uint32_t count = detail::TrailingCount(tmpAndCount...);
    detail::FloatFunction("Sigmoid", dst, src, count, [](double x) { return 1.0 / (1.0 + std::exp(-x)); });
}
template <typename T, bool isReuseSource = false, typename... Tmp>
inline void Tanh(const LocalTensor<T>& dst, const LocalTensor<T>& src, const Tmp&... tmpAndCount)
{
    const uint32_t count = detail::TrailingCount(tmpAndCount...);
    detail::FloatFunction("Tanh", dst, src, count, [](double x) { return std::tanh(x); });
}
template <typename T, bool isReuseSource = false, typename... Tmp>
inline void Log(const LocalTensor<T>& dst, const LocalTensor<T>& src, const Tmp&... tmpAndCount)
{
    const uint32_t count = detail::TrailingCount(tmpAndCount...);
    detail::FloatFunction("Log", dst, src, count, [](double x) { return std::log(x); });
}
template <typename T, bool isReuseSource = false, typename... Tmp>
inline void Sign(const LocalTensor<T>& dst, const LocalTensor<T>& src, const Tmp&... tmpAndCount)
{
    const uint32_t count = detail::TrailingCount(tmpAndCount...);
    detail::FloatFunction("Sign", dst, src, count,
                          [](double x) { return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : x); });
}
/// Rounds toward minus infinity (exact; NaN and infinities pass through).
template <typename T, bool isReuseSource = false, typename... Tmp>
inline void Floor(const LocalTensor<T>& dst, const LocalTensor<T>& src, const Tmp&... tmpAndCount)
{
    detail::FloatFunction("Floor", dst, src, detail::TrailingCount(tmpAndCount...),
                          [](double x) { return std::floor(x); });
}

// --- scalar conversions -------------------------------------------------------------------------------------
/// The scalar unit's conversion of one value in a rounding mode.
template <typename T, typename U, RoundMode roundMode>
inline U Cast(T valueIn)
{
    return detail::Convert<U>(valueIn, detail::RoundingOf(roundMode));
}
template <typename T, typename U, RoundMode roundMode>
inline U ScalarCast(T valueIn)
{
    return detail::Convert<U>(valueIn, detail::RoundingOf(roundMode));
}

inline float ToFloat(const bfloat16_t& value)
{
    return static_cast<float>(value);
}
inline bfloat16_t ToBfloat16(const float& value)
{
    return bfloat16_t(value);
}

/// Fills `size` elements of GM with `value` (done at once, as a scalar store would be).
template <typename T>
inline void InitGlobalMemory(GlobalTensor<T>& gmWorkspaceAddr, const uint64_t size, const T value)
{
    ::ascendc_cpu::rt::GmFill("InitGlobalMemory", gmWorkspaceAddr.GmView(), size * sizeof(T), &value, sizeof(T));
}

}  // namespace AscendC

#endif  // ASCENDC_CPU_VECTOR_H
