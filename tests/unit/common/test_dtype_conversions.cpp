// The scalar fp16 / bf16 conversions of common/dtype.h (used by CopyIn / CopyOut staging and by
// the op_api) against the independent reference of narrow_reference.h: every bit pattern, every
// tie, and the double -> float round-to-odd step that makes a double round once.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "common/dtype.h"
#include "narrow_reference.h"

namespace bce_kernel_test {
namespace {

using aclnn_cpu::BFloat16;
using aclnn_cpu::BFloat16ToFloat;
using aclnn_cpu::DoubleToFloatRoundToOdd;
using aclnn_cpu::FloatToBFloat16;
using aclnn_cpu::FloatToHalf;
using aclnn_cpu::Half;
using aclnn_cpu::HalfToFloat;

constexpr uint16_t kHalfQuietBit = 0x0200;
constexpr uint16_t kBFloat16QuietBit = 0x0040;
constexpr uint16_t kHalfMaxFinite = 0x7BFF;
constexpr uint16_t kBFloat16MaxFinite = 0x7F7F;

bool IsHalfNaN(uint16_t bits) { return (bits & 0x7C00) == 0x7C00 && (bits & 0x03FF) != 0; }
bool IsBFloat16NaN(uint16_t bits) { return (bits & 0x7F80) == 0x7F80 && (bits & 0x007F) != 0; }

/// Floats around the rounding decisions between neighbours lo < hi of a narrow format: the tie,
/// one float ulp either side of it, and the neighbours themselves.
std::vector<float> AroundTie(double lo, double hi) {
  const float tie = static_cast<float>((lo + hi) / 2);  // exact: a float has bits to spare
  return {static_cast<float>(lo), std::nextafter(tie, -INFINITY), tie, std::nextafter(tie, INFINITY),
          static_cast<float>(hi)};
}

uint16_t HalfBits(float f) { return FloatToHalf(f).bits; }
uint16_t BFloat16Bits(float f) { return FloatToBFloat16(f).bits; }

// --------------------------------------------------------------------------------------------- fp16

TEST(HalfToFloat, IsExactForEveryBitPattern) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto h = static_cast<uint16_t>(bits);
    const float got = HalfToFloat(Half{h});
    ASSERT_TRUE(SameValue(got, DecodeReference(h, kHalfFormat))) << std::hex << "0x" << bits << " -> " << got;
  }
}

TEST(HalfToFloat, NaNStaysNaNQuietWithItsSignAndPayload) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto h = static_cast<uint16_t>(bits);
    if (!IsHalfNaN(h)) continue;
    const auto f = std::bit_cast<uint32_t>(HalfToFloat(Half{h}));
    EXPECT_EQ(f & 0x00400000u, 0x00400000u) << std::hex << bits << ": quiet";
    EXPECT_EQ(f >> 31, bits >> 15u) << std::hex << bits << ": sign";
    EXPECT_EQ((f >> 13) & 0x1FFu, bits & 0x1FFu) << std::hex << bits << ": payload";
  }
}

TEST(FloatToHalf, RoundTripsEveryBitPattern) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto h = static_cast<uint16_t>(bits);
    const uint16_t expected = IsHalfNaN(h) ? static_cast<uint16_t>(h | kHalfQuietBit) : h;
    ASSERT_EQ(HalfBits(HalfToFloat(Half{h})), expected) << std::hex << "0x" << bits;
  }
}

TEST(FloatToHalf, RoundsTiesToEvenAndEverythingElseToNearest) {
  // Every pair of neighbouring fp16 values, subnormals and the overflow threshold included
  // (above 0x7BFF the neighbour is the threshold 65520, which rounds to Inf).
  for (uint16_t lo = 0; lo <= kHalfMaxFinite; ++lo) {
    const double lo_value = DecodeReference(lo, kHalfFormat);
    const double hi_value = lo == kHalfMaxFinite ? 65520.0 : DecodeReference(static_cast<uint16_t>(lo + 1), kHalfFormat);
    for (float f : AroundTie(lo_value, hi_value)) {
      for (float v : {f, -f}) {
        ASSERT_TRUE(SameValue(HalfToFloat(FloatToHalf(v)), RoundReference(v, kHalfFormat)))
            << std::hexfloat << v << " -> 0x" << std::hex << HalfBits(v);
      }
    }
  }
}

TEST(FloatToHalf, MatchesTheReferenceOnRandomFloats) {
  std::mt19937 rng(0x5EED);
  for (int i = 0; i < (1 << 20); ++i) {
    const float v = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    if (std::isnan(v)) continue;
    ASSERT_TRUE(SameValue(HalfToFloat(FloatToHalf(v)), RoundReference(v, kHalfFormat))) << std::hexfloat << v;
  }
}

TEST(FloatToHalf, MatchesTheReferenceOnEveryFloatOfTheSubnormalAndOverflowEdges) {
  // All floats of the binade below 2^-14 (where fp16 turns subnormal) and of [32768, 65536).
  for (float start : {0x1p-15f, 32768.0f}) {
    const uint32_t first = std::bit_cast<uint32_t>(start);
    for (uint32_t bits = first; bits < first + (1u << 23); ++bits) {
      const float v = std::bit_cast<float>(bits);
      ASSERT_TRUE(SameValue(HalfToFloat(FloatToHalf(v)), RoundReference(v, kHalfFormat))) << std::hexfloat << v;
    }
  }
}

TEST(FloatToHalf, OverflowsToInfinityFromTheLargestValuePlusHalfAnUlp) {
  EXPECT_EQ(HalfBits(65504.0f), 0x7BFF);
  EXPECT_EQ(HalfBits(std::nextafter(65520.0f, 0.0f)), 0x7BFF);
  EXPECT_EQ(HalfBits(65520.0f), 0x7C00);
  EXPECT_EQ(HalfBits(-65520.0f), 0xFC00);
  EXPECT_EQ(HalfBits(std::numeric_limits<float>::max()), 0x7C00);
  EXPECT_EQ(HalfBits(INFINITY), 0x7C00);
  EXPECT_EQ(HalfBits(-INFINITY), 0xFC00);
}

TEST(FloatToHalf, KeepsTheSignOfZeroAndOfUnderflow) {
  EXPECT_EQ(HalfBits(0.0f), 0x0000);
  EXPECT_EQ(HalfBits(-0.0f), 0x8000);
  EXPECT_EQ(HalfBits(0x1p-26f), 0x0000);   // below half the smallest subnormal
  EXPECT_EQ(HalfBits(-0x1p-26f), 0x8000);
  EXPECT_EQ(HalfBits(0x1p-25f), 0x0000);   // the tie goes to even (zero)
  EXPECT_EQ(HalfBits(0x1.8p-25f), 0x0001);
  EXPECT_EQ(HalfBits(0x1p-24f), 0x0001);   // the smallest subnormal
  EXPECT_EQ(HalfBits(0x1.8p-24f), 0x0002); // tie between 1 and 2 subnormal ulps: even
}

TEST(FloatToHalf, NaNStaysNaNQuietWithItsSign) {
  for (uint32_t f : {0x7FC00000u, 0x7F800001u, 0xFFC00000u, 0xFF800001u, 0x7FFFFFFFu, 0x7FA00000u}) {
    const uint16_t h = HalfBits(std::bit_cast<float>(f));
    EXPECT_TRUE(IsHalfNaN(h)) << std::hex << f;
    EXPECT_EQ(h & kHalfQuietBit, kHalfQuietBit) << std::hex << f;
    EXPECT_EQ(h >> 15, f >> 31) << std::hex << f;
  }
}

// --------------------------------------------------------------------------------------------- bf16

TEST(BFloat16ToFloat, IsExactForEveryBitPattern) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto b = static_cast<uint16_t>(bits);
    const float got = BFloat16ToFloat(BFloat16{b});
    ASSERT_TRUE(SameValue(got, DecodeReference(b, kBFloat16Format))) << std::hex << "0x" << bits << " -> " << got;
  }
}

TEST(FloatToBFloat16, RoundTripsEveryBitPattern) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto b = static_cast<uint16_t>(bits);
    const uint16_t expected = IsBFloat16NaN(b) ? static_cast<uint16_t>(b | kBFloat16QuietBit) : b;
    ASSERT_EQ(BFloat16Bits(BFloat16ToFloat(BFloat16{b})), expected) << std::hex << "0x" << bits;
  }
}

TEST(FloatToBFloat16, RoundsTiesToEvenAndEverythingElseToNearest) {
  for (uint16_t lo = 0; lo <= kBFloat16MaxFinite; ++lo) {
    const double lo_value = DecodeReference(lo, kBFloat16Format);
    // Above the largest finite value the neighbour is 2^128, whose midpoint is the overflow threshold.
    const double hi_value = lo == kBFloat16MaxFinite ? 0x1p128 : DecodeReference(static_cast<uint16_t>(lo + 1), kBFloat16Format);
    for (float f : AroundTie(lo_value, hi_value)) {
      if (std::isinf(f)) continue;  // 2^128 itself is no float
      for (float v : {f, -f}) {
        ASSERT_TRUE(SameValue(BFloat16ToFloat(FloatToBFloat16(v)), RoundReference(v, kBFloat16Format)))
            << std::hexfloat << v << " -> 0x" << std::hex << BFloat16Bits(v);
      }
    }
  }
}

TEST(FloatToBFloat16, MatchesTheReferenceOnRandomFloats) {
  std::mt19937 rng(0xB16);
  for (int i = 0; i < (1 << 20); ++i) {
    const float v = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    if (std::isnan(v)) continue;
    ASSERT_TRUE(SameValue(BFloat16ToFloat(FloatToBFloat16(v)), RoundReference(v, kBFloat16Format))) << std::hexfloat << v;
  }
}

TEST(FloatToBFloat16, OverflowsToInfinityOnlyFromTheLargestValuePlusHalfAnUlp) {
  EXPECT_EQ(BFloat16Bits(std::bit_cast<float>(0x7F7F7FFFu)), kBFloat16MaxFinite);
  EXPECT_EQ(BFloat16Bits(std::bit_cast<float>(0x7F7F8000u)), 0x7F80);  // the tie rounds to even: Inf
  EXPECT_EQ(BFloat16Bits(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(BFloat16Bits(-std::numeric_limits<float>::max()), 0xFF80);
  EXPECT_EQ(BFloat16Bits(INFINITY), 0x7F80);
}

TEST(FloatToBFloat16, NaNStaysNaNQuietWithItsSign) {
  for (uint32_t f : {0x7FC00000u, 0x7F800001u, 0xFFC00000u, 0xFF800001u, 0x7FFFFFFFu, 0x7F80FFFFu}) {
    const uint16_t b = BFloat16Bits(std::bit_cast<float>(f));
    EXPECT_TRUE(IsBFloat16NaN(b)) << std::hex << f;
    EXPECT_EQ(b & kBFloat16QuietBit, kBFloat16QuietBit) << std::hex << f;
    EXPECT_EQ(b >> 15, f >> 31) << std::hex << f;
  }
}

// --------------------------------------------------------------------------------------------- fp64 -> fp32 round to odd

TEST(DoubleToFloatRoundToOdd, KeepsEveryFloatValue) {
  std::mt19937 rng(7);
  for (int i = 0; i < (1 << 16); ++i) {
    const float f = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    if (std::isnan(f)) continue;
    ASSERT_EQ(std::bit_cast<uint32_t>(DoubleToFloatRoundToOdd(static_cast<double>(f))), std::bit_cast<uint32_t>(f));
  }
  EXPECT_EQ(DoubleToFloatRoundToOdd(INFINITY), INFINITY);
  EXPECT_EQ(DoubleToFloatRoundToOdd(-INFINITY), -INFINITY);
  EXPECT_TRUE(std::signbit(DoubleToFloatRoundToOdd(-0.0)));
  EXPECT_TRUE(std::isnan(DoubleToFloatRoundToOdd(NAN)));
}

TEST(DoubleToFloatRoundToOdd, GivesTheOddOfTheTwoFloatsAroundAnInexactValue) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-140, 127);
  for (int i = 0; i < (1 << 16); ++i) {
    const double d = std::ldexp(mantissa(rng), exponent(rng)) * (i % 2 ? -1 : 1);
    if (static_cast<double>(static_cast<float>(d)) == d) continue;
    const float got = DoubleToFloatRoundToOdd(d);
    // d lies strictly between got's neighbours (so got is the float just below or just above
    // it in magnitude), and got's last bit is set.
    const double toward_zero = std::fabs(static_cast<double>(std::nextafter(got, 0.0f)));
    const double away = std::fabs(static_cast<double>(std::nextafter(got, d > 0 ? INFINITY : -INFINITY)));
    ASSERT_LT(toward_zero, std::fabs(d)) << std::hexfloat << d << " -> " << got;
    ASSERT_GT(away, std::fabs(d)) << std::hexfloat << d << " -> " << got;
    ASSERT_EQ(std::bit_cast<uint32_t>(got) & 1u, 1u) << std::hexfloat << d << " -> " << got;
  }
}

TEST(DoubleToFloatRoundToOdd, GivesTheLargestFloatBeyondTheFloatRangeAndTheSmallestBelowIt) {
  EXPECT_EQ(DoubleToFloatRoundToOdd(1e300), std::numeric_limits<float>::max());
  EXPECT_EQ(DoubleToFloatRoundToOdd(-1e300), -std::numeric_limits<float>::max());
  EXPECT_EQ(DoubleToFloatRoundToOdd(1e-300), std::numeric_limits<float>::denorm_min());
  EXPECT_EQ(DoubleToFloatRoundToOdd(-1e-300), -std::numeric_limits<float>::denorm_min());
}

TEST(DoubleToFloatRoundToOdd, ThenNarrowingRoundsTheDoubleOnceToHalf) {
  // Just off every fp16 tie by far less than a float ulp: rounding the double to float to nearest
  // first would land on the tie and then round to even, the wrong way half of the time.
  for (uint16_t lo = 0; lo < kHalfMaxFinite; ++lo) {
    const double mid = (DecodeReference(lo, kHalfFormat) + DecodeReference(static_cast<uint16_t>(lo + 1), kHalfFormat)) / 2;
    const double nudge = std::ldexp(std::max(mid, 0x1p-24), -40);
    for (double d : {mid - nudge, mid, mid + nudge, -(mid - nudge), -(mid + nudge)}) {
      ASSERT_TRUE(SameValue(HalfToFloat(FloatToHalf(DoubleToFloatRoundToOdd(d))), RoundReference(d, kHalfFormat)))
          << std::hexfloat << d;
    }
  }
}

TEST(DoubleToFloatRoundToOdd, ThenNarrowingRoundsTheDoubleOnceToBFloat16) {
  for (uint16_t lo = 0; lo < kBFloat16MaxFinite; ++lo) {
    const double mid =
        (DecodeReference(lo, kBFloat16Format) + DecodeReference(static_cast<uint16_t>(lo + 1), kBFloat16Format)) / 2;
    const double nudge = std::ldexp(std::max(mid, 0x1p-133), -40);
    for (double d : {mid - nudge, mid, mid + nudge, -(mid - nudge), -(mid + nudge)}) {
      ASSERT_TRUE(SameValue(BFloat16ToFloat(FloatToBFloat16(DoubleToFloatRoundToOdd(d))), RoundReference(d, kBFloat16Format)))
          << std::hexfloat << d;
    }
  }
}

TEST(DoubleToFloatRoundToOdd, ThenNarrowingMatchesTheReferenceOnRandomDoubles) {
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-140, 130);
  for (int i = 0; i < (1 << 18); ++i) {
    const double d = std::ldexp(mantissa(rng), exponent(rng)) * (i % 2 ? -1 : 1);
    const float odd = DoubleToFloatRoundToOdd(d);
    ASSERT_TRUE(SameValue(HalfToFloat(FloatToHalf(odd)), RoundReference(d, kHalfFormat))) << std::hexfloat << d;
    ASSERT_TRUE(SameValue(BFloat16ToFloat(FloatToBFloat16(odd)), RoundReference(d, kBFloat16Format)))
        << std::hexfloat << d;
  }
}

}  // namespace
}  // namespace bce_kernel_test
