// Test support of aclnnBinaryCrossEntropy (the loss of probabilities), on top of the shared
// tests/support: a call by role through the harness, the reference of every element taken before
// the run (so that an in-place call is judged on the inputs it read), and the checks of what was
// written: every element of out against the reference and its bound, nothing outside out's view.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "aclnn/aclnn_cpu.h"
#include "aclnn_call.h"
#include "common/dtype.h"
#include "dims.h"
#include "hwy/targets.h"
#include "ops/binary_cross_entropy/tests/ut/binary_cross_entropy_reference.h"
#include "simd_targets.h"
#include "test_tensor.h"

namespace bce_prob_test {

using namespace aclnn_cpu::bce_prob;  // the reference: ComputeProbLossReference, ProbLossErrorBound, ...
using acl_test::TestTensor;

constexpr const char* kFirstPhase = "aclnnBinaryCrossEntropyGetWorkspaceSize";

/// One call of aclnnBinaryCrossEntropy: self, target, an optional weight, the reduction, out.
/// P: TestTensor* (the tests' tensors) or const aclTensor* (handles: the checks' null, destroyed
/// or misaligned ones).
template <class P>
struct ForwardCallOf {
  P self;
  P target;
  P weight = nullptr;
  int64_t reduction = 0;
  P out;
};
using ForwardCall = ForwardCallOf<TestTensor*>;
using RawCall = ForwardCallOf<const aclTensor*>;

template <class P>
acl_test::AclnnCall CallOf(const ForwardCallOf<P>& c) {
  return acl_test::AclnnCall(aclnn_cpu::apis::ApiId::kBinaryCrossEntropy)
      .With({{"self", c.self}, {"target", c.target}, {"weight", c.weight}, {"out", c.out}})
      .Reduction(c.reduction);
}
inline acl_test::AclnnCall HarnessCall(const ForwardCall& c) { return CallOf(c); }
inline acl_test::AclnnCall HarnessCall(const RawCall& c) { return CallOf(c); }

/// Both phases, synchronised; the status of the first failing step.
inline aclnnStatus RunCall(const ForwardCall& c) { return HarnessCall(c).Run().status; }

/// The type the operator computes in: fp64 when any input is fp64, else fp32.
inline aclDataType ComputeDType(const ForwardCall& c) {
  for (const TestTensor* t : {c.self, c.target, c.weight}) {
    if (t != nullptr && t->dtype() == ACL_DOUBLE) return ACL_DOUBLE;
  }
  return ACL_FLOAT;
}

/// The reference of every element of @p c's inputs as they are now (call it before the run).
inline std::vector<ProbLossReference> ReferenceOf(const ForwardCall& c) {
  std::vector<ProbLossReference> refs;
  refs.reserve(static_cast<size_t>(c.self->numel()));
  for (int64_t i = 0; i < c.self->numel(); ++i) {
    const std::optional<double> w =
        c.weight ? std::optional<double>(acl_test::BroadcastGet(*c.weight, c.self->dims(), i)) : std::nullopt;
    refs.push_back(ComputeProbLossReference(c.self->Get(i), c.target->Get(i), w));
  }
  return refs;
}

/// One ULP of @p v in @p dtype (the subnormal step at least).
inline double UlpIn(double v, aclDataType dtype) {
  const aclnn_cpu::FloatRounding r = aclnn_cpu::RoundingOf(dtype);
  if (v == 0 || !std::isfinite(v)) return r.smallest_subnormal;
  return std::max(std::ldexp(2 * r.unit_roundoff, std::ilogb(v)), r.smallest_subnormal);
}

/// What a check of written elements found: the mismatches and the largest error seen, in ULP of
/// out's dtype at the reference.
struct Verdict {
  int64_t mismatches = 0;
  double worst_ulp = 0;
};

/// Every element of a reduction-none out against @p refs (ReferenceOf before the run).
inline Verdict CheckNone(const ForwardCall& c, const std::vector<ProbLossReference>& refs) {
  Verdict v;
  const aclDataType compute = ComputeDType(c);
  for (int64_t i = 0; i < c.out->numel(); ++i) {
    const ProbLossReference& r = refs[static_cast<size_t>(i)];
    const double got = c.out->Get(i);
    const double bound = ProbLossErrorBound(r, compute, c.out->dtype());
    if (std::isfinite(r.loss) && std::isfinite(got)) {
      v.worst_ulp = std::max(v.worst_ulp, std::fabs(got - r.loss) / UlpIn(r.loss, c.out->dtype()));
    }
    if (!MatchesReference(got, r.loss, bound, c.out->dtype()) && v.mismatches++ < 8) {
      ADD_FAILURE() << "element " << i << " of " << acl_test::DimsText(c.self->dims()) << " ("
                    << aclnn_cpu::DTypeShortName(c.out->dtype()) << "): got " << got << ", reference " << r.loss
                    << ", bound " << bound << " (pos " << r.pos << " neg " << r.neg << " w " << r.w << ")";
    }
  }
  return v;
}

/// The mean or sum of @p refs, in long double, and the bound of its error: the elements'
/// errors in the compute type, fp64 accumulation (n eps64 of the sum of magnitudes), the division
/// by N, and the one rounding to out.
struct ReducedReference {
  double value;
  double bound;
};
inline ReducedReference ReduceReference(const std::vector<ProbLossReference>& refs, int64_t reduction,
                                        aclDataType compute, aclDataType out_dtype) {
  if (refs.empty()) return {reduction == 1 ? std::numeric_limits<double>::quiet_NaN() : 0.0, 0.0};
  long double sum = 0, magnitude = 0, element_bound = 0;
  for (const ProbLossReference& r : refs) {
    sum += r.loss;
    magnitude += std::fabs(r.loss);
    element_bound += ProbLossErrorBound(r, compute, compute);
  }
  const long double n = static_cast<long double>(refs.size());
  const long double scale = reduction == 1 ? 1 / n : 1;
  const double value = static_cast<double>(sum * scale);
  const double accumulation =
      static_cast<double>((element_bound + n * 0x1p-53L * magnitude) * scale) + 2 * 0x1p-53 * std::fabs(value);
  const aclnn_cpu::FloatRounding out = aclnn_cpu::RoundingOf(out_dtype);
  return {value,
          accumulation * (1 + out.unit_roundoff) + out.unit_roundoff * std::fabs(value) + out.smallest_subnormal};
}

/// out's one element (mean, sum) against the reduced reference.
inline Verdict CheckReduced(const ForwardCall& c, const std::vector<ProbLossReference>& refs) {
  Verdict v;
  const ReducedReference expected = ReduceReference(refs, c.reduction, ComputeDType(c), c.out->dtype());
  const double got = c.out->Get(0);
  if (std::isfinite(expected.value) && std::isfinite(got)) {
    v.worst_ulp = std::fabs(got - expected.value) / UlpIn(expected.value, c.out->dtype());
  }
  if (!MatchesReference(got, expected.value, expected.bound, c.out->dtype())) {
    ++v.mismatches;
    ADD_FAILURE() << (c.reduction == 1 ? "mean" : "sum") << " of " << refs.size() << " elements ("
                  << aclnn_cpu::DTypeShortName(c.out->dtype()) << "): got " << got << ", reference " << expected.value
                  << ", bound " << expected.bound;
  }
  return v;
}

/// CheckNone or CheckReduced, by @p c's reduction.
inline Verdict CheckOut(const ForwardCall& c, const std::vector<ProbLossReference>& refs) {
  return c.reduction == 0 ? CheckNone(c, refs) : CheckReduced(c, refs);
}

/// Expects every byte of @p out's storage outside its view to be as in @p before (the poison).
inline void ExpectNothingWrittenOutsideTheView(const TestTensor& out, std::vector<uint8_t> before) {
  std::vector<uint8_t> after = out.StorageBytes();
  const size_t size = aclDataTypeSize(out.dtype());
  for (int64_t i = 0; i < out.numel(); ++i) {
    const size_t at = static_cast<size_t>(out.StorageIndex(i)) * size;
    std::memset(before.data() + at, 0, size);
    std::memset(after.data() + at, 0, size);
  }
  EXPECT_EQ(acl_test::FirstDifference(before, after), -1);
}

/// Probabilities: uniform in (0, 1), with about one element in 16 an exact 0 or 1 (the clamp) and
/// one in 16 within 2^-20 of 0 or 1 (the logs' steep ends).
inline void FillProbabilities(TestTensor& t, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1), tiny(0, 0x1p-20);
  for (int64_t i = 0; i < t.numel(); ++i) {
    const uint64_t kind = rng() % 32;
    double v = unit(rng);
    if (kind == 0) v = 0;
    if (kind == 1) v = 1;
    if (kind == 2) v = tiny(rng);
    if (kind == 3) v = 1 - tiny(rng);
    t.Set(i, v);
  }
}

/// Labels: soft ones uniform in [0, 1], a quarter of them hard (0 or 1).
inline void FillLabels(TestTensor& t, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int64_t i = 0; i < t.numel(); ++i) t.Set(i, rng() % 4 == 0 ? static_cast<double>(rng() % 2) : unit(rng));
}

/// Distance in ULP between two values of an IEEE type through the ordered integer line; 0 for
/// two NaNs, the maximum when only one is NaN.
template <class F, class I>
inline int64_t UlpDistance(F a, F b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : std::numeric_limits<int64_t>::max();
  auto ordered = [](F v) {
    const auto bits = static_cast<int64_t>(std::bit_cast<I>(v));
    return bits < 0 ? static_cast<int64_t>(std::numeric_limits<I>::min()) - bits : bits;
  };
  const int64_t d = ordered(a) - ordered(b);
  return d < 0 ? -d : d;
}

/// The SIMD targets the per-target tests run, by name: "AVX3 AVX2 SSE4".
inline std::string TargetList() {
  std::string names;
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    names += std::string(names.empty() ? "" : " ") + hwy::TargetName(target);
  }
  return names;
}

/// The shapes of a broadcast operand of self [13, 37] the value tests take: absent, [C], [1],
/// 0-dim, [N, 1] and self's own.
inline std::vector<std::optional<std::vector<int64_t>>> BroadcastShapesOf13x37() {
  return {std::nullopt, std::vector<int64_t>{37}, std::vector<int64_t>{1}, std::vector<int64_t>{},
          std::vector<int64_t>{13, 1}, std::vector<int64_t>{13, 37}};
}

/// Calls f(a, b, c) for every triple of float dtypes, under a trace naming them.
template <class F>
void ForEveryDTypeTriple(F&& f) {
  for (const aclDataType a : aclnn_cpu::kFloatDTypes) {
    for (const aclDataType b : aclnn_cpu::kFloatDTypes) {
      for (const aclDataType c : aclnn_cpu::kFloatDTypes) {
        SCOPED_TRACE(::testing::Message() << aclnn_cpu::DTypeShortName(a) << "/" << aclnn_cpu::DTypeShortName(b)
                                          << "/" << aclnn_cpu::DTypeShortName(c));
        f(a, b, c);
      }
    }
  }
}

/// Calls f(dtype, n, reduction) for every float dtype, every n of lengths around the vector widths
/// of every target (4..16 fp32 lanes, 2..8 fp64) and a tile, and every reduction, under a trace
/// naming them.
template <class F>
void ForEveryDTypeLengthAndReduction(F&& f) {
  static constexpr int64_t kLengths[] = {1, 3, 7, 8, 15, 16, 17, 31, 33, 63, 65, 1023, 4099};
  for (const aclDataType dtype : aclnn_cpu::kFloatDTypes) {
    for (const int64_t n : kLengths) {
      for (const int64_t reduction : {0, 1, 2}) {
        SCOPED_TRACE(::testing::Message() << aclnn_cpu::DTypeShortName(dtype) << " n " << n << " reduction "
                                          << reduction);
        f(dtype, n, reduction);
      }
    }
  }
}

/// The values out holds after @p run(out) with HWY_DYNAMIC_DISPATCH held on each SIMD target this
/// build has and this CPU supports (an out of @p n elements of @p dtype per target), in the order
/// of hwy::SupportedAndGeneratedTargets().
template <class F, class Run>
std::vector<std::vector<F>> OutputsOfEveryTarget(aclDataType dtype, int64_t n, Run&& run) {
  std::vector<std::vector<F>> outputs;
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    acl_test::SimdTargetScope scope(target);
    SCOPED_TRACE(hwy::TargetName(target));
    TestTensor out({n}, dtype);
    run(out);
    std::vector<F> values(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = static_cast<F>(out.Get(i));
    outputs.push_back(std::move(values));
  }
  return outputs;
}

/// The largest ULP difference between two targets' values of one element (@p outputs as
/// OutputsOfEveryTarget returns them); @p worst receives the two targets and @p describe(i).
template <class F, class I, class Describe>
int64_t LargestUlpBetween(const std::vector<std::vector<F>>& outputs, Describe&& describe, std::string& worst) {
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  int64_t largest = 0;
  for (size_t a = 0; a < outputs.size(); ++a) {
    for (size_t b = a + 1; b < outputs.size(); ++b) {
      for (size_t i = 0; i < outputs[a].size(); ++i) {
        const int64_t ulp = UlpDistance<F, I>(outputs[a][i], outputs[b][i]);
        if (ulp <= largest) continue;
        largest = ulp;
        worst = std::string(hwy::TargetName(targets[a])) + " vs " + hwy::TargetName(targets[b]) + " at " +
                describe(static_cast<int64_t>(i));
      }
    }
  }
  return largest;
}

/// A function giving the largest ULP difference between targets of a call's results over n
/// elements of a dtype (naming the worst in its string).
using LargestUlpFn = int64_t (*)(aclDataType dtype, int64_t n, std::string& worst);

/// Runs @p fp32 and @p fp64 over 2^18 elements, prints the largest ULP differences between
/// targets of @p what's results and expects each within @p max_ulp.
inline void ExpectTargetsAgree(const char* what, int64_t max_ulp, LargestUlpFn fp32, LargestUlpFn fp64) {
  const int64_t n = int64_t{1} << 18;
  std::string worst32, worst64;
  const int64_t ulp32 = fp32(ACL_FLOAT, n, worst32);
  const int64_t ulp64 = fp64(ACL_DOUBLE, n, worst64);
  std::printf("[ bce      ] %s: largest ULP difference between SIMD targets (%s), %lld elements: fp32 %lld%s%s, "
              "fp64 %lld%s%s\n",
              what, TargetList().c_str(), static_cast<long long>(n), static_cast<long long>(ulp32),
              worst32.empty() ? "" : " at ", worst32.c_str(), static_cast<long long>(ulp64),
              worst64.empty() ? "" : " at ", worst64.c_str());
  EXPECT_LE(ulp32, max_ulp) << worst32;
  EXPECT_LE(ulp64, max_ulp) << worst64;
}

using acl_test::ThreadCountGuard;  // restores the default thread count when a test ends

}  // namespace bce_prob_test
