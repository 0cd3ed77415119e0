// Differential tests: aclnnBinaryCrossEntropyWithLogitsBackward against PyTorch.
//
// The oracle is libtorch's float64 autograd gradient of torch::binary_cross_entropy_with_logits
// with respect to its input, fed the very values the operator reads (each input is rounded once to
// its dtype, then widened exactly to float64). An element passes when it lies within
// bce_reliability::Judge's bound (fp32 compute with ~8 eps on |a| + |b|, half an ulp of the out
// dtype, plus the oracle's own float64 error).
//
//   ctest --preset release -L torch                  (all of them, about 10 s)
//   build/release/tests/diff/diff_torch_tests        (prints the error statistics)
// Set BCE_DIFF_CASES_PER_COMBO to run more (or fewer) random cases per dtype combination.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/bce_test_util.h"
#include "common/dtype.h"
#include "client/two_phase_call.h"
#include "dims.h"
#include "tolerance.h"

namespace {

using aclnn_cpu::DTypeShortName;

using bce_reliability::ComputeGradTerms;
using acl_test::DimsText;
using bce_reliability::GradTerms;
using bce_reliability::Judge;
using acl_test::Numel;
using bce_reliability::Verdict;
using bce_test::TestTensor;

constexpr std::array<aclDataType, 4> kFloatTypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
constexpr int kMaxRank = 8;

// ---------------------------------------------------------------------------------------------
// Views: contiguous, permuted with padding and an offset, or expanded (stride 0), always over a
// storage that is larger than the view.
// ---------------------------------------------------------------------------------------------
struct Layout {
  std::vector<int64_t> strides;
  int64_t offset = 0;
  int64_t storage_elems = 1;
};

enum class LayoutKind { kContiguous, kPermutedPadded, kExpanded };

Layout MakeLayout(std::mt19937_64& rng, const std::vector<int64_t>& dims, LayoutKind kind) {
  const size_t rank = dims.size();
  Layout l;
  l.strides.assign(rank, 0);
  std::vector<size_t> order(rank);  // memory order, outermost first
  std::iota(order.begin(), order.end(), size_t{0});
  int64_t pad_max = 0;
  if (kind != LayoutKind::kContiguous) {
    std::shuffle(order.begin(), order.end(), rng);
    pad_max = 2;
    l.offset = static_cast<int64_t>(rng() % 9);
  }
  int64_t s = 1;
  for (size_t k = rank; k-- > 0;) {
    const size_t d = order[k];
    l.strides[d] = s;
    s *= std::max<int64_t>(dims[d], 1) + (pad_max ? static_cast<int64_t>(rng() % (pad_max + 1)) : 0);
  }
  for (size_t d = 0; d < rank; ++d) {
    if (dims[d] == 1 && kind != LayoutKind::kContiguous) l.strides[d] = static_cast<int64_t>(rng() % 5);
    if (kind == LayoutKind::kExpanded && rng() % 2 == 0) l.strides[d] = 0;  // same values along d
  }
  int64_t last = l.offset;
  for (size_t d = 0; d < rank; ++d) last += (std::max<int64_t>(dims[d], 1) - 1) * l.strides[d];
  l.storage_elems = last + 1 + (kind == LayoutKind::kContiguous ? 0 : static_cast<int64_t>(rng() % 4));
  return l;
}

std::unique_ptr<TestTensor> MakeTensor(const std::vector<int64_t>& dims, const Layout& l, aclDataType dtype) {
  return std::make_unique<TestTensor>(dims, l.strides, l.offset, l.storage_elems, dtype);
}

// ---------------------------------------------------------------------------------------------
// The oracle.
// ---------------------------------------------------------------------------------------------
torch::Tensor ToTorch(const TestTensor& t) {
  std::vector<double> values(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) values[static_cast<size_t>(i)] = t.Get(i);
  return torch::tensor(values, torch::kFloat64).reshape(t.dims());
}

/// d loss / d self in float64, where loss = binary_cross_entropy_with_logits(self, target,
/// weight, pos_weight, reduction) and the upstream gradient is gradOutput (a scalar for mean/sum
/// in PyTorch; a broadcast gradOutput under mean/sum is the none-reduction loss's gradient
/// scaled by 1/N or 1, which is what the chain rule gives).
torch::Tensor TorchGradient(const TestTensor& dout, const TestTensor& self, const TestTensor& target,
                            const TestTensor* weight, const TestTensor* pos_weight, int64_t reduction) {
  torch::Tensor x = ToTorch(self).requires_grad_(true);
  const torch::Tensor y = ToTorch(target);
  const torch::Tensor g = ToTorch(dout);
  c10::optional<torch::Tensor> w, pw;
  if (weight != nullptr) w = ToTorch(*weight);
  if (pos_weight != nullptr) pw = ToTorch(*pos_weight);
  if (reduction != 0 && dout.numel() == 1) {
    const int64_t torch_reduction = reduction == 1 ? at::Reduction::Mean : at::Reduction::Sum;
    torch::Tensor loss = torch::binary_cross_entropy_with_logits(x, y, w, pw, torch_reduction);
    loss.backward(g.reshape({}));
  } else {
    torch::Tensor loss = torch::binary_cross_entropy_with_logits(x, y, w, pw, at::Reduction::None);
    torch::Tensor upstream = g.expand(self.dims()).clone();
    if (reduction == 1) upstream = upstream / static_cast<double>(self.numel());
    loss.backward(upstream);
  }
  return x.grad().contiguous();
}

// ---------------------------------------------------------------------------------------------
// One call of the operator on aclTensors (out may alias an input).
// ---------------------------------------------------------------------------------------------
aclnnStatus RunOp(aclTensor* dout, aclTensor* self, aclTensor* target, aclTensor* weight, aclTensor* pos_weight,
                  int64_t reduction, aclTensor* out) {
  aclnn_cpu::DeviceMemory workspace;
  return aclnn_cpu::CallTwoPhase(
             [&](uint64_t* workspace_size, aclOpExecutor** executor) {
               return aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
                   dout, self, target, weight, pos_weight, reduction, out, workspace_size, executor);
             },
             aclnnBinaryCrossEntropyWithLogitsBackward, nullptr, workspace)
      .status;
}

// ---------------------------------------------------------------------------------------------
// Error statistics per out dtype, printed at the end of the random sweep.
// ---------------------------------------------------------------------------------------------
struct DTypeStats {
  int64_t cases = 0;
  int64_t elements = 0;
  int64_t inf_elements = 0;
  double max_abs_error = 0;
  double max_error_over_bound = 0;
};

/// Whether this process runs the AscendC kernels on the twin (ACLNN_BCE_KERNELS=ascendc, read by the
/// library when it is loaded; the tests of label aclnn_ascendc set it).
bool AscendcMode() {
  const char* mode = std::getenv("ACLNN_BCE_KERNELS");
  return mode != nullptr && std::string(mode) == "ascendc";
}

/// Compares every element of @p out (view of @p self's shape) with the oracle @p ref and returns
/// the number of failures (the first few reported with their inputs).
int64_t CompareWithOracle(const TestTensor& out, const torch::Tensor& ref, const TestTensor& dout,
                          const TestTensor& self, const TestTensor& target, const TestTensor* weight,
                          const TestTensor* pos_weight, int64_t reduction, DTypeStats* stats,
                          const std::string& what) {
  bool any_double = false;
  for (const TestTensor* t : {&dout, &self, &target, weight, pos_weight}) {
    if (t != nullptr && t->dtype() == ACL_DOUBLE) any_double = true;
  }
  const aclDataType compute = any_double ? ACL_DOUBLE : ACL_FLOAT;
  // In the ascendc mode an all-fp16 call runs the fp16 AscendC kernel, whose final Cast saturates
  // as A2's does (JudgeSaturating); mixed dtypes promote to fp32, whose cast into out is the host's.
  bool all_half = true;
  for (const TestTensor* t : {&dout, &self, &target, weight, pos_weight}) {
    if (t != nullptr && t->dtype() != ACL_FLOAT16) all_half = false;
  }
  const bool saturating = all_half && AscendcMode();
  const int64_t n = self.numel();
  const double scale = reduction == 1 ? 1.0 / static_cast<double>(n) : 1.0;
  const double* expected = ref.data_ptr<double>();
  int64_t failures = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double x = self.Get(i), y = target.Get(i);
    const double g = bce_test::BroadcastGet(dout, self.dims(), i);
    std::optional<double> w, pw;
    if (weight != nullptr) w = bce_test::BroadcastGet(*weight, self.dims(), i);
    if (pos_weight != nullptr) pw = bce_test::BroadcastGet(*pos_weight, self.dims(), i);
    const GradTerms terms = ComputeGradTerms(x, y, g, w, pw, scale);
    const double got = out.Get(i);
    const double oracle = bce_reliability::OracleValue(expected[i], x, terms);
    const Verdict v = saturating ? JudgeSaturating(got, oracle, terms, compute, out.dtype())
                                 : Judge(got, oracle, terms, compute, out.dtype());
    if (!v.ok) {
      if (failures < 5) {
        ADD_FAILURE() << what << ": element " << i << " got " << got << ", torch " << expected[i] << ", oracle " << oracle << " (x=" << x
                      << " y=" << y << " dout=" << g << " w=" << (w ? *w : 1.0) << " pw=" << (pw ? *pw : 1.0)
                      << "), error " << std::fabs(got - oracle) << " > bound " << v.bound;
      }
      ++failures;
    }
    if (stats != nullptr) {
      ++stats->elements;
      if (std::isinf(got)) ++stats->inf_elements;
      if (std::isfinite(v.abs_error)) stats->max_abs_error = std::max(stats->max_abs_error, v.abs_error);
      if (std::isfinite(v.error_over_bound)) {
        stats->max_error_over_bound = std::max(stats->max_error_over_bound, v.error_over_bound);
      }
    }
  }
  return failures;
}

// ---------------------------------------------------------------------------------------------
// The random sweep.
// ---------------------------------------------------------------------------------------------
constexpr int64_t kDefaultCasesPerCombo = 1;
// dout, self, target each in 4 dtypes; weight and pos_weight each absent or in 4 dtypes; 3 reductions.
constexpr int kDTypeCombos = 4 * 4 * 4 * 5 * 5;
constexpr int kReductions = 3;

/// Shape of self: rank 0..8, element count up to @p cap; now and then an empty dim.
std::vector<int64_t> RandomSelfDims(std::mt19937_64& rng, int64_t cap) {
  static constexpr int64_t kSizes[] = {1, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 127, 255, 1000};
  const int rank = static_cast<int>(rng() % (kMaxRank + 1));
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  for (auto& d : dims) d = kSizes[rng() % std::size(kSizes)];
  while (Numel(dims) > cap) {
    auto largest = std::max_element(dims.begin(), dims.end());
    *largest = std::max<int64_t>(*largest / 2, 1);
  }
  if (rank > 0 && rng() % 40 == 0) dims[rng() % dims.size()] = 0;
  return dims;
}

/// A shape that broadcasts to @p self (to exactly self's shape, so never of higher rank): the same,
/// a 0-dim scalar, [1], the per-class vector [C], all ones, or leading dims dropped and others
/// set to 1 at random.
std::vector<int64_t> RandomBroadcastDims(std::mt19937_64& rng, const std::vector<int64_t>& self) {
  switch (rng() % 6) {
    case 0: return self;
    case 1: return {};
    case 2: return self.empty() ? std::vector<int64_t>{} : std::vector<int64_t>{1};
    case 3: return self.empty() ? std::vector<int64_t>{} : std::vector<int64_t>{self.back()};
    case 4: return std::vector<int64_t>(self.size(), 1);
    default: {
      const size_t drop = self.empty() ? 0 : rng() % (self.size() + 1);
      std::vector<int64_t> dims(self.begin() + static_cast<ptrdiff_t>(drop), self.end());
      for (auto& d : dims) {
        if (rng() % 2 == 0) d = 1;
      }
      return dims;
    }
  }
}

LayoutKind RandomLayoutKind(std::mt19937_64& rng, bool allow_expanded) {
  const uint64_t r = rng() % 10;
  if (r < 4) return LayoutKind::kContiguous;
  if (r < 8 || !allow_expanded) return LayoutKind::kPermutedPadded;
  return LayoutKind::kExpanded;
}

/// Log-uniform magnitude in [1e-3, 1e4].
double RandomScale(std::mt19937_64& rng) {
  return std::pow(10.0, std::uniform_real_distribution<double>(-3.0, 4.0)(rng));
}

void FillValues(std::mt19937_64& rng, TestTensor& t, double lo, double hi) {
  if (t.numel() > 0) t.FillUniform(rng, lo, hi);
}

struct SweepTotals {
  int64_t cases = 0, empty_cases = 0, alias_cases = 0, failed_cases = 0;
  std::map<aclDataType, DTypeStats> per_out_dtype;
};

/// One random case of dtype combination @p combo and @p reduction; returns false on a mismatch.
bool RunRandomCase(std::mt19937_64& rng, int combo, int64_t reduction, int64_t case_id, SweepTotals& totals) {
  const aclDataType dout_t = kFloatTypes[combo % 4];
  const aclDataType self_t = kFloatTypes[combo / 4 % 4];
  const aclDataType target_t = kFloatTypes[combo / 16 % 4];
  const int weight_code = combo / 64 % 5, pos_weight_code = combo / 320 % 5;

  // Mostly small problems; a few large enough for several blocks and several tiles per block.
  const uint64_t size_class = rng() % 50;
  const int64_t cap = size_class == 0 ? 200000 : (size_class < 5 ? 20000 : 600);
  const std::vector<int64_t> dims = RandomSelfDims(rng, cap);
  const int64_t n = Numel(dims);

  const Layout self_layout = MakeLayout(rng, dims, RandomLayoutKind(rng, true));
  auto self = MakeTensor(dims, self_layout, self_t);
  auto target = MakeTensor(dims, MakeLayout(rng, dims, RandomLayoutKind(rng, true)), target_t);
  const Layout out_layout = MakeLayout(rng, dims, RandomLayoutKind(rng, false));
  auto out = MakeTensor(dims, out_layout, target_t);
  auto make_broadcast = [&](aclDataType t) {
    const auto bdims = RandomBroadcastDims(rng, dims);
    return MakeTensor(bdims, MakeLayout(rng, bdims, RandomLayoutKind(rng, true)), t);
  };
  auto dout = make_broadcast(dout_t);
  std::unique_ptr<TestTensor> weight, pos_weight;
  if (weight_code < 4) weight = make_broadcast(kFloatTypes[static_cast<size_t>(weight_code)]);
  if (pos_weight_code < 4) pos_weight = make_broadcast(kFloatTypes[static_cast<size_t>(pos_weight_code)]);

  // Values: logits and gradOutput/weight of either sign at a random scale; targets mostly
  // probabilities (sometimes exact 0/1, sometimes any real); pos_weight mostly positive.
  const double x_scale = RandomScale(rng);
  FillValues(rng, *self, -x_scale, x_scale);
  switch (rng() % 4) {
    case 0: FillValues(rng, *target, 0.0, 1.0); break;
    case 1: {
      for (int64_t i = 0; i < target->numel(); ++i) target->Set(i, static_cast<double>(rng() % 2));
      break;
    }
    case 2: FillValues(rng, *target, 0.0, 1.0); break;
    default: {
      const double s = RandomScale(rng);
      FillValues(rng, *target, -s, s);
    }
  }
  const double g_scale = RandomScale(rng);
  FillValues(rng, *dout, -g_scale, g_scale);
  if (weight) {
    const double s = RandomScale(rng);
    FillValues(rng, *weight, -s, s);
  }
  if (pos_weight) {
    const double s = RandomScale(rng);
    FillValues(rng, *pos_weight, rng() % 8 == 0 ? -s : 0.0, s);
  }

  // Now and then out is self itself (in place): same storage, same view.
  // (Not over an expanded self: out must not have elements that share memory.)
  bool self_expanded = false;
  for (size_t d = 0; d < dims.size(); ++d) self_expanded |= dims[d] > 1 && self_layout.strides[d] == 0;
  const bool alias = self_t == target_t && n > 0 && !self_expanded && rng() % 16 == 0;
  aclTensor* alias_tensor = nullptr;
  const TestTensor* result = out.get();
  std::unique_ptr<TestTensor> self_copy;
  if (alias) {
    // The oracle reads self before the run; keep a copy of its values (self is overwritten).
    self_copy = std::make_unique<TestTensor>(dims, self->dtype());
    for (int64_t i = 0; i < n; ++i) self_copy->Set(i, self->Get(i));
    result = self.get();
  }

  const std::string what = "case " + std::to_string(case_id) + " (self " + DTypeShortName(self_t) + DimsText(dims) +
                           " target " + DTypeShortName(target_t) + " dout " + DTypeShortName(dout_t) +
                           DimsText(dout->dims()) + " weight " +
                           (weight ? DTypeShortName(weight->dtype()) + DimsText(weight->dims()) : std::string("-")) +
                           " pos_weight " +
                           (pos_weight ? DTypeShortName(pos_weight->dtype()) + DimsText(pos_weight->dims())
                                       : std::string("-")) +
                           " reduction " + std::to_string(reduction) + (alias ? " in place" : "") + ")";

  // Inputs and out's storage outside the view must come back untouched.
  std::vector<std::vector<uint8_t>> inputs_before;
  for (const TestTensor* t : {dout.get(), target.get(), weight.get(), pos_weight.get()}) {
    inputs_before.push_back(t ? t->StorageBytes() : std::vector<uint8_t>{});
  }
  const std::vector<uint8_t> self_before = self->StorageBytes();
  const std::vector<uint8_t> out_before = result->StorageBytes();

  aclTensor* out_tensor = out->get();
  if (alias) {
    const int64_t storage_dims[1] = {self->storage_elems()};
    alias_tensor = aclCreateTensor(dims.data(), dims.size(), self_t, self_layout.strides.data(), self_layout.offset,
                                   ACL_FORMAT_ND, storage_dims, 1, self->data());
    EXPECT_NE(alias_tensor, nullptr) << aclGetRecentErrMsg();
    out_tensor = alias_tensor;
  }
  // For the oracle, the self that was read (a copy when self is overwritten).
  const TestTensor& self_in = alias ? *self_copy : *self;
  const torch::Tensor ref = n > 0 ? TorchGradient(*dout, self_in, *target, weight.get(), pos_weight.get(), reduction)
                                  : torch::Tensor();

  const aclnnStatus status = RunOp(dout->get(), self->get(), target->get(), weight ? weight->get() : nullptr,
                                   pos_weight ? pos_weight->get() : nullptr, reduction, out_tensor);
  if (alias_tensor != nullptr) aclDestroyTensor(alias_tensor);
  EXPECT_EQ(status, ACLNN_SUCCESS) << what << ": " << aclGetRecentErrMsg();
  if (status != ACLNN_SUCCESS) return false;

  int64_t failures = 0;
  auto& stats = totals.per_out_dtype[target_t];
  ++stats.cases;
  if (n > 0) {
    failures += CompareWithOracle(*result, ref, *dout, self_in, *target, weight.get(), pos_weight.get(), reduction,
                                  &stats, what);
  } else {
    ++totals.empty_cases;
  }
  // Untouched bytes: inputs entirely; out's (or self's, in place) storage outside the view.
  size_t k = 0;
  for (const TestTensor* t : {dout.get(), target.get(), weight.get(), pos_weight.get()}) {
    if (t != nullptr && t->StorageBytes() != inputs_before[k]) {
      ADD_FAILURE() << what << ": an input's storage changed";
      ++failures;
    }
    ++k;
  }
  if (!alias && self->StorageBytes() != self_before) {
    ADD_FAILURE() << what << ": self's storage changed";
    ++failures;
  }
  {
    std::vector<bool> in_view(static_cast<size_t>(result->storage_elems()), false);
    for (int64_t i = 0; i < n; ++i) in_view[static_cast<size_t>(result->StorageIndex(i))] = true;
    const std::vector<uint8_t> after = result->StorageBytes();
    const size_t elem = aclDataTypeSize(result->dtype());
    for (size_t e = 0; e < in_view.size(); ++e) {
      if (in_view[e]) continue;
      if (!std::equal(after.begin() + static_cast<ptrdiff_t>(e * elem),
                      after.begin() + static_cast<ptrdiff_t>((e + 1) * elem),
                      out_before.begin() + static_cast<ptrdiff_t>(e * elem))) {
        ADD_FAILURE() << what << ": storage element " << e << " outside out's view was written";
        ++failures;
        break;
      }
    }
  }
  ++totals.cases;
  if (alias) ++totals.alias_cases;
  if (failures != 0) ++totals.failed_cases;
  return failures == 0;
}

int64_t CasesPerCombo() {
  if (const char* env = std::getenv("BCE_DIFF_CASES_PER_COMBO")) {
    const long long v = std::atoll(env);
    if (v >= 1) return v;
  }
  return kDefaultCasesPerCombo;
}

TEST(DiffTorch, RandomCasesOfEveryDTypeMixMatchFloat64Autograd) {
  std::mt19937_64 rng(0x5eed'bce0'd1ffULL);
  SweepTotals totals;
  const int64_t per_combo = CasesPerCombo();
  int64_t case_id = 0;
  for (int64_t rep = 0; rep < per_combo; ++rep) {
    for (int combo = 0; combo < kDTypeCombos; ++combo) {
      for (int64_t reduction = 0; reduction < kReductions; ++reduction) {
        RunRandomCase(rng, combo, reduction, case_id++, totals);
        if (totals.failed_cases >= 20) {
          FAIL() << "stopping after 20 failed cases";
        }
      }
    }
  }
  std::printf("[diff] %" PRId64 " random cases against libtorch %s float64 autograd (%" PRId64 " empty, %" PRId64
              " in place), %" PRId64 " failed\n",
              totals.cases, TORCH_VERSION, totals.empty_cases, totals.alias_cases, totals.failed_cases);
  std::printf("[diff] %-5s %7s %10s %8s %13s %16s\n", "out", "cases", "elements", "Inf", "max |err|",
              "max err/bound");
  for (const auto& [dtype, s] : totals.per_out_dtype) {
    std::printf("[diff] %-5s %7" PRId64 " %10" PRId64 " %8" PRId64 " %13.4e %16.4f\n", DTypeShortName(dtype), s.cases,
                s.elements, s.inf_elements, s.max_abs_error, s.max_error_over_bound);
  }
  std::fflush(stdout);
  EXPECT_EQ(totals.failed_cases, 0);
}

// ---------------------------------------------------------------------------------------------
// PyTorch's own scenarios for this loss (test/test_nn.py: test_bce_with_logits_*).
// ---------------------------------------------------------------------------------------------
class DiffTorchScenario : public ::testing::TestWithParam<aclDataType> {};

std::vector<double> OutValues(const TestTensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = t.Get(i);
  return v;
}

/// Runs the operator into a fresh out of self's shape and dtype and checks it against torch.
std::vector<double> RunAndCheck(TestTensor& dout, TestTensor& self, TestTensor& target, TestTensor* weight,
                                TestTensor* pos_weight, int64_t reduction, const std::string& what) {
  TestTensor out(self.dims(), target.dtype());
  EXPECT_EQ(RunOp(dout.get(), self.get(), target.get(), weight ? weight->get() : nullptr,
                  pos_weight ? pos_weight->get() : nullptr, reduction, out.get()),
            ACLNN_SUCCESS)
      << what << ": " << aclGetRecentErrMsg();
  const torch::Tensor ref = TorchGradient(dout, self, target, weight, pos_weight, reduction);
  EXPECT_EQ(CompareWithOracle(out, ref, dout, self, target, weight, pos_weight, reduction, nullptr, what), 0);
  return OutValues(out);
}

TEST_P(DiffTorchScenario, PosWeightShapes4And1x4And64x4GiveEqualResults) {
  const aclDataType t = GetParam();
  std::mt19937_64 rng(1);
  TestTensor x({64, 4}, t), y({64, 4}, t), dout({}, t), pw4({4}, t), pw1x4({1, 4}, t), pw64x4({64, 4}, t);
  y.FillUniform(rng, 0.0, 1.0);
  x.FillUniform(rng, -0.5, 0.5);
  pw4.FillUniform(rng, 0.0, 1.0);
  dout.Set(0, 1.0);
  for (int64_t i = 0; i < 4; ++i) pw1x4.Set(i, pw4.Get(i));
  for (int64_t i = 0; i < 256; ++i) pw64x4.Set(i, pw4.Get(i % 4));
  // (64, 4) also as an expanded view: stride 0 over the 4 values.
  TestTensor pw_expanded({64, 4}, {0, 1}, 0, 4, t);
  for (int64_t i = 0; i < 4; ++i) pw_expanded.Set(i, pw4.Get(i));
  for (int64_t reduction : {0, 1, 2}) {
    const auto r4 = RunAndCheck(dout, x, y, nullptr, &pw4, reduction, "pos_weight (4,)");
    EXPECT_EQ(RunAndCheck(dout, x, y, nullptr, &pw1x4, reduction, "pos_weight (1,4)"), r4);
    EXPECT_EQ(RunAndCheck(dout, x, y, nullptr, &pw64x4, reduction, "pos_weight (64,4)"), r4);
    EXPECT_EQ(RunAndCheck(dout, x, y, nullptr, &pw_expanded, reduction, "pos_weight (64,4) stride (0,1)"), r4);
  }
}

TEST_P(DiffTorchScenario, WeightShapes4And16x1BroadcastLikeTheirExpansion) {
  const aclDataType t = GetParam();
  std::mt19937_64 rng(2);
  TestTensor x({16, 4}, t), y({16, 4}, t), dout({}, t), w4({4}, t), w16x1({16, 1}, t), w4_full({16, 4}, t),
      w16_full({16, 4}, t);
  y.FillUniform(rng, 0.0, 1.0);
  x.FillUniform(rng, -0.5, 0.5);
  w4.FillUniform(rng, 0.0, 1.0);
  w16x1.FillUniform(rng, 0.0, 1.0);
  dout.Set(0, 1.0);
  for (int64_t i = 0; i < 64; ++i) {
    w4_full.Set(i, w4.Get(i % 4));
    w16_full.Set(i, w16x1.Get(i / 4));
  }
  for (int64_t reduction : {0, 1, 2}) {
    EXPECT_EQ(RunAndCheck(dout, x, y, &w4, nullptr, reduction, "weight (4,)"),
              RunAndCheck(dout, x, y, &w4_full, nullptr, reduction, "weight (4,) expanded"));
    EXPECT_EQ(RunAndCheck(dout, x, y, &w16x1, nullptr, reduction, "weight (16,1)"),
              RunAndCheck(dout, x, y, &w16_full, nullptr, reduction, "weight (16,1) expanded"));
  }
}

TEST_P(DiffTorchScenario, PosWeightOfOnesEqualsNoPosWeight) {
  const aclDataType t = GetParam();
  std::mt19937_64 rng(3);
  TestTensor x({64, 4}, t), y({64, 4}, t), dout({}, t), ones({64, 4}, t);
  y.FillUniform(rng, 0.0, 1.0);
  x.FillUniform(rng, -8.0, 8.0);
  dout.Set(0, 1.0);
  for (int64_t i = 0; i < 256; ++i) ones.Set(i, 1.0);
  for (int64_t reduction : {0, 1, 2}) {
    EXPECT_EQ(RunAndCheck(dout, x, y, nullptr, &ones, reduction, "pos_weight ones"),
              RunAndCheck(dout, x, y, nullptr, nullptr, reduction, "no pos_weight"));
  }
}

TEST_P(DiffTorchScenario, GradientAtZeroLogitsIsHalfMinusTarget) {
  // test_bce_with_logits_has_correct_grad_at_zero: zeros (3, 1), target zeros, sum -> 0.5; and
  // the same with a pos_weight of ones; sigmoid(0) = 0.5 exactly.
  const aclDataType t = GetParam();
  TestTensor x({3, 1}, t), zeros({3, 1}, t), ones_target({3, 1}, t), half_target({3, 1}, t), dout({}, t),
      pw({3, 1}, t);
  for (int64_t i = 0; i < 3; ++i) {
    x.Set(i, 0.0);
    zeros.Set(i, 0.0);
    ones_target.Set(i, 1.0);
    half_target.Set(i, 0.5);
    pw.Set(i, 1.0);
  }
  dout.Set(0, 1.0);
  EXPECT_EQ(RunAndCheck(dout, x, zeros, nullptr, nullptr, 2, "sum, target 0"), std::vector<double>(3, 0.5));
  EXPECT_EQ(RunAndCheck(dout, x, zeros, nullptr, &pw, 2, "sum, target 0, pos_weight 1"), std::vector<double>(3, 0.5));
  EXPECT_EQ(RunAndCheck(dout, x, ones_target, nullptr, nullptr, 2, "sum, target 1"), std::vector<double>(3, -0.5));
  EXPECT_EQ(RunAndCheck(dout, x, half_target, nullptr, nullptr, 0, "none, target 0.5"), std::vector<double>(3, 0.0));
  // mean over 3: 0.5 / 3 rounded once to the out dtype
  TestTensor expected({1}, t);
  expected.Set(0, 0.5 / 3.0);
  const auto mean = RunAndCheck(dout, x, zeros, nullptr, nullptr, 1, "mean, target 0");
  for (double v : mean) EXPECT_NEAR(v, expected.Get(0), std::fabs(expected.Get(0)) * 1e-6);
}

TEST_P(DiffTorchScenario, LogitsOfMinus120WithPosWeightStayFinite) {
  // test_bce_with_logits_stability: output [0, -120], target [0, 1], pos_weight [1, 1].
  const aclDataType t = GetParam();
  TestTensor x({2}, t), y({2}, t), pw({2}, t), dout({}, t);
  x.Set(0, 0.0);
  x.Set(1, -120.0);
  y.Set(0, 0.0);
  y.Set(1, 1.0);
  pw.Set(0, 1.0);
  pw.Set(1, 1.0);
  dout.Set(0, 1.0);
  for (int64_t reduction : {0, 1, 2}) {
    for (TestTensor* p : {&pw, static_cast<TestTensor*>(nullptr)}) {
      const auto g = RunAndCheck(dout, x, y, nullptr, p, reduction, "x = [0, -120]");
      for (double v : g) EXPECT_TRUE(std::isfinite(v)) << v;
      // x = -120, y = 1: g = -(1 - sigmoid(-120)) = -1 to all precision (scaled by 1/2 for mean).
      EXPECT_EQ(g[1], reduction == 1 ? -0.5 : -1.0);
    }
  }
}

TEST_P(DiffTorchScenario, HugeLogitsGiveExactSaturatedGradients) {
  // docs/contract.md §1: sigmoid must not produce NaN for finite x of any magnitude.
  const aclDataType t = GetParam();
  const double big = t == ACL_FLOAT16 ? 65504.0 : (t == ACL_DOUBLE ? 1e300 : 1e30);
  TestTensor x({4}, t), y({4}, t), pw({4}, t), dout({}, t);
  const double xs[] = {-big, big, -big, big};
  const double ys[] = {0.0, 0.0, 1.0, 1.0};
  for (int64_t i = 0; i < 4; ++i) {
    x.Set(i, xs[i]);
    y.Set(i, ys[i]);
    pw.Set(i, 3.0);
  }
  dout.Set(0, 1.0);
  EXPECT_EQ(RunAndCheck(dout, x, y, nullptr, nullptr, 0, "huge logits"), (std::vector<double>{0.0, 1.0, -1.0, 0.0}));
  EXPECT_EQ(RunAndCheck(dout, x, y, nullptr, &pw, 0, "huge logits, pos_weight 3"),
            (std::vector<double>{0.0, 1.0, -3.0, 0.0}));
}

TEST_P(DiffTorchScenario, PosWeightBroadcastingBeyondSelfIsRejected) {
  // PyTorch broadcasts pos_weight (3,) with target (3, 1) to a (3, 3) loss; the operator's
  // contract (docs/contract.md §3 step 5) is that the broadcast result must be self's shape, so this is 161002.
  const aclDataType t = GetParam();
  TestTensor x({3, 1}, t), y({3, 1}, t), pw({3}, t), dout({}, t), out({3, 1}, t);
  const auto before = out.StorageBytes();
  EXPECT_EQ(RunOp(dout.get(), x.get(), y.get(), nullptr, pw.get(), 2, out.get()), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("posWeightOptional"), std::string::npos) << aclGetRecentErrMsg();
  EXPECT_EQ(out.StorageBytes(), before);
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, DiffTorchScenario, ::testing::ValuesIn(kFloatTypes),
                         [](const ::testing::TestParamInfo<aclDataType>& param_info) {
                           return std::string(DTypeShortName(param_info.param));
                         });

}  // namespace
