#include "stress_problems.h"

#include <gtest/gtest.h>

#include <random>

#include "dims.h"

namespace bce_stress {

using acl_test::ContiguousStrides;
using acl_test::Numel;
using bce_test::TestTensor;

namespace {

/// Strides of a view whose dims are laid out in memory in the reverse order (a transpose), each
/// padded by @p pad elements, starting at @p offset; returns the storage size needed.
int64_t ReversedPaddedStrides(const std::vector<int64_t>& dims, int64_t pad, int64_t offset,
                              std::vector<int64_t>* strides) {
  strides->assign(dims.size(), 0);
  int64_t s = 1;
  for (size_t k = 0; k < dims.size(); ++k) {  // innermost in memory: dim 0
    (*strides)[k] = s;
    s *= std::max<int64_t>(dims[k], 1) + pad;
  }
  return offset + s;
}

struct OperandSpec {
  std::vector<int64_t> dims;
  aclDataType dtype;
  double lo, hi;
};

std::unique_ptr<TestTensor> MakeInput(std::mt19937_64& rng, const OperandSpec& spec) {
  auto t = std::make_unique<TestTensor>(spec.dims, spec.dtype);
  if (t->numel() > 0) t->FillUniform(rng, spec.lo, spec.hi);
  t->get();
  return t;
}

struct ProblemSpec {
  const char* name;
  std::vector<int64_t> dims;
  aclDataType dout, self, target;
  std::vector<int64_t> dout_dims;
  int weight;  // 0 none, 1 full shape, 2 last dim
  aclDataType weight_dtype;
  int pos_weight;  // 0 none, 1 0-dim scalar, 2 [rows, 1]
  aclDataType pos_weight_dtype;
  int64_t reduction;
  bool out_transposed;
};

std::unique_ptr<StressProblem> Build(std::mt19937_64& rng, const ProblemSpec& spec) {
  auto p = std::make_unique<StressProblem>();
  p->name = spec.name;
  p->dims = spec.dims;
  p->reduction = spec.reduction;
  p->out_dtype = spec.target;
  p->self = MakeInput(rng, {spec.dims, spec.self, -6.0, 6.0});
  p->target = MakeInput(rng, {spec.dims, spec.target, 0.0, 1.0});
  p->dout = MakeInput(rng, {spec.dout_dims, spec.dout, -2.0, 2.0});
  if (spec.weight == 1) p->weight = MakeInput(rng, {spec.dims, spec.weight_dtype, 0.0, 3.0});
  if (spec.weight == 2) {
    p->weight = MakeInput(rng, {{spec.dims.empty() ? 1 : spec.dims.back()}, spec.weight_dtype, 0.0, 3.0});
  }
  if (spec.pos_weight == 1) p->pos_weight = MakeInput(rng, {{}, spec.pos_weight_dtype, 0.5, 4.0});
  if (spec.pos_weight == 2) {
    std::vector<int64_t> rows(spec.dims.size(), 1);
    if (!rows.empty()) rows[0] = spec.dims[0];
    p->pos_weight = MakeInput(rng, {rows, spec.pos_weight_dtype, 0.5, 4.0});
  }
  if (spec.out_transposed) {
    p->out_offset = 3;
    p->out_storage_elems = ReversedPaddedStrides(spec.dims, 1, p->out_offset, &p->out_strides);
  } else {
    p->out_strides = ContiguousStrides(spec.dims);
    p->out_storage_elems = std::max<int64_t>(Numel(spec.dims), 1);
  }
  return p;
}

}  // namespace

std::unique_ptr<TestTensor> StressProblem::MakeOut() const {
  auto out = std::make_unique<TestTensor>(dims, out_strides, out_offset, out_storage_elems, out_dtype);
  out->get();
  return out;
}

aclnnStatus FirstPhase(const StressProblem& p, aclTensor* out, uint64_t* workspace_size, aclOpExecutor** executor) {
  return aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
      p.dout->get(), p.self->get(), p.target->get(), p.weight ? p.weight->get() : nullptr,
      p.pos_weight ? p.pos_weight->get() : nullptr, p.reduction, out, workspace_size, executor);
}

Planned Plan(const StressProblem& p) {
  Planned planned;
  planned.out = p.MakeOut();
  EXPECT_EQ(FirstPhase(p, planned.out->get(), &planned.workspace_size, &planned.executor), ACLNN_SUCCESS)
      << p.name << ": " << aclGetRecentErrMsg();
  return planned;
}

aclnnStatus Enqueue(const StressProblem& p, aclTensor* out, aclrtStream stream, aclnn_cpu::DeviceMemory& workspace) {
  return aclnn_cpu::CallTwoPhase(
             [&](uint64_t* workspace_size, aclOpExecutor** executor) {
               return FirstPhase(p, out, workspace_size, executor);
             },
             aclnnBinaryCrossEntropyWithLogitsBackward, stream, workspace, aclnn_cpu::Synchronize::kNo)
      .status;
}

std::vector<std::unique_ptr<StressProblem>> MakeStressProblems() {
  constexpr aclDataType F32 = ACL_FLOAT, F16 = ACL_FLOAT16, BF16 = ACL_BF16, F64 = ACL_DOUBLE;
  // Sizes: the large ones move several MiB, enough for several worker blocks and for the
  // stream's queue (not the caller) to run them.
  const ProblemSpec specs[] = {
      {"fp32 [256,1000] weight[C] pos_weight[R,1] mean", {256, 1000}, F32, F32, F32, {}, 2, F32, 2, F32, 1, false},
      {"fp16 [3,5,7] sum", {3, 5, 7}, F16, F16, F16, {3, 5, 7}, 0, F16, 0, F16, 2, false},
      {"bf16/fp32/fp16 [40,33,9] transposed out", {40, 33, 9}, F16, BF16, F32, {}, 1, BF16, 1, F16, 0, true},
      {"fp64 [300000] pos_weight scalar", {300000}, F64, F64, F64, {}, 0, F64, 1, F64, 0, false},
      {"mixed [2,3,4,5,6,7] weight full", {2, 3, 4, 5, 6, 7}, BF16, F16, F16, {1, 1, 1, 1, 6, 1}, 1, F32, 2, BF16, 2,
       false},
      {"bf16 [512,700] transposed out", {512, 700}, BF16, BF16, BF16, {512, 700}, 2, BF16, 2, BF16, 0, true},
      {"fp16 [1024,1024] pos_weight[R,1]", {1024, 1024}, F16, F16, F16, {}, 0, F16, 2, F16, 1, false},
      {"fp32 0-dim", {}, F32, F32, F32, {}, 1, F32, 1, F32, 1, false},
      {"fp32 empty [0,5]", {0, 5}, F32, F32, F32, {}, 0, F32, 0, F32, 1, false},
      {"fp64/fp32 [4097] weight[C]", {4097}, F32, F64, F32, {1}, 2, F16, 0, F32, 2, false},
  };
  std::mt19937_64 rng(20240611);
  std::vector<std::unique_ptr<StressProblem>> problems;
  for (const auto& spec : specs) problems.push_back(Build(rng, spec));
  for (auto& p : problems) {
    auto out = p->MakeOut();
    aclnn_cpu::DeviceMemory workspace;
    EXPECT_EQ(Enqueue(*p, out->get(), nullptr, workspace), ACLNN_SUCCESS) << p->name << ": " << aclGetRecentErrMsg();
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    // The golden run itself is checked against the float64 reference.
    const bce_test::Problem check{p->dout.get(), p->self.get(), p->target.get(), p->weight.get(),
                                  p->pos_weight.get(), p->reduction, out.get()};
    EXPECT_EQ(bce_test::CheckAgainstReference(check).mismatches, 0) << p->name;
    p->golden = out->StorageBytes();
  }
  return problems;
}

namespace {
std::vector<std::unique_ptr<StressProblem>>* g_suite_problems = nullptr;
}  // namespace

void StressProblemsTest::SetUpTestSuite() { g_suite_problems = new auto(MakeStressProblems()); }

void StressProblemsTest::TearDownTestSuite() {
  delete g_suite_problems;
  g_suite_problems = nullptr;
}

const std::vector<std::unique_ptr<StressProblem>>& StressProblemsTest::problems() { return *g_suite_problems; }

}  // namespace bce_stress
