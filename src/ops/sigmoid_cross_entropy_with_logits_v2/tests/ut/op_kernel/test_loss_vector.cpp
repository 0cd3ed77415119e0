// LossVector (the loss of one vector, op_kernel/sigmoid_cross_entropy_with_logits_v2-inl.h) on
// every SIMD target built and supported here, against the long double reference: the 4 ULP of
// fp32 for labels in [0, 1] and weights >= 0, the error bound for any inputs, the limits at
// infinity, NaN.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "op_kernel/test_loss_vector.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "ops/sigmoid_cross_entropy_with_logits_v2/op_kernel/sigmoid_cross_entropy_with_logits_v2-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu {
namespace bce_loss {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <bool W, bool PW, class T>
void LossArrayTyped(const T* x, const T* y, const T* w, const T* pw, T* out, size_t n) {
  const hn::ScalableTag<T> d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto loss = LossVector<W, PW>(d, hn::LoadU(d, x + i), hn::LoadU(d, y + i), hn::LoadU(d, w + i),
                                        hn::LoadU(d, pw + i));
    hn::StoreU(loss, d, out + i);
  }
  const hn::CappedTag<T, 1> d1;  // the tail one lane at a time, through the same vector code
  for (; i < n; ++i) {
    const auto loss = LossVector<W, PW>(d1, hn::LoadU(d1, x + i), hn::LoadU(d1, y + i), hn::LoadU(d1, w + i),
                                        hn::LoadU(d1, pw + i));
    hn::StoreU(loss, d1, out + i);
  }
}

template <class T>
void LossArray(const T* x, const T* y, const T* w, const T* pw, T* out, size_t n, int operands) {
  switch (operands) {  // bit 0: weight, bit 1: pos_weight
    case 0: return LossArrayTyped<false, false>(x, y, w, pw, out, n);
    case 1: return LossArrayTyped<true, false>(x, y, w, pw, out, n);
    case 2: return LossArrayTyped<false, true>(x, y, w, pw, out, n);
    default: return LossArrayTyped<true, true>(x, y, w, pw, out, n);
  }
}
void LossFloat(const float* x, const float* y, const float* w, const float* pw, float* out, size_t n, int operands) {
  LossArray(x, y, w, pw, out, n, operands);
}
void LossDouble(const double* x, const double* y, const double* w, const double* pw, double* out, size_t n,
                int operands) {
  LossArray(x, y, w, pw, out, n, operands);
}

}  // namespace HWY_NAMESPACE
}  // namespace bce_loss
}  // namespace aclnn_cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "hwy/targets.h"
#include "simd_targets.h"
#include "ops/sigmoid_cross_entropy_with_logits_v2/op_kernel/sigmoid_cross_entropy_with_logits_v2_reference.h"

namespace aclnn_cpu::bce_loss {
HWY_EXPORT(LossFloat);
HWY_EXPORT(LossDouble);

namespace {

template <class T>
struct Inputs {
  std::vector<T> x, y, w, pw;
  void Add(T xi, T yi, T wi, T pwi) {
    x.push_back(xi);
    y.push_back(yi);
    w.push_back(wi);
    pw.push_back(pwi);
  }
  size_t size() const { return x.size(); }
};

/// |got - exact| in ULPs of float at exact (the subnormal spacing below the normals).
double FloatUlps(float got, double exact) {
  if (std::isnan(exact) || std::isnan(got)) return std::isnan(exact) && std::isnan(got) ? 0 : INFINITY;
  if (std::isinf(exact) || std::isinf(got)) return static_cast<double>(got) == exact ? 0 : INFINITY;
  const int e = std::max(std::ilogb(exact == 0 ? std::numeric_limits<float>::min() : static_cast<float>(exact)), -126);
  return std::fabs(static_cast<double>(got) - exact) / std::ldexp(1.0, e - 23);
}

LossReferenceTerms Reference(double x, double y, double w, double pw, int operands) {
  return ComputeLossReferenceTerms(x, y, operands & 1 ? std::optional<double>(w) : std::nullopt,
                                   operands & 2 ? std::optional<double>(pw) : std::nullopt);
}

using acl_test::OnEverySimdTarget;

/// Logits over every magnitude and both signs (log-spaced from 2^-149 to 2^120, and dense near 0;
/// above that a product by pos_weight or weight may leave float's range before the last step),
/// with labels in [0, 1] (0, 1, 1/2 and uniform), weights in [0, 3] and pos_weights in [0, 4].
Inputs<float> LabelsInUnitInterval() {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f), weight(0.0f, 3.0f), pos_weight(0.0f, 4.0f);
  std::uniform_real_distribution<double> exponent(-149.0, 120.0), near(-40.0, 40.0);
  Inputs<float> in;
  for (int i = 0; i < 60000; ++i) {
    float x = i % 3 == 0 ? static_cast<float>(near(rng)) : static_cast<float>(std::exp2(exponent(rng)));
    if (i % 2 == 1) x = -x;
    const float y = i % 7 == 0 ? 0.0f : i % 7 == 1 ? 1.0f : i % 7 == 2 ? 0.5f : unit(rng);
    in.Add(x, y, weight(rng), pos_weight(rng));
  }
  in.Add(-30.0f, 0.0f, 1.0f, 1.0f);  // the cancellation case of the upstream form
  return in;
}

TEST(LossVector, Fp32IsWithinFourUlpOfTheExactLossForLabelsInZeroToOneAndNonNegativeWeights) {
  const Inputs<float> in = LabelsInUnitInterval();
  std::vector<float> out(in.size());
  OnEverySimdTarget([&](const char* name) {
    for (int operands = 0; operands < 4; ++operands) {
      HWY_DYNAMIC_DISPATCH(LossFloat)(in.x.data(), in.y.data(), in.w.data(), in.pw.data(), out.data(), in.size(),
                                      operands);
      double worst = 0;
      size_t worst_at = 0;
      for (size_t i = 0; i < in.size(); ++i) {
        const double e = FloatUlps(out[i], Reference(in.x[i], in.y[i], in.w[i], in.pw[i], operands).loss);
        if (e > worst) worst = e, worst_at = i;
      }
      EXPECT_LE(worst, 4.0) << "operands " << operands << ", x = " << in.x[worst_at] << " y = " << in.y[worst_at]
                            << " w = " << in.w[worst_at] << " pw = " << in.pw[worst_at] << ": " << out[worst_at];
      std::printf("[ %-8s ] fp32 loss, weight %d pos_weight %d: max %.3f ULP\n", name, operands & 1,
                  (operands >> 1) & 1, worst);
    }
    EXPECT_NEAR(out.back(), 9.357623e-14f, 1e-19f);  // y = 0, x = -30: not 0
  });
}

TEST(LossVector, AnyLabelsAndWeightsStayWithinTheErrorBoundInFp32AndFp64) {
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> label(-2.0, 3.0), weight(-2.0, 2.0), logit(-60.0, 60.0);
  Inputs<float> f;
  Inputs<double> d;
  for (int i = 0; i < 40000; ++i) {
    const double x = logit(rng), y = label(rng), w = weight(rng), pw = weight(rng);
    f.Add(static_cast<float>(x), static_cast<float>(y), static_cast<float>(w), static_cast<float>(pw));
    d.Add(x, y, w, pw);
  }
  std::vector<float> out_f(f.size());
  std::vector<double> out_d(d.size());
  OnEverySimdTarget([&](const char*) {
    for (int operands = 0; operands < 4; ++operands) {
      HWY_DYNAMIC_DISPATCH(LossFloat)(f.x.data(), f.y.data(), f.w.data(), f.pw.data(), out_f.data(), f.size(),
                                      operands);
      HWY_DYNAMIC_DISPATCH(LossDouble)(d.x.data(), d.y.data(), d.w.data(), d.pw.data(), out_d.data(), d.size(),
                                       operands);
      int64_t bad_f = 0, bad_d = 0;
      for (size_t i = 0; i < f.size(); ++i) {
        const LossReferenceTerms tf = Reference(f.x[i], f.y[i], f.w[i], f.pw[i], operands);
        if (!(std::fabs(out_f[i] - tf.loss) <= LossErrorBound(tf, ACL_FLOAT, ACL_FLOAT)) && bad_f++ < 5) {
          ADD_FAILURE() << "fp32, operands " << operands << ": x = " << f.x[i] << " y = " << f.y[i] << ": "
                        << out_f[i] << " vs " << tf.loss;
        }
        const LossReferenceTerms td = Reference(d.x[i], d.y[i], d.w[i], d.pw[i], operands);
        if (!(std::fabs(out_d[i] - td.loss) <= LossErrorBound(td, ACL_DOUBLE, ACL_DOUBLE)) && bad_d++ < 5) {
          ADD_FAILURE() << "fp64, operands " << operands << ": x = " << d.x[i] << " y = " << d.y[i] << ": "
                        << out_d[i] << " vs " << td.loss;
        }
      }
      EXPECT_EQ(bad_f, 0);
      EXPECT_EQ(bad_d, 0);
    }
  });
}

TEST(LossVector, InfiniteLogitsGiveTheLimitAndNaNPropagates) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  Inputs<float> in;
  in.Add(inf, 1.0f, 1.0f, 1.0f);    // 0: sure and right
  in.Add(-inf, 0.0f, 1.0f, 1.0f);   // 1: sure and right
  in.Add(inf, 0.0f, 1.0f, 1.0f);    // 2: sure and wrong: +inf
  in.Add(-inf, 1.0f, 1.0f, 1.0f);   // 3: sure and wrong: +inf
  in.Add(inf, 0.25f, 1.0f, 1.0f);   // 4: partly wrong: +inf
  in.Add(nan, 1.0f, 1.0f, 1.0f);    // 5
  in.Add(0.5f, nan, 1.0f, 1.0f);    // 6
  in.Add(-inf, 1.0f, 1.0f, 0.0f);   // 7: pos_weight 0 removes the positive term
  std::vector<float> out(in.size());
  OnEverySimdTarget([&](const char*) {
    for (int operands = 0; operands < 4; ++operands) {
      HWY_DYNAMIC_DISPATCH(LossFloat)(in.x.data(), in.y.data(), in.w.data(), in.pw.data(), out.data(), in.size(),
                                      operands);
      SCOPED_TRACE(operands);
      EXPECT_EQ(out[0], 0.0f);
      EXPECT_EQ(out[1], 0.0f);
      EXPECT_EQ(out[2], inf);
      EXPECT_EQ(out[3], inf);
      EXPECT_EQ(out[4], inf);
      EXPECT_TRUE(std::isnan(out[5]));
      EXPECT_TRUE(std::isnan(out[6]));
      EXPECT_EQ(out[7], operands & 2 ? 0.0f : inf);
    }
  });
}

}  // namespace
}  // namespace aclnn_cpu::bce_loss
#endif  // HWY_ONCE
