// An independent, double-based reference of the binary16 and bfloat16 formats: decoding from
// bits and rounding to nearest even, written from the formats' definitions (precision, exponent
// range) with no bit tricks, to check common/dtype.h and the kernel's SIMD conversions against.
#pragma once

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>

namespace bce_kernel_test {

/// A binary floating-point format: significand precision (hidden bit included) and the
/// exponents of its smallest and largest normal binades.
struct NarrowFormat {
  int precision;
  int min_exponent;
  int max_exponent;
  int exponent_bits;
};
inline constexpr NarrowFormat kHalfFormat{11, -14, 15, 5};
inline constexpr NarrowFormat kBFloat16Format{8, -126, 127, 8};

/// The value of bit pattern @p bits of @p format (NaN for every NaN pattern).
inline double DecodeReference(uint16_t bits, NarrowFormat format) {
  const int mantissa_bits = format.precision - 1;
  const bool negative = (bits >> 15) != 0;
  const int exponent_field = (bits >> mantissa_bits) & ((1 << format.exponent_bits) - 1);
  const int mantissa = bits & ((1 << mantissa_bits) - 1);
  const int max_field = (1 << format.exponent_bits) - 1;
  double magnitude;
  if (exponent_field == max_field) {
    magnitude = mantissa == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  } else if (exponent_field == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), format.min_exponent - mantissa_bits);
  } else {
    const int exponent = exponent_field - (max_field >> 1);
    magnitude = std::ldexp(static_cast<double>((1 << mantissa_bits) + mantissa), exponent - mantissa_bits);
  }
  return negative ? -magnitude : magnitude;
}

/// @p value rounded to the nearest value of @p format, ties to even; Inf at and beyond the
/// largest finite value plus half an ulp; the sign of zero kept.
inline double RoundReference(double value, NarrowFormat format) {
  if (std::isnan(value) || std::isinf(value) || value == 0) return value;
  const double magnitude = std::fabs(value);
  const int exponent = std::max(std::ilogb(magnitude), format.min_exponent);
  const double quantum = std::ldexp(1.0, exponent - (format.precision - 1));
  // magnitude / quantum is exact (a power-of-two scaling); nearbyint rounds half to even in the
  // default rounding mode.
  double rounded = std::nearbyint(magnitude / quantum) * quantum;
  const double overflow = std::ldexp(1.0, format.max_exponent + 1) - std::ldexp(1.0, format.max_exponent - format.precision);
  if (magnitude >= overflow) rounded = std::numeric_limits<double>::infinity();
  return std::copysign(rounded, value);
}

/// Whether @p got (a decoded value) is @p want, treating NaN as equal to NaN and telling zeros apart.
inline bool SameValue(double got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  return got == want && std::signbit(got) == std::signbit(want);
}

}  // namespace bce_kernel_test
