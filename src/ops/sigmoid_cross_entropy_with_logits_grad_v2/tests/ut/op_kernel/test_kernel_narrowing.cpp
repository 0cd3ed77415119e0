// The kernel's SIMD loads and stores of fp16 / bf16 (docs/contract.md §1: widen exactly, round once to
// nearest even) on every SIMD target: every bit pattern, every tie, and bit-identity with the
// scalar FloatToHalf / FloatToBFloat16 applied to the fp32 kernel's result.
//
// Inputs for which the kernel's result is known exactly: with x = -Inf the sigmoid is exactly
// p = 0, q = 1, so for y = 1 (no pos_weight) g = -dout * weight * scale with no rounding at all
// in fp32. A 16-bit dout or weight then comes back negated bit for bit, and a scale s comes back
// as the 16-bit rounding of -s: any float can be fed to the narrowing store.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>
#include <sstream>
#include <string>

#include "kernel_test_util.h"
#include "narrow_reference.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_host/sigmoid_cross_entropy_with_logits_grad_v2_tiling.h"

namespace bce_kernel_test {
namespace {

using aclnn_cpu::BFloat16ToFloat;
using aclnn_cpu::FloatToBFloat16;
using aclnn_cpu::FloatToHalf;
using aclnn_cpu::HalfToFloat;
using aclnn_cpu::bce_grad::MakeTilingKey;

class KernelNarrowing : public OnEverySimdTarget {};

/// What differs between fp16 and bf16 for these tests.
struct Format16 {
  KernelDType dtype;
  NarrowFormat format;
  uint16_t minus_inf, one, exponent_mask, quiet_bit, max_finite;
  float (*widen)(uint16_t);
  uint16_t (*narrow)(float);
};

const Format16 kFp16{KernelDType::kFloat16,
                     kHalfFormat,
                     0xFC00,
                     0x3C00,
                     0x7C00,
                     0x0200,
                     0x7BFF,
                     [](uint16_t b) { return HalfToFloat(aclnn_cpu::Half{b}); },
                     [](float f) { return FloatToHalf(f).bits; }};
const Format16 kBf16{KernelDType::kBFloat16,
                     kBFloat16Format,
                     0xFF80,
                     0x3F80,
                     0x7F80,
                     0x0040,
                     0x7F7F,
                     [](uint16_t b) { return BFloat16ToFloat(aclnn_cpu::BFloat16{b}); },
                     [](float f) { return FloatToBFloat16(f).bits; }};

bool IsNaN(const Format16& f, uint16_t bits) {
  return (bits & f.exponent_mask) == f.exponent_mask && (bits & ~(f.exponent_mask | 0x8000)) != 0;
}

/// Raw inputs (storage elements) of one compute call; weight / pos_weight used when the key has them.
template <class T>
struct RawInputs {
  std::vector<T> x, y, dout, weight, pos_weight;
  void Add(T xi, T yi, T douti, T wi, T pwi) {
    x.push_back(xi);
    y.push_back(yi);
    dout.push_back(douti);
    weight.push_back(wi);
    pos_weight.push_back(pwi);
  }
};

template <class T>
std::vector<T> RunRaw(uint32_t key, const RawInputs<T>& in, double scale) {
  std::vector<T> out(in.x.size());
  CallTile(SelfKernel(key), TileOperandsOver(in, out.data()), out.size(), scale);
  return out;
}

/// Every 16-bit pattern as dout (or weight): the kernel returns it negated, exactly.
void ExpectEveryPatternComesBackNegated(const Format16& f, bool through_weight) {
  RawInputs<uint16_t> in;
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto v = static_cast<uint16_t>(bits);
    in.Add(f.minus_inf, f.one, through_weight ? f.one : v, through_weight ? v : f.one, f.one);
  }
  const uint32_t key = MakeTilingKey(f.dtype, through_weight, false);
  const std::vector<uint16_t> out = RunRaw(key, in, 1.0);
  int64_t failures = 0;
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto v = static_cast<uint16_t>(bits);
    const uint16_t got = out[bits];
    if (IsNaN(f, v)) {
      if (IsNaN(f, got) && (got & f.quiet_bit) != 0) continue;
    } else if (got == static_cast<uint16_t>(v ^ 0x8000)) {
      continue;
    }
    if (++failures <= 5) {
      ADD_FAILURE() << TilingKeyLabel(key) << (through_weight ? " weight" : " dout") << " 0x" << std::hex << v
                    << " gives 0x" << got << ", expected 0x" << static_cast<uint16_t>(v ^ 0x8000);
    }
  }
  EXPECT_EQ(failures, 0);
}

TEST_P(KernelNarrowing, Fp16EveryBitPatternWidensAndNarrowsExactly) {
  ExpectEveryPatternComesBackNegated(kFp16, false);
  ExpectEveryPatternComesBackNegated(kFp16, true);
}

TEST_P(KernelNarrowing, Bf16EveryBitPatternWidensAndNarrowsExactly) {
  ExpectEveryPatternComesBackNegated(kBf16, false);
  ExpectEveryPatternComesBackNegated(kBf16, true);
}

/// Floats around every rounding decision of the format: each pair of neighbours (and the
/// overflow threshold above the largest finite value), the tie, a float ulp either side, both signs.
std::vector<float> RoundingDecisions(const Format16& f) {
  std::vector<float> values;
  for (uint16_t lo = 0; lo <= f.max_finite; ++lo) {
    const double lo_value = DecodeReference(lo, f.format);
    const double hi_value = lo == f.max_finite ? 2 * std::ldexp(1.0, f.format.max_exponent)
                                               : DecodeReference(static_cast<uint16_t>(lo + 1), f.format);
    const float tie = static_cast<float>((lo_value + hi_value) / 2);
    for (float v : {static_cast<float>(lo_value), std::nextafter(tie, -INFINITY), tie, std::nextafter(tie, INFINITY)}) {
      values.push_back(v);
      values.push_back(-v);
    }
  }
  return values;
}

/// Feeds every rounding decision through the kernel's store (as -scale, see the top of the file),
/// in a full vector on every target, and compares with the reference and the scalar conversion.
void ExpectStoreRoundsToNearestEven(const Format16& f) {
  // Two full fp32 vectors on every target: the main loop's whole chunk even where bf16 is
  // loaded as one register of two vectors' worth.
  constexpr size_t kCount = 2 * kWidestVectorBytes / sizeof(float);
  RawInputs<uint16_t> in;
  for (size_t i = 0; i < kCount; ++i) in.Add(f.minus_inf, f.one, f.one, f.one, f.one);
  const uint32_t key = MakeTilingKey(f.dtype, false, false);
  int64_t failures = 0;
  for (float v : RoundingDecisions(f)) {
    const std::vector<uint16_t> out = RunRaw(key, in, -static_cast<double>(v));
    const uint16_t scalar = f.narrow(v);
    const double reference = RoundReference(v, f.format);
    for (uint16_t got : out) {
      if (got == scalar && SameValue(f.widen(got), reference)) continue;
      if (++failures <= 5) {
        ADD_FAILURE() << KernelDTypeLabel(f.dtype) << " store of " << std::hexfloat << v << " gives 0x" << std::hex
                      << got << ", FloatToHalf/BFloat16 0x" << scalar << ", reference " << std::hexfloat << reference;
      }
      break;
    }
  }
  EXPECT_EQ(failures, 0);
}

TEST_P(KernelNarrowing, Fp16StoreRoundsEveryTieToEvenAndTheRestToNearest) { ExpectStoreRoundsToNearestEven(kFp16); }

TEST_P(KernelNarrowing, Bf16StoreRoundsEveryTieToEvenAndTheRestToNearest) { ExpectStoreRoundsToNearestEven(kBf16); }

/// NaN of any payload, fed to the store as -scale, comes out as a quiet NaN. Returns the
/// NaNs that did not (with what they became).
std::string NaNsNotStoredAsQuietNaN(const Format16& f) {
  RawInputs<uint16_t> in;
  for (size_t i = 0; i < 2 * kWidestVectorBytes / sizeof(float); ++i) in.Add(f.minus_inf, f.one, f.one, f.one, f.one);
  const uint32_t key = MakeTilingKey(f.dtype, false, false);
  std::ostringstream lost;
  for (uint32_t nan : {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0x7FC00001u, 0x7FFF8000u, 0x7FFFFFFFu, 0xFFFFFFFFu,
                       0x7FA00000u, 0x7FBFFFFFu}) {
    // -1 * NaN gives the NaN operand (quieted) on x86, so the store sees this pattern.
    const uint16_t got = RunRaw(key, in, static_cast<double>(std::bit_cast<float>(nan)))[0];
    if (!IsNaN(f, got) || (got & f.quiet_bit) == 0) lost << std::hex << " 0x" << nan << "->0x" << got;
  }
  return lost.str();
}

TEST_P(KernelNarrowing, Fp16StoreKeepsNaNQuiet) { EXPECT_EQ(NaNsNotStoredAsQuietNaN(kFp16), ""); }

// Highway 1.0.3's Ne on AVX2/AVX-512 is an ordered compare (_CMP_NEQ_OQ), false for NaN: the
// store must detect NaN on the magnitude bits, or a NaN's bits are rounded like a number and the
// carry leaves the exponent (NaN -> +-0 or Inf).
TEST_P(KernelNarrowing, Bf16StoreKeepsNaNQuiet) { EXPECT_EQ(NaNsNotStoredAsQuietNaN(kBf16), ""); }

/// Inputs in the 16-bit format: random operator-like values, special values, results that are
/// exact ties of the format, results that overflow it and results in its subnormal range.
RawInputs<uint16_t> MixedInputs(const Format16& f, uint64_t seed) {
  const aclDataType acl = AclDTypeOf(f.dtype);
  std::mt19937_64 rng(seed);
  auto bits_of = [&](double value) {
    uint16_t bits;
    aclnn_cpu::StoreFromDouble(&bits, acl, 0, value);
    return bits;
  };
  auto random = [&](double lo, double hi) { return bits_of(std::uniform_real_distribution<double>(lo, hi)(rng)); };
  RawInputs<uint16_t> in;
  for (int i = 0; i < 4000; ++i) in.Add(random(-16, 16), random(0, 1), random(-4, 4), random(0, 4), random(0.25, 8));
  // Special values in each operand.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double max = DecodeReference(f.max_finite, f.format);
  const double min_subnormal = DecodeReference(1, f.format);
  for (double special : {0.0, -0.0, double{INFINITY}, double{-INFINITY}, nan, max, -max, min_subnormal, -min_subnormal, 1.0, 0.5}) {
    const uint16_t s = bits_of(special);
    in.Add(s, bits_of(0.3), bits_of(1.0), bits_of(1.5), bits_of(2.0));
    in.Add(bits_of(0.7), s, bits_of(1.0), bits_of(1.5), bits_of(2.0));
    in.Add(bits_of(-0.7), bits_of(0.3), s, bits_of(1.5), bits_of(2.0));
    in.Add(bits_of(2.0), bits_of(0.3), bits_of(1.0), s, bits_of(2.0));
    in.Add(bits_of(-2.0), bits_of(0.3), bits_of(1.0), bits_of(1.5), s);
  }
  // Exact ties: x = -Inf gives g = -y * dout (* weight 1, pos_weight 1); y = m * 2^-p (m odd,
  // p significant bits) times 1.5 = 3m * 2^-(p+1) needs exactly one bit more than the format.
  const int p = f.format.precision;
  for (int m = (1 << (p - 1)) + 1; 3 * m < (1 << (p + 1)); m += 2) {
    in.Add(f.minus_inf, bits_of(std::ldexp(m, -p)), bits_of(1.5), f.one, f.one);
  }
  // Subnormal results, ties among them, and underflow to zero.
  for (int m = 1; m < 64; ++m) {
    in.Add(f.minus_inf, bits_of(std::ldexp(m, f.format.min_exponent - (p - 1))), bits_of(0.5), f.one, f.one);
    in.Add(f.minus_inf, bits_of(std::ldexp(1.0, f.format.min_exponent)), bits_of(std::ldexp(m * 0.75, -(p - 1))), f.one, f.one);
  }
  // Results beyond the largest finite value.
  in.Add(f.minus_inf, f.one, bits_of(max), bits_of(2.0), bits_of(2.0));
  in.Add(f.minus_inf, f.one, bits_of(max / 2), bits_of(1.5), bits_of(1.5));
  in.Add(f.minus_inf, bits_of(0.75), bits_of(-max), bits_of(1.75), f.one);
  return in;
}

/// The 16-bit kernel equals FloatToHalf / FloatToBFloat16 of the fp32 kernel on the same values,
/// bit for bit: same fp32 computation, one rounding on store.
void ExpectMatchesScalarNarrowingOfFp32Kernel(const Format16& f) {
  const RawInputs<uint16_t> narrow = MixedInputs(f, static_cast<uint64_t>(f.dtype));
  RawInputs<float> wide;
  for (size_t i = 0; i < narrow.x.size(); ++i) {
    wide.Add(f.widen(narrow.x[i]), f.widen(narrow.y[i]), f.widen(narrow.dout[i]), f.widen(narrow.weight[i]),
             f.widen(narrow.pos_weight[i]));
  }
  for (bool weight : {false, true}) {
    for (bool pos_weight : {false, true}) {
      for (double scale : {1.0, static_cast<double>(1.0f / 3000)}) {
        const uint32_t key16 = MakeTilingKey(f.dtype, weight, pos_weight);
        const uint32_t key32 = MakeTilingKey(KernelDType::kFloat, weight, pos_weight);
        const std::vector<uint16_t> got = RunRaw(key16, narrow, scale);
        const std::vector<float> fp32 = RunRaw(key32, wide, scale);
        int64_t failures = 0;
        for (size_t i = 0; i < got.size(); ++i) {
          const uint16_t expected = f.narrow(fp32[i]);
          if (got[i] == expected) continue;
          if (++failures <= 5) {
            ADD_FAILURE() << TilingKeyLabel(key16) << " scale " << scale << " element " << i << " (x 0x" << std::hex
                          << narrow.x[i] << " y 0x" << narrow.y[i] << " dout 0x" << narrow.dout[i] << " w 0x"
                          << narrow.weight[i] << " pw 0x" << narrow.pos_weight[i] << "): 0x" << got[i]
                          << ", fp32 kernel " << std::hexfloat << fp32[i] << " narrowed 0x" << std::hex << expected;
          }
        }
        EXPECT_EQ(failures, 0) << TilingKeyLabel(key16) << " of " << got.size() << " elements";
      }
    }
  }
}

TEST_P(KernelNarrowing, Fp16KernelIsTheFp32KernelRoundedOnceByFloatToHalf) {
  ExpectMatchesScalarNarrowingOfFp32Kernel(kFp16);
}

TEST_P(KernelNarrowing, Bf16KernelIsTheFp32KernelRoundedOnceByFloatToBFloat16) {
  ExpectMatchesScalarNarrowingOfFp32Kernel(kBf16);
}

TEST_P(KernelNarrowing, ConstructedTiesAreTiesInFp32) {
  // Guards the inputs above: -y * 1.5 is exact in fp32 and lies halfway between 16-bit values.
  for (const Format16* f : {&kFp16, &kBf16}) {
    const int p = f->format.precision;
    int ties = 0;
    for (int m = (1 << (p - 1)) + 1; 3 * m < (1 << (p + 1)); m += 2) {
      const double g = -std::ldexp(m, -p) * 1.5;
      const double down = RoundReference(std::nextafter(g, 0.0), f->format);
      const double up = RoundReference(std::nextafter(g, -1.0), f->format);
      EXPECT_NE(down, up) << g;  // a hair either side rounds apart: g is a tie
      ++ties;
    }
    EXPECT_GT(ties, 10);
  }
}

INSTANTIATE_TEST_SUITE_P(SimdTargets, KernelNarrowing, ::testing::ValuesIn(hwy::SupportedAndGeneratedTargets()),
                         SimdTargetName);

}  // namespace
}  // namespace bce_kernel_test
