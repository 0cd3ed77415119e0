// Log1pUnit and SoftplusPair (src/simd/log1p-inl.h) and SoftplusTailN (src/simd/softplus_tail-inl.h)
// against float64 / long double references, on every SIMD target this build has and this CPU
// runs: the contract blocks' error bounds; and ExpNonPositive's handling of a NaN
// (src/simd/exp-inl.h), which the gradient's kernels rely on.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/test_log1p.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "simd/log1p-inl.h"
#include "simd/softplus_tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class T>
void Log1pUnitArray(const T* in, T* out, size_t n) {
  const hn::ScalableTag<T> d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(Log1pUnit(d, hn::LoadU(d, in + i)), d, out + i);
  for (; i < n; ++i) {  // the tail one lane at a time, through the same vector code
    const hn::CappedTag<T, 1> d1;
    hn::StoreU(Log1pUnit(d1, hn::LoadU(d1, in + i)), d1, out + i);
  }
}
void Log1pUnitFloat(const float* in, float* out, size_t n) { Log1pUnitArray(in, out, n); }
void Log1pUnitDouble(const double* in, double* out, size_t n) { Log1pUnitArray(in, out, n); }

template <class T>
void ExpNonPositiveArray(const T* in, T* out, size_t n) {
  const hn::CappedTag<T, 1> d1;  // one lane at a time, then whole vectors of the same value
  const hn::ScalableTag<T> d;
  for (size_t i = 0; i < n; ++i) {
    hn::StoreU(ExpNonPositive(d1, hn::LoadU(d1, in + i)), d1, out + 2 * i);
    out[2 * i + 1] = hn::GetLane(ExpNonPositive(d, hn::Set(d, in[i])));
  }
}
void ExpNonPositiveFloat(const float* in, float* out, size_t n) { ExpNonPositiveArray(in, out, n); }
void ExpNonPositiveDouble(const double* in, double* out, size_t n) { ExpNonPositiveArray(in, out, n); }

void SoftplusPairFloat(const float* in, float* pos, float* neg, size_t n) {
  const hn::CappedTag<float, 1> d1;  // one lane at a time: the test is about values, not speed
  for (size_t i = 0; i < n; ++i) {
    hn::Vec<decltype(d1)> sp, sn;
    SoftplusPair(d1, hn::LoadU(d1, in + i), sp, sn);
    hn::StoreU(sp, d1, pos + i);
    hn::StoreU(sn, d1, neg + i);
  }
}

// SoftplusTailN over an array as the kernels run it: groups of kInterleave vectors, then single
// vectors, the last partial vector padded with copies of its first element (GROUPED false: every
// vector alone, K = 1). Returns whether this target takes the tail from the table.
template <bool GROUPED>
bool SoftplusTailArray(const float* in, float* out, size_t n) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  if constexpr (GROUPED) {
    for (; i + kInterleave * lanes <= n; i += kInterleave * lanes) {
      V x[kInterleave], tail[kInterleave];
      for (size_t k = 0; k < kInterleave; ++k) x[k] = hn::LoadU(d, in + i + k * lanes);
      SoftplusTailN<kInterleave>(d, x, tail);
      for (size_t k = 0; k < kInterleave; ++k) hn::StoreU(tail[k], d, out + i + k * lanes);
    }
  }
  for (; i < n; i += lanes) {
    HWY_ALIGN float padded[HWY_MAX_BYTES / sizeof(float)];
    for (size_t k = 0; k < lanes; ++k) padded[k] = in[i + k < n ? i + k : i];
    V x = hn::Load(d, padded), tail;
    SoftplusTailN<1>(d, &x, &tail);
    hn::Store(tail, d, padded);
    for (size_t k = 0; k < lanes && i + k < n; ++k) out[i + k] = padded[k];
  }
  return kTailByTable<decltype(d)>;
}
bool SoftplusTailGrouped(const float* in, float* out, size_t n) { return SoftplusTailArray<true>(in, out, n); }
bool SoftplusTailSingle(const float* in, float* out, size_t n) { return SoftplusTailArray<false>(in, out, n); }

}  // namespace HWY_NAMESPACE
}  // namespace aclnn_cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "hwy/targets.h"
#include "simd_targets.h"

namespace aclnn_cpu {
HWY_EXPORT(Log1pUnitFloat);
HWY_EXPORT(Log1pUnitDouble);
HWY_EXPORT(SoftplusPairFloat);
HWY_EXPORT(ExpNonPositiveFloat);
HWY_EXPORT(ExpNonPositiveDouble);
HWY_EXPORT(SoftplusTailGrouped);
HWY_EXPORT(SoftplusTailSingle);

namespace {

/// |got - exact| in units of the last place of T at exact (subnormal spacing below the normals);
/// 0 when both are the same infinity or both NaN, +inf when only one is.
template <class T>
double UlpError(T got, long double exact) {
  if (std::isnan(exact) || std::isnan(got)) return std::isnan(exact) && std::isnan(got) ? 0 : INFINITY;
  if (std::isinf(exact) || std::isinf(got)) return static_cast<long double>(got) == exact ? 0 : INFINITY;
  const int exponent = std::max(std::ilogb(static_cast<T>(exact == 0 ? std::numeric_limits<T>::min() : exact)),
                                std::numeric_limits<T>::min_exponent - 1);
  const long double ulp = std::ldexp(1.0L, exponent - (std::numeric_limits<T>::digits - 1));
  return static_cast<double>(std::fabs(static_cast<long double>(got) - exact) / ulp);
}

using acl_test::OnEverySimdTarget;

// Every float of [0, 1] with a stride of 251 bit patterns, plus the binade edges and both ends.
std::vector<float> UnitFloats() {
  std::vector<float> u;
  const uint32_t one = std::bit_cast<uint32_t>(1.0f);
  for (uint32_t bits = 0; bits <= one; bits += 251) u.push_back(std::bit_cast<float>(bits));
  for (int e = -149; e <= 0; ++e) {
    const float p = std::ldexp(1.0f, e);
    u.push_back(p);
    u.push_back(std::nextafter(p, 0.0f));
    u.push_back(std::nextafter(p, 2.0f));
  }
  u.push_back(1.0f);
  u.push_back(0.5f);
  u.push_back(std::nextafter(1.0f, 0.0f));
  return u;
}

TEST(Log1pUnit, FloatIsWithinOneUlpOnAllOfZeroToOne) {
  const std::vector<float> u = UnitFloats();
  std::vector<float> got(u.size());
  OnEverySimdTarget([&](const char* name) {
    HWY_DYNAMIC_DISPATCH(Log1pUnitFloat)(u.data(), got.data(), u.size());
    double worst = 0;
    size_t worst_at = 0;
    for (size_t i = 0; i < u.size(); ++i) {
      const double e = UlpError(got[i], std::log1p(static_cast<long double>(u[i])));
      if (e > worst) worst = e, worst_at = i;
    }
    EXPECT_LE(worst, 1.0) << "at u = " << u[worst_at] << ": " << got[worst_at];
    std::printf("[ %-8s ] float log1p on [0, 1]: %zu points, max error %.3f ULP at u = %a\n", name, u.size(), worst,
                u[worst_at]);
  });
}

TEST(Log1pUnit, FloatKeepsZeroAndTinyArgumentsExactly) {
  const float denorm = std::numeric_limits<float>::denorm_min();
  const std::vector<float> u = {0.0f, denorm, 1e-30f, 0x1p-25f, std::numeric_limits<float>::quiet_NaN()};
  std::vector<float> got(u.size());
  OnEverySimdTarget([&](const char*) {
    HWY_DYNAMIC_DISPATCH(Log1pUnitFloat)(u.data(), got.data(), u.size());
    EXPECT_EQ(std::bit_cast<uint32_t>(got[0]), 0u);  // +0, not -0
    EXPECT_EQ(got[1], denorm);
    EXPECT_EQ(got[2], 1e-30f);
    EXPECT_EQ(got[3], 0x1p-25f);
    EXPECT_TRUE(std::isnan(got[4]));
  });
}

// Note [NaN through exp]: a NaN x gives x's NaN, quieted (sign and payload kept), one lane or a
// whole vector, on every target, float and double; finite x around it keep their values.
TEST(ExpNonPositive, KeepsANaNAsItsQuietedSelf) {
  const std::vector<uint32_t> float_bits = {0x7fc00000u, 0xffc00000u, 0x7fc12345u, 0xff812345u, 0x7fa00000u};
  std::vector<float> in;
  for (uint32_t b : float_bits) in.push_back(std::bit_cast<float>(b));
  in.push_back(-1.0f);
  in.push_back(-200.0f);
  std::vector<float> got(2 * in.size());
  OnEverySimdTarget([&](const char* name) {
    HWY_DYNAMIC_DISPATCH(ExpNonPositiveFloat)(in.data(), got.data(), in.size());
    for (size_t i = 0; i < float_bits.size(); ++i) {
      for (int w = 0; w < 2; ++w) {
        EXPECT_EQ(std::bit_cast<uint32_t>(got[2 * i + w]), float_bits[i] | 0x00400000u)
            << name << " float NaN " << std::hex << float_bits[i] << (w ? " (vector)" : " (one lane)");
      }
    }
    const size_t k = float_bits.size();
    for (int w = 0; w < 2; ++w) {
      EXPECT_LE(UlpError(got[2 * k + w], std::exp(-1.0L)), 1.0) << name;
      EXPECT_EQ(std::bit_cast<uint32_t>(got[2 * k + 2 + w]), 0u) << name;  // below -104: +0
    }
  });
  const std::vector<uint64_t> double_bits = {0x7ff8000000000000u, 0xfff8000000000000u, 0x7ff8000012345678u};
  std::vector<double> in64;
  for (uint64_t b : double_bits) in64.push_back(std::bit_cast<double>(b));
  std::vector<double> got64(2 * in64.size());
  OnEverySimdTarget([&](const char* name) {
    HWY_DYNAMIC_DISPATCH(ExpNonPositiveDouble)(in64.data(), got64.data(), in64.size());
    for (size_t i = 0; i < double_bits.size(); ++i) {
      for (int w = 0; w < 2; ++w) {
        EXPECT_EQ(std::bit_cast<uint64_t>(got64[2 * i + w]), double_bits[i]) << name << " double NaN " << i;
      }
    }
  });
}

TEST(Log1pUnit, DoubleIsWithinThreeUlpOnZeroToOne) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0), exponent(-1074.0, 0.0);
  std::vector<double> u;
  for (int i = 0; i < 200000; ++i) u.push_back(unit(rng));
  for (int i = 0; i < 200000; ++i) u.push_back(std::exp2(exponent(rng)));
  u.push_back(0.0);
  u.push_back(1.0);
  u.push_back(std::numeric_limits<double>::denorm_min());
  std::vector<double> got(u.size());
  OnEverySimdTarget([&](const char* name) {
    HWY_DYNAMIC_DISPATCH(Log1pUnitDouble)(u.data(), got.data(), u.size());
    double worst = 0;
    for (size_t i = 0; i < u.size(); ++i) worst = std::max(worst, UlpError(got[i], std::log1p(static_cast<long double>(u[i]))));
    EXPECT_LE(worst, 3.0);
    std::printf("[ %-8s ] double log1p on [0, 1]: %zu points, max error %.3f ULP\n", name, u.size(), worst);
  });
}

long double ExactSoftplus(long double x) {
  return std::max(x, 0.0L) + std::log1p(std::exp(-std::fabs(x)));
}

TEST(SoftplusPair, FloatIsWithinTwoUlpForEveryFiniteXAndTakesTheLimitsAtInfinity) {
  std::vector<float> x;
  // Densely near 0, where both terms matter, then every 97th float out to the largest finite.
  for (float v = -30.0f; v <= 30.0f; v += 0.0009765625f) x.push_back(v);
  for (uint32_t bits = 0; bits < std::bit_cast<uint32_t>(std::numeric_limits<float>::max()); bits += 9973) {
    x.push_back(std::bit_cast<float>(bits));
    x.push_back(-std::bit_cast<float>(bits));
  }
  x.push_back(-30.0f);  // the cancellation example: y = 0, x = -30 gives 9.4e-14
  const size_t finite = x.size();
  x.push_back(INFINITY);
  x.push_back(-INFINITY);
  x.push_back(std::numeric_limits<float>::quiet_NaN());
  std::vector<float> pos(x.size()), neg(x.size());
  OnEverySimdTarget([&](const char* name) {
    HWY_DYNAMIC_DISPATCH(SoftplusPairFloat)(x.data(), pos.data(), neg.data(), x.size());
    double worst = 0;
    float worst_x = 0;
    for (size_t i = 0; i < finite; ++i) {
      const long double xi = x[i];
      const double e = std::max(UlpError(pos[i], ExactSoftplus(xi)), UlpError(neg[i], ExactSoftplus(-xi)));
      if (e > worst) worst = e, worst_x = x[i];
    }
    EXPECT_LE(worst, 2.0) << "at x = " << worst_x;
    std::printf("[ %-8s ] float softplus pair: %zu points, max error %.3f ULP at x = %a\n", name, finite, worst,
                worst_x);
    EXPECT_NEAR(pos[finite - 1], 9.357623e-14f, 1e-19f);  // softplus(-30), not 0
    EXPECT_EQ(pos[finite], INFINITY);
    EXPECT_EQ(std::bit_cast<uint32_t>(neg[finite]), 0u);
    EXPECT_EQ(std::bit_cast<uint32_t>(pos[finite + 1]), 0u);
    EXPECT_EQ(neg[finite + 1], INFINITY);
    EXPECT_TRUE(std::isnan(pos[finite + 2]) && std::isnan(neg[finite + 2]));
  });
}

// SoftplusTailN (Note [Softplus tail by table]): every 397th float of [0, 104] and the edges of the
// table's domain, as x and as -x, against log1p(exp(-|x|)) in long double. Where the target takes
// the table: within 1 ULP below 15.75 (0.926 measured over every float), and beyond it (exp, 1.01
// measured) and on the other targets (exp and log1p, 1.47-1.65 measured) within 2 ULP, the
// softplus's budget; the targets differ by 2 ULP at most (measured). The
// same bits for x and -x, in groups and alone; the limits at infinity, NaN through. Prints each
// target's largest error and the largest difference between targets.
TEST(SoftplusTail, FloatIsWithinItsBoundOnEveryTargetAndTheSameForXAndMinusX) {
  namespace table = ::aclnn_cpu::softplus_tail;
  std::vector<float> x;
  for (uint32_t bits = 0; bits <= std::bit_cast<uint32_t>(104.0f); bits += 397) x.push_back(std::bit_cast<float>(bits));
  for (const float edge : {table::kLimit, 0.25f, 0.75f, 15.25f, 104.0f, 103.97f, 87.0f}) {
    for (int step = -3; step <= 3; ++step) {
      float v = edge;
      for (int s = 0; s < std::abs(step); ++s) v = std::nextafter(v, step < 0 ? 0.0f : INFINITY);
      x.push_back(v);
    }
  }
  for (int n = 0; n < 32; ++n) {  // every interval's centre and ends
    x.push_back(n * 0.5f);
    x.push_back(n * 0.5f + 0.25f);
    x.push_back(std::nextafter(n * 0.5f + 0.25f, 0.0f));
  }
  const size_t positive = x.size();
  for (size_t i = 0; i < positive; ++i) x.push_back(-x[i]);
  const size_t finite = x.size();
  for (const float special : {INFINITY, -INFINITY, std::numeric_limits<float>::quiet_NaN(), 1e30f, -3e38f}) {
    x.push_back(special);
  }
  std::vector<float> grouped(x.size()), single(x.size()), first;
  double largest_difference = 0;
  OnEverySimdTarget([&](const char* name) {
    const bool by_table = HWY_DYNAMIC_DISPATCH(SoftplusTailGrouped)(x.data(), grouped.data(), x.size());
    HWY_DYNAMIC_DISPATCH(SoftplusTailSingle)(x.data(), single.data(), x.size());
    double worst_table = 0, worst = 0;
    float worst_table_x = 0, worst_x = 0;
    for (size_t i = 0; i < finite; ++i) {
      const long double a = std::fabs(static_cast<long double>(x[i]));
      const double e = UlpError(grouped[i], std::log1p(std::exp(-a)));
      if (a < table::kLimit && e > worst_table) worst_table = e, worst_table_x = x[i];
      if (e > worst) worst = e, worst_x = x[i];
      ASSERT_EQ(std::bit_cast<uint32_t>(grouped[i]), std::bit_cast<uint32_t>(single[i])) << name << " x = " << x[i];
      if (i < positive) {
        ASSERT_EQ(std::bit_cast<uint32_t>(grouped[i]), std::bit_cast<uint32_t>(grouped[i + positive]))
            << name << " x = " << x[i];
      }
    }
    if (by_table) {
      EXPECT_LE(worst_table, 1.0) << name << " at x = " << worst_table_x;
    }
    EXPECT_LE(worst, 2.0) << name << " at x = " << worst_x;
    EXPECT_EQ(std::bit_cast<uint32_t>(grouped[finite]), 0u) << name;      // +inf: +0
    EXPECT_EQ(std::bit_cast<uint32_t>(grouped[finite + 1]), 0u) << name;  // -inf: +0
    EXPECT_TRUE(std::isnan(grouped[finite + 2])) << name;
    EXPECT_EQ(std::bit_cast<uint32_t>(grouped[finite + 3]), 0u) << name;  // far beyond: +0
    EXPECT_EQ(std::bit_cast<uint32_t>(grouped[finite + 4]), 0u) << name;
    double difference = 0;
    if (first.empty()) {
      first = grouped;
    } else {
      for (size_t i = 0; i < finite; ++i) difference = std::max(difference, UlpError(grouped[i], first[i]));
      largest_difference = std::max(largest_difference, difference);
    }
    std::printf("[ %-8s ] float softplus tail (%s): %zu points, max error %.3f ULP at x = %a (below %g: %.3f ULP); "
                "%.0f ULP from the first target\n",
                name, by_table ? "table" : "exp and log1p", finite, worst, worst_x, table::kLimit, worst_table,
                difference);
  });
  EXPECT_LE(largest_difference, 3.0);
}

}  // namespace
}  // namespace aclnn_cpu
#endif  // HWY_ONCE
