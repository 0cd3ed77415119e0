// Element types of the CPU device: sizes, names, PyTorch promotion, and scalar fp16/bf16
// conversions with round-to-nearest-even.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>

#include "acl/acl_base.h"

namespace aclnn_cpu {

/// Bits of an IEEE binary16 value.
struct Half {
  uint16_t bits;
};
/// Bits of a bfloat16 value (the top half of a binary32).
struct BFloat16 {
  uint16_t bits;
};

/// Element size in bytes, 0 for types this library does not know.
size_t DTypeSize(aclDataType dtype);
/// "FLOAT", "FLOAT16", ... for messages; kUnknownDTypeName for a value that is no aclDataType it names.
const char* DTypeName(aclDataType dtype);
inline constexpr const char* kUnknownDTypeName = "UNKNOWN";
/// The floating types the operators accept, in the order tools list them.
inline constexpr aclDataType kFloatDTypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};

/// How a float dtype rounds, for error bounds: the unit roundoff (the largest relative error of
/// one rounding to nearest, 2^-precision) and the smallest subnormal (the absolute step below the
/// normals). FLOAT for any other dtype.
struct FloatRounding {
  double unit_roundoff;
  double smallest_subnormal;
};
inline constexpr FloatRounding RoundingOf(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT16: return {0x1p-11, 0x1p-24};
    case ACL_BF16: return {0x1p-8, 0x1p-133};
    case ACL_DOUBLE: return {0x1p-53, 0x1p-1074};
    default: return {0x1p-24, 0x1p-149};
  }
}
/// "fp32", "fp16", "bf16", "fp64" (the CLI's and the benchmark's names), "?" for other types.
const char* DTypeShortName(aclDataType dtype);
/// "ND", "NCHW", "FRACTAL_Z_3D", ... (acl_base.h's names without ACL_FORMAT_) for messages;
/// "UNDEFINED" for ACL_FORMAT_UNDEFINED and "UNKNOWN" for a value acl_base.h does not define.
const char* FormatName(aclFormat format);
/// Whether the operator accepts @p dtype (FLOAT, FLOAT16, BF16, and DOUBLE as our extension).
bool IsSupportedFloat(aclDataType dtype);
/// PyTorch's promotion of two floating types: fp16 + bf16 -> fp32; the wider type otherwise.
aclDataType PromoteFloat(aclDataType a, aclDataType b);
/// PyTorch's can_cast: any floating type may be cast to any floating type.
bool CanCast(aclDataType from, aclDataType to);

// Hand-written because Highway 1.0.3's scalar and SSE4 fp16 paths truncate and mishandle
// Inf/NaN, and _Float16 is not available in clang 14; tests check every fp16 value and every tie.

/// Exact widening of a binary16 value.
inline float HalfToFloat(Half h) {
  const uint32_t sign = static_cast<uint32_t>(h.bits & 0x8000u) << 16;
  const uint32_t exponent = (h.bits >> 10) & 0x1Fu;
  const uint32_t mantissa = h.bits & 0x3FFu;
  uint32_t bits;
  if (exponent == 0x1Fu) {  // Inf or NaN (payload kept, quiet bit set)
    bits = sign | 0x7F800000u | (mantissa << 13) | (mantissa != 0 ? 0x00400000u : 0u);
  } else if (exponent != 0) {  // normal
    bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {  // zero
    bits = sign;
  } else {  // subnormal: value = mantissa * 2^-24, exact in binary32
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    bits = sign | std::bit_cast<uint32_t>(magnitude);
  }
  return std::bit_cast<float>(bits);
}

/// binary32 -> binary16, round to nearest even; overflow gives Inf, NaN stays NaN (quiet).
inline Half FloatToHalf(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t abs_bits = bits & 0x7FFFFFFFu;
  if (abs_bits > 0x7F800000u) {  // NaN: keep the top payload bits, force quiet
    return Half{static_cast<uint16_t>(sign | 0x7E00u | ((abs_bits >> 13) & 0x3FFu))};
  }
  if (abs_bits >= 0x477FF000u) {  // >= 65520 rounds to Inf (also Inf itself)
    return Half{static_cast<uint16_t>(sign | 0x7C00u)};
  }
  if (abs_bits < 0x38800000u) {  // below 2^-14: subnormal or zero in binary16
    // Scale so the binary16 subnormal grid (2^-24) becomes integers; the float addition rounds
    // to nearest even exactly once (0.5f * 2^-23 magic constant trick).
    const float magnitude = std::bit_cast<float>(abs_bits);
    const float shifted = magnitude + 0.5f;  // 0.5 = 2^-1: its ulp is 2^-24
    const uint32_t m = std::bit_cast<uint32_t>(shifted) - std::bit_cast<uint32_t>(0.5f);
    return Half{static_cast<uint16_t>(sign | m)};
  }
  // Normal: rebias exponent, round the 13 dropped bits to nearest even.
  const uint32_t lsb = (abs_bits >> 13) & 1u;
  const uint32_t rounded = abs_bits + 0xFFFu + lsb;
  return Half{static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13))};
}

/// Exact widening of a bfloat16 value.
inline float BFloat16ToFloat(BFloat16 b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b.bits) << 16);
}

/// binary32 -> bfloat16, round to nearest even; NaN stays NaN (quiet).
inline BFloat16 FloatToBFloat16(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) {
    return BFloat16{static_cast<uint16_t>((bits >> 16) | 0x0040u)};
  }
  const uint32_t lsb = (bits >> 16) & 1u;
  return BFloat16{static_cast<uint16_t>((bits + 0x7FFFu + lsb) >> 16)};
}

/// double -> float rounded to odd: truncation toward zero with the last bit set when inexact.
/// Rounding that result to nearest even at fp16 or bf16 precision equals rounding the double
/// directly (binary32 keeps at least two more bits than either), so a double is rounded once.
inline float DoubleToFloatRoundToOdd(double d) {
  float f = static_cast<float>(d);
  if (static_cast<double>(f) == d || d != d) return f;
  if ((f > 0 && static_cast<double>(f) > d) || (f < 0 && static_cast<double>(f) < d)) {
    f = std::bit_cast<float>(std::bit_cast<uint32_t>(f) - 1u);  // one ulp toward zero
  }
  return std::bit_cast<float>(std::bit_cast<uint32_t>(f) | 1u);
}

/// Reads element @p index of a buffer of @p dtype as double (exact for every supported type).
double LoadAsDouble(const void* data, aclDataType dtype, int64_t index);
/// Writes @p value rounded once (nearest even) to @p dtype.
void StoreFromDouble(void* data, aclDataType dtype, int64_t index, double value);

}  // namespace aclnn_cpu
