// Differential tests: aclnnBinaryCrossEntropyWithLogits (the loss), the fused loss and gradient
// and aclnnBinaryCrossEntropyWithLogitsTargetBackward against PyTorch.
//
// The oracle is libtorch's float64 torch::binary_cross_entropy_with_logits, fed the very values
// the operator reads (each input rounded once to its dtype, then widened exactly). PyTorch's
// form, (1 - y) x + (1 + (pw - 1) y) softplus(-x), cancels where the terms are large and the loss
// small, and it takes log(1 + u) where log1p(u) is needed, so its float64 result carries an error
// of its own (TorchError): an element (or a mean, a sum) passes
// when |ours - torch| is within our bound (Note [Loss error bound], against the exact terms)
// plus that float64 error (8 eps64 times the magnitudes of PyTorch's terms).
//
// The fused call's gradient and the target gradient are judged against libtorch's float64
// autograd (d loss / d self and d loss / d target of the same call) within our bounds (Note
// [Error bound], Note [Target error bound]) plus 8 eps64 of the magnitudes of PyTorch's terms.
//
//   ctest --preset release -L torch
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <random>
#include <vector>

#include "common/dtype.h"
#include "client/two_phase_call.h"
#include "dims.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_fused.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_target_backward.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_reference.h"
#include "ops/sigmoid_cross_entropy_with_logits_v2/op_kernel/sigmoid_cross_entropy_with_logits_v2_reference.h"
#include "test_tensor.h"

namespace {

using acl_test::BroadcastGet;
using acl_test::DimsText;
using acl_test::TestTensor;
using aclnn_cpu::bce_loss::ComputeLossReferenceTerms;
using aclnn_cpu::bce_loss::LossErrorBound;
using aclnn_cpu::bce_loss::LossReferenceTerms;

torch::Tensor ToTorch(const TestTensor& t) {
  std::vector<double> values(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) values[static_cast<size_t>(i)] = t.Get(i);
  return torch::tensor(values, torch::kFloat64).reshape(t.dims());
}

/// The gradients of binary_cross_entropy_with_logits(self, target, weight, pos_weight,
/// reduction) in float64 autograd for the upstream gradient @p dout (a scalar for mean and sum in
/// PyTorch; a broadcast one under mean or sum is the none loss's gradient scaled by 1/N or 1,
/// which is what the chain rule gives): d / d self and d / d target.
std::pair<torch::Tensor, torch::Tensor> TorchGradients(const TestTensor& dout, const TestTensor& self,
                                                       const TestTensor& target, const TestTensor* weight,
                                                       const TestTensor* pos_weight, int64_t reduction) {
  torch::Tensor x = ToTorch(self).requires_grad_(true);
  torch::Tensor y = ToTorch(target).requires_grad_(true);
  const torch::Tensor g = ToTorch(dout);
  c10::optional<torch::Tensor> w, pw;
  if (weight != nullptr) w = ToTorch(*weight);
  if (pos_weight != nullptr) pw = ToTorch(*pos_weight);
  if (reduction != 0 && dout.numel() == 1) {
    const int64_t torch_reduction = reduction == 1 ? at::Reduction::Mean : at::Reduction::Sum;
    torch::binary_cross_entropy_with_logits(x, y, w, pw, torch_reduction).backward(g.reshape({}));
  } else {
    torch::Tensor upstream = g.expand(self.dims()).clone();
    if (reduction == 1) upstream = upstream / static_cast<double>(self.numel());
    torch::binary_cross_entropy_with_logits(x, y, w, pw, at::Reduction::None).backward(upstream);
  }
  return {x.grad().contiguous(), y.grad().contiguous()};
}

/// |error| of PyTorch's float64 form at one element: its terms' magnitudes times 8 eps64, plus
/// the absolute error of its log(exp(-m) + exp(-x - m)): a log of 1 + u, not log1p(u), so for
/// large |x| it is off by about eps64 however small the loss (x = 22, y = 1: 5e-7 relative).
/// Its factor 1 + (pw - 1) y is rounded after an addition to 1, so it is off by about eps64
/// absolutely, not relatively: a small pw (0.004, y = 1) makes that 1e-14 of the loss.
double TorchError(double x, double y, double w, double pw) {
  const double softplus_neg = std::max(-x, 0.0) + std::log1p(std::exp(-std::fabs(x)));
  const double factor = std::fabs(1 + (pw - 1) * y);
  const double factor_error = 2 * 0x1p-52 * (1 + std::fabs((pw - 1) * y)) * softplus_neg;
  return (8 * 0x1p-52 * (std::fabs((1 - y) * x) + factor * softplus_neg) + 2 * 0x1p-52 * factor + factor_error) *
             std::fabs(w) +
         0x1p-1074;
}

/// Whether this process runs the AscendC kernels on the twin (ACLNN_BCE_KERNELS=ascendc, read by the
/// library when it is loaded; the tests of label aclnn_ascendc set it).
bool AscendcMode() {
  const char* mode = std::getenv("ACLNN_BCE_KERNELS");
  return mode != nullptr && std::string(mode) == "ascendc";
}

/// Whether @p got is what @p dtype makes of a value within @p bound of @p value: a finite value
/// within the bound, or an infinity where the value's rounding to the dtype overflows; in the
/// ascendc mode also the largest finite value there (the AscendC kernel's final Cast saturates, as
/// A2's does).
bool Matches(double got, double value, double bound, aclDataType dtype) {
  if (std::fabs(got - value) <= bound) return true;
  // Half an ULP above the largest finite value rounds to infinity.
  const double overflow = dtype == ACL_FLOAT16 ? 65520.0 : dtype == ACL_BF16 ? 0x1.ffp127 : dtype == ACL_FLOAT ? 0x1.ffffffp127 : INFINITY;
  const double largest = dtype == ACL_FLOAT16 ? 65504.0 : dtype == ACL_BF16 ? 0x1.fep127 : dtype == ACL_FLOAT ? 0x1.fffffep127 : INFINITY;
  const bool overflowed = std::isinf(got) || (AscendcMode() && std::fabs(got) == largest);
  return overflowed && std::signbit(got) == std::signbit(value) && std::fabs(value) + bound >= overflow;
}

struct Case {
  std::vector<int64_t> dims, weight_dims, pos_weight_dims;
  bool weight = false, pos_weight = false;
  aclDataType self_dtype = ACL_FLOAT, target_dtype = ACL_FLOAT, weight_dtype = ACL_FLOAT;
  int64_t reduction = 0;
};

/// A shape broadcastable to @p dims: a suffix of it with some dims set to 1.
std::vector<int64_t> BroadcastShape(std::mt19937_64& rng, const std::vector<int64_t>& dims) {
  const size_t keep = dims.empty() ? 0 : rng() % (dims.size() + 1);
  std::vector<int64_t> shape(dims.end() - static_cast<std::ptrdiff_t>(keep), dims.end());
  for (int64_t& d : shape) {
    if (rng() % 3 == 0) d = 1;
  }
  return shape;
}

/// The forward (or, with @p fused, the fused call with a 0-dim gradOutput or none) on a random
/// case against PyTorch; the number of mismatches.
int64_t RunCase(const Case& c, uint64_t seed, double* worst_ratio, bool fused = false) {
  std::mt19937_64 rng(seed);
  TestTensor x(c.dims, c.self_dtype), y(c.dims, c.target_dtype);
  std::optional<TestTensor> w, pw;
  if (c.weight) w.emplace(c.weight_dims, c.weight_dtype);
  if (c.pos_weight) pw.emplace(c.pos_weight_dims, c.weight_dtype);
  std::uniform_real_distribution<double> logit(-25, 25), label(0, 1), weight(0, 3);
  for (int64_t i = 0; i < x.numel(); ++i) {
    x.Set(i, rng() % 16 == 0 ? logit(rng) * 1e3 : logit(rng));
    y.Set(i, rng() % 4 == 0 ? static_cast<double>(rng() % 2) : label(rng));
  }
  if (w) for (int64_t i = 0; i < w->numel(); ++i) w->Set(i, weight(rng));
  if (pw) for (int64_t i = 0; i < pw->numel(); ++i) pw->Set(i, weight(rng));
  const std::vector<int64_t> out_dims = c.reduction == 0 ? c.dims : std::vector<int64_t>{};
  TestTensor out(out_dims, c.target_dtype), grad(c.dims, c.target_dtype), dout({}, c.self_dtype);
  const bool has_dout = rng() % 2 == 0;
  dout.Set(0, has_dout ? std::uniform_real_distribution<double>(-2, 2)(rng) : 1.0);

  aclnn_cpu::DeviceMemory workspace;
  const auto r = fused ? aclnn_cpu::CallTwoPhase(
                             [&](uint64_t* ws, aclOpExecutor** e) {
                               return aclnnBinaryCrossEntropyWithLogitsFusedGetWorkspaceSize(
                                   x.get(), y.get(), w ? w->get() : nullptr, pw ? pw->get() : nullptr,
                                   has_dout ? dout.get() : nullptr, c.reduction, out.get(), grad.get(), ws, e);
                             },
                             aclnnBinaryCrossEntropyWithLogitsFused, nullptr, workspace)
                       : aclnn_cpu::CallTwoPhase(
                             [&](uint64_t* ws, aclOpExecutor** e) {
                               return aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
                                   x.get(), y.get(), w ? w->get() : nullptr, pw ? pw->get() : nullptr, c.reduction,
                                   out.get(), ws, e);
                             },
                             aclnnBinaryCrossEntropyWithLogits, nullptr, workspace);
  EXPECT_EQ(r.status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
  if (r.status != ACLNN_SUCCESS) return 1;

  c10::optional<torch::Tensor> tw, tpw;
  if (w) tw = ToTorch(*w);
  if (pw) tpw = ToTorch(*pw);
  const int64_t torch_reduction = c.reduction == 0 ? at::Reduction::None : c.reduction == 1 ? at::Reduction::Mean : at::Reduction::Sum;
  const torch::Tensor expected =
      torch::binary_cross_entropy_with_logits(ToTorch(x), ToTorch(y), tw, tpw, torch_reduction).contiguous();
  const double* e = expected.data_ptr<double>();

  const aclDataType compute =
      (c.self_dtype == ACL_DOUBLE || c.target_dtype == ACL_DOUBLE || ((c.weight || c.pos_weight) && c.weight_dtype == ACL_DOUBLE))
          ? ACL_DOUBLE : ACL_FLOAT;
  int64_t bad = 0;
  if (fused) {  // the gradient, against autograd's d loss / d self
    const torch::Tensor expected_grad =
        TorchGradients(dout, x, y, w ? &*w : nullptr, pw ? &*pw : nullptr, c.reduction).first;
    const double* eg = expected_grad.data_ptr<double>();
    const double scale = c.reduction == 1 ? 1.0 / static_cast<double>(x.numel()) : 1.0;
    for (int64_t i = 0; i < x.numel(); ++i) {
      const std::optional<double> wi = w ? std::optional<double>(BroadcastGet(*w, c.dims, i)) : std::nullopt;
      const std::optional<double> pwi = pw ? std::optional<double>(BroadcastGet(*pw, c.dims, i)) : std::nullopt;
      const auto t = aclnn_cpu::bce_grad::ComputeReferenceTerms(x.Get(i), y.Get(i), dout.Get(0), wi, pwi, scale);
      const double lw = std::fabs(pwi.value_or(1.0) * y.Get(i));
      const double torch_error = 8 * 0x1p-52 * (std::fabs(1 - y.Get(i)) + 2 * lw + 1) * std::fabs(t.m) + 0x1p-1074;
      const double bound = aclnn_cpu::bce_grad::ReferenceErrorBound(t, compute, c.target_dtype) + torch_error;
      const double diff = std::fabs(grad.Get(i) - eg[i]);
      if (bound > 0 && std::isfinite(diff)) *worst_ratio = std::max(*worst_ratio, diff / bound);
      if (!Matches(grad.Get(i), eg[i], bound, c.target_dtype) && bad++ < 5) {
        ADD_FAILURE() << "gradient element " << i << " of " << DimsText(c.dims) << ": ours " << grad.Get(i)
                      << ", torch " << eg[i] << " (x=" << x.Get(i) << " y=" << y.Get(i) << "), bound " << bound;
      }
    }
  }
  double bound_sum = 0, torch_sum = 0, abs_sum = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double wi = w ? BroadcastGet(*w, c.dims, i) : 1.0, pwi = pw ? BroadcastGet(*pw, c.dims, i) : 1.0;
    const LossReferenceTerms t = ComputeLossReferenceTerms(x.Get(i), y.Get(i), w ? std::optional<double>(wi) : std::nullopt,
                                                           pw ? std::optional<double>(pwi) : std::nullopt);
    const double ours_bound = LossErrorBound(t, compute, c.reduction == 0 ? c.target_dtype : ACL_DOUBLE);
    const double torch_error = TorchError(x.Get(i), y.Get(i), wi, pwi);
    bound_sum += ours_bound;
    torch_sum += torch_error;
    abs_sum += std::fabs(t.loss);
    if (c.reduction != 0) continue;
    const double diff = std::fabs(out.Get(i) - e[i]);
    const double bound = ours_bound + torch_error;
    // (An overflow Matches accepts has no error ratio.)
    const bool overflowed = diff > bound && Matches(out.Get(i), e[i], bound, c.target_dtype);
    if (bound > 0 && std::isfinite(diff) && !overflowed) *worst_ratio = std::max(*worst_ratio, diff / bound);
    if (!Matches(out.Get(i), e[i], bound, c.target_dtype) && bad++ < 5) {
      ADD_FAILURE() << "element " << i << " of " << DimsText(c.dims) << ": ours " << out.Get(i) << ", torch " << e[i]
                    << " (x=" << x.Get(i) << " y=" << y.Get(i) << "), bound " << bound;
    }
  }
  if (c.reduction != 0) {
    const double n = static_cast<double>(x.numel());
    const double scale = c.reduction == 1 ? 1 / n : 1;
    const double value = e[0];
    const double eps_out = aclnn_cpu::RoundingOf(c.target_dtype).unit_roundoff;
    // Accumulation: fp64 over the losses (n eps64 relative at most), then one rounding to out. In
    // the ascendc mode a non-fp64 call sums in fp32 on the AscendC kernel: its fold tree passes each
    // loss through D = 7 K + 3 additions, K <= 5 fold levels below 2^32 losses, so within
    // gamma_38 of the sum of |loss| (docs/npu_kernels.md, Note [Bound of the fp32 sum]), and mean
    // multiplies by fl(1/N): 3 u more.
    const double accumulation =
        AscendcMode() && compute == ACL_FLOAT
            ? (38 * 0x1p-24 / (1 - 38 * 0x1p-24)) * (abs_sum + bound_sum) * scale + 3 * 0x1p-24 * std::fabs(value)
            : n * 0x1p-52 * std::fabs(value);
    const double bound = (bound_sum + torch_sum) * scale + accumulation + eps_out * std::fabs(value) + 0x1p-1074;
    const double diff = std::fabs(out.Get(0) - value);
    const bool overflowed = diff > bound && Matches(out.Get(0), value, bound, c.target_dtype);
    if (bound > 0 && std::isfinite(diff) && !overflowed) *worst_ratio = std::max(*worst_ratio, diff / bound);
    if (!Matches(out.Get(0), value, bound, c.target_dtype)) {
      ++bad;
      ADD_FAILURE() << (c.reduction == 1 ? "mean" : "sum") << " of " << DimsText(c.dims) << ": ours " << out.Get(0)
                    << ", torch " << value << ", bound " << bound;
    }
  }
  return bad;
}

TEST(DiffLossTorch, RandomShapesDTypesBroadcastsAndReductionsAgreeWithPyTorchFloat64) {
  const aclDataType dtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
  std::mt19937_64 rng(2026);
  double worst = 0;
  int64_t cases = 0, bad = 0;
  for (int round = 0; round < 240; ++round) {
    Case c;
    const size_t rank = rng() % 5;
    for (size_t k = 0; k < rank; ++k) c.dims.push_back(1 + static_cast<int64_t>(rng() % (k == rank - 1 ? 300 : 9)));
    c.self_dtype = dtypes[rng() % 4];
    c.target_dtype = dtypes[rng() % 4];
    c.weight_dtype = dtypes[rng() % 4];
    c.weight = rng() % 2 == 0;
    c.pos_weight = rng() % 2 == 0;
    c.weight_dims = BroadcastShape(rng, c.dims);
    c.pos_weight_dims = BroadcastShape(rng, c.dims);
    c.reduction = static_cast<int64_t>(rng() % 3);
    SCOPED_TRACE(::testing::Message() << "round " << round << " dims " << DimsText(c.dims) << " dtypes "
                                      << aclnn_cpu::DTypeShortName(c.self_dtype) << "/"
                                      << aclnn_cpu::DTypeShortName(c.target_dtype) << " reduction " << c.reduction);
    bad += RunCase(c, 1000 + static_cast<uint64_t>(round), &worst);
    ++cases;
  }
  EXPECT_EQ(bad, 0);
  std::printf("[ diff     ] %lld loss cases against PyTorch float64: worst error %.3f of its bound\n",
              static_cast<long long>(cases), worst);
}

TEST(DiffLossTorch, TheFusedCallsLossAndGradientAgreeWithPyTorchFloat64) {
  const aclDataType dtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
  std::mt19937_64 rng(2027);
  double worst = 0;
  int64_t cases = 0, bad = 0;
  for (int round = 0; round < 120; ++round) {
    Case c;
    const size_t rank = rng() % 5;
    for (size_t k = 0; k < rank; ++k) c.dims.push_back(1 + static_cast<int64_t>(rng() % (k == rank - 1 ? 300 : 9)));
    // One dtype for the inputs and outputs: the gradOutput has self's dtype.
    c.self_dtype = c.target_dtype = dtypes[rng() % 4];
    c.weight_dtype = dtypes[rng() % 4];
    c.weight = rng() % 2 == 0;
    c.pos_weight = rng() % 2 == 0;
    c.weight_dims = BroadcastShape(rng, c.dims);
    c.pos_weight_dims = BroadcastShape(rng, c.dims);
    c.reduction = static_cast<int64_t>(rng() % 3);
    SCOPED_TRACE(::testing::Message() << "round " << round << " dims " << DimsText(c.dims) << " dtype "
                                      << aclnn_cpu::DTypeShortName(c.self_dtype) << " reduction " << c.reduction);
    bad += RunCase(c, 5000 + static_cast<uint64_t>(round), &worst, /*fused=*/true);
    ++cases;
  }
  EXPECT_EQ(bad, 0);
  std::printf("[ diff     ] %lld fused cases against PyTorch float64: worst error %.3f of its bound\n",
              static_cast<long long>(cases), worst);
}

TEST(DiffLossTorch, TheTargetGradientAgreesWithPyTorchFloat64Autograd) {
  const aclDataType dtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
  std::mt19937_64 rng(2028);
  double worst = 0;
  int64_t cases = 0, bad = 0;
  for (int round = 0; round < 160; ++round) {
    Case c;
    const size_t rank = rng() % 5;
    for (size_t k = 0; k < rank; ++k) c.dims.push_back(1 + static_cast<int64_t>(rng() % (k == rank - 1 ? 300 : 9)));
    c.self_dtype = dtypes[rng() % 4];
    c.target_dtype = dtypes[rng() % 4];
    c.weight_dtype = dtypes[rng() % 4];
    c.weight = rng() % 2 == 0;
    c.pos_weight = rng() % 2 == 0;
    c.weight_dims = BroadcastShape(rng, c.dims);
    c.pos_weight_dims = BroadcastShape(rng, c.dims);
    c.reduction = static_cast<int64_t>(rng() % 3);
    SCOPED_TRACE(::testing::Message() << "round " << round << " dims " << DimsText(c.dims) << " dtypes "
                                      << aclnn_cpu::DTypeShortName(c.self_dtype) << "/"
                                      << aclnn_cpu::DTypeShortName(c.target_dtype) << " reduction " << c.reduction);
    std::mt19937_64 data(9000 + static_cast<uint64_t>(round));
    TestTensor x(c.dims, c.self_dtype), y(c.dims, c.target_dtype), out(c.dims, c.target_dtype);
    TestTensor dout(rng() % 2 == 0 ? std::vector<int64_t>{} : BroadcastShape(rng, c.dims), c.weight_dtype);
    std::optional<TestTensor> w, pw;
    if (c.weight) w.emplace(c.weight_dims, c.weight_dtype);
    if (c.pos_weight) pw.emplace(c.pos_weight_dims, c.weight_dtype);
    std::uniform_real_distribution<double> logit(-25, 25), label(0, 1), weight(0, 3), upstream(-2, 2);
    for (int64_t i = 0; i < x.numel(); ++i) {
      x.Set(i, data() % 16 == 0 ? logit(data) * 1e3 : logit(data));
      y.Set(i, label(data));
    }
    for (int64_t i = 0; i < dout.numel(); ++i) dout.Set(i, upstream(data));
    if (w) for (int64_t i = 0; i < w->numel(); ++i) w->Set(i, weight(data));
    if (pw) for (int64_t i = 0; i < pw->numel(); ++i) pw->Set(i, weight(data));
    aclnn_cpu::DeviceMemory workspace;
    const auto r = aclnn_cpu::CallTwoPhase(
        [&](uint64_t* ws, aclOpExecutor** e) {
          return aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize(
              dout.get(), x.get(), y.get(), w ? w->get() : nullptr, pw ? pw->get() : nullptr, c.reduction, out.get(),
              ws, e);
        },
        aclnnBinaryCrossEntropyWithLogitsTargetBackward, nullptr, workspace);
    ASSERT_EQ(r.status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
    const torch::Tensor expected = TorchGradients(dout, x, y, w ? &*w : nullptr, pw ? &*pw : nullptr, c.reduction).second;
    const double* e = expected.data_ptr<double>();
    const bool any_double = c.self_dtype == ACL_DOUBLE || c.target_dtype == ACL_DOUBLE || c.weight_dtype == ACL_DOUBLE;
    const aclDataType compute = any_double ? ACL_DOUBLE : ACL_FLOAT;
    const double scale = c.reduction == 1 ? 1.0 / static_cast<double>(x.numel()) : 1.0;
    for (int64_t i = 0; i < x.numel(); ++i) {
      const double xi = x.Get(i);
      const std::optional<double> wi = w ? std::optional<double>(BroadcastGet(*w, c.dims, i)) : std::nullopt;
      const std::optional<double> pwi = pw ? std::optional<double>(BroadcastGet(*pw, c.dims, i)) : std::nullopt;
      const auto t = aclnn_cpu::bce_grad::ComputeTargetReferenceTerms(xi, BroadcastGet(dout, c.dims, i), wi, pwi, scale);
      // PyTorch's log_sigmoid(-x) - pw * log_sigmoid(x) in float64: its terms' magnitudes.
      const double tail = std::log1p(std::exp(-std::fabs(xi)));
      const double terms = std::max(xi, 0.0) + tail + pwi.value_or(1.0) * (std::max(-xi, 0.0) + tail);
      const double torch_error = 8 * 0x1p-52 * terms * std::fabs(t.m) + 0x1p-1074;
      const double bound = aclnn_cpu::bce_grad::TargetErrorBound(t, compute, c.target_dtype) + torch_error;
      const double diff = std::fabs(out.Get(i) - e[i]);
      if (bound > 0 && std::isfinite(diff)) worst = std::max(worst, diff / bound);
      if (!Matches(out.Get(i), e[i], bound, c.target_dtype) && bad++ < 5) {
        ADD_FAILURE() << "element " << i << ": ours " << out.Get(i) << ", torch " << e[i] << " (x=" << xi
                      << "), bound " << bound;
      }
    }
    ++cases;
  }
  EXPECT_EQ(bad, 0);
  std::printf("[ diff     ] %lld target-gradient cases against PyTorch float64 autograd: worst error %.3f of its "
              "bound\n", static_cast<long long>(cases), worst);
}

}  // namespace
