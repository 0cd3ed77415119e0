// Type promotion (PyTorch rules: fp16 + bf16 -> fp32, anything + fp64 -> fp64; out dtype = target
// dtype) and numpy broadcasting of gradOutput, weight and pos_weight, end to end against the
// float64 reference.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/bce_test_util.h"
#include "common/dtype.h"
#include "op_api_test_helpers.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_reference.h"

namespace bce_test {
namespace {

using aclnn_cpu::bce_grad::ReferenceGradient;

const char* Short(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT: return "f32";
    case ACL_FLOAT16: return "f16";
    case ACL_BF16: return "bf16";
    case ACL_DOUBLE: return "f64";
    default: return "?";
  }
}

/// Dtypes of one call; out takes target's.
struct Dtypes {
  aclDataType self, target, grad_output, weight, pos_weight;
};

/// Runs one call of @p dims with dtypes @p d (weight / pos_weight present) and reduction
/// @p reduction on random data, and checks it against the float64 reference.
void RunAndCheck(const std::vector<int64_t>& dims, const Dtypes& d, int64_t reduction, uint64_t seed) {
  TestTensor x(dims, d.self), y(dims, d.target), dout(dims, d.grad_output), w(dims, d.weight),
      pw(dims, d.pos_weight), out(dims, d.target);
  FillRandom(x, seed, -6, 6);
  FillRandom(y, seed + 1, 0, 1);
  FillRandom(dout, seed + 2, -2, 2);
  FillRandom(w, seed + 3, 0.1, 2);
  FillRandom(pw, seed + 4, 0.5, 3);
  Problem p{&dout, &x, &y, &w, &pw, reduction, &out};
  ASSERT_EQ(RunOperator(p), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(CheckAgainstReference(p).mismatches, 0);
}

constexpr aclDataType kFloatTypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};

// ---------------------------------------------------------------------------------------------
// Promotion.

TEST(Promotion, EveryDtypeMixOfTheFiveInputsMatchesTheReference) {
  uint64_t seed = 100;
  for (aclDataType self : kFloatTypes) {
    for (aclDataType target : kFloatTypes) {
      for (aclDataType grad_output : kFloatTypes) {
        for (aclDataType weight : kFloatTypes) {
          for (aclDataType pos_weight : kFloatTypes) {
            SCOPED_TRACE(std::string("self ") + Short(self) + " target " + Short(target) + " gradOutput " +
                         Short(grad_output) + " weight " + Short(weight) + " posWeight " + Short(pos_weight));
            RunAndCheck({3, 11}, {self, target, grad_output, weight, pos_weight}, static_cast<int64_t>(seed % 3), seed);
            seed += 5;
            if (HasFailure()) return;
          }
        }
      }
    }
  }
}

TEST(Promotion, Float16AndBFloat16MeetInFloat32) {
  // Computing in either half type would be off by many fp32-compute bounds.
  RunAndCheck({7, 33}, {ACL_FLOAT16, ACL_BF16, ACL_FLOAT16, ACL_BF16, ACL_FLOAT16}, 0, 1);
}

TEST(Promotion, Float16InputsWithFloat16OutputComputeInFloat32AndRoundOnce) {
  RunAndCheck({5, 67}, {ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16}, 2, 2);
}

TEST(Promotion, DoubleTargetMakesTheComputationDouble) {
  // out is fp64: an fp32 computation would miss the fp64 bound by ~1e8.
  RunAndCheck({9, 40}, {ACL_FLOAT, ACL_DOUBLE, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT}, 1, 3);
}

TEST(Promotion, DoubleGradOutputAloneMakesTheComputationDouble) {
  // fp64 computation rounded once to fp32 is within half an ulp; an fp32 computation is not.
  RunAndCheck({9, 40}, {ACL_FLOAT, ACL_FLOAT, ACL_DOUBLE, ACL_FLOAT, ACL_FLOAT}, 0, 4);
}

TEST(Promotion, DoubleWeightWithHalfInputsMakesTheComputationDouble) {
  RunAndCheck({9, 40}, {ACL_FLOAT16, ACL_BF16, ACL_BF16, ACL_DOUBLE, ACL_FLOAT16}, 0, 5);
}

TEST(Promotion, DoubleSelfWithBFloat16TargetWritesBFloat16) {
  RunAndCheck({4, 50}, {ACL_DOUBLE, ACL_BF16, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT}, 2, 6);
}

TEST(Promotion, AllDoubleComputesInDouble) {
  RunAndCheck({3, 129}, {ACL_DOUBLE, ACL_DOUBLE, ACL_DOUBLE, ACL_DOUBLE, ACL_DOUBLE}, 1, 7);
}

// ---------------------------------------------------------------------------------------------
// Broadcasting.

/// A call over self/target/out of @p self_dims with gradOutput, weight and pos_weight of the
/// given dims (weight / pos_weight absent when their dims pointer is null).
struct BroadcastCase {
  std::vector<int64_t> self_dims;
  std::vector<int64_t> grad_output_dims;
  const std::vector<int64_t>* weight_dims = nullptr;
  const std::vector<int64_t>* pos_weight_dims = nullptr;
  int64_t reduction = 0;
  aclDataType dtype = ACL_FLOAT;
  aclDataType broadcast_dtype = ACL_FLOAT;
};

void RunBroadcast(const BroadcastCase& bc, uint64_t seed) {
  TestTensor x(bc.self_dims, bc.dtype), y(bc.self_dims, bc.dtype), out(bc.self_dims, bc.dtype);
  TestTensor dout(bc.grad_output_dims, bc.broadcast_dtype);
  std::unique_ptr<TestTensor> w, pw;
  if (bc.weight_dims) w = std::make_unique<TestTensor>(*bc.weight_dims, bc.broadcast_dtype);
  if (bc.pos_weight_dims) pw = std::make_unique<TestTensor>(*bc.pos_weight_dims, bc.broadcast_dtype);
  FillRandom(x, seed, -5, 5);
  FillRandom(y, seed + 1, 0, 1);
  FillRandom(dout, seed + 2, -3, 3);
  if (w) FillRandom(*w, seed + 3, 0.1, 2);
  if (pw) FillRandom(*pw, seed + 4, 0.5, 4);
  Problem p{&dout, &x, &y, w.get(), pw.get(), bc.reduction, &out};
  ASSERT_EQ(RunOperator(p), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(CheckAgainstReference(p).mismatches, 0);
}

TEST(Broadcast, ZeroDimGradOutputWithMeanReduction) {
  RunBroadcast({{16, 37}, {}, nullptr, nullptr, 1}, 10);
}

TEST(Broadcast, ZeroDimGradOutputWithSumReduction) {
  RunBroadcast({{16, 37}, {}, nullptr, nullptr, 2}, 11);
}

TEST(Broadcast, ZeroDimGradOutputScalesEveryElementByTheSameValue) {
  TestTensor x({4, 9}, ACL_FLOAT), y({4, 9}, ACL_FLOAT), dout({}, ACL_FLOAT), out({4, 9}, ACL_FLOAT);
  FillConstant(x, 0.75);
  FillConstant(y, 0.25);
  dout.Set(0, -3.5);
  Problem p{&dout, &x, &y, nullptr, nullptr, 1, &out};
  ASSERT_EQ(RunOperator(p), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  const double expected = ReferenceGradient(0.75, 0.25, -3.5, std::nullopt, std::nullopt, 1.0 / 36);
  for (int64_t i = 0; i < out.numel(); ++i) EXPECT_NEAR(out.Get(i), expected, 1e-7 * std::fabs(expected)) << i;
}

TEST(Broadcast, PosWeightVectorOverRows) {
  const std::vector<int64_t> pw{37};
  RunBroadcast({{64, 37}, {64, 37}, nullptr, &pw, 0}, 12);
}

TEST(Broadcast, PosWeightVectorOverRowsWithVectorWidthRowLengths) {
  for (int64_t c : {1, 7, 8, 15, 16, 17, 31, 32, 33, 64, 65}) {
    SCOPED_TRACE(c);
    const std::vector<int64_t> pw{c};
    RunBroadcast({{23, c}, {}, nullptr, &pw, 1}, 13 + static_cast<uint64_t>(c));
  }
}

// Rows of at least kMinRowDirectElems are read in place row by row (Access::kRowDirect) instead of
// being gathered: around that length, over several blocks and tiles, for every storage dtype.
TEST(Broadcast, LongPosWeightRowsAreReadInPlaceAndRight) {
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
    for (int64_t c : {255, 256, 257, 1000, 4096}) {
      SCOPED_TRACE(testing::Message() << aclnn_cpu::DTypeName(dtype) << " C=" << c);
      const std::vector<int64_t> pw{c}, w{c};
      RunBroadcast({{300, c}, {}, nullptr, &pw, 1, dtype, dtype}, 40 + static_cast<uint64_t>(c));
      RunBroadcast({{97, c}, {97, c}, &w, &pw, 0, dtype, dtype}, 41 + static_cast<uint64_t>(c));
    }
  }
}

TEST(Broadcast, LongRowsOfAnotherDtypeAreStillConverted) {
  const std::vector<int64_t> pw{512};
  RunBroadcast({{64, 512}, {}, nullptr, &pw, 2, ACL_FLOAT, ACL_BF16}, 42);
}

TEST(Broadcast, WeightColumnOverRows) {
  const std::vector<int64_t> w{64, 1};
  RunBroadcast({{64, 37}, {64, 37}, &w, nullptr, 2}, 14);
}

TEST(Broadcast, WeightColumnAndPosWeightRowTogether) {
  const std::vector<int64_t> w{50, 1}, pw{19};
  RunBroadcast({{50, 19}, {}, &w, &pw, 1}, 15);
}

TEST(Broadcast, SizeOneDimsOnEveryBroadcastOperand) {
  const std::vector<int64_t> w{1, 1, 1}, pw{1, 6, 1};
  RunBroadcast({{5, 6, 7}, {5, 1, 7}, &w, &pw, 0}, 16);
}

TEST(Broadcast, LowerRankOperands) {
  const std::vector<int64_t> w{6, 1}, pw{7};
  RunBroadcast({{3, 5, 6, 7}, {5, 6, 7}, &w, &pw, 0}, 17);
}

TEST(Broadcast, ZeroDimWeightAndPosWeight) {
  const std::vector<int64_t> w{}, pw{};
  RunBroadcast({{8, 9}, {8, 9}, &w, &pw, 0}, 18);
}

TEST(Broadcast, BroadcastOperandsOfAnotherDtypeThanSelf) {
  const std::vector<int64_t> w{11, 1}, pw{13};
  RunBroadcast({{11, 13}, {}, &w, &pw, 1, ACL_FLOAT16, ACL_BF16}, 19);
  RunBroadcast({{11, 13}, {1, 13}, &w, &pw, 2, ACL_BF16, ACL_FLOAT}, 20);
  RunBroadcast({{11, 13}, {11, 1}, &w, &pw, 0, ACL_FLOAT, ACL_DOUBLE}, 21);
}

TEST(Broadcast, ZeroDimSelfWithZeroDimOperands) {
  const std::vector<int64_t> w{}, pw{};
  for (int64_t reduction : {0, 1, 2}) {
    SCOPED_TRACE(reduction);
    RunBroadcast({{}, {}, &w, &pw, reduction}, 22 + static_cast<uint64_t>(reduction));
  }
}

TEST(Broadcast, ZeroDimSelfWithMeanDividesByOne) {
  TestTensor x({}, ACL_FLOAT), y({}, ACL_FLOAT), dout({}, ACL_FLOAT), out({}, ACL_FLOAT);
  x.Set(0, 1.0);
  y.Set(0, 0.5);
  dout.Set(0, 2.0);
  Problem p{&dout, &x, &y, nullptr, nullptr, 1, &out};
  ASSERT_EQ(RunOperator(p), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_NEAR(out.Get(0), 2.0 * (1.0 / (1.0 + std::exp(-1.0)) - 0.5), 1e-7);
}

TEST(Broadcast, LargeRowBroadcastAcrossManyBlocks) {
  const std::vector<int64_t> w{2048, 1}, pw{257};
  RunBroadcast({{2048, 257}, {}, &w, &pw, 1}, 25);
}

}  // namespace
}  // namespace bce_test
