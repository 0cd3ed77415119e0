// half and bfloat16_t: exact conversions in every rounding mode, specials, subnormals, saturation.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "kernel_operator.h"

namespace {

using ascendc_cpu::numbers::Decompose;
using ascendc_cpu::numbers::Rounding;
using ascendc_cpu::numbers::RoundToFormat;

uint16_t HalfIn(float value, Rounding mode)
{
    return static_cast<uint16_t>(RoundToFormat<10, 5>(Decompose(value), mode));
}

uint16_t Bf16In(float value, Rounding mode)
{
    return static_cast<uint16_t>(RoundToFormat<7, 8>(Decompose(value), mode));
}

float FromHalf(uint16_t bits)
{
    return static_cast<float>(half::FromBits(bits));
}

float FromBf16(uint16_t bits)
{
    return static_cast<float>(bfloat16_t::FromBits(bits));
}

uint32_t BitsOf(float value)
{
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    return bits;
}

TEST(NumberFormats, HalfEncodesOneMaxAndSmallestSubnormal)
{
    EXPECT_EQ(half(1.0f).bits, 0x3c00);
    EXPECT_EQ(half(65504.0f).bits, 0x7bff);
    EXPECT_EQ(half(std::ldexp(1.0f, -24)).bits, 0x0001);
    EXPECT_EQ(half(-std::ldexp(1.0f, -14)).bits, 0x8400);
    EXPECT_EQ(half(-0.0f).bits, 0x8000);
}

TEST(NumberFormats, HalfKeepsInfinityAndNan)
{
    EXPECT_EQ(half(std::numeric_limits<float>::infinity()).bits, 0x7c00);
    EXPECT_EQ(half(-std::numeric_limits<float>::infinity()).bits, 0xfc00);
    const uint16_t nan = half(std::numeric_limits<float>::quiet_NaN()).bits;
    EXPECT_EQ(nan & 0x7c00, 0x7c00);
    EXPECT_NE(nan & 0x03ff, 0);
    EXPECT_TRUE(std::isnan(FromHalf(0x7e00)));
    EXPECT_TRUE(std::isinf(FromHalf(0xfc00)));
}

TEST(NumberFormats, FiniteOverflowSaturatesToTheLargestFiniteValue)
{
    EXPECT_EQ(half(65520.0f).bits, 0x7bff);  // would round to infinity in IEEE
    EXPECT_EQ(half(-1.0e9f).bits, 0xfbff);
    EXPECT_EQ(bfloat16_t(std::numeric_limits<float>::max()).bits, 0x7f7f);
    EXPECT_EQ(ascendc_cpu::numbers::Bfloat16Bits(std::numeric_limits<float>::max()), 0x7f7f);
}

TEST(NumberFormats, HalfSubnormalTiesRoundToEven)
{
    EXPECT_EQ(half(std::ldexp(1.0f, -25)).bits, 0x0000);          // 0.5 ulp -> 0 (even)
    EXPECT_EQ(half(3.0f * std::ldexp(1.0f, -25)).bits, 0x0002);   // 1.5 ulp -> 2 (even)
    EXPECT_EQ(half(std::ldexp(1.0f, -25) * 1.0001f).bits, 0x0001);  // just above the tie
}

// The AscendC precision-conversion documentation's float -> half example: 0.5 + 2^-12.
TEST(NumberFormats, FloatToHalfInEachRoundModeMatchesTheDocumentedExample)
{
    const float x = 0.5f + std::ldexp(1.0f, -12);
    const float up = 0.5f + std::ldexp(1.0f, -11);
    EXPECT_EQ(FromHalf(HalfIn(x, Rounding::kNearestEven)), 0.5f);
    EXPECT_EQ(FromHalf(HalfIn(x, Rounding::kFloor)), 0.5f);
    EXPECT_EQ(FromHalf(HalfIn(x, Rounding::kCeil)), up);
    EXPECT_EQ(FromHalf(HalfIn(x, Rounding::kNearestAway)), up);
    EXPECT_EQ(FromHalf(HalfIn(x, Rounding::kTowardZero)), 0.5f);
    EXPECT_EQ(FromHalf(HalfIn(x, Rounding::kOdd)), up);
}

// ... and its float -> bfloat16_t example: 0.5 + 2^-9 + 2^-11.
TEST(NumberFormats, FloatToBfloat16InEachRoundModeMatchesTheDocumentedExample)
{
    const float x = 0.5f + std::ldexp(1.0f, -9) + std::ldexp(1.0f, -11);
    const float up = 0.5f + std::ldexp(1.0f, -8);
    EXPECT_EQ(FromBf16(Bf16In(x, Rounding::kNearestEven)), up);
    EXPECT_EQ(FromBf16(Bf16In(x, Rounding::kFloor)), 0.5f);
    EXPECT_EQ(FromBf16(Bf16In(x, Rounding::kCeil)), up);
    EXPECT_EQ(FromBf16(Bf16In(x, Rounding::kNearestAway)), up);
    EXPECT_EQ(FromBf16(Bf16In(x, Rounding::kTowardZero)), 0.5f);
}

TEST(NumberFormats, DirectedModesFollowTheSign)
{
    const float x = -(1.0f + std::ldexp(1.0f, -12));
    EXPECT_EQ(FromHalf(HalfIn(x, Rounding::kFloor)), -(1.0f + std::ldexp(1.0f, -10)));
    EXPECT_EQ(FromHalf(HalfIn(x, Rounding::kCeil)), -1.0f);
    EXPECT_EQ(FromHalf(HalfIn(x, Rounding::kTowardZero)), -1.0f);
    EXPECT_EQ(FromHalf(HalfIn(-(1.0f + std::ldexp(1.0f, -11)), Rounding::kNearestAway)),
              -(1.0f + std::ldexp(1.0f, -10)));
    EXPECT_EQ(FromHalf(HalfIn(-(1.0f + std::ldexp(1.0f, -11)), Rounding::kNearestEven)), -1.0f);
}

TEST(NumberFormats, EveryHalfRoundTripsThroughFloat)
{
    for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
        const float value = FromHalf(static_cast<uint16_t>(bits));
        if (std::isnan(value)) {
            continue;
        }
        for (Rounding mode : {Rounding::kNearestEven, Rounding::kFloor, Rounding::kCeil, Rounding::kNearestAway,
                              Rounding::kTowardZero, Rounding::kOdd}) {
            ASSERT_EQ(HalfIn(value, mode), bits) << "bits " << bits;
        }
    }
}

TEST(NumberFormats, EveryBfloat16RoundTripsThroughFloat)
{
    for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
        const float value = FromBf16(static_cast<uint16_t>(bits));
        if (std::isnan(value)) {
            continue;
        }
        ASSERT_EQ(BitsOf(value) >> 16, bits);
        ASSERT_EQ(Bf16In(value, Rounding::kTowardZero), bits);
        ASSERT_EQ(ascendc_cpu::numbers::Bfloat16Bits(value), bits);
    }
}

// Each mode brackets the exact value: floor <= x <= ceil, the nearest modes pick the closer one.
TEST(NumberFormats, RandomFloatsRoundToTheNeighboursOfTheExactValue)
{
    std::mt19937 generator(7);
    std::uniform_int_distribution<uint32_t> any_bits;
    for (int i = 0; i < 200000; ++i) {
        uint32_t bits = any_bits(generator);
        bits = (bits & 0x8000ffffu) | (((bits >> 16) % 44 + 100) << 23);  // exponents around half's range
        float x;
        std::memcpy(&x, &bits, sizeof(x));
        const double exact = x;
        const double lo = FromHalf(HalfIn(x, Rounding::kFloor));
        const double hi = FromHalf(HalfIn(x, Rounding::kCeil));
        if (std::fabs(exact) > 65504.0) {
            continue;  // saturates
        }
        ASSERT_LE(lo, exact);
        ASSERT_GE(hi, exact);
        const double nearest = FromHalf(HalfIn(x, Rounding::kNearestEven));
        ASSERT_LE(std::fabs(nearest - exact), std::fabs((nearest == lo ? hi : lo) - exact));
        const double toward_zero = FromHalf(HalfIn(x, Rounding::kTowardZero));
        ASSERT_EQ(toward_zero, exact < 0 ? hi : lo);
#if defined(__FLT16_MAX__) && defined(__x86_64__)
        ASSERT_EQ(nearest, static_cast<double>(static_cast<_Float16>(x)));
#endif
        const uint32_t bf16_nearest = ascendc_cpu::numbers::Bfloat16Bits(x);
        ASSERT_EQ(bf16_nearest, Bf16In(x, Rounding::kNearestEven));
    }
}

TEST(NumberFormats, DoubleConvertsToHalfWithOneRounding)
{
    // 1 + 2^-11 + 2^-40 is just above a tie: rounding through float first would drop 2^-40 and
    // then round the tie to even (1.0); one rounding gives 1 + 2^-10.
    const double x = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
    EXPECT_EQ(half(x).bits, 0x3c01);
}

TEST(NumberFormats, ScalarArithmeticRoundsOnStore)
{
    half a = 1.0f;
    a += std::ldexp(1.0f, -12);
    EXPECT_EQ(a.bits, 0x3c00);
    bfloat16_t b = 3.0f;
    const float product = b * 2.0f;
    EXPECT_EQ(product, 6.0f);
    EXPECT_EQ(bfloat16_t(half(1.5f)).bits, 0x3fc0);
    EXPECT_EQ(half(bfloat16_t(-2.0f)).bits, 0xc000);
}

}  // namespace

namespace {

// Exp computes in double and rounds once: the float result is exp's correctly rounded value but
// for the rare inputs within 1e-13 of a tie (none among these).
TEST(NumberFormats, ExpIsTheCorrectlyRoundedValueOfDoubleExp)
{
    int mismatches = 0;
    for (int i = -1100000; i <= 900000; ++i) {
        const float x = static_cast<float>(i) * 1.0e-4f + 0.3e-5f * static_cast<float>(i % 7);
        const float twin = AscendC::detail::ExpFloat(x);
        const float reference = static_cast<float>(std::exp(static_cast<double>(x)));
        mismatches += twin == reference ? 0 : 1;
    }
    EXPECT_EQ(mismatches, 0);
    EXPECT_TRUE(std::isnan(AscendC::detail::ExpFloat(std::nanf(""))));
    EXPECT_EQ(AscendC::detail::ExpFloat(std::numeric_limits<float>::infinity()), std::numeric_limits<float>::infinity());
    EXPECT_EQ(AscendC::detail::ExpFloat(-std::numeric_limits<float>::infinity()), 0.0f);
    EXPECT_EQ(AscendC::detail::ExpFloat(1000.0f), std::numeric_limits<float>::infinity());
    EXPECT_EQ(AscendC::detail::ExpFloat(-103.0f), static_cast<float>(std::exp(-103.0)));  // a subnormal
}


// Kernels declare constants such as `constexpr half kAlpha = half(1.6732632423543772)`.
constexpr half kConstantAlpha = half(1.6732632423543772848170429916717);
constexpr half kConstantNegativeZero = half(-0.0);
constexpr half kConstantSaturated = half(1e9);
constexpr half kConstantThree = half(3);
constexpr bfloat16_t kConstantPi = bfloat16_t(3.14159265358979);
static_assert(kConstantNegativeZero.bits == 0x8000, "the sign of zero survives a constant conversion");
static_assert(kConstantSaturated.bits == 0x7bff, "a constant overflow saturates as at run time");
static_assert(kConstantThree.bits == 0x4200, "integers convert in constant expressions too");

TEST(NumberFormats, ConstantConversionsGiveTheRunTimeBits)
{
    volatile double alpha = 1.6732632423543772848170429916717;
    volatile double pi = 3.14159265358979;
    EXPECT_EQ(kConstantAlpha.bits, half(alpha).bits);
    EXPECT_EQ(kConstantPi.bits, bfloat16_t(pi).bits);
}

TEST(NumberFormats, DecomposeByValueRoundsAsDecomposeInEveryMode)
{
    std::mt19937_64 rng(20261207);
    std::vector<double> values = {0.0, -0.0, 1.0, -1.0, 65504.0, 65520.0, 6.103515625e-05, 5.960464477539063e-08,
                                  2.980232238769531e-08, 1e-310, -4.9406564584124654e-324,
                                  std::numeric_limits<double>::max(), std::numeric_limits<double>::infinity(),
                                  -std::numeric_limits<double>::infinity()};
    for (int i = 0; i < 20000; ++i) {
        uint64_t bits = rng();
        double v;
        std::memcpy(&v, &bits, sizeof(v));
        if (v == v) {
            values.push_back(v);
        }
        values.push_back(std::ldexp(static_cast<double>(rng() >> 11), -static_cast<int>(rng() % 90)));
    }
    const Rounding modes[] = {Rounding::kNearestEven, Rounding::kFloor, Rounding::kCeil, Rounding::kNearestAway,
                              Rounding::kTowardZero, Rounding::kOdd};
    for (double v : values) {
        for (Rounding mode : modes) {
            const auto by_value = ascendc_cpu::numbers::DecomposeByValue(v);
            ASSERT_EQ((RoundToFormat<10, 5>(by_value, mode)), (RoundToFormat<10, 5>(Decompose(v), mode))) << v;
            ASSERT_EQ((RoundToFormat<7, 8>(by_value, mode)), (RoundToFormat<7, 8>(Decompose(v), mode))) << v;
            ASSERT_EQ((RoundToFormat<23, 8>(by_value, mode)), (RoundToFormat<23, 8>(Decompose(v), mode))) << v;
        }
    }
}

}  // namespace

// Cast float -> int32_t CAST_RINT has a fast form (detail::RintToInt32, used by the index arithmetic
// of gathered kernels); it must give Convert's results: nearest, ties to even, saturation, NaN 0.
TEST(NumberFormats, FastFloatToInt32RintMatchesConvert)
{
    const auto check = [](float v) {
        ASSERT_EQ(AscendC::detail::RintToInt32(v), AscendC::detail::Convert<int32_t>(v, Rounding::kNearestEven))
            << "value " << v << " (bits " << std::hex << BitsOf(v) << ")";
    };
    const float specials[] = {0.0f,       -0.0f,       0.5f,         1.5f,        2.5f,       -0.5f,
                              -1.5f,      -2.5f,       0x1p22f + 0.5f, -0x1p22f - 0.5f, 0x1p23f - 0.5f, 0x1p23f,
                              0x1p23f + 1, 2147483520.0f, 2147483648.0f, -2147483648.0f, -2147483904.0f,
                              std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                              std::nanf(""), std::numeric_limits<float>::denorm_min()};
    for (float v : specials) check(v);
    // Every float whose magnitude is below 2^25 in steps of a few ulps, and random bit patterns.
    for (uint32_t bits = 0; bits < 0x4c000000u; bits += 97) {
        float v;
        std::memcpy(&v, &bits, sizeof(v));
        check(v);
        check(-v);
    }
    std::mt19937 rng(7);
    for (int i = 0; i < 1000000; ++i) {
        const uint32_t bits = rng();
        float v;
        std::memcpy(&v, &bits, sizeof(v));
        check(v);
    }
}
