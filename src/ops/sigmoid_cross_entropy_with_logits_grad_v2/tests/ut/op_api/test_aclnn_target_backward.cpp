// aclnnBinaryCrossEntropyWithLogitsTargetBackward end to end through the C API: the backward's
// checks in its order with gradTarget named, every element against the long double reference
// for every dtype, broadcast and reduction, pos_weight = 1 bitwise the same as no pos_weight, the
// limits at infinity, a target that is never read, empty inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "aclnnop/aclnn_binary_cross_entropy_with_logits_target_backward.h"
#include "common/dtype.h"
#include "aclnn_call.h"
#include "dims.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_reference.h"
#include "test_tensor.h"

namespace aclnn_cpu::bce_grad {
namespace {

using acl_test::BroadcastGet;
using acl_test::FillRandom;
using acl_test::FirstDifference;
using acl_test::PrimeRecentErrMsg;
using acl_test::TestTensor;

constexpr const char* kFirstPhase = "aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize";

struct Call {
  TestTensor* dout;
  TestTensor* self;
  TestTensor* target;
  TestTensor* weight = nullptr;
  TestTensor* pos_weight = nullptr;
  int64_t reduction = 0;
  TestTensor* out;
};

/// The call of @p c through the shared harness (tests/support/aclnn_call.h).
acl_test::AclnnCall TargetBackwardCall(const Call& c) {
  return acl_test::AclnnCall(aclnn_cpu::apis::ApiId::kBinaryCrossEntropyWithLogitsTargetBackward)
      .With({{"grad_output", c.dout}, {"self", c.self}, {"target", c.target}, {"weight", c.weight},
             {"pos_weight", c.pos_weight}, {"out", c.out}})
      .Reduction(c.reduction);
}

aclnnStatus FirstPhase(const Call& c, uint64_t* ws, aclOpExecutor** e) {
  return TargetBackwardCall(c).FirstPhase(ws, e);
}

aclnnStatus RunTargetBackward(const Call& c) { return TargetBackwardCall(c).Run().status; }

void ExpectRejected(const Call& c, aclnnStatus code, const std::string& what) {
  PrimeRecentErrMsg();
  const auto before = c.out->StorageBytes();
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  EXPECT_EQ(FirstPhase(c, &ws, &e), code);
  EXPECT_EQ(e, nullptr);
  const std::string message = aclGetRecentErrMsg();
  EXPECT_NE(message.find(what), std::string::npos) << "message does not name '" << what << "': " << message;
  EXPECT_NE(message.find(kFirstPhase), std::string::npos) << message;
  EXPECT_EQ(FirstDifference(before, c.out->StorageBytes()), -1);
}

aclDataType ComputeDType(const Call& c) {
  for (const TestTensor* t : {c.dout, c.self, c.target, c.weight, c.pos_weight}) {
    if (t != nullptr && t->dtype() == ACL_DOUBLE) return ACL_DOUBLE;
  }
  return ACL_FLOAT;
}

/// Every element of gradTarget against the reference and its bound; the number of mismatches.
int64_t CheckEveryElement(const Call& c) {
  const auto& dims = c.self->dims();
  const double scale = c.reduction == 1 ? 1.0 / static_cast<double>(c.self->numel()) : 1.0;
  const aclDataType compute = ComputeDType(c);
  int64_t bad = 0;
  for (int64_t i = 0; i < c.self->numel(); ++i) {
    const TargetReferenceTerms t = ComputeTargetReferenceTerms(
        c.self->Get(i), BroadcastGet(*c.dout, dims, i),
        c.weight ? std::optional<double>(BroadcastGet(*c.weight, dims, i)) : std::nullopt,
        c.pos_weight ? std::optional<double>(BroadcastGet(*c.pos_weight, dims, i)) : std::nullopt, scale);
    const double got = c.out->Get(i);
    const double bound = TargetErrorBound(t, compute, c.out->dtype());
    const bool ok = (std::isnan(t.g) && std::isnan(got)) || std::fabs(got - t.g) <= bound ||
                    (std::isinf(t.g) && got == t.g);
    if (!ok && bad++ < 8) {
      ADD_FAILURE() << "element " << i << ": got " << got << ", reference " << t.g << " (x=" << c.self->Get(i)
                    << "), bound " << bound;
    }
  }
  return bad;
}

class TargetBackwardChecks : public ::testing::Test {
 protected:
  TestTensor dout_{{}, ACL_FLOAT}, x_{{4, 5}, ACL_FLOAT}, y_{{4, 5}, ACL_FLOAT}, out_{{4, 5}, ACL_FLOAT};
};

TEST_F(TargetBackwardChecks, NullPointersAreNullptrErrorsNamingGradTarget) {
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  PrimeRecentErrMsg();
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize(dout_.get(), x_.get(), y_.get(), nullptr,
                                                                            nullptr, 0, nullptr, &ws, &e),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("gradTarget must not be null"), std::string::npos)
      << aclGetRecentErrMsg();
  for (const char* name : {"gradOutput", "self", "target"}) {
    const bool d = std::string(name) == "gradOutput", s = std::string(name) == "self";
    PrimeRecentErrMsg();
    EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize(
                  d ? nullptr : dout_.get(), s ? nullptr : x_.get(), !d && !s ? nullptr : y_.get(), nullptr, nullptr,
                  0, out_.get(), &ws, &e),
              ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find(std::string(name) + " must not be null"), std::string::npos)
        << aclGetRecentErrMsg();
  }
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize(dout_.get(), x_.get(), y_.get(), nullptr,
                                                                            nullptr, 0, out_.get(), nullptr, &e),
            ACLNN_ERR_PARAM_NULLPTR);
}

TEST_F(TargetBackwardChecks, TheBackwardsRulesInItsOrderWithGradTargetNamed) {
  TestTensor half_out({4, 5}, ACL_FLOAT16), nine({1, 1, 1, 1, 1, 1, 1, 1, 20}, ACL_FLOAT), other({5, 4}, ACL_FLOAT);
  TestTensor bad_w({3}, ACL_FLOAT), bad_dout({2}, ACL_FLOAT), int_self({4, 5}, ACL_INT32);
  // dims before dtypes (the backward's order), dtypes before shapes, shapes before reduction
  ExpectRejected({&dout_, &nine, &y_, nullptr, nullptr, 0, &half_out}, ACLNN_ERR_PARAM_INVALID, "self");
  ExpectRejected({&dout_, &int_self, &y_, nullptr, nullptr, 0, &out_}, ACLNN_ERR_PARAM_INVALID, "self");
  ExpectRejected({&dout_, &x_, &y_, nullptr, nullptr, 0, &half_out}, ACLNN_ERR_PARAM_INVALID, "gradTarget");
  ExpectRejected({&dout_, &x_, &y_, nullptr, nullptr, 0, &other}, ACLNN_ERR_PARAM_INVALID, "gradTarget");
  ExpectRejected({&dout_, &x_, &other, nullptr, nullptr, 9, &out_}, ACLNN_ERR_PARAM_INVALID, "target");
  ExpectRejected({&bad_dout, &x_, &y_, nullptr, nullptr, 0, &out_}, ACLNN_ERR_PARAM_INVALID, "gradOutput");
  ExpectRejected({&dout_, &x_, &y_, &bad_w, nullptr, 0, &out_}, ACLNN_ERR_PARAM_INVALID, "weightOptional");
  ExpectRejected({&dout_, &x_, &y_, nullptr, &bad_w, 0, &out_}, ACLNN_ERR_PARAM_INVALID, "posWeightOptional");
  ExpectRejected({&dout_, &x_, &y_, nullptr, nullptr, 3, &out_}, ACLNN_ERR_PARAM_INVALID, "reduction 3");
  // A gradTarget that partly overlaps self.
  TestTensor storage({21}, ACL_FLOAT);
  const int64_t dims[2] = {4, 5}, strides[2] = {5, 1}, storage_dims[1] = {21};
  acl_test::TensorHandle self(aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storage_dims, 1, storage.data()));
  acl_test::TensorHandle out(aclCreateTensor(dims, 2, ACL_FLOAT, strides, 1, ACL_FORMAT_ND, storage_dims, 1, storage.data()));
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  PrimeRecentErrMsg();
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize(dout_.get(), self.get(), y_.get(), nullptr,
                                                                            nullptr, 0, out.get(), &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("gradTarget overlaps self"), std::string::npos)
      << aclGetRecentErrMsg();
}

struct Case {
  std::vector<int64_t> dims;
  std::vector<int64_t> dout_dims;
  std::optional<std::vector<int64_t>> weight_dims;
  std::optional<std::vector<int64_t>> pos_weight_dims;
  int64_t reduction;
};

TEST(TargetBackward, EveryElementMatchesTheReferenceForEveryDTypeBroadcastAndReduction) {
  const Case cases[] = {{{37}, {}, std::nullopt, std::nullopt, 0},
                        {{5, 7, 9}, {5, 7, 9}, std::vector<int64_t>{9}, std::vector<int64_t>{7, 1}, 0},
                        {{3, 1025}, {}, std::vector<int64_t>{3, 1025}, std::vector<int64_t>{1025}, 1},
                        {{2, 3, 4}, {3, 1}, std::vector<int64_t>{}, std::nullopt, 2},
                        {{4096 + 17}, {1}, std::nullopt, std::vector<int64_t>{1}, 1}};
  for (const aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(::testing::Message() << DTypeName(dtype) << " numel " << acl_test::Numel(c.dims) << " reduction "
                                        << c.reduction);
      TestTensor dout(c.dout_dims, dtype), x(c.dims, dtype), y(c.dims, dtype), out(c.dims, dtype);
      std::optional<TestTensor> w, pw;
      if (c.weight_dims) w.emplace(*c.weight_dims, dtype);
      if (c.pos_weight_dims) pw.emplace(*c.pos_weight_dims, dtype);
      FillRandom(dout, 1, -2, 2);
      FillRandom(x, 2, -12, 12);
      FillRandom(y, 3, 0, 1);
      if (w) FillRandom(*w, 4, 0, 2);
      if (pw) FillRandom(*pw, 5, 0, 3);
      out.Poison();
      const Call call{&dout, &x, &y, w ? &*w : nullptr, pw ? &*pw : nullptr, c.reduction, &out};
      ASSERT_EQ(RunTargetBackward(call), ACLNN_SUCCESS) << aclGetRecentErrMsg();
      EXPECT_EQ(CheckEveryElement(call), 0);
    }
  }
}

TEST(TargetBackward, PosWeightOneGivesBitwiseTheGradientWithoutPosWeight) {
  TestTensor dout({}, ACL_FLOAT), x({3001}, ACL_FLOAT), y({3001}, ACL_FLOAT), one({1}, ACL_FLOAT);
  TestTensor with({3001}, ACL_FLOAT), without({3001}, ACL_FLOAT);
  dout.Set(0, 0.75);
  FillRandom(x, 6, -40, 40);
  FillRandom(y, 7, 0, 1);
  one.Set(0, 1.0);
  ASSERT_EQ(RunTargetBackward({&dout, &x, &y, nullptr, &one, 1, &with}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(RunTargetBackward({&dout, &x, &y, nullptr, nullptr, 1, &without}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(FirstDifference(with.StorageBytes(), without.StorageBytes()), -1);
  // and that is -x * dout / N
  for (int64_t i = 0; i < x.numel(); i += 97) {
    EXPECT_EQ(without.Get(i), static_cast<double>(static_cast<float>(-x.Get(i) * 0.75f) * static_cast<float>(1.0 / 3001)));
  }
}

TEST(TargetBackward, SmallLogitsDoNotCancelAndTheLimitsHoldAtInfinity) {
  const double inf = std::numeric_limits<double>::infinity();
  // x near 0 with pw near 1: the two softplus are both near log 2 and the naive difference loses
  // the digits of the small result; pw = 0 with x = -inf is 0 (the limit), not NaN.
  const double xs[] = {1e-6, -1e-6, 3e-4, inf, -inf, -inf, NAN, -50};
  const double pws[] = {1.001, 0.999, 1.0, 2.0, 2.0, 0.0, 1.5, 0.5};
  const int n = 8;
  TestTensor dout({}, ACL_FLOAT), x({n}, ACL_FLOAT), y({n}, ACL_FLOAT), pw({n}, ACL_FLOAT), out({n}, ACL_FLOAT);
  dout.Set(0, 1.0);
  for (int i = 0; i < n; ++i) {
    x.Set(i, xs[i]);
    y.Set(i, 0.5);
    pw.Set(i, pws[i]);
  }
  const Call call{&dout, &x, &y, nullptr, &pw, 0, &out};
  ASSERT_EQ(RunTargetBackward(call), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(CheckEveryElement(call), 0);
  for (int i = 0; i < 3; ++i) {  // within a few ulp of fp32, relative to the result itself
    const TargetReferenceTerms t = ComputeTargetReferenceTerms(x.Get(i), 1.0, std::nullopt, pw.Get(i), 1.0);
    EXPECT_NEAR(out.Get(i), t.g, 4 * 6e-8 * std::fabs(t.g)) << i;
  }
  EXPECT_EQ(out.Get(3), -inf);
  EXPECT_EQ(out.Get(4), inf);
  EXPECT_EQ(out.Get(5), 0.0);
  EXPECT_TRUE(std::isnan(out.Get(6)));
}

TEST(TargetBackward, TheTargetIsNeverRead) {
  // A target of NaN gives the same bits as any other: the gradient does not depend on it.
  TestTensor dout({}, ACL_FLOAT), x({2000}, ACL_FLOAT), y({2000}, ACL_FLOAT), nan_y({2000}, ACL_FLOAT);
  TestTensor pw({2000}, ACL_FLOAT), a({2000}, ACL_FLOAT), b({2000}, ACL_FLOAT);
  dout.Set(0, 1.0);
  FillRandom(x, 8, -9, 9);
  FillRandom(y, 9, 0, 1);
  FillRandom(pw, 10, 0, 4);
  for (int64_t i = 0; i < nan_y.numel(); ++i) nan_y.Set(i, NAN);
  ASSERT_EQ(RunTargetBackward({&dout, &x, &y, nullptr, &pw, 0, &a}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(RunTargetBackward({&dout, &x, &nan_y, nullptr, &pw, 0, &b}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(FirstDifference(a.StorageBytes(), b.StorageBytes()), -1);
}

TEST(TargetBackward, AnEmptySelfNeedsNoWorkspaceAndWritesNothing) {
  TestTensor dout({}, ACL_FLOAT), x({0, 4}, ACL_FLOAT), y({0, 4}, ACL_FLOAT), out({0, 4}, ACL_FLOAT);
  uint64_t ws = 1;
  aclOpExecutor* e = nullptr;
  ASSERT_EQ(FirstPhase({&dout, &x, &y, nullptr, nullptr, 1, &out}, &ws, &e), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(ws, 0u);
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsTargetBackward(nullptr, 0, e, nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
}

}  // namespace
}  // namespace aclnn_cpu::bce_grad
