// aclnnBinaryCrossEntropyWithLogitsFused end to end through the C API: its checks in order with
// their messages, and its two results bitwise those of the forward and of the backward with the
// same scalar gradOutput, for every dtype, reduction, broadcast and layout (streamed stores
// included), for any thread count; nothing outside the outputs' views written.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aclnn/aclnn_cpu.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_fused.h"
#include "common/dtype.h"
#include "aclnn_call.h"
#include "opdev/plan_cache.h"
#include "test_tensor.h"

namespace aclnn_cpu::bce_loss {
namespace {

using acl_test::FillRandom;
using acl_test::FirstDifference;
using acl_test::PrimeRecentErrMsg;
using acl_test::TestTensor;

constexpr const char* kFirstPhase = "aclnnBinaryCrossEntropyWithLogitsFusedGetWorkspaceSize";

struct FusedCall {
  TestTensor* self;
  TestTensor* target;
  TestTensor* weight = nullptr;
  TestTensor* pos_weight = nullptr;
  TestTensor* dout = nullptr;  ///< null: 1
  int64_t reduction = 1;
  TestTensor* out;
  TestTensor* grad;
};

/// @p api's call over the inputs and reduction of @p c (tests/support/aclnn_call.h): the
/// fused call, or the forward and the backward it stands for.
acl_test::AclnnCall CallOf(apis::ApiId api, const FusedCall& c) {
  return acl_test::AclnnCall(api)
      .With({{"self", c.self}, {"target", c.target}, {"weight", c.weight}, {"pos_weight", c.pos_weight}})
      .Reduction(c.reduction);
}

acl_test::AclnnCall FusedCallOf(const FusedCall& c) {
  return CallOf(apis::ApiId::kBinaryCrossEntropyWithLogitsFused, c)
      .With({{"grad_output", c.dout}, {"out", c.out}, {"grad_input", c.grad}});
}

aclnnStatus FirstPhase(const FusedCall& c, uint64_t* ws, aclOpExecutor** e) {
  return FusedCallOf(c).FirstPhase(ws, e);
}

aclnnStatus RunFused(const FusedCall& c) { return FusedCallOf(c).Run().status; }

aclnnStatus RunForward(const FusedCall& c, TestTensor& out) {
  return CallOf(apis::ApiId::kBinaryCrossEntropyWithLogits, c).With("out", out).Run().status;
}

aclnnStatus RunBackward(const FusedCall& c, const TestTensor& dout, TestTensor& grad) {
  return CallOf(apis::ApiId::kBinaryCrossEntropyWithLogitsBackward, c)
      .With("grad_output", dout)
      .With("out", grad)
      .Run()
      .status;
}

void ExpectRejected(const FusedCall& c, aclnnStatus code, const std::string& what) {
  PrimeRecentErrMsg();
  const auto out_before = c.out->StorageBytes(), grad_before = c.grad->StorageBytes();
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  EXPECT_EQ(FirstPhase(c, &ws, &e), code);
  EXPECT_EQ(e, nullptr);
  const std::string message = aclGetRecentErrMsg();
  EXPECT_NE(message.find(what), std::string::npos) << "message does not name '" << what << "': " << message;
  EXPECT_NE(message.find(kFirstPhase), std::string::npos) << message;
  EXPECT_EQ(FirstDifference(out_before, c.out->StorageBytes()), -1);
  EXPECT_EQ(FirstDifference(grad_before, c.grad->StorageBytes()), -1);
}

/// Runs the fused call and the forward and backward it stands for; expects the same bits in
/// both outputs, inside and outside their views (all start poisoned).
void ExpectSameAsForwardAndBackward(const FusedCall& c) {
  const aclDataType dtype = c.target->dtype();
  TestTensor one({}, dtype);
  one.Set(0, 1.0);
  const TestTensor& dout = c.dout != nullptr ? *c.dout : one;
  TestTensor forward_out(c.out->dims(), dtype), backward_grad(c.grad->dims(), dtype);
  forward_out.Poison();
  backward_grad.Poison();
  c.out->Poison();
  c.grad->Poison();
  ASSERT_EQ(RunForward(c, forward_out), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(RunBackward(c, dout, backward_grad), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(RunFused(c), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  if (c.out->storage_elems() == forward_out.storage_elems()) {
    EXPECT_EQ(FirstDifference(c.out->StorageBytes(), forward_out.StorageBytes()), -1) << "loss";
  }
  int64_t bad = 0;
  for (int64_t i = 0; i < forward_out.numel(); ++i) {
    const double a = forward_out.Get(i), b = c.out->Get(i);
    if ((std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b))) continue;
    if (bad++ < 5) ADD_FAILURE() << "loss element " << i << ": fused " << b << ", forward " << a;
  }
  for (int64_t i = 0; i < backward_grad.numel(); ++i) {
    const double a = backward_grad.Get(i), b = c.grad->Get(i);
    if ((std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b))) continue;
    if (bad++ < 5) ADD_FAILURE() << "gradient element " << i << ": fused " << b << ", backward " << a;
  }
}

class FusedChecks : public ::testing::Test {
 protected:
  TestTensor x_{{4, 5}, ACL_FLOAT}, y_{{4, 5}, ACL_FLOAT}, out_{{}, ACL_FLOAT}, grad_{{4, 5}, ACL_FLOAT};
  TestTensor dout_{{}, ACL_FLOAT};
};

TEST_F(FusedChecks, NullRequiredPointersAreNullptrErrorsNamingTheParameter) {
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  const struct {
    const aclTensor* self;
    const aclTensor* target;
    aclTensor* out;
    aclTensor* grad;
    const char* name;
  } cases[] = {{nullptr, y_.get(), out_.get(), grad_.get(), "self"},
               {x_.get(), nullptr, out_.get(), grad_.get(), "target"},
               {x_.get(), y_.get(), nullptr, grad_.get(), "out"},
               {x_.get(), y_.get(), out_.get(), nullptr, "gradInput"}};
  for (const auto& c : cases) {
    PrimeRecentErrMsg();
    EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsFusedGetWorkspaceSize(c.self, c.target, nullptr, nullptr, nullptr, 1,
                                                                     c.out, c.grad, &ws, &e),
              ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find(std::string(c.name) + " must not be null"), std::string::npos)
        << aclGetRecentErrMsg();
  }
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsFusedGetWorkspaceSize(x_.get(), y_.get(), nullptr, nullptr, nullptr, 1,
                                                                   out_.get(), grad_.get(), nullptr, &e),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsFusedGetWorkspaceSize(x_.get(), y_.get(), nullptr, nullptr, nullptr, 1,
                                                                   out_.get(), grad_.get(), &ws, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
}

TEST_F(FusedChecks, DTypesReductionDimsShapesInOrder) {
  TestTensor half_grad({4, 5}, ACL_FLOAT16), int_dout({}, ACL_INT32), nine({1, 1, 1, 1, 1, 1, 1, 1, 20}, ACL_FLOAT);
  TestTensor small_grad({4, 4}, ACL_FLOAT), two({2}, ACL_FLOAT), row({5}, ACL_FLOAT), none_out({4, 5}, ACL_FLOAT);
  ExpectRejected({&x_, &y_, nullptr, nullptr, &int_dout, 7, &out_, &grad_}, ACLNN_ERR_PARAM_INVALID,
                 "gradOutputOptional");  // dtypes before reduction
  ExpectRejected({&x_, &y_, nullptr, nullptr, nullptr, 1, &out_, &half_grad}, ACLNN_ERR_PARAM_INVALID, "gradInput");
  ExpectRejected({&nine, &y_, nullptr, nullptr, nullptr, 5, &out_, &grad_}, ACLNN_ERR_PARAM_INVALID, "reduction 5");
  ExpectRejected({&nine, &y_, nullptr, nullptr, nullptr, 1, &out_, &grad_}, ACLNN_ERR_PARAM_INVALID, "self");
  ExpectRejected({&x_, &y_, nullptr, nullptr, nullptr, 1, &out_, &small_grad}, ACLNN_ERR_PARAM_INVALID, "gradInput");
  ExpectRejected({&x_, &y_, nullptr, nullptr, &two, 1, &out_, &grad_}, ACLNN_ERR_PARAM_INVALID, "gradOutputOptional");
  // One element that broadcasts is fine; a [5] gradOutput broadcasts but holds five.
  ExpectRejected({&x_, &y_, nullptr, nullptr, &row, 1, &out_, &grad_}, ACLNN_ERR_PARAM_INVALID,
                 "must hold exactly one element");
  ExpectRejected({&x_, &y_, nullptr, nullptr, nullptr, 1, &none_out, &grad_}, ACLNN_ERR_PARAM_INVALID,
                 "must be [] or [1] for reduction mean");
  ExpectRejected({&x_, &y_, nullptr, nullptr, nullptr, 0, &out_, &grad_}, ACLNN_ERR_PARAM_INVALID, "out");
}

TEST_F(FusedChecks, TheOutputsMustNotOverlapEachOtherOrPartlyAnInput) {
  FillRandom(x_, 1, -3, 3);
  FillRandom(y_, 2, 0, 1);
  // out (mean) is gradInput's first element.
  const int64_t one[1] = {1}, storage[2] = {4, 5};
  acl_test::TensorHandle in_grad(aclCreateTensor(one, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 2, grad_.data()));
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  PrimeRecentErrMsg();
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsFusedGetWorkspaceSize(x_.get(), y_.get(), nullptr, nullptr, nullptr, 1,
                                                                   in_grad.get(), grad_.get(), &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("out and gradInput share memory"), std::string::npos)
      << aclGetRecentErrMsg();
  // reduction none: out the very same view as gradInput.
  PrimeRecentErrMsg();
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsFusedGetWorkspaceSize(x_.get(), y_.get(), nullptr, nullptr, nullptr, 0,
                                                                   grad_.get(), grad_.get(), &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("share memory"), std::string::npos) << aclGetRecentErrMsg();
  // gradInput one element past self in one storage.
  TestTensor both({21}, ACL_FLOAT);
  const int64_t dims[2] = {4, 5}, strides[2] = {5, 1}, storage_dims[1] = {21};
  acl_test::TensorHandle self(aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storage_dims, 1, both.data()));
  acl_test::TensorHandle grad(aclCreateTensor(dims, 2, ACL_FLOAT, strides, 1, ACL_FORMAT_ND, storage_dims, 1, both.data()));
  PrimeRecentErrMsg();
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsFusedGetWorkspaceSize(self.get(), y_.get(), nullptr, nullptr, nullptr, 1,
                                                                   out_.get(), grad.get(), &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("gradInput overlaps self"), std::string::npos)
      << aclGetRecentErrMsg();
}

// ---------------------------------------------------------------------------------------------
// The results: bitwise the forward's and the backward's.

struct Shapes {
  std::vector<int64_t> dims;
  std::optional<std::vector<int64_t>> weight;
  std::optional<std::vector<int64_t>> pos_weight;
};

TEST(Fused, BothResultsAreBitwiseThoseOfTheForwardAndTheBackward) {
  const Shapes shapes[] = {{{37}, std::nullopt, std::nullopt},
                           {{5, 7, 9}, std::vector<int64_t>{9}, std::vector<int64_t>{7, 1}},
                           {{3, 1025}, std::vector<int64_t>{3, 1025}, std::vector<int64_t>{1025}},
                           {{4096 + 17}, std::nullopt, std::vector<int64_t>{1}},
                           {{70001}, std::vector<int64_t>{70001}, std::vector<int64_t>{70001}}};
  for (const aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
    for (const Shapes& s : shapes) {
      for (const int64_t reduction : {0, 1, 2}) {
        for (const bool has_dout : {false, true}) {
          SCOPED_TRACE(::testing::Message() << DTypeName(dtype) << " numel " << s.dims.back() << " reduction "
                                            << reduction << (has_dout ? " dout 0.625" : " no dout"));
          TestTensor x(s.dims, dtype), y(s.dims, dtype), grad(s.dims, dtype), dout({}, dtype);
          TestTensor out(reduction == 0 ? s.dims : std::vector<int64_t>{}, dtype);
          std::optional<TestTensor> w, pw;
          if (s.weight) w.emplace(*s.weight, dtype);
          if (s.pos_weight) pw.emplace(*s.pos_weight, dtype);
          FillRandom(x, 20, -15, 15);
          FillRandom(y, 21, 0, 1);
          if (w) FillRandom(*w, 22, 0, 2);
          if (pw) FillRandom(*pw, 23, 0, 3);
          dout.Set(0, 0.625);
          ExpectSameAsForwardAndBackward(
              {&x, &y, w ? &*w : nullptr, pw ? &*pw : nullptr, has_dout ? &dout : nullptr, reduction, &out, &grad});
          if (::testing::Test::HasFailure()) return;
        }
      }
    }
  }
}

TEST(Fused, StridedAndMixedDTypeOperandsAndLargeStreamedOutputsToo) {
  // self transposed, gradInput a window of a bigger storage, a float gradOutput over bf16 data.
  {
    TestTensor x({6, 9}, {1, 6}, 0, 54, ACL_FLOAT), y({6, 9}, ACL_FLOAT), out({6, 9}, {11, 1}, 3, 80, ACL_FLOAT);
    TestTensor grad({6, 9}, {12, 1}, 5, 80, ACL_FLOAT), pw({9}, ACL_FLOAT);
    FillRandom(x, 30, -6, 6);
    FillRandom(y, 31, 0, 1);
    FillRandom(pw, 32, 0, 3);
    ExpectSameAsForwardAndBackward({&x, &y, nullptr, &pw, nullptr, 0, &out, &grad});
  }
  {
    TestTensor x({300, 40}, ACL_BF16), y({300, 40}, ACL_BF16), grad({300, 40}, ACL_BF16), out({1}, ACL_BF16);
    TestTensor dout({}, ACL_FLOAT);
    FillRandom(x, 33, -6, 6);
    FillRandom(y, 34, 0, 1);
    dout.Set(0, 1.0 / 3);  // not a bf16 value: the kernel runs in fp32 with it, as the backward does
    ExpectSameAsForwardAndBackward({&x, &y, nullptr, nullptr, &dout, 2, &out, &grad});
  }
  {
    // 2 Mi + 33 elements with a weight: 40 MiB moved, past the tests' pinned 32 MiB last-level
    // cache, so both outputs take the non-temporal stores.
    const int64_t n = (int64_t{1} << 21) + 33;
    TestTensor x({n}, ACL_FLOAT), y({n}, ACL_FLOAT), w({n}, ACL_FLOAT), grad({n}, ACL_FLOAT), out({n}, ACL_FLOAT);
    FillRandom(x, 35, -9, 9);
    FillRandom(y, 36, 0, 1);
    FillRandom(w, 37, 0, 2);
    ExpectSameAsForwardAndBackward({&x, &y, &w, nullptr, nullptr, 0, &out, &grad});
    TestTensor mean({}, ACL_FLOAT);
    ExpectSameAsForwardAndBackward({&x, &y, &w, nullptr, nullptr, 1, &mean, &grad});
  }
}

// Note [Plan cache]: a repeated description takes the thread's plan of its own kind only, with
// the same bits; another output buffer builds its own.
TEST(Fused, ARepeatedCallTakesItsCachedPlanWithTheSameBits) {
  TestTensor x({33, 40}, ACL_FLOAT), y({33, 40}, ACL_FLOAT), pw({40}, ACL_FLOAT), grad({33, 40}, ACL_FLOAT);
  TestTensor out({}, ACL_FLOAT), other_out({}, ACL_FLOAT);
  FillRandom(x, 40, -8, 8);
  FillRandom(y, 41, 0, 1);
  FillRandom(pw, 42, 0, 3);
  const FusedCall c{&x, &y, nullptr, &pw, nullptr, 1, &out, &grad};
  ExpectSameAsForwardAndBackward(c);
  uint64_t hits = PlanCacheHitsForTesting();
  // Again: the fused call repeats its description (the forward's and the backward's outputs are new).
  ExpectSameAsForwardAndBackward(c);
  EXPECT_EQ(PlanCacheHitsForTesting(), hits + 1);
  // The forward into one output twice: its second call takes its own plan, not the fused one's.
  TestTensor forward_out({}, ACL_FLOAT);
  hits = PlanCacheHitsForTesting();
  ASSERT_EQ(RunForward(c, forward_out), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(PlanCacheHitsForTesting(), hits);
  forward_out.Poison();
  ASSERT_EQ(RunForward(c, forward_out), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(PlanCacheHitsForTesting(), hits + 1);
  EXPECT_EQ(FirstDifference(forward_out.StorageBytes(), out.StorageBytes()), -1);
  // Another output: its own plan, the same value.
  ASSERT_EQ(RunFused({&x, &y, nullptr, &pw, nullptr, 1, &other_out, &grad}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(PlanCacheHitsForTesting(), hits + 1);
  EXPECT_EQ(FirstDifference(other_out.StorageBytes(), out.StorageBytes()), -1);
}

TEST(Fused, InPlaceOnSelfAndBitwiseTheSameForAnyThreadCount) {
  const int64_t n = 200003;
  TestTensor x({n}, ACL_FLOAT), y({n}, ACL_FLOAT), pw({1}, ACL_FLOAT), grad({n}, ACL_FLOAT), out({}, ACL_FLOAT);
  FillRandom(x, 40, -20, 20);
  FillRandom(y, 41, 0, 1);
  pw.Set(0, 3.0);
  const int32_t before = aclnnCpuGetNumThreads();
  std::optional<std::vector<uint8_t>> loss_bits, grad_bits;
  for (const int32_t threads : {1, 2, 3, 8, 1}) {
    SCOPED_TRACE(::testing::Message() << "threads " << threads);
    ASSERT_EQ(aclnnCpuSetNumThreads(threads), ACL_SUCCESS);
    out.Poison();
    grad.Poison();
    ASSERT_EQ(RunFused({&x, &y, nullptr, &pw, nullptr, 1, &out, &grad}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    if (!loss_bits) {
      loss_bits = out.StorageBytes();
      grad_bits = grad.StorageBytes();
    }
    EXPECT_EQ(FirstDifference(out.StorageBytes(), *loss_bits), -1);
    EXPECT_EQ(FirstDifference(grad.StorageBytes(), *grad_bits), -1);
  }
  ASSERT_EQ(aclnnCpuSetNumThreads(before), ACL_SUCCESS);
  // In place: gradInput is self itself (each element is read before it is written).
  ASSERT_EQ(RunFused({&x, &y, nullptr, &pw, nullptr, 1, &out, &x}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(FirstDifference(x.StorageBytes(), *grad_bits), -1);
  EXPECT_EQ(FirstDifference(out.StorageBytes(), *loss_bits), -1);
}

TEST(Fused, AnEmptySelfGivesNaNForMeanAndZeroForSum) {
  TestTensor x({0, 3}, ACL_FLOAT), y({0, 3}, ACL_FLOAT), grad({0, 3}, ACL_FLOAT), out({}, ACL_FLOAT);
  ASSERT_EQ(RunFused({&x, &y, nullptr, nullptr, nullptr, 1, &out, &grad}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(std::isnan(out.Get(0)));
  ASSERT_EQ(RunFused({&x, &y, nullptr, nullptr, nullptr, 2, &out, &grad}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(out.Get(0), 0.0);
  TestTensor none_out({0, 3}, ACL_FLOAT);
  uint64_t ws = 1;
  aclOpExecutor* e = nullptr;
  ASSERT_EQ(FirstPhase({&x, &y, nullptr, nullptr, nullptr, 0, &none_out, &grad}, &ws, &e), ACLNN_SUCCESS);
  EXPECT_EQ(ws, 0u);
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsFused(nullptr, 0, e, nullptr), ACLNN_SUCCESS);
}

}  // namespace
}  // namespace aclnn_cpu::bce_loss
