// Differential tests: aclnnBinaryCrossEntropy and aclnnBinaryCrossEntropyBackward (the BCE pair,
// loss of probabilities) against PyTorch's aten ops torch::binary_cross_entropy and
// torch::binary_cross_entropy_backward.
//
// The oracle is libtorch in float64, fed the very values the operator reads (each input rounded
// once to its dtype, then widened exactly); our fp32, fp16 and bf16 results are judged against it
// with our bound (Note [Probability loss error bound], Note [Probability gradient error bound])
// plus the error of PyTorch's own float64 evaluation (TorchLossError, TorchGradError). Inputs are
// probabilities with exact 0s and 1s among them (PyTorch's CPU kernel refuses x outside [0, 1]),
// weights broadcast from random shapes, every reduction and mixed dtypes.
//
//   ctest --preset release -L torch
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <random>
#include <vector>

#include "aclnnop/aclnn_binary_cross_entropy.h"
#include "aclnnop/aclnn_binary_cross_entropy_backward.h"
#include "common/dtype.h"
#include "dims.h"
#include "ops/binary_cross_entropy/tests/ut/common/bce_prob_test_util.h"
#include "ops/binary_cross_entropy_grad/tests/ut/common/bce_prob_grad_test_util.h"
#include "test_tensor.h"

namespace {

using acl_test::BroadcastGet;
using acl_test::DimsText;
using acl_test::TestTensor;
using aclnn_cpu::DTypeShortName;
using aclnn_cpu::bce_prob::ComputeProbLossReference;
using aclnn_cpu::bce_prob::MatchesReference;
using aclnn_cpu::bce_prob::ProbLossErrorBound;
using aclnn_cpu::bce_prob::ProbLossReference;
using aclnn_cpu::bce_prob_grad::ProbGradErrorBound;
using aclnn_cpu::bce_prob_grad::ProbGradReference;

constexpr double kEps64 = 0x1p-52;

torch::Tensor ToTorch(const TestTensor& t) {
  std::vector<double> values(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) values[static_cast<size_t>(i)] = t.Get(i);
  return torch::tensor(values, torch::kFloat64).reshape(t.dims());
}

int64_t TorchReduction(int64_t reduction) {
  return reduction == 0 ? at::Reduction::None : reduction == 1 ? at::Reduction::Mean : at::Reduction::Sum;
}

/// |error| of PyTorch's float64 loss at one element: a few roundings of each term, and log of
/// 1 - x where 1 - x itself rounds (an absolute eps64 of the log term, whichever log PyTorch takes).
double TorchLossError(const ProbLossReference& r, double y) {
  return (8 * kEps64 * (std::fabs(r.pos) + std::fabs(r.neg)) + 2 * kEps64 * std::fabs(1 - y)) * std::fabs(r.w) +
         0x1p-1074;
}

/// |error| of PyTorch's float64 gradient: a few roundings of the formula.
double TorchGradError(double g) { return 8 * kEps64 * std::fabs(g) + 0x1p-1074; }

// PyTorch's floor of (1 - x) x is EPSILON = 1e-12 held as a float, in float64 too: its float64
// gradient at x = 0, y = 1, dout = 1e-8 is -10000.00004. The operator's floor is the same in
// every dtype (its header), so the oracle's exact value is the reference's.

/// A shape broadcastable to @p dims that broadcasts to exactly @p dims: a suffix of it with some
/// dims set to 1.
std::vector<int64_t> BroadcastShape(std::mt19937_64& rng, const std::vector<int64_t>& dims) {
  const size_t keep = dims.empty() ? 0 : rng() % (dims.size() + 1);
  std::vector<int64_t> shape(dims.end() - static_cast<std::ptrdiff_t>(keep), dims.end());
  for (int64_t& d : shape) {
    if (rng() % 3 == 0) d = 1;
  }
  return shape;
}

std::vector<int64_t> RandomDims(std::mt19937_64& rng) {
  std::vector<int64_t> dims;
  const size_t rank = rng() % 5;
  for (size_t k = 0; k < rank; ++k) dims.push_back(1 + static_cast<int64_t>(rng() % (k + 1 == rank ? 300 : 9)));
  return dims;
}

struct Tally {
  int64_t cases = 0, bad = 0;
  double worst_ratio = 0;  ///< the largest |ours - torch| / bound
  void Note(double diff, double bound) {
    if (bound > 0 && std::isfinite(diff)) worst_ratio = std::max(worst_ratio, diff / bound);
  }
};

TEST(DiffBceProbTorch, TheLossAgreesWithPyTorchFloat64) {
  std::mt19937_64 rng(3031);
  Tally tally;
  for (int round = 0; round < 240; ++round) {
    const std::vector<int64_t> dims = RandomDims(rng);
    const aclDataType self_dtype = aclnn_cpu::kFloatDTypes[rng() % 4];
    const aclDataType target_dtype = aclnn_cpu::kFloatDTypes[rng() % 4];
    const aclDataType weight_dtype = aclnn_cpu::kFloatDTypes[rng() % 4];
    const bool has_weight = rng() % 3 != 0;
    const std::vector<int64_t> weight_dims = BroadcastShape(rng, dims);
    const auto reduction = static_cast<int64_t>(rng() % 3);
    SCOPED_TRACE(::testing::Message() << "round " << round << " dims " << DimsText(dims) << " dtypes "
                                      << DTypeShortName(self_dtype) << "/" << DTypeShortName(target_dtype) << "/"
                                      << (has_weight ? DTypeShortName(weight_dtype) : "-") << " weight "
                                      << DimsText(weight_dims) << " reduction " << reduction);
    TestTensor x(dims, self_dtype), y(dims, target_dtype);
    TestTensor out(reduction == 0 ? dims : std::vector<int64_t>{}, self_dtype);
    std::optional<TestTensor> w;
    if (has_weight) w.emplace(weight_dims, weight_dtype);
    bce_prob_test::FillProbabilities(x, 5000 + static_cast<uint64_t>(round));
    bce_prob_test::FillLabels(y, 6000 + static_cast<uint64_t>(round));
    if (w) acl_test::FillRandom(*w, 7000 + static_cast<uint64_t>(round), 0, 3);
    const bce_prob_test::ForwardCall call{&x, &y, w ? &*w : nullptr, reduction, &out};
    ASSERT_EQ(bce_prob_test::RunCall(call), ACLNN_SUCCESS) << aclGetRecentErrMsg();

    c10::optional<torch::Tensor> tw;
    if (w) tw = ToTorch(*w);
    const torch::Tensor expected =
        torch::binary_cross_entropy(ToTorch(x), ToTorch(y), tw, TorchReduction(reduction)).contiguous();
    const double* e = expected.data_ptr<double>();
    const aclDataType compute = bce_prob_test::ComputeDType(call);
    double bound_sum = 0, magnitude = 0;
    for (int64_t i = 0; i < x.numel(); ++i) {
      const std::optional<double> wi = w ? std::optional<double>(BroadcastGet(*w, dims, i)) : std::nullopt;
      const ProbLossReference r = ComputeProbLossReference(x.Get(i), y.Get(i), wi);
      const double torch_error = TorchLossError(r, y.Get(i));
      bound_sum += ProbLossErrorBound(r, compute, compute) + torch_error;
      magnitude += std::fabs(r.loss);
      if (reduction != 0) continue;
      const double bound = ProbLossErrorBound(r, compute, self_dtype) + torch_error;
      tally.Note(std::fabs(out.Get(i) - e[i]), bound);
      if (!MatchesReference(out.Get(i), e[i], bound, self_dtype) && tally.bad++ < 8) {
        ADD_FAILURE() << "element " << i << ": ours " << out.Get(i) << ", torch " << e[i] << " (x=" << x.Get(i)
                      << " y=" << y.Get(i) << "), bound " << bound;
      }
    }
    if (reduction != 0) {
      const double n = static_cast<double>(x.numel());
      const double scale = reduction == 1 ? 1 / n : 1;
      const double value = e[0];
      const double eps_out = aclnn_cpu::RoundingOf(self_dtype).unit_roundoff;
      // fp64 accumulation on both sides (n eps64 of the magnitudes), then our one rounding to out.
      const double bound = (bound_sum + 2 * n * kEps64 * magnitude) * scale + eps_out * std::fabs(value) + 0x1p-1074;
      tally.Note(std::fabs(out.Get(0) - value), bound);
      if (!MatchesReference(out.Get(0), value, bound, self_dtype) && tally.bad++ < 8) {
        ADD_FAILURE() << (reduction == 1 ? "mean" : "sum") << ": ours " << out.Get(0) << ", torch " << value
                      << ", bound " << bound;
      }
    }
    ++tally.cases;
  }
  EXPECT_EQ(tally.bad, 0);
  std::printf("[ diff     ] %lld BCE loss cases against PyTorch float64: worst error %.3f of its bound\n",
              static_cast<long long>(tally.cases), tally.worst_ratio);
}

TEST(DiffBceProbTorch, TheGradientAgreesWithPyTorchFloat64) {
  std::mt19937_64 rng(3032);
  Tally tally;
  for (int round = 0; round < 240; ++round) {
    const std::vector<int64_t> dims = RandomDims(rng);
    const aclDataType self_dtype = aclnn_cpu::kFloatDTypes[rng() % 4];
    const aclDataType other_dtype = aclnn_cpu::kFloatDTypes[rng() % 4];
    const bool has_weight = rng() % 3 != 0;
    const std::vector<int64_t> weight_dims = BroadcastShape(rng, dims);
    const std::vector<int64_t> target_dims = rng() % 4 == 0 ? BroadcastShape(rng, dims) : dims;
    const auto reduction = static_cast<int64_t>(rng() % 3);
    // gradOutput: one element for mean and sum (what the forward's out holds), else any broadcast.
    const std::vector<int64_t> dout_dims = reduction != 0 ? std::vector<int64_t>{} : BroadcastShape(rng, dims);
    SCOPED_TRACE(::testing::Message() << "round " << round << " dims " << DimsText(dims) << " dtypes "
                                      << DTypeShortName(self_dtype) << "/" << DTypeShortName(other_dtype)
                                      << " gradOutput " << DimsText(dout_dims) << " target " << DimsText(target_dims)
                                      << " weight " << (has_weight ? DimsText(weight_dims) : "none") << " reduction "
                                      << reduction);
    TestTensor dout(dout_dims, other_dtype), x(dims, self_dtype), y(target_dims, other_dtype), out(dims, self_dtype);
    std::optional<TestTensor> w;
    if (has_weight) w.emplace(weight_dims, other_dtype);
    acl_test::FillRandom(dout, 8000 + static_cast<uint64_t>(round), -2, 2);
    bce_prob_test::FillProbabilities(x, 9000 + static_cast<uint64_t>(round));
    bce_prob_test::FillLabels(y, 10000 + static_cast<uint64_t>(round));
    if (w) acl_test::FillRandom(*w, 11000 + static_cast<uint64_t>(round), 0, 3);
    const bce_prob_grad_test::BackwardCall call{&dout, &x, &y, w ? &*w : nullptr, reduction, &out};
    ASSERT_EQ(bce_prob_grad_test::RunCall(call), ACLNN_SUCCESS) << aclGetRecentErrMsg();

    // aten's backward takes gradOutput, target and weight of self's shape (or a 0-dim gradOutput).
    const torch::Tensor tx = ToTorch(x);
    c10::optional<torch::Tensor> tw;
    if (w) tw = ToTorch(*w).expand(dims).contiguous();
    const torch::Tensor expected =
        torch::binary_cross_entropy_backward(ToTorch(dout).expand(dims).contiguous(), tx,
                                             ToTorch(y).expand(dims).contiguous(), tw, TorchReduction(reduction))
            .contiguous();
    const double* e = expected.data_ptr<double>();
    const aclDataType compute = bce_prob_grad_test::ComputeDType(call);
    const double scale = reduction == 1 ? 1.0 / static_cast<double>(x.numel()) : 1.0;
    for (int64_t i = 0; i < x.numel(); ++i) {
      const std::optional<double> wi = w ? std::optional<double>(BroadcastGet(*w, dims, i)) : std::nullopt;
      const double xi = x.Get(i), yi = BroadcastGet(y, dims, i), di = BroadcastGet(dout, dims, i);
      const double g = ProbGradReference(xi, yi, di, wi, scale);
      const double bound = ProbGradErrorBound(g, reduction == 1, compute, self_dtype) + TorchGradError(g);
      tally.Note(std::fabs(out.Get(i) - e[i]), bound);
      if (!MatchesReference(out.Get(i), e[i], bound, self_dtype) && tally.bad++ < 8) {
        ADD_FAILURE() << "element " << i << ": ours " << out.Get(i) << ", torch " << e[i] << " (x=" << xi << " y=" << yi
                      << " dout=" << di << "), bound " << bound;
      }
    }
    ++tally.cases;
  }
  EXPECT_EQ(tally.bad, 0);
  std::printf("[ diff     ] %lld BCE gradient cases against PyTorch float64: worst error %.3f of its bound\n",
              static_cast<long long>(tally.cases), tally.worst_ratio);
}

TEST(DiffBceProbTorch, ExactZerosAndOnesAgreeWithPyTorchsClampAndFloor) {
  // Every pairing of x in {0, 1, tiny, nearly 1} with hard and soft labels, in every dtype.
  const double xs[] = {0, 1, 0x1p-24, 1 - 0x1p-11, 0.5};
  const double ys[] = {0, 1, 0.5, 0.125};
  for (const aclDataType dtype : aclnn_cpu::kFloatDTypes) {
    SCOPED_TRACE(DTypeShortName(dtype));
    const int64_t n = std::size(xs) * std::size(ys);
    TestTensor x({n}, dtype), y({n}, dtype), loss({n}, dtype), dout({}, dtype), grad({n}, dtype);
    for (int64_t i = 0; i < n; ++i) {
      x.Set(i, xs[static_cast<size_t>(i) / std::size(ys)]);
      y.Set(i, ys[static_cast<size_t>(i) % std::size(ys)]);
    }
    dout.Set(0, 1e-8);  // keeps dout / floor within fp16's range
    ASSERT_EQ(bce_prob_test::RunCall({&x, &y, nullptr, 0, &loss}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(bce_prob_grad_test::RunCall({&dout, &x, &y, nullptr, 0, &grad}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    const torch::Tensor expected_loss = torch::binary_cross_entropy(ToTorch(x), ToTorch(y), {}, at::Reduction::None);
    const torch::Tensor expected_grad = torch::binary_cross_entropy_backward(
        ToTorch(dout).expand({n}).contiguous(), ToTorch(x), ToTorch(y), {}, at::Reduction::None);
    const aclDataType compute = dtype == ACL_DOUBLE ? ACL_DOUBLE : ACL_FLOAT;
    for (int64_t i = 0; i < n; ++i) {
      const ProbLossReference r = ComputeProbLossReference(x.Get(i), y.Get(i), std::nullopt);
      const double loss_bound = ProbLossErrorBound(r, compute, dtype) + TorchLossError(r, y.Get(i));
      const double e_loss = expected_loss[i].item<double>();
      EXPECT_TRUE(MatchesReference(loss.Get(i), e_loss, loss_bound, dtype))
          << "loss at x=" << x.Get(i) << " y=" << y.Get(i) << ": ours " << loss.Get(i) << ", torch " << e_loss;
      const double g = ProbGradReference(x.Get(i), y.Get(i), dout.Get(0), std::nullopt, 1.0);
      const double grad_bound = ProbGradErrorBound(g, false, compute, dtype) + TorchGradError(g);
      const double e_grad = expected_grad[i].item<double>();
      EXPECT_TRUE(MatchesReference(grad.Get(i), e_grad, grad_bound, dtype))
          << "gradient at x=" << x.Get(i) << " y=" << y.Get(i) << ": ours " << grad.Get(i) << ", torch " << e_grad;
    }
  }
}

}  // namespace
