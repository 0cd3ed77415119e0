// The first phase's checks (docs/contract.md §3), in order, first failure wins: 1 required pointers
// (161001), then 161002 for 2 dims, 3 dtypes, 4 formats, 5 shapes, 6 reduction. After every
// rejected call no storage byte has changed and aclGetRecentErrMsg() names the parameter.
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "common/bce_test_util.h"
#include "common/dtype.h"
#include "op_api_test_helpers.h"

namespace bce_test {
namespace {

/// The tensor parameters of the first phase.
enum class Slot { kGradOutput, kSelf, kTarget, kWeight, kPosWeight, kOut };

/// How messages name each parameter (weight / posWeight as prefixes of weightOptional / posWeightOptional).
const char* ParamName(Slot slot) {
  switch (slot) {
    case Slot::kGradOutput: return "gradOutput";
    case Slot::kSelf: return "self";
    case Slot::kTarget: return "target";
    case Slot::kWeight: return "weight";
    case Slot::kPosWeight: return "posWeight";
    case Slot::kOut: return "out";
  }
  return "?";
}

void Put(RawCall& call, Slot slot, aclTensor* t) {
  switch (slot) {
    case Slot::kGradOutput: call.grad_output = t; break;
    case Slot::kSelf: call.self = t; break;
    case Slot::kTarget: call.target = t; break;
    case Slot::kWeight: call.weight = t; break;
    case Slot::kPosWeight: call.pos_weight = t; break;
    case Slot::kOut: call.out = t; break;
  }
}

const std::vector<int64_t> kShape = {2, 3};
const std::vector<int64_t> kNineDims = {1, 1, 1, 1, 1, 1, 1, 1, 1};

/// A valid call over [2, 3] fp32 tensors with weight and pos_weight, reduction mean; tests break
/// one rule at a time. Every tensor made here is snapshot before a rejected call and compared after.
class FirstPhaseChecks : public ::testing::Test {
 protected:
  FirstPhaseChecks() {
    FillRandom(grad_output_, 1, -2, 2);
    FillRandom(self_, 2, -4, 4);
    FillRandom(target_, 3, 0, 1);
    FillRandom(weight_, 4, 0.5, 2);
    FillRandom(pos_weight_, 5, 0.5, 3);
    FillRandom(out_, 6, -9, 9);  // not the poison: any write would show
    tracked_ = {&grad_output_, &self_, &target_, &weight_, &pos_weight_, &out_};
  }

  RawCall Valid() {
    RawCall c;
    c.grad_output = grad_output_.get();
    c.self = self_.get();
    c.target = target_.get();
    c.weight = weight_.get();
    c.pos_weight = pos_weight_.get();
    c.reduction = 1;
    c.out = out_.get();
    return c;
  }

  /// A further tensor, filled with finite values (float dtypes) and tracked.
  TestTensor& Extra(const std::vector<int64_t>& dims, aclDataType dtype = ACL_FLOAT) {
    extras_.push_back(std::make_unique<TestTensor>(dims, dtype));
    TestTensor& t = *extras_.back();
    FillRandom(t, 7 + extras_.size(), 0.25, 1);
    tracked_.push_back(&t);
    return t;
  }

  /// An aclTensor in @p format over the storage of @p t (owned by the fixture).
  aclTensor* Formatted(const TestTensor& t, aclFormat format) {
    handles_.push_back(ContiguousOver(t, format));
    return handles_.back().get();
  }

  /// Runs the first phase expecting @p code; checks that the message names @p param and that no
  /// tracked storage changed. Returns the message.
  std::string ExpectRejected(const RawCall& c, aclnnStatus code, const std::string& param,
                             bool null_workspace_size = false, bool null_executor = false) {
    PrimeRecentErrMsg();
    std::vector<std::vector<uint8_t>> before;
    for (const TestTensor* t : tracked_) before.push_back(t->StorageBytes());
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = FirstPhase(c, null_workspace_size ? nullptr : &workspace_size,
                                          null_executor ? nullptr : &executor);
    const std::string message = aclGetRecentErrMsg();
    EXPECT_EQ(status, code) << message;
    EXPECT_NE(message.find(param), std::string::npos) << "message does not name " << param << ": " << message;
    for (size_t i = 0; i < tracked_.size(); ++i) {
      EXPECT_EQ(FirstDifference(before[i], tracked_[i]->StorageBytes()), -1) << "storage of tensor " << i << " changed";
    }
    if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
    return message;
  }

  /// Runs the first phase expecting success; returns the workspace size.
  uint64_t ExpectAccepted(const RawCall& c) {
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    EXPECT_EQ(FirstPhase(c, &workspace_size, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_NE(executor, nullptr);
    if (executor != nullptr) {
      EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
    }
    return workspace_size;
  }

  TestTensor grad_output_{kShape, ACL_FLOAT}, self_{kShape, ACL_FLOAT}, target_{kShape, ACL_FLOAT},
      weight_{kShape, ACL_FLOAT}, pos_weight_{kShape, ACL_FLOAT}, out_{kShape, ACL_FLOAT};
  std::vector<const TestTensor*> tracked_;
  std::vector<std::unique_ptr<TestTensor>> extras_;
  std::vector<TensorHandle> handles_;
};

std::string SlotTestName(Slot slot) { return ParamName(slot); }

// ---------------------------------------------------------------------------------------------
// The valid call the other tests break one rule at a time.

TEST_F(FirstPhaseChecks, ValidCallIsAccepted) { ExpectAccepted(Valid()); }

TEST_F(FirstPhaseChecks, AbsentWeightAndPosWeightAreAccepted) {
  RawCall c = Valid();
  c.weight = nullptr;
  c.pos_weight = nullptr;
  ExpectAccepted(c);
}

// ---------------------------------------------------------------------------------------------
// 1. Required pointers: 161001.

class NullRequiredTensor : public FirstPhaseChecks, public ::testing::WithParamInterface<Slot> {};

TEST_P(NullRequiredTensor, IsRejectedAsNullptr) {
  RawCall c = Valid();
  Put(c, GetParam(), nullptr);
  ExpectRejected(c, ACLNN_ERR_PARAM_NULLPTR, ParamName(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(FirstPhaseChecks, NullRequiredTensor,
                         ::testing::Values(Slot::kGradOutput, Slot::kSelf, Slot::kTarget, Slot::kOut),
                         [](const auto& test_info) { return SlotTestName(test_info.param); });

TEST_F(FirstPhaseChecks, NullWorkspaceSizePointerIsRejectedAsNullptr) {
  ExpectRejected(Valid(), ACLNN_ERR_PARAM_NULLPTR, "workspaceSize", /*null_workspace_size=*/true);
}

TEST_F(FirstPhaseChecks, NullExecutorPointerIsRejectedAsNullptr) {
  ExpectRejected(Valid(), ACLNN_ERR_PARAM_NULLPTR, "executor", false, /*null_executor=*/true);
}

// ---------------------------------------------------------------------------------------------
// 2. At most 8 dims on every present tensor (aclCreateTensor takes up to 32, so this is reachable).

class NineDimTensor : public FirstPhaseChecks, public ::testing::WithParamInterface<Slot> {};

TEST_P(NineDimTensor, IsRejectedAsInvalid) {
  RawCall c = Valid();
  Put(c, GetParam(), Extra(kNineDims).get());
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, ParamName(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(FirstPhaseChecks, NineDimTensor,
                         ::testing::Values(Slot::kGradOutput, Slot::kSelf, Slot::kTarget, Slot::kWeight,
                                           Slot::kPosWeight, Slot::kOut),
                         [](const auto& test_info) { return SlotTestName(test_info.param); });

TEST_F(FirstPhaseChecks, EightDimsOnEveryTensorAreAccepted) {
  const std::vector<int64_t> eight = {1, 2, 1, 1, 1, 1, 2, 3};
  RawCall c;
  c.grad_output = Extra(eight).get();
  c.self = Extra(eight).get();
  c.target = Extra(eight).get();
  c.weight = Extra(eight).get();
  c.pos_weight = Extra(eight).get();
  c.out = Extra(eight).get();
  ExpectAccepted(c);
}

// ---------------------------------------------------------------------------------------------
// 3. dtypes: FLOAT, FLOAT16, BF16, DOUBLE only; out dtype == target dtype.

class UnsupportedDtype : public FirstPhaseChecks,
                         public ::testing::WithParamInterface<std::tuple<Slot, aclDataType>> {};

TEST_P(UnsupportedDtype, IsRejectedAsInvalid) {
  const auto [slot, dtype] = GetParam();
  RawCall c = Valid();
  Put(c, slot, Extra(kShape, dtype).get());
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, ParamName(slot));
}


INSTANTIATE_TEST_SUITE_P(
    FirstPhaseChecks, UnsupportedDtype,
    ::testing::Combine(::testing::Values(Slot::kGradOutput, Slot::kSelf, Slot::kTarget, Slot::kWeight,
                                         Slot::kPosWeight, Slot::kOut),
                       ::testing::Values(ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64, ACL_UINT8, ACL_UINT16,
                                         ACL_UINT32, ACL_UINT64, ACL_BOOL, ACL_COMPLEX64)),
    [](const auto& test_info) {
      return std::string(ParamName(std::get<0>(test_info.param))) + "_" + aclnn_cpu::DTypeName(std::get<1>(test_info.param));
    });

TEST_F(FirstPhaseChecks, OutDtypeDifferentFromTargetIsRejected) {
  RawCall c = Valid();
  c.out = Extra(kShape, ACL_FLOAT16).get();
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "out");
}

TEST_F(FirstPhaseChecks, OutDtypeEqualToSelfButNotTargetIsRejected) {
  RawCall c = Valid();
  c.self = Extra(kShape, ACL_DOUBLE).get();
  c.out = Extra(kShape, ACL_DOUBLE).get();
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "out");
}

TEST_F(FirstPhaseChecks, OutDtypeFollowsTargetWhateverTheOtherDtypes) {
  RawCall c = Valid();
  c.self = Extra(kShape, ACL_DOUBLE).get();
  c.grad_output = Extra(kShape, ACL_BF16).get();
  c.target = Extra(kShape, ACL_FLOAT16).get();
  c.out = Extra(kShape, ACL_FLOAT16).get();
  ExpectAccepted(c);
}

// ---------------------------------------------------------------------------------------------
// 4. Formats: self, target and out equal (any value); gradOutput, weight, posWeight are free.

TEST_F(FirstPhaseChecks, TargetFormatDifferentFromSelfIsRejected) {
  RawCall c = Valid();
  c.target = Formatted(target_, ACL_FORMAT_NCHW);
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "target");
}

TEST_F(FirstPhaseChecks, OutFormatDifferentFromSelfIsRejected) {
  RawCall c = Valid();
  c.out = Formatted(out_, ACL_FORMAT_NHWC);
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "out");
}

TEST_F(FirstPhaseChecks, SelfFormatDifferentFromTargetAndOutIsRejected) {
  RawCall c = Valid();
  c.self = Formatted(self_, ACL_FORMAT_NC1HWC0);
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "format");
}

class EqualFormats : public FirstPhaseChecks, public ::testing::WithParamInterface<aclFormat> {};

TEST_P(EqualFormats, AreAcceptedAndComputedAsPlainLayout) {
  RawCall c = Valid();
  c.self = Formatted(self_, GetParam());
  c.target = Formatted(target_, GetParam());
  c.out = Formatted(out_, GetParam());
  ASSERT_EQ(RunRaw(c), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  Problem p{&grad_output_, &self_, &target_, &weight_, &pos_weight_, 1, &out_};
  EXPECT_EQ(CheckAgainstReference(p).mismatches, 0);
}

INSTANTIATE_TEST_SUITE_P(FirstPhaseChecks, EqualFormats,
                         ::testing::Values(ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z,
                                           ACL_FORMAT_NCDHW, ACL_FORMAT_NC, ACL_FORMAT_NCL),
                         [](const auto& test_info) { return "format_" + std::to_string(static_cast<int>(test_info.param)); });

TEST_F(FirstPhaseChecks, GradOutputWeightAndPosWeightFormatsNeedNotMatchSelf) {
  RawCall c = Valid();
  c.grad_output = Formatted(grad_output_, ACL_FORMAT_NHWC);
  c.weight = Formatted(weight_, ACL_FORMAT_NC1HWC0);
  c.pos_weight = Formatted(pos_weight_, ACL_FORMAT_FRACTAL_Z);
  ExpectAccepted(c);
}

// ---------------------------------------------------------------------------------------------
// 5. Shapes: target and out equal self exactly; gradOutput, weight, posWeight broadcast to self
//    with a result equal to self's shape.

TEST_F(FirstPhaseChecks, TargetShapeDifferentFromSelfIsRejected) {
  RawCall c = Valid();
  c.target = Extra({3, 2}).get();
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "target");
}

TEST_F(FirstPhaseChecks, TargetWithSelfsElementCountButOtherRankIsRejected) {
  RawCall c = Valid();
  c.target = Extra({6}).get();
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "target");
}

TEST_F(FirstPhaseChecks, TargetThatWouldBroadcastToSelfIsRejected) {
  RawCall c = Valid();
  c.target = Extra({1, 3}).get();
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "target");
}

TEST_F(FirstPhaseChecks, OutShapeDifferentFromSelfIsRejected) {
  RawCall c = Valid();
  c.out = Extra({2, 3, 1}).get();
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "out");
}

TEST_F(FirstPhaseChecks, OutThatWouldBroadcastToSelfIsRejected) {
  RawCall c = Valid();
  c.out = Extra({2, 1}).get();
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "out");
}

class BroadcastOperand : public FirstPhaseChecks, public ::testing::WithParamInterface<Slot> {};

TEST_P(BroadcastOperand, NotBroadcastableToSelfIsRejected) {
  RawCall c = Valid();
  Put(c, GetParam(), Extra({2}).get());  // trailing 2 against self's 3
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, ParamName(GetParam()));
}

TEST_P(BroadcastOperand, BroadcastingToMoreThanSelfIsRejected) {
  RawCall c = Valid();
  Put(c, GetParam(), Extra({4, 1, 3}).get());  // broadcasts with [2, 3] to [4, 2, 3]
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, ParamName(GetParam()));
}

TEST_P(BroadcastOperand, ExtraLeadingOneDimIsRejected) {
  RawCall c = Valid();
  Put(c, GetParam(), Extra({1, 2, 3}).get());  // broadcast result [1, 2, 3] != [2, 3]
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, ParamName(GetParam()));
}

TEST_P(BroadcastOperand, SelfShapedIsAccepted) {
  RawCall c = Valid();
  Put(c, GetParam(), Extra(kShape).get());
  ExpectAccepted(c);
}

TEST_P(BroadcastOperand, BroadcastableToSelfIsAccepted) {
  for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{{}, {1}, {3}, {1, 3}, {2, 1}, {1, 1}}) {
    SCOPED_TRACE(::testing::PrintToString(dims));
    RawCall c = Valid();
    Put(c, GetParam(), Extra(dims).get());
    ExpectAccepted(c);
  }
}

INSTANTIATE_TEST_SUITE_P(FirstPhaseChecks, BroadcastOperand,
                         ::testing::Values(Slot::kGradOutput, Slot::kWeight, Slot::kPosWeight),
                         [](const auto& test_info) { return SlotTestName(test_info.param); });

TEST_F(FirstPhaseChecks, OneElementWeightOverZeroDimSelfIsRejected) {
  RawCall c;
  c.grad_output = Extra({}).get();
  c.self = Extra({}).get();
  c.target = Extra({}).get();
  c.out = Extra({}).get();
  c.weight = Extra({1}).get();  // broadcast result [1] != []
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "weight");
}

// ---------------------------------------------------------------------------------------------
// 6. reduction in [0, 2].

class BadReduction : public FirstPhaseChecks, public ::testing::WithParamInterface<int64_t> {};

TEST_P(BadReduction, IsRejectedAsInvalid) {
  RawCall c = Valid();
  c.reduction = GetParam();
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "reduction");
}

INSTANTIATE_TEST_SUITE_P(FirstPhaseChecks, BadReduction,
                         ::testing::Values(-1, 3, 100, std::numeric_limits<int64_t>::min(),
                                           std::numeric_limits<int64_t>::max()));

class GoodReduction : public FirstPhaseChecks, public ::testing::WithParamInterface<int64_t> {};

TEST_P(GoodReduction, IsAccepted) {
  RawCall c = Valid();
  c.reduction = GetParam();
  ExpectAccepted(c);
}

INSTANTIATE_TEST_SUITE_P(FirstPhaseChecks, GoodReduction, ::testing::Values(0, 1, 2));

// ---------------------------------------------------------------------------------------------
// Memory: a non-empty tensor's data address is a multiple of its element size (typed loads).

/// An aclTensor of shape kShape and @p dtype whose data starts @p byte_shift bytes into a
/// tracked storage of 16 elements of @p dtype.
class MisalignedTensor : public FirstPhaseChecks, public ::testing::WithParamInterface<Slot> {
 protected:
  aclTensor* Shifted(aclDataType dtype, int64_t byte_shift) {
    TestTensor& storage = Extra({16}, dtype);
    const int64_t storage_dims[1] = {6};
    aclTensor* t = aclCreateTensor(kShape.data(), kShape.size(), dtype, nullptr, 0, ACL_FORMAT_ND, storage_dims, 1,
                                   static_cast<char*>(storage.data()) + byte_shift);
    EXPECT_NE(t, nullptr) << aclGetRecentErrMsg();
    handles_.emplace_back(t);
    return t;
  }
};

TEST_P(MisalignedTensor, IsRejectedAndTheMessageStatesTheElementSize) {
  RawCall c = Valid();
  Put(c, GetParam(), Shifted(ACL_FLOAT, 2));
  const std::string message = ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, ParamName(GetParam()));
  EXPECT_NE(message.find("not aligned to its element size of 4 bytes"), std::string::npos) << message;
}

TEST_P(MisalignedTensor, AnAddressThatIsAMultipleOfTheElementSizeIsAccepted) {
  RawCall c = Valid();
  Put(c, GetParam(), Shifted(ACL_FLOAT, 4));  // not 8-, 16- or 64-byte aligned: still accepted
  ExpectAccepted(c);
}

INSTANTIATE_TEST_SUITE_P(FirstPhaseChecks, MisalignedTensor,
                         ::testing::Values(Slot::kGradOutput, Slot::kSelf, Slot::kTarget, Slot::kWeight,
                                           Slot::kPosWeight, Slot::kOut),
                         [](const auto& test_info) { return SlotTestName(test_info.param); });

TEST_F(FirstPhaseChecks, AMisalignedHalfTensorIsRejectedAndAnEvenAddressAccepted) {
  TestTensor& storage = Extra({16}, ACL_FLOAT16);
  const int64_t storage_dims[1] = {6};
  for (const int64_t shift : {1, 2}) {
    TensorHandle t(aclCreateTensor(kShape.data(), kShape.size(), ACL_FLOAT16, nullptr, 0, ACL_FORMAT_ND,
                                   storage_dims, 1, static_cast<char*>(storage.data()) + shift));
    ASSERT_NE(t, nullptr) << aclGetRecentErrMsg();
    RawCall c = Valid();
    c.weight = t.get();
    if (shift == 1) {
      ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "weightOptional data address");
    } else {
      ExpectAccepted(c);
    }
  }
}

TEST_F(FirstPhaseChecks, AMisalignedAddressOfAnEmptySelfIsNotChecked) {
  // Nothing is read or written for an empty self (docs/contract.md §4), so no address matters.
  const int64_t dims[2] = {0, 3};
  char bytes[16] = {};
  TensorHandle self(aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, bytes + 1));
  ASSERT_NE(self, nullptr) << aclGetRecentErrMsg();
  RawCall c;
  c.grad_output = Extra({0, 3}).get();
  c.self = self.get();
  c.target = Extra({0, 3}).get();
  c.out = Extra({0, 3}).get();
  EXPECT_EQ(ExpectAccepted(c), 0u);
}

// ---------------------------------------------------------------------------------------------
// An empty self waives only the shape rule.

class EmptySelfChecks : public FirstPhaseChecks {
 protected:
  RawCall Empty() {
    RawCall c;
    c.grad_output = Extra({0, 3}).get();
    c.self = Extra({0, 3}).get();
    c.target = Extra({0, 3}).get();
    c.out = Extra({0, 3}).get();
    c.reduction = 1;
    return c;
  }
};

TEST_F(EmptySelfChecks, ShapeRuleIsWaived) {
  RawCall c = Empty();
  c.target = Extra({5}).get();
  c.out = Extra({2, 2}).get();
  c.grad_output = Extra({7}).get();
  c.weight = Extra({4, 1, 9}).get();
  EXPECT_EQ(ExpectAccepted(c), 0u);
}

TEST_F(EmptySelfChecks, NullTensorIsStillRejected) {
  RawCall c = Empty();
  c.target = nullptr;
  ExpectRejected(c, ACLNN_ERR_PARAM_NULLPTR, "target");
}

TEST_F(EmptySelfChecks, NineDimsAreStillRejected) {
  RawCall c = Empty();
  TestTensor& self = Extra({0, 1, 1, 1, 1, 1, 1, 1, 1});
  c.self = self.get();
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "self");
}

TEST_F(EmptySelfChecks, UnsupportedDtypeIsStillRejected) {
  RawCall c = Empty();
  c.self = Extra({0, 3}, ACL_INT32).get();
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "self");
}

TEST_F(EmptySelfChecks, OutDtypeDifferentFromTargetIsStillRejected) {
  RawCall c = Empty();
  c.out = Extra({0, 3}, ACL_BF16).get();
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "out");
}

TEST_F(EmptySelfChecks, FormatMismatchIsStillRejected) {
  RawCall c = Empty();
  c.target = Formatted(Extra({0, 3}), ACL_FORMAT_NCHW);
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "target");
}

TEST_F(EmptySelfChecks, BadReductionIsStillRejected) {
  RawCall c = Empty();
  c.reduction = 3;
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "reduction");
}

// ---------------------------------------------------------------------------------------------
// Order of the checks: the first failing step wins.

TEST_F(FirstPhaseChecks, NullTensorWinsOverEveryOtherError) {
  RawCall c = Valid();
  c.grad_output = nullptr;
  c.self = Extra(kNineDims, ACL_INT32).get();
  c.target = Formatted(Extra({3, 2}), ACL_FORMAT_NCHW);
  c.reduction = 7;
  ExpectRejected(c, ACLNN_ERR_PARAM_NULLPTR, "gradOutput");
}

TEST_F(FirstPhaseChecks, NullWorkspaceSizeWinsOverInvalidTensors) {
  RawCall c = Valid();
  c.self = Extra(kNineDims, ACL_INT32).get();
  c.reduction = 7;
  ExpectRejected(c, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize", /*null_workspace_size=*/true);
}

TEST_F(FirstPhaseChecks, DimsErrorWinsOverDtypeErrorOfTheSameTensor) {
  RawCall c = Valid();
  c.self = Extra(kNineDims, ACL_INT32).get();
  const std::string message = ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "self");
  EXPECT_NE(message.find("dim"), std::string::npos) << message;
  EXPECT_EQ(message.find("INT32"), std::string::npos) << message;
}

TEST_F(FirstPhaseChecks, DimsErrorOfALaterTensorWinsOverDtypeErrorOfAnEarlierOne) {
  RawCall c = Valid();
  c.grad_output = Extra(kShape, ACL_INT64).get();
  c.out = Extra(kNineDims).get();
  const std::string message = ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "out");
  EXPECT_EQ(message.find("gradOutput"), std::string::npos) << message;
}

TEST_F(FirstPhaseChecks, DtypeErrorWinsOverFormatError) {
  RawCall c = Valid();
  c.target = Formatted(Extra(kShape, ACL_INT32), ACL_FORMAT_NCHW);
  const std::string message = ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "target");
  EXPECT_NE(message.find("INT32"), std::string::npos) << message;
}

TEST_F(FirstPhaseChecks, OutDtypeErrorWinsOverFormatError) {
  RawCall c = Valid();
  c.out = Formatted(Extra(kShape, ACL_FLOAT16), ACL_FORMAT_NCHW);
  const std::string message = ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "out");
  EXPECT_EQ(message.find("format"), std::string::npos) << message;
}

TEST_F(FirstPhaseChecks, FormatErrorWinsOverShapeError) {
  RawCall c = Valid();
  c.target = Formatted(Extra({3, 2}), ACL_FORMAT_NCHW);
  const std::string message = ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "target");
  EXPECT_NE(message.find("format"), std::string::npos) << message;
}

TEST_F(FirstPhaseChecks, ShapeErrorWinsOverReductionError) {
  RawCall c = Valid();
  c.pos_weight = Extra({5}).get();
  c.reduction = -1;
  const std::string message = ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "posWeight");
  EXPECT_EQ(message.find("reduction"), std::string::npos) << message;
}

}  // namespace
}  // namespace bce_test
