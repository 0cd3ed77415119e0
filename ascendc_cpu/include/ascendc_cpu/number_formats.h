// The 16-bit floating-point types of AscendC (`half`, `bfloat16_t`) as exact software types, and
// the rounding of any value to a binary floating-point format in each of A2's rounding modes.
//
// Contract (see README, "Numbers"):
//   - `half` is IEEE binary16 (1 sign, 5 exponent, 10 mantissa bits), `bfloat16_t` is bfloat16
//     (1, 8, 7). Both keep subnormals, infinities and NaN.
//   - Converting a value to a narrower format rounds it exactly once, from the exact value, in the
//     chosen mode; a finite value beyond the largest finite one saturates to it (A2's default
//     saturation mode), infinities stay infinite, NaN stays NaN (quiet).
//   - Scalar arithmetic on `half`/`bfloat16_t` converts to float (exact), computes in float, and
//     rounds to nearest even when the result is stored back.
// Public headers of the twin compile as C++17 (ops-nn builds kernel unit tests with C++17).
#ifndef ASCENDC_CPU_NUMBER_FORMATS_H
#define ASCENDC_CPU_NUMBER_FORMATS_H

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace ascendc_cpu {
namespace numbers {

/// How a value between two representable ones is rounded (RoundMode without CAST_NONE).
enum class Rounding : uint8_t { kNearestEven, kFloor, kCeil, kNearestAway, kTowardZero, kOdd };

/// A finite non-zero value as significand * 2^exponent, or one of the special values.
struct Decomposed {
    bool negative = false;
    bool zero = false;
    bool infinite = false;
    bool nan = false;
    uint64_t significand = 0;
    int exponent = 0;
};

/// The fields of an IEEE value of type F (its bits in Bits: M fraction bits, E exponent bits).
template <typename F, typename Bits, int kFractionBits, int kExponentBits>
inline Decomposed DecomposeIeee(F value)
{
    constexpr int kBias = (1 << (kExponentBits - 1)) - 1;
    constexpr Bits kExponentMask = (Bits{1} << kExponentBits) - 1;
    constexpr Bits kFractionMask = (Bits{1} << kFractionBits) - 1;
    Bits bits;
    std::memcpy(&bits, &value, sizeof(bits));
    Decomposed d;
    d.negative = (bits >> (kFractionBits + kExponentBits)) != 0;
    const Bits biased = (bits >> kFractionBits) & kExponentMask;
    const Bits fraction = bits & kFractionMask;
    if (biased == kExponentMask) {
        d.infinite = fraction == 0;
        d.nan = fraction != 0;
    } else if (biased == 0) {
        d.zero = fraction == 0;
        d.significand = fraction;
        d.exponent = 1 - kBias - kFractionBits;
    } else {
        d.significand = fraction | (Bits{1} << kFractionBits);
        d.exponent = static_cast<int>(biased) - kBias - kFractionBits;
    }
    return d;
}

inline Decomposed Decompose(float value)
{
    return DecomposeIeee<float, uint32_t, 23, 8>(value);
}

inline Decomposed Decompose(double value)
{
    return DecomposeIeee<double, uint64_t, 52, 11>(value);
}

constexpr Decomposed DecomposeInteger(bool negative, uint64_t magnitude)
{
    Decomposed d;
    d.negative = negative;
    d.zero = magnitude == 0;
    d.significand = magnitude;
    d.exponent = 0;
    return d;
}

constexpr int HighestBit(uint64_t v)
{
    return 63 - __builtin_clzll(v);
}

/// Rounds `d` to the binary format with `kMantissaBits` stored mantissa bits and `kExponentBits`
/// exponent bits and returns its bit pattern. Overflow saturates to the largest finite value.
template <int kMantissaBits, int kExponentBits>
constexpr uint64_t RoundToFormat(const Decomposed& d, Rounding mode)
{
    constexpr int kBias = (1 << (kExponentBits - 1)) - 1;
    constexpr uint64_t kInfinity = ((1ull << kExponentBits) - 1) << kMantissaBits;
    constexpr uint64_t kLargestFinite = kInfinity - 1;
    constexpr uint64_t kQuietBit = 1ull << (kMantissaBits - 1);
    constexpr int kMinNormalExponent = 1 - kBias;
    constexpr int kSmallestQuantum = kMinNormalExponent - kMantissaBits;
    const uint64_t sign = static_cast<uint64_t>(d.negative) << (kMantissaBits + kExponentBits);
    if (d.nan) {
        return sign | kInfinity | kQuietBit;
    }
    if (d.infinite) {
        return sign | kInfinity;
    }
    if (d.zero) {
        return sign;
    }
    const int log2_value = HighestBit(d.significand) + d.exponent;
    if (log2_value > kBias) {
        return sign | kLargestFinite;
    }
    const int quantum = (log2_value > kMinNormalExponent ? log2_value : kMinNormalExponent) - kMantissaBits;
    const int shift = quantum - d.exponent;
    uint64_t kept = 0;
    bool round_bit = false;
    bool sticky = false;
    if (shift <= 0) {
        kept = d.significand << -shift;
    } else if (shift > 64) {
        kept = 0;
        sticky = true;
    } else if (shift == 64) {
        kept = 0;
        round_bit = (d.significand >> 63) != 0;
        sticky = (d.significand & ~(1ull << 63)) != 0;
    } else {
        kept = d.significand >> shift;
        round_bit = ((d.significand >> (shift - 1)) & 1u) != 0;
        sticky = shift > 1 && (d.significand & ((1ull << (shift - 1)) - 1)) != 0;
    }
    const bool inexact = round_bit || sticky;
    switch (mode) {
        case Rounding::kNearestEven:
            kept += (round_bit && (sticky || (kept & 1u))) ? 1 : 0;
            break;
        case Rounding::kNearestAway:
            kept += round_bit ? 1 : 0;
            break;
        case Rounding::kFloor:
            kept += (d.negative && inexact) ? 1 : 0;
            break;
        case Rounding::kCeil:
            kept += (!d.negative && inexact) ? 1 : 0;
            break;
        case Rounding::kTowardZero:
            break;
        case Rounding::kOdd:
            kept |= inexact ? 1u : 0u;
            break;
    }
    // The quantum's distance from the smallest one is the biased exponent of the result; a carry
    // out of the mantissa moves into the exponent field by itself.
    const uint64_t magnitude = (static_cast<uint64_t>(quantum - kSmallestQuantum) << kMantissaBits) + kept;
    return sign | (magnitude >= kInfinity ? kLargestFinite : magnitude);
}

template <int kMantissaBits, int kExponentBits>
inline float WidenToFloat(uint16_t bits)
{
    constexpr int kBias = (1 << (kExponentBits - 1)) - 1;
    constexpr uint32_t kExponentMask = (1u << kExponentBits) - 1;
    const uint32_t sign = static_cast<uint32_t>(bits >> (kMantissaBits + kExponentBits)) << 31;
    const uint32_t biased = (bits >> kMantissaBits) & kExponentMask;
    const uint32_t fraction = bits & ((1u << kMantissaBits) - 1);
    uint32_t out;
    if (biased == kExponentMask) {
        out = sign | 0x7f800000u | (fraction << (23 - kMantissaBits));
    } else if (biased == 0) {
        // A subnormal of the narrow format is a normal float (or zero): fraction * 2^(1-bias-m).
        float magnitude = static_cast<float>(fraction);
        for (int i = 0; i < kBias - 1 + kMantissaBits; ++i) {
            magnitude *= 0.5f;
        }
        std::memcpy(&out, &magnitude, sizeof(out));
        out |= sign;
    } else {
        out = sign | ((biased - kBias + 127) << 23) | (fraction << (23 - kMantissaBits));
    }
    float value;
    std::memcpy(&value, &out, sizeof(value));
    return value;
}

/// Decompose(double) by arithmetic alone, so that a constant expression can convert
/// (`constexpr half k = half(1.67)`): the same value, its significand normalised to 53 bits (a
/// NaN's sign is not kept: constants are not NaN in practice).
/// Halving a value of at least 2^53 and doubling one below 2^52 are exact in double.
constexpr Decomposed DecomposeByValue(double value)
{
    constexpr double kTwo52 = 4503599627370496.0;
    constexpr double kTwo53 = 2.0 * kTwo52;
    constexpr double kLargest = 1.7976931348623157e308;
    Decomposed d;
    if (value != value) {
        d.nan = true;
        return d;
    }
    d.negative = __builtin_copysign(1.0, value) < 0.0;  // also -0.0; constant-folded by GCC and clang
    double magnitude = d.negative ? -value : value;
    if (magnitude == 0.0) {
        d.zero = true;
        return d;
    }
    if (magnitude > kLargest) {
        d.infinite = true;
        return d;
    }
    int exponent = 0;
    while (magnitude >= kTwo53) {
        magnitude *= 0.5;
        ++exponent;
    }
    while (magnitude < kTwo52) {
        magnitude *= 2.0;
        --exponent;
    }
    d.significand = static_cast<uint64_t>(magnitude);
    d.exponent = exponent;
    return d;
}

template <typename T>
constexpr Decomposed DecomposeArithmetic(T value)
{
    if constexpr (std::is_floating_point<T>::value) {
        if (__builtin_is_constant_evaluated()) {
            return DecomposeByValue(static_cast<double>(value));
        }
        if constexpr (sizeof(T) <= sizeof(float)) {
            return Decompose(static_cast<float>(value));
        } else {
            return Decompose(static_cast<double>(value));
        }
    } else if constexpr (std::is_signed<T>::value) {
        const bool negative = value < 0;
        const uint64_t magnitude =
            negative ? static_cast<uint64_t>(0) - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
        return DecomposeInteger(negative, magnitude);
    } else {
        return DecomposeInteger(false, static_cast<uint64_t>(value));
    }
}

inline uint16_t HalfBits(float value)
{
    return static_cast<uint16_t>(RoundToFormat<10, 5>(Decompose(value), Rounding::kNearestEven));
}

inline uint16_t Bfloat16Bits(float value)
{
    // Branch-free, so that Cast loops vectorise.
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    const uint32_t magnitude = bits & 0x7fffffffu;
    const uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
    const bool overflowed = (rounded & 0x7fffu) == 0x7f80u && magnitude != 0x7f800000u;
    const uint32_t finite = overflowed ? ((rounded & 0x8000u) | 0x7f7fu) : rounded;  // saturate
    return static_cast<uint16_t>(magnitude > 0x7f800000u ? ((bits >> 16) | 0x40u) : finite);  // quiet NaN
}

}  // namespace numbers
}  // namespace ascendc_cpu

struct bfloat16_t;

/// IEEE binary16, AscendC's `half`.
struct half {
    uint16_t bits;

    half() = default;
    template <typename T, typename = typename std::enable_if<std::is_arithmetic<T>::value>::type>
    constexpr half(T value)  // NOLINT: implicit like the NPU type; constexpr as kernels' constants need
        : bits(static_cast<uint16_t>(::ascendc_cpu::numbers::RoundToFormat<10, 5>(
              ::ascendc_cpu::numbers::DecomposeArithmetic(value), ::ascendc_cpu::numbers::Rounding::kNearestEven)))
    {}
    inline half(bfloat16_t value);
    operator float() const { return ::ascendc_cpu::numbers::WidenToFloat<10, 5>(bits); }
    static half FromBits(uint16_t raw)
    {
        half h;
        h.bits = raw;
        return h;
    }
    half& operator+=(float v) { return *this = half(static_cast<float>(*this) + v); }
    half& operator-=(float v) { return *this = half(static_cast<float>(*this) - v); }
    half& operator*=(float v) { return *this = half(static_cast<float>(*this) * v); }
    half& operator/=(float v) { return *this = half(static_cast<float>(*this) / v); }
};

/// bfloat16, AscendC's `bfloat16_t`.
struct bfloat16_t {
    uint16_t bits;

    bfloat16_t() = default;
    template <typename T, typename = typename std::enable_if<std::is_arithmetic<T>::value>::type>
    constexpr bfloat16_t(T value)  // NOLINT: implicit like the NPU type; constexpr as kernels' constants need
        : bits(static_cast<uint16_t>(::ascendc_cpu::numbers::RoundToFormat<7, 8>(
              ::ascendc_cpu::numbers::DecomposeArithmetic(value), ::ascendc_cpu::numbers::Rounding::kNearestEven)))
    {}
    bfloat16_t(half value) : bfloat16_t(static_cast<float>(value)) {}
    operator float() const
    {
        const uint32_t wide = static_cast<uint32_t>(bits) << 16;
        float value;
        std::memcpy(&value, &wide, sizeof(value));
        return value;
    }
    static bfloat16_t FromBits(uint16_t raw)
    {
        bfloat16_t b;
        b.bits = raw;
        return b;
    }
    bfloat16_t& operator+=(float v) { return *this = bfloat16_t(static_cast<float>(*this) + v); }
    bfloat16_t& operator-=(float v) { return *this = bfloat16_t(static_cast<float>(*this) - v); }
    bfloat16_t& operator*=(float v) { return *this = bfloat16_t(static_cast<float>(*this) * v); }
    bfloat16_t& operator/=(float v) { return *this = bfloat16_t(static_cast<float>(*this) / v); }
};

inline half::half(bfloat16_t value) : half(static_cast<float>(value)) {}

static_assert(sizeof(half) == 2 && std::is_trivially_copyable<half>::value, "half is 16 bits");
static_assert(sizeof(bfloat16_t) == 2 && std::is_trivially_copyable<bfloat16_t>::value, "bfloat16_t is 16 bits");

#endif  // ASCENDC_CPU_NUMBER_FORMATS_H
