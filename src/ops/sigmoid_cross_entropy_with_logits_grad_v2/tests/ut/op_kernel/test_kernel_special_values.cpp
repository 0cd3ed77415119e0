// Special values through the kernel (docs/contract.md §1): huge and infinite logits saturate the sigmoid
// without NaN, -0 is a logit of 0, NaN in any operand propagates; on every SIMD target.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "kernel_test_util.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_host/sigmoid_cross_entropy_with_logits_grad_v2_tiling.h"

namespace bce_kernel_test {
namespace {

using aclnn_cpu::bce_grad::MakeTilingKey;

class KernelSpecialValues : public OnEverySimdTarget {};

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// The largest finite value of each kernel dtype.
double MaxFinite(KernelDType dtype) {
  switch (dtype) {
    case KernelDType::kFloat: return std::numeric_limits<float>::max();
    case KernelDType::kFloat16: return 65504.0;
    case KernelDType::kBFloat16: return 0x1.FEp127;
    case KernelDType::kDouble: return std::numeric_limits<double>::max();
  }
  return 0;
}

/// @p value rounded once to @p dtype, as the kernel will see it.
double RoundTo(KernelDType dtype, double value) {
  alignas(8) uint8_t element[8];
  aclnn_cpu::StoreFromDouble(element, AclDTypeOf(dtype), 0, value);
  return aclnn_cpu::LoadAsDouble(element, AclDTypeOf(dtype), 0);
}

/// Element-wise inputs of one call in one dtype (each value rounded to it on Add).
struct Grid {
  KernelDType dtype;
  std::vector<double> x, y, dout, weight, pos_weight;
  void Add(double xi, double yi, double douti, double wi, double pwi) {
    x.push_back(RoundTo(dtype, xi));
    y.push_back(RoundTo(dtype, yi));
    dout.push_back(RoundTo(dtype, douti));
    weight.push_back(RoundTo(dtype, wi));
    pos_weight.push_back(RoundTo(dtype, pwi));
  }
};

/// Runs key (dtype, weight, pos_weight) on the grid and checks each element against the reference.
void ExpectGridMatchesReference(KernelDType dtype, bool weight, bool pos_weight, const Grid& g, bool expect_finite) {
  const uint32_t key = MakeTilingKey(dtype, weight, pos_weight);
  const TileRun run = RunTile(SelfKernel(key), key, g.x, g.y, g.dout, g.weight, g.pos_weight,
                              g.x.size(), 1.0);
  ASSERT_TRUE(run.guards_intact);
  for (size_t i = 0; i < g.x.size(); ++i) {
    ElementInputs in{g.x[i], g.y[i], g.dout[i], std::nullopt, std::nullopt};
    if (weight) in.weight = g.weight[i];
    if (pos_weight) in.pos_weight = g.pos_weight[i];
    if (expect_finite) {
      EXPECT_TRUE(std::isfinite(run.values[i])) << TilingKeyLabel(key) << " x=" << g.x[i] << " y=" << g.y[i]
                                                << " gives " << run.values[i];
    }
    EXPECT_TRUE(MatchesReference(run.values[i], in, 1.0, ComputeDTypeOf(dtype), AclDTypeOf(dtype)))
        << TilingKeyLabel(key) << " element " << i;
  }
}

TEST_P(KernelSpecialValues, HugeFiniteLogitsSaturateTheSigmoidWithoutNaN) {
  for (KernelDType dtype : kAllKernelDTypes) {
    const double max = MaxFinite(dtype);
    Grid g{dtype, {}, {}, {}, {}, {}};
    for (double x : {1e30, 1e4, 200.0, 104.0, 88.8, 30.0, max, std::min(max, 1e300)}) {
      for (double sign : {1.0, -1.0}) {
        for (double y : {0.0, 0.3, 1.0}) {
          if (std::fabs(x) > max) continue;
          g.Add(sign * x, y, 1.0, 1.5, 2.0);
        }
      }
    }
    for (bool weight : {false, true}) {
      for (bool pos_weight : {false, true}) ExpectGridMatchesReference(dtype, weight, pos_weight, g, true);
    }
  }
}

TEST_P(KernelSpecialValues, InfiniteLogitsGiveTheLimitsOfTheGradient) {
  // x = +Inf: p = 1, q = 0, g = 1 - y; x = -Inf: p = 0, q = 1, g = -pos_weight * y.
  for (KernelDType dtype : kAllKernelDTypes) {
    Grid g{dtype, {}, {}, {}, {}, {}};
    for (double x : {kInf, -kInf}) {
      for (double y : {0.0, 0.25, 1.0}) g.Add(x, y, 1.0, 1.0, 3.0);
    }
    const uint32_t key = MakeTilingKey(dtype, false, true);
    const TileRun run = RunTile(SelfKernel(key), key, g.x, g.y, g.dout, g.weight, g.pos_weight,
                                g.x.size(), 1.0);
    for (size_t i = 0; i < g.x.size(); ++i) {
      const double expected = g.x[i] > 0 ? 1.0 - g.y[i] : -3.0 * g.y[i];
      EXPECT_EQ(run.values[i], expected) << KernelDTypeLabel(dtype) << " x=" << g.x[i] << " y=" << g.y[i];
    }
  }
}

TEST_P(KernelSpecialValues, ZeroLogitOfEitherSignGivesHalfMinusTarget) {
  for (KernelDType dtype : kAllKernelDTypes) {
    Grid g{dtype, {}, {}, {}, {}, {}};
    for (double x : {0.0, -0.0}) {
      for (double y : {0.0, 0.5, 1.0}) g.Add(x, y, 1.0, 1.0, 1.0);
    }
    const uint32_t key = MakeTilingKey(dtype, false, false);
    const TileRun run = RunTile(SelfKernel(key), key, g.x, g.y, g.dout, g.weight, g.pos_weight,
                                g.x.size(), 1.0);
    for (size_t i = 0; i < g.x.size(); ++i) {
      EXPECT_EQ(run.values[i], 0.5 - g.y[i]) << KernelDTypeLabel(dtype) << " x=" << g.x[i] << " y=" << g.y[i];
    }
  }
}

TEST_P(KernelSpecialValues, NaNInAnyOperandGivesNaN) {
  for (KernelDType dtype : kAllKernelDTypes) {
    for (int operand = 0; operand < 5; ++operand) {
      Grid g{dtype, {}, {}, {}, {}, {}};
      for (double x : {-3.0, 0.0, 2.0, 50.0}) {
        double v[5] = {x, 0.25, 1.0, 1.0, 2.0};
        v[operand] = kNaN;
        g.Add(v[0], v[1], v[2], v[3], v[4]);
      }
      const uint32_t key = MakeTilingKey(dtype, true, true);
      const TileRun run = RunTile(SelfKernel(key), key, g.x, g.y, g.dout, g.weight, g.pos_weight,
                                  g.x.size(), 1.0);
      for (size_t i = 0; i < g.x.size(); ++i) {
        EXPECT_TRUE(std::isnan(run.values[i])) << KernelDTypeLabel(dtype) << " NaN in operand " << operand
                                               << ", x=" << g.x[i] << " gives " << run.values[i];
      }
    }
  }
}

TEST_P(KernelSpecialValues, NaNScaleGivesNaN) {
  for (KernelDType dtype : kAllKernelDTypes) {
    Grid g{dtype, {}, {}, {}, {}, {}};
    g.Add(1.0, 0.5, 1.0, 1.0, 1.0);
    const uint32_t key = MakeTilingKey(dtype, false, false);
    const TileRun run = RunTile(SelfKernel(key), key, g.x, g.y, g.dout, g.weight, g.pos_weight, 1, kNaN);
    EXPECT_TRUE(std::isnan(run.values[0])) << KernelDTypeLabel(dtype);
  }
}

TEST_P(KernelSpecialValues, FiniteInputsOfAnyMagnitudeGiveFiniteResults) {
  // Logits over the whole exponent range of the dtype, labels in [0, 1], bounded weights.
  for (KernelDType dtype : kAllKernelDTypes) {
    const aclDataType acl = AclDTypeOf(dtype);
    const double max_exponent = std::log10(MaxFinite(dtype)) - 0.01;
    std::mt19937_64 rng(static_cast<uint64_t>(dtype) + 1);
    std::uniform_real_distribution<double> exponent(-max_exponent, max_exponent);
    Grid g{dtype, {}, {}, {}, {}, {}};
    for (int i = 0; i < 2000; ++i) {
      const double magnitude = std::pow(10.0, exponent(rng));
      g.Add(RandomIn(rng, 0, 1, acl) < 0.5 ? -magnitude : magnitude, RandomIn(rng, 0, 1, acl), RandomIn(rng, -4, 4, acl),
            RandomIn(rng, 0, 4, acl), RandomIn(rng, 0, 8, acl));
    }
    ExpectGridMatchesReference(dtype, true, true, g, true);
  }
}

TEST_P(KernelSpecialValues, SubnormalWeightsAndDoutsWithLargeTermsStayWithinTheBound) {
  // Found by the fuzzer (fp64, x = 2.0e-4, y = 992.26, dout = 0.078, weight = -7.9e-323): a kernel
  // that multiplied dout by the subnormal weight before the gradient term lost the term's
  // digits to underflow (result 2.6e-321 against 3.3e-321). The factors must follow the term.
  for (KernelDType dtype : {KernelDType::kFloat, KernelDType::kDouble}) {
    const double tiny = dtype == KernelDType::kDouble ? 0x1p-1070 : 0x1p-146;  // a few subnormal steps
    Grid g{dtype, {}, {}, {}, {}, {}};
    for (double y : {992.25574094261538, -1500.5, 0.75}) {
      for (double x : {0.0002002716064453125, -3.5, 40.0}) {
        g.Add(x, y, 0.078063714448930899, -16 * tiny, 0.064293898642063141);  // subnormal weight
        g.Add(x, y, 3 * tiny, 0.5, 2.0);                                      // subnormal dout
        g.Add(x, y, 0.25, 5 * tiny, 1.5);
      }
    }
    ExpectGridMatchesReference(dtype, true, true, g, true);
  }
}

/// Ulp of @p value in a binary format with @p precision significand bits whose smallest normal
/// is 2^min_exponent (the subnormal ulp below it).
double UlpOf(double value, int precision, int min_exponent) {
  const int exponent = std::max(std::ilogb(std::fabs(value)), min_exponent);
  return std::ldexp(1.0, exponent - (precision - 1));
}

/// For x <= @p below, 1 + e^x rounds to 1 in the compute type, so with y = 0 and dout = 1 the
/// kernel returns its exp(x) itself: check it is within 1 ulp of the correctly rounded e^x (so
/// 1.5 ulp of the exact value), subnormal results included, and +0 past the underflow limit.
template <class F>
void ExpectExpOfNegativeLogitsWithinOneUlp(KernelDType dtype, double lowest, double below, double underflow) {
  constexpr int kPrecision = std::numeric_limits<F>::digits;
  constexpr int kMinExponent = std::numeric_limits<F>::min_exponent - 1;
  std::mt19937_64 rng(77);
  std::uniform_real_distribution<double> logit(lowest, below);
  std::vector<F> x, y, dout, out;
  for (int i = 0; i < 100000; ++i) x.push_back(static_cast<F>(logit(rng)));
  for (double edge : {lowest, below}) x.push_back(static_cast<F>(edge));
  for (double past : {underflow - 0.5, underflow - 10, underflow * 2}) x.push_back(static_cast<F>(past));
  y.assign(x.size(), F{0});
  dout.assign(x.size(), F{1});
  out.assign(x.size(), F{-1});
  TileArgs io;
  io.at[kPredict] = x.data();
  io.at[kTarget] = y.data();
  io.at[kDout] = dout.data();
  io.at[kGradient] = out.data();
  CallTile(SelfKernel(MakeTilingKey(dtype, false, false)), io, x.size(), 1.0);
  int64_t failures = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double exact = std::exp(static_cast<double>(x[i]));
    const double got = static_cast<double>(out[i]);
    const bool ok = static_cast<double>(x[i]) < underflow ? got == 0 && !std::signbit(got)
                                                           : std::fabs(got - exact) <= 1.5 * UlpOf(exact, kPrecision, kMinExponent);
    if (!ok && ++failures <= 5) {
      ADD_FAILURE() << KernelDTypeLabel(dtype) << " exp(" << std::hexfloat << static_cast<double>(x[i]) << ") = " << got
                    << ", exact " << exact << " (" << std::defaultfloat
                    << std::fabs(got - exact) / UlpOf(exact, kPrecision, kMinExponent) << " ulp)";
    }
  }
  EXPECT_EQ(failures, 0);
}

TEST_P(KernelSpecialValues, Fp32SigmoidOfLargeNegativeLogitsIsExpWithinOneUlpIntoTheSubnormals) {
  // 1 + e^x == 1 in fp32 below x = -17.4; e^x is subnormal below -87.3 and under half the
  // smallest subnormal below -103.97.
  ExpectExpOfNegativeLogitsWithinOneUlp<float>(KernelDType::kFloat, -103.9, -17.5, -104.0);
}

TEST_P(KernelSpecialValues, Fp64SigmoidOfLargeNegativeLogitsIsExpWithinOneUlpIntoTheSubnormals) {
  // 1 + e^x == 1 in fp64 below x = -37.5; e^x is subnormal below -708.4 and under half the
  // smallest subnormal below -745.13.
  ExpectExpOfNegativeLogitsWithinOneUlp<double>(KernelDType::kDouble, -745.0, -37.5, -745.2);
}

INSTANTIATE_TEST_SUITE_P(SimdTargets, KernelSpecialValues, ::testing::ValuesIn(hwy::SupportedAndGeneratedTargets()),
                         SimdTargetName);

}  // namespace
}  // namespace bce_kernel_test
