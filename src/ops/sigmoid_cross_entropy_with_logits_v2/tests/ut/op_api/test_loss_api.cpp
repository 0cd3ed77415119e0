// aclnnBinaryCrossEntropyWithLogits end to end through the C API: the checks in their order and
// their messages, the loss of every element against the long double reference for every dtype,
// broadcast and layout, mean and sum against the exact sum of the losses reduction none returns,
// bitwise determinism over thread counts, empty inputs, infinite logits, writes only in out's view.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "aclnn/aclnn_cpu.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"
#include "aclnn_call.h"
#include "ops/sigmoid_cross_entropy_with_logits_v2/op_kernel/sigmoid_cross_entropy_with_logits_v2_reference.h"
#include "common/dtype.h"
#include "dims.h"
#include "test_tensor.h"

namespace aclnn_cpu::bce_loss {
namespace {

using acl_test::BroadcastGet;
using acl_test::FillRandom;
using acl_test::FirstDifference;
using acl_test::PrimeRecentErrMsg;
using acl_test::TestTensor;

constexpr const char* kFirstPhase = "aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize";

struct Call {
  TestTensor* self;
  TestTensor* target;
  TestTensor* weight = nullptr;
  TestTensor* pos_weight = nullptr;
  int64_t reduction = 0;
  TestTensor* out;
};

/// The call of @p c through the shared harness (tests/support/aclnn_call.h).
acl_test::AclnnCall LossCall(const Call& c) {
  return acl_test::AclnnCall(apis::ApiId::kBinaryCrossEntropyWithLogits)
      .With({{"self", c.self}, {"target", c.target}, {"weight", c.weight}, {"pos_weight", c.pos_weight},
             {"out", c.out}})
      .Reduction(c.reduction);
}

aclnnStatus FirstPhase(const Call& c, uint64_t* ws, aclOpExecutor** e) { return LossCall(c).FirstPhase(ws, e); }

aclnnStatus RunLoss(const Call& c) { return LossCall(c).Run().status; }

/// Expects the first phase of @p c to fail with @p code and a message containing @p what, and
/// out to stay as it was.
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

LossReferenceTerms ReferenceAt(const Call& c, int64_t i) {
  const auto& dims = c.self->dims();
  return ComputeLossReferenceTerms(c.self->Get(i), c.target->Get(i),
                                   c.weight ? std::optional<double>(BroadcastGet(*c.weight, dims, i)) : std::nullopt,
                                   c.pos_weight ? std::optional<double>(BroadcastGet(*c.pos_weight, dims, i))
                                                : std::nullopt);
}

aclDataType ComputeDType(const Call& c) {
  for (const TestTensor* t : {c.self, c.target, c.weight, c.pos_weight}) {
    if (t != nullptr && t->dtype() == ACL_DOUBLE) return ACL_DOUBLE;
  }
  return ACL_FLOAT;
}

/// Every element of a reduction-none out against the reference and its bound; the number of
/// mismatches.
int64_t CheckNone(const Call& c) {
  int64_t bad = 0;
  const aclDataType compute = ComputeDType(c);
  for (int64_t i = 0; i < c.self->numel(); ++i) {
    const LossReferenceTerms t = ReferenceAt(c, i);
    const double got = c.out->Get(i);
    const double bound = LossErrorBound(t, compute, c.out->dtype());
    const bool ok = (std::isnan(t.loss) && std::isnan(got)) || std::fabs(got - t.loss) <= bound ||
                    (std::isinf(t.loss) && got == t.loss);
    if (!ok && bad++ < 8) {
      ADD_FAILURE() << "element " << i << ": got " << got << ", reference " << t.loss << " (x=" << c.self->Get(i)
                    << " y=" << c.target->Get(i) << "), bound " << bound;
    }
  }
  return bad;
}

// ---------------------------------------------------------------------------------------------
// Checks, in order.

class LossChecks : public ::testing::Test {
 protected:
  TestTensor x_{{4, 5}, ACL_FLOAT}, y_{{4, 5}, ACL_FLOAT}, out_{{4, 5}, ACL_FLOAT}, scalar_{{}, ACL_FLOAT};
  Call call_{&x_, &y_, nullptr, nullptr, 0, &out_};
};

TEST_F(LossChecks, NullRequiredPointersAreNullptrErrorsNamingTheParameter) {
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  const struct {
    const aclTensor* self;
    const aclTensor* target;
    aclTensor* out;
    uint64_t* ws;
    aclOpExecutor** e;
    const char* name;
  } cases[] = {{nullptr, y_.get(), out_.get(), &ws, &e, "self"},
               {x_.get(), nullptr, out_.get(), &ws, &e, "target"},
               {x_.get(), y_.get(), nullptr, &ws, &e, "out"},
               {x_.get(), y_.get(), out_.get(), nullptr, &e, "workspaceSize"},
               {x_.get(), y_.get(), out_.get(), &ws, nullptr, "executor"}};
  for (const auto& c : cases) {
    PrimeRecentErrMsg();
    EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(c.self, c.target, nullptr, nullptr, 0, c.out, c.ws, c.e),
              ACLNN_ERR_PARAM_NULLPTR)
        << c.name;
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find(std::string(c.name) + " must not be null"), std::string::npos)
        << aclGetRecentErrMsg();
  }
}

TEST_F(LossChecks, DTypesThenReductionThenDimsThenShapes) {
  TestTensor int_self({4, 5}, ACL_INT32), half_out({4, 5}, ACL_FLOAT16);
  ExpectRejected({&int_self, &y_, nullptr, nullptr, 7, &out_}, ACLNN_ERR_PARAM_INVALID, "self");  // dtype before reduction
  ExpectRejected({&x_, &y_, nullptr, nullptr, 0, &half_out}, ACLNN_ERR_PARAM_INVALID, "out");
  ExpectRejected({&x_, &y_, nullptr, nullptr, 3, &out_}, ACLNN_ERR_PARAM_INVALID, "reduction 3");
  ExpectRejected({&x_, &y_, nullptr, nullptr, -1, &out_}, ACLNN_ERR_PARAM_INVALID, "reduction -1");
  TestTensor nine({1, 1, 1, 1, 1, 1, 1, 1, 20}, ACL_FLOAT);
  ExpectRejected({&nine, &y_, nullptr, nullptr, 7, &out_}, ACLNN_ERR_PARAM_INVALID, "reduction");  // reduction before dims
  ExpectRejected({&nine, &y_, nullptr, nullptr, 0, &out_}, ACLNN_ERR_PARAM_INVALID, "self");
  TestTensor other({5, 4}, ACL_FLOAT);
  ExpectRejected({&x_, &other, nullptr, nullptr, 0, &out_}, ACLNN_ERR_PARAM_INVALID, "target");
}

TEST_F(LossChecks, WeightsMustBroadcastToSelfsShapeAndOutHasTheReductionsShape) {
  TestTensor bad_w({3}, ACL_FLOAT), wide_w({2, 4, 5}, ACL_FLOAT), row_w({5}, ACL_FLOAT);
  ExpectRejected({&x_, &y_, &bad_w, nullptr, 0, &out_}, ACLNN_ERR_PARAM_INVALID, "weightOptional");
  ExpectRejected({&x_, &y_, nullptr, &bad_w, 0, &out_}, ACLNN_ERR_PARAM_INVALID, "posWeightOptional");
  // The broadcast result must be self's shape: a weight with more dims makes a bigger one.
  ExpectRejected({&x_, &y_, &wide_w, nullptr, 0, &out_}, ACLNN_ERR_PARAM_INVALID, "weightOptional");
  TestTensor out_row({5}, ACL_FLOAT), out_one({1}, ACL_FLOAT), out_two({2}, ACL_FLOAT), out_11({1, 1}, ACL_FLOAT);
  ExpectRejected({&x_, &y_, &row_w, nullptr, 0, &out_row}, ACLNN_ERR_PARAM_INVALID, "out");
  ExpectRejected({&x_, &y_, nullptr, nullptr, 1, &out_}, ACLNN_ERR_PARAM_INVALID, "must be [] or [1] for reduction mean");
  ExpectRejected({&x_, &y_, nullptr, nullptr, 2, &out_two}, ACLNN_ERR_PARAM_INVALID, "must be [] or [1] for reduction sum");
  ExpectRejected({&x_, &y_, nullptr, nullptr, 2, &out_11}, ACLNN_ERR_PARAM_INVALID, "out shape [1,1]");
  for (TestTensor* out : {&scalar_, &out_one}) {
    FillRandom(x_, 1, -3, 3);
    FillRandom(y_, 2, 0, 1);
    EXPECT_EQ(RunLoss({&x_, &y_, &row_w, &row_w, 1, out}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
}

TEST_F(LossChecks, ReductionNoneRefusesAnOutThatPartlyOverlapsAnInput) {
  TestTensor storage({21}, ACL_FLOAT);
  FillRandom(y_, 3, 0, 1);
  const int64_t dims[2] = {4, 5}, strides[2] = {5, 1}, storage_dims[1] = {21};
  acl_test::TensorHandle self(aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storage_dims, 1, storage.data()));
  acl_test::TensorHandle out(aclCreateTensor(dims, 2, ACL_FLOAT, strides, 1, ACL_FORMAT_ND, storage_dims, 1, storage.data()));
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  PrimeRecentErrMsg();
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(self.get(), y_.get(), nullptr, nullptr, 0, out.get(), &ws, &e),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("out"), std::string::npos) << aclGetRecentErrMsg();
}

// ---------------------------------------------------------------------------------------------
// reduction none: every element.

struct NoneCase {
  std::vector<int64_t> dims;
  aclDataType dtype;
  std::vector<int64_t> weight_dims;      // empty vector with has_weight false: no weight
  bool has_weight;
  std::vector<int64_t> pos_weight_dims;
  bool has_pos_weight;
};

TEST(LossNone, EveryElementMatchesTheReferenceForEveryDTypeAndBroadcast) {
  const aclDataType dtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
  const NoneCase cases[] = {{{37}, ACL_FLOAT, {}, false, {}, false},
                            {{5, 7, 9}, ACL_FLOAT, {9}, true, {7, 1}, true},
                            {{3, 1025}, ACL_FLOAT, {3, 1025}, true, {1025}, true},
                            {{2, 3, 4}, ACL_FLOAT, {}, true, {}, false},
                            {{4096 + 17}, ACL_FLOAT, {}, false, {1}, true}};
  for (aclDataType dtype : dtypes) {
    for (const NoneCase& c : cases) {
      SCOPED_TRACE(::testing::Message() << DTypeName(dtype) << " self " << c.dims.size() << "-d, numel "
                                        << acl_test::Numel(c.dims));
      TestTensor x(c.dims, dtype), y(c.dims, dtype), out(c.dims, dtype);
      std::optional<TestTensor> w, pw;
      if (c.has_weight) w.emplace(c.weight_dims, dtype);
      if (c.has_pos_weight) pw.emplace(c.pos_weight_dims, dtype);
      FillRandom(x, 10, -12, 12);
      FillRandom(y, 11, 0, 1);
      if (w) FillRandom(*w, 12, 0, 2);
      if (pw) FillRandom(*pw, 13, 0, 3);
      const Call call{&x, &y, w ? &*w : nullptr, pw ? &*pw : nullptr, 0, &out};
      ASSERT_EQ(RunLoss(call), ACLNN_SUCCESS) << aclGetRecentErrMsg();
      EXPECT_EQ(CheckNone(call), 0);
    }
  }
}

TEST(LossNone, ATransposedSelfAndAStridedOutAreReadAndWrittenInPlaceAndNothingElse) {
  // self is the transpose of a [9, 6] block; out a [6, 9] window (row stride 11) in a bigger storage.
  TestTensor x({6, 9}, {1, 6}, 0, 54, ACL_FLOAT), y({6, 9}, ACL_FLOAT), out({6, 9}, {11, 1}, 3, 80, ACL_FLOAT);
  FillRandom(x, 20, -6, 6);
  FillRandom(y, 21, 0, 1);
  std::vector<uint8_t> before = out.StorageBytes();
  const Call call{&x, &y, nullptr, nullptr, 0, &out};
  ASSERT_EQ(RunLoss(call), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(CheckNone(call), 0);
  // Outside the view every byte is still the poison.
  std::vector<uint8_t> after = out.StorageBytes();
  for (int64_t i = 0; i < out.numel(); ++i) {
    const int64_t s = out.StorageIndex(i);
    std::memset(before.data() + s * 4, 0, 4);
    std::memset(after.data() + s * 4, 0, 4);
  }
  EXPECT_EQ(FirstDifference(before, after), -1);
}

TEST(LossNone, InfiniteLogitsGiveTheLimitsAndNaNPropagates) {
  TestTensor x({6}, ACL_FLOAT), y({6}, ACL_FLOAT), out({6}, ACL_FLOAT);
  const double inf = std::numeric_limits<double>::infinity();
  const double xs[] = {inf, -inf, inf, -inf, NAN, -30}, ys[] = {1, 0, 0, 1, 1, 0};
  for (int i = 0; i < 6; ++i) {
    x.Set(i, xs[i]);
    y.Set(i, ys[i]);
  }
  ASSERT_EQ(RunLoss({&x, &y, nullptr, nullptr, 0, &out}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(out.Get(0), 0.0);
  EXPECT_EQ(out.Get(1), 0.0);
  EXPECT_EQ(out.Get(2), inf);
  EXPECT_EQ(out.Get(3), inf);
  EXPECT_TRUE(std::isnan(out.Get(4)));
  EXPECT_NEAR(out.Get(5), 9.357623e-14, 1e-19);  // the upstream form gives 0 here
}

// ---------------------------------------------------------------------------------------------
// mean and sum.

/// The losses reduction none returns for @p call's inputs, summed in long double (64-bit
/// significand: for these sizes its rounding is far below fp32's last place).
long double ExactSumOfNoneLosses(const Call& call) {
  TestTensor none_out(call.self->dims(), call.out->dtype());
  Call none = call;
  none.reduction = 0;
  none.out = &none_out;
  EXPECT_EQ(RunLoss(none), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  long double sum = 0;
  for (int64_t i = 0; i < none_out.numel(); ++i) sum += static_cast<long double>(none_out.Get(i));
  return sum;
}

TEST(LossReduction, MeanAndSumAreWithinOneUlpOfTheExactOnesOfTheLossesNoneReturns) {
  for (const int64_t n : {int64_t{1}, int64_t{1023}, int64_t{1024}, int64_t{1025}, int64_t{70001}}) {
    for (const int64_t reduction : {1, 2}) {
      SCOPED_TRACE(::testing::Message() << "n " << n << " reduction " << reduction);
      TestTensor x({n}, ACL_FLOAT), y({n}, ACL_FLOAT), w({n}, ACL_FLOAT), pw({1}, ACL_FLOAT), out({}, ACL_FLOAT);
      FillRandom(x, 30 + n, -10, 10);
      FillRandom(y, 31 + n, 0, 1);
      FillRandom(w, 32 + n, 0, 2);
      pw.Set(0, 2.5);
      const Call call{&x, &y, &w, &pw, reduction, &out};
      ASSERT_EQ(RunLoss(call), ACLNN_SUCCESS) << aclGetRecentErrMsg();
      long double exact = ExactSumOfNoneLosses(call);
      if (reduction == 1) exact /= n;
      const float rounded = static_cast<float>(exact);
      const double ulp = std::ldexp(1.0, std::ilogb(rounded) - 23);
      EXPECT_LE(std::fabs(out.Get(0) - static_cast<double>(rounded)), ulp)
          << "got " << out.Get(0) << ", exact " << static_cast<double>(exact);
    }
  }
}

TEST(LossReduction, ATransposedSelfOfManyRowsMatchesTheReferenceForAnyThreadCount) {
  // [96, 1024] with self the transpose of a [1024, 96] block: the staged self is copied in groups
  // of 16 rows, and the tiles hold whole groups where one fits (Note [Row groups]); mean and sum
  // walk self's storage order instead, which makes the target the wide operand, and their tiles
  // hold whole chunks too. Weights over 2^-60 .. 2^60 make any change of grouping show.
  TestTensor x({96, 1024}, {1, 96}, 0, 96 * 1024, ACL_FLOAT), y({96, 1024}, ACL_FLOAT), w({96, 1024}, ACL_FLOAT);
  TestTensor pw({1024}, ACL_FLOAT);
  FillRandom(x, 40, -8, 8);
  FillRandom(y, 41, 0, 1);
  FillRandom(pw, 42, 0.5, 2);
  std::mt19937_64 rng(43);
  std::uniform_real_distribution<double> exponent(-60, 60);
  for (int64_t i = 0; i < w.numel(); ++i) w.Set(i, std::exp2(exponent(rng)));
  TestTensor out({96, 1024}, ACL_FLOAT);
  const Call none{&x, &y, &w, &pw, 0, &out};
  ASSERT_EQ(RunLoss(none), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(CheckNone(none), 0);
  const int32_t before = aclnnCpuGetNumThreads();
  for (const int64_t reduction : {1, 2}) {
    TestTensor result({}, ACL_FLOAT);
    const Call call{&x, &y, &w, &pw, reduction, &result};
    long double exact = ExactSumOfNoneLosses(call);
    if (reduction == 1) exact /= x.numel();
    const float rounded = static_cast<float>(exact);
    std::optional<std::vector<uint8_t>> bits;
    for (const int32_t threads : {1, 2, 3, 5}) {
      SCOPED_TRACE(::testing::Message() << "reduction " << reduction << " threads " << threads);
      ASSERT_EQ(aclnnCpuSetNumThreads(threads), ACL_SUCCESS);
      result.Poison();
      ASSERT_EQ(RunLoss(call), ACLNN_SUCCESS) << aclGetRecentErrMsg();
      const std::vector<uint8_t> got = result.StorageBytes();
      if (!bits) bits = got;
      EXPECT_EQ(FirstDifference(got, *bits), -1) << result.Get(0);
      EXPECT_LE(std::fabs(result.Get(0) - static_cast<double>(rounded)), std::ldexp(1.0, std::ilogb(rounded) - 23))
          << "got " << result.Get(0) << ", exact " << static_cast<double>(exact);
    }
  }
  ASSERT_EQ(aclnnCpuSetNumThreads(before), ACL_SUCCESS);
}

TEST(LossReduction, ATransposedTargetWhoseRowGroupsAndChunksHaveALargeCommonMultiple) {
  // A transposed target under a row-major self (which mean and sum walk): rows of 1000, so a group
  // of 16 rows fits a tile, but the least common multiple of a group and a chunk (512000
  // elements) does not; mean and sum then keep chunk-aligned tiles alone.
  TestTensor x({64, 1000}, ACL_FLOAT), y({64, 1000}, {1, 64}, 0, 64 * 1000, ACL_FLOAT), out({}, ACL_FLOAT);
  FillRandom(x, 44, -8, 8);
  FillRandom(y, 45, 0, 1);
  for (const int64_t reduction : {1, 2}) {
    const Call call{&x, &y, nullptr, nullptr, reduction, &out};
    ASSERT_EQ(RunLoss(call), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    long double exact = ExactSumOfNoneLosses(call);
    if (reduction == 1) exact /= x.numel();
    const float rounded = static_cast<float>(exact);
    EXPECT_LE(std::fabs(out.Get(0) - static_cast<double>(rounded)), std::ldexp(1.0, std::ilogb(rounded) - 23))
        << "reduction " << reduction << ": got " << out.Get(0) << ", exact " << static_cast<double>(exact);
  }
}

TEST(LossReduction, AnInfiniteLossMakesTheMeanAndSumInfiniteInEveryComputeType) {
  // fp64 inputs are summed with compensation, whose correction term once made inf - inf = NaN of
  // an infinite sum (found by fuzz_bce_op: an fp64 self with x = inf, a bf16 target of 0.5).
  const double inf = std::numeric_limits<double>::infinity();
  for (const aclDataType dtype : {ACL_DOUBLE, ACL_FLOAT, ACL_BF16}) {
    for (const int64_t reduction : {1, 2}) {
      for (const double x0 : {inf, -inf}) {
        SCOPED_TRACE(::testing::Message() << DTypeName(dtype) << " reduction " << reduction << " x0 " << x0);
        TestTensor x({3000}, dtype), y({3000}, ACL_BF16), out({}, ACL_BF16);
        FillRandom(x, 41, -5, 5);
        FillRandom(y, 42, 0, 1);
        x.Set(1500, x0);  // 1500: in a chunk after the first, and not its first element
        y.Set(1500, 0.5);
        ASSERT_EQ(RunLoss({&x, &y, nullptr, nullptr, reduction, &out}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
        EXPECT_EQ(out.Get(0), inf);
      }
      // Two infinite losses of opposite signs (labels outside [0, 1]) give NaN, as IEEE sums do.
      TestTensor x({4}, dtype), y({4}, ACL_BF16), out({}, ACL_BF16);
      const double xs[] = {1, inf, 2, inf}, ys[] = {0.5, 2, 0.25, 0.5};
      for (int i = 0; i < 4; ++i) {
        x.Set(i, xs[i]);
        y.Set(i, ys[i]);
      }
      ASSERT_EQ(RunLoss({&x, &y, nullptr, nullptr, reduction, &out}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
      EXPECT_TRUE(std::isnan(out.Get(0))) << out.Get(0);
    }
  }
}

TEST(LossReduction, Fp64AndNarrowDTypesAgreeWithTheReference) {
  for (const aclDataType dtype : {ACL_DOUBLE, ACL_FLOAT16, ACL_BF16}) {
    SCOPED_TRACE(DTypeName(dtype));
    const int64_t n = 5000;
    TestTensor x({50, 100}, dtype), y({50, 100}, dtype), pw({100}, dtype), out({1}, dtype);
    FillRandom(x, 40, -8, 8);
    FillRandom(y, 41, 0, 1);
    FillRandom(pw, 42, 0, 3);
    const Call call{&x, &y, nullptr, &pw, 1, &out};
    ASSERT_EQ(RunLoss(call), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    long double sum = 0, bound = 0;
    for (int64_t i = 0; i < n; ++i) {
      const LossReferenceTerms t = ReferenceAt(call, i);
      sum += t.loss;
      bound += LossErrorBound(t, ComputeDType(call), ACL_DOUBLE);
    }
    const double mean = static_cast<double>(sum / n);
    const double eps_out = RoundingOf(dtype).unit_roundoff;
    EXPECT_NEAR(out.Get(0), mean, static_cast<double>(bound / n) + 2 * eps_out * std::fabs(mean));
  }
}

TEST(LossReduction, TheResultIsBitwiseTheSameForAnyThreadCountAndRun) {
  // Weights over 2^-60 .. 2^60, so that fp64 sums of the losses round and any change in how the
  // elements are grouped would show (fp32 losses of one magnitude would sum exactly in fp64).
  const int64_t n = 300007;
  for (const aclDataType dtype : {ACL_FLOAT, ACL_DOUBLE}) {
    TestTensor x({n}, dtype), y({n}, dtype), w({n}, dtype), out({}, dtype);
    FillRandom(x, 50, -20, 20);
    FillRandom(y, 51, 0, 1);
    std::mt19937_64 rng(52);
    std::uniform_real_distribution<double> exponent(-60, 60);
    for (int64_t i = 0; i < n; ++i) w.Set(i, std::exp2(exponent(rng)));
    const int32_t before = aclnnCpuGetNumThreads();
    for (const int64_t reduction : {1, 2}) {
      std::optional<std::vector<uint8_t>> bits;
      for (const int32_t threads : {1, 2, 3, 5, 8, 1}) {
        SCOPED_TRACE(::testing::Message() << DTypeName(dtype) << " threads " << threads << " reduction " << reduction);
        ASSERT_EQ(aclnnCpuSetNumThreads(threads), ACL_SUCCESS);
        out.Poison();
        ASSERT_EQ(RunLoss({&x, &y, &w, nullptr, reduction, &out}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
        const std::vector<uint8_t> got = out.StorageBytes();
        if (!bits) bits = got;
        EXPECT_EQ(FirstDifference(got, *bits), -1) << out.Get(0);
      }
    }
    ASSERT_EQ(aclnnCpuSetNumThreads(before), ACL_SUCCESS);
  }
}

TEST(LossReduction, AnEmptySelfGivesNaNForMeanZeroForSumAndNothingForNone) {
  TestTensor x({0, 3}, ACL_FLOAT), y({0, 3}, ACL_FLOAT), none_out({0, 3}, ACL_FLOAT), out({}, ACL_FLOAT);
  uint64_t ws = 1;
  aclOpExecutor* e = nullptr;
  ASSERT_EQ(FirstPhase({&x, &y, nullptr, nullptr, 0, &none_out}, &ws, &e), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(ws, 0u);
  EXPECT_EQ(aclnnBinaryCrossEntropyWithLogits(nullptr, 0, e, nullptr), ACLNN_SUCCESS);
  ASSERT_EQ(RunLoss({&x, &y, nullptr, nullptr, 1, &out}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(std::isnan(out.Get(0)));
  out.Poison();
  ASSERT_EQ(RunLoss({&x, &y, nullptr, nullptr, 2, &out}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(out.Get(0), 0.0);
}

TEST(LossReduction, TheOutMayAliasAnInputForMeanAndSum) {
  // out is self's first element: it is written only after every input has been read.
  TestTensor x({2048}, ACL_FLOAT), y({2048}, ACL_FLOAT), expected({}, ACL_FLOAT);
  FillRandom(x, 60, -4, 4);
  FillRandom(y, 61, 0, 1);
  ASSERT_EQ(RunLoss({&x, &y, nullptr, nullptr, 2, &expected}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  const int64_t one[1] = {1}, storage[1] = {2048};
  acl_test::TensorHandle alias(aclCreateTensor(one, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, x.data()));
  uint64_t ws = 0;
  aclOpExecutor* e = nullptr;
  ASSERT_EQ(aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(x.get(), y.get(), nullptr, nullptr, 2, alias.get(), &ws, &e),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  DeviceMemory workspace;
  ASSERT_EQ(workspace.Reserve(ws), ACL_SUCCESS);
  ASSERT_EQ(aclnnBinaryCrossEntropyWithLogits(workspace.get(), ws, e, nullptr), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(x.Get(0), expected.Get(0));
}

}  // namespace
}  // namespace aclnn_cpu::bce_loss
