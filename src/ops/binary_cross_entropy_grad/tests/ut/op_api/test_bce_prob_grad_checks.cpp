// aclnnBinaryCrossEntropyBackwardGetWorkspaceSize's checks, as its header states them, first
// failure wins: (1) null pointers (ACLNN_ERR_PARAM_NULLPTR), then ACLNN_ERR_PARAM_INVALID for
// (2) dtypes, (3) reduction, (4) dims, (5) out shape, (6) broadcasts of gradOutput, target and
// weightOptional, then for a non-empty self the data addresses and out's memory; (7) promotion.
// After every refusal no executor is made, no byte of any tensor has changed, and
// aclGetRecentErrMsg() names the first phase and the parameter.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "first_phase_checks.h"
#include "common/bce_prob_grad_test_util.h"

namespace bce_prob_grad_test {
namespace {

using acl_test::FirstDifference;
using acl_test::TensorHandle;

/// The operands a test breaks, by the parameter name the messages use.
enum class Slot { kGradOutput, kSelf, kTarget, kWeight, kOut };
constexpr Slot kSlots[] = {Slot::kGradOutput, Slot::kSelf, Slot::kTarget, Slot::kWeight, Slot::kOut};

const char* ParamName(Slot slot) {
  switch (slot) {
    case Slot::kGradOutput: return "gradOutput";
    case Slot::kSelf: return "self";
    case Slot::kTarget: return "target";
    case Slot::kWeight: return "weightOptional";
    case Slot::kOut: return "out";
  }
  return "?";
}

void Put(RawCall& c, Slot slot, const aclTensor* t) {
  switch (slot) {
    case Slot::kGradOutput: c.grad_output = t; break;
    case Slot::kSelf: c.self = t; break;
    case Slot::kTarget: c.target = t; break;
    case Slot::kWeight: c.weight = t; break;
    case Slot::kOut: c.out = t; break;
  }
}

/// A valid call over [4, 5] fp32 tensors with a [5] weight, reduction mean; each test breaks one
/// rule (or two, for the order). Every tensor made here is snapshot before a refused call and
/// compared after.
class BackwardChecks : public acl_test::FirstPhaseChecks {
 protected:
  BackwardChecks() {
    acl_test::FillRandom(grad_output_, 1, -2, 2);
    FillProbabilities(self_, 2);
    FillLabels(target_, 3);
    acl_test::FillRandom(weight_, 4, 0.5, 2);
    acl_test::FillRandom(out_, 5, -9, 9);  // not the poison: any write shows
    tracked_ = {&grad_output_, &self_, &target_, &weight_, &out_};
  }

  RawCall Valid() { return {grad_output_.get(), self_.get(), target_.get(), weight_.get(), 1, out_.get()}; }

  void ExpectRejected(const RawCall& c, aclnnStatus code, const std::string& what, bool null_ws = false,
                      bool null_executor = false) {
    ExpectRejectedCall(HarnessCall(c), kFirstPhase, code, what, null_ws, null_executor);
  }
  void ExpectAccepted(const RawCall& c) { ExpectAcceptedCall(HarnessCall(c)); }

  TestTensor grad_output_{{4, 5}, ACL_FLOAT}, self_{{4, 5}, ACL_FLOAT}, target_{{4, 5}, ACL_FLOAT},
      weight_{{5}, ACL_FLOAT}, out_{{4, 5}, ACL_FLOAT};
};

// (1) required pointers ---------------------------------------------------------------------------

TEST_F(BackwardChecks, NullRequiredPointersAreNullptrErrorsNamingTheParameter) {
  for (const Slot slot : {Slot::kGradOutput, Slot::kSelf, Slot::kTarget, Slot::kOut}) {
    RawCall c = Valid();
    Put(c, slot, nullptr);
    ExpectRejected(c, ACLNN_ERR_PARAM_NULLPTR, std::string(ParamName(slot)) + " must not be null");
  }
  ExpectRejected(Valid(), ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be null", /*null_ws=*/true);
  ExpectRejected(Valid(), ACLNN_ERR_PARAM_NULLPTR, "executor must not be null", false, /*null_executor=*/true);
}

TEST_F(BackwardChecks, ANullPointerWinsOverEveryLaterRule) {
  ExpectRejected({Extra({4, 5}, ACL_INT32).get(), self_.get(), target_.get(), nullptr, 9, nullptr},
                 ACLNN_ERR_PARAM_NULLPTR, "out must not be null");
}

TEST_F(BackwardChecks, ANullWeightIsAllOnes) {
  RawCall c = Valid();
  c.weight = nullptr;
  ExpectAccepted(c);
}

TEST_F(BackwardChecks, ADestroyedTensorIsAnInvalidParameterNamingIt) {
  const int64_t dims[2] = {4, 5};
  for (const Slot slot : kSlots) {
    aclTensor* dead = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, self_.data());
    ASSERT_NE(dead, nullptr);
    ASSERT_EQ(aclDestroyTensor(dead), ACL_SUCCESS);
    RawCall c = Valid();
    Put(c, slot, dead);
    ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, std::string(ParamName(slot)) + " is not a live tensor");
  }
}

// (2) dtypes ----------------------------------------------------------------------------------------

TEST_F(BackwardChecks, ADTypeOutsideTheFloatTypesIsRefusedNamingTheTensor) {
  for (const aclDataType bad : {ACL_INT32, ACL_INT64, ACL_UINT8, ACL_BOOL}) {
    for (const Slot slot : kSlots) {
      SCOPED_TRACE(::testing::Message() << aclnn_cpu::DTypeName(bad) << " " << ParamName(slot));
      RawCall c = Valid();
      Put(c, slot, Extra(slot == Slot::kWeight ? std::vector<int64_t>{5} : std::vector<int64_t>{4, 5}, bad).get());
      ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, std::string(ParamName(slot)) + " dtype");
    }
  }
}

TEST_F(BackwardChecks, OutMustHaveSelfsDType) {
  for (const aclDataType other : {ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
    RawCall c = Valid();
    c.out = Extra({4, 5}, other).get();
    ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "out dtype");
  }
  // gradOutput, target and weight of other dtypes promote; out stays self's.
  ExpectAccepted({Extra({}, ACL_DOUBLE).get(), Extra({4, 5}, ACL_FLOAT16).get(), Extra({4, 5}, ACL_BF16).get(),
                  Extra({5}, ACL_FLOAT).get(), 0, Extra({4, 5}, ACL_FLOAT16).get()});
}

// (3) reduction, (4) dims ---------------------------------------------------------------------------

TEST_F(BackwardChecks, AReductionOutsideZeroToTwoIsRefused) {
  for (const int64_t bad : {int64_t{3}, int64_t{-1}, int64_t{100}}) {
    RawCall c = Valid();
    c.reduction = bad;
    ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "reduction " + std::to_string(bad));
  }
}

TEST_F(BackwardChecks, MoreThanEightDimsAreRefusedNamingTheTensorAndEightAccepted) {
  const std::vector<int64_t> nine = {1, 1, 1, 1, 1, 1, 1, 4, 5}, eight = {1, 1, 1, 1, 1, 1, 4, 5};
  for (const Slot slot : {Slot::kGradOutput, Slot::kTarget, Slot::kWeight}) {
    RawCall c = Valid();
    Put(c, slot, Extra(nine).get());
    ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, std::string(ParamName(slot)) + " has 9 dims");
  }
  ExpectRejected({grad_output_.get(), Extra(nine).get(), target_.get(), nullptr, 0, Extra(nine).get()},
                 ACLNN_ERR_PARAM_INVALID, "self has 9 dims");
  ExpectAccepted({Extra({}).get(), Extra(eight).get(), Extra(eight).get(), Extra({5}).get(), 0, Extra(eight).get()});
}

// (5) out shape, (6) broadcasts -----------------------------------------------------------------------

TEST_F(BackwardChecks, OutMustHaveSelfsShapeForEveryReduction) {
  for (const int64_t reduction : {0, 1, 2}) {
    for (const std::vector<int64_t>& dims : {std::vector<int64_t>{5, 4}, {20}, {}, {1}, {1, 4, 5}}) {
      SCOPED_TRACE(::testing::Message() << "reduction " << reduction << " out " << acl_test::DimsText(dims));
      RawCall c = Valid();
      c.reduction = reduction;
      c.out = Extra(dims).get();
      ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "out shape");
    }
  }
}

TEST_F(BackwardChecks, GradOutputTargetAndWeightMustBroadcastToSelfsShape) {
  for (const Slot slot : {Slot::kGradOutput, Slot::kTarget, Slot::kWeight}) {
    for (const std::vector<int64_t>& dims : {std::vector<int64_t>{3}, {4}, {2, 5}, {5, 4}, {2, 4, 5}, {1, 4, 5}}) {
      SCOPED_TRACE(::testing::Message() << ParamName(slot) << " " << acl_test::DimsText(dims));
      RawCall c = Valid();
      Put(c, slot, Extra(dims).get());
      ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, ParamName(slot));
    }
    for (const std::vector<int64_t>& dims : {std::vector<int64_t>{}, {1}, {5}, {4, 1}, {1, 5}, {4, 5}}) {
      SCOPED_TRACE(::testing::Message() << ParamName(slot) << " " << acl_test::DimsText(dims));
      RawCall c = Valid();
      Put(c, slot, Extra(dims).get());
      ExpectAccepted(c);
    }
  }
}

// Memory: addresses and out's view (non-empty self only) -----------------------------------------

TEST_F(BackwardChecks, AMisalignedDataAddressIsRefusedNamingTheTensor) {
  for (const Slot slot : kSlots) {
    RawCall c = Valid();
    Put(c, slot, Shifted(ACL_FLOAT, 2, slot == Slot::kWeight ? std::vector<int64_t>{5} : std::vector<int64_t>{4, 5}));
    ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, std::string(ParamName(slot)) + " data address");
  }
  RawCall c = Valid();
  c.grad_output = Shifted(ACL_FLOAT, 4);  // a multiple of the element size is enough
  ExpectAccepted(c);
  c.grad_output = Shifted(ACL_BF16, 2);
  ExpectAccepted(c);
  c.grad_output = Shifted(ACL_BF16, 1);
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "gradOutput data address");
}

TEST_F(BackwardChecks, AnEmptySelfWaivesTheAddressRulesAndWritesNothing) {
  const int64_t dims[2] = {0, 5};
  TestTensor& storage = Extra({8});
  TensorHandle self(
      aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, static_cast<char*>(storage.data()) + 1));
  ASSERT_NE(self, nullptr) << aclGetRecentErrMsg();
  for (const int64_t reduction : {0, 1, 2}) {
    TestTensor& out = Extra({0, 5});
    const std::vector<uint8_t> before = out.StorageBytes();
    uint64_t ws = 1;
    aclOpExecutor* e = nullptr;
    const RawCall c{Extra({}).get(), self.get(), Extra({0, 5}).get(), Extra({5}).get(), reduction, out.get()};
    ASSERT_EQ(HarnessCall(c).FirstPhase(&ws, &e), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(ws, 0u);
    EXPECT_EQ(aclnnBinaryCrossEntropyBackward(nullptr, 0, e, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    EXPECT_EQ(FirstDifference(before, out.StorageBytes()), -1);
  }
}

TEST_F(BackwardChecks, AnOutThatOverlapsAnInputOtherThanAsTheSameViewIsRefused) {
  for (const Slot input : {Slot::kGradOutput, Slot::kSelf, Slot::kTarget}) {
    SCOPED_TRACE(ParamName(input));
    TestTensor& storage = Extra({21});
    RawCall c = Valid();
    Put(c, input, View(storage, {4, 5}, {5, 1}, 0));
    c.out = View(storage, {4, 5}, {5, 1}, 1);
    ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "out");
    c.out = View(storage, {4, 5}, {5, 1}, 0);  // the very same view: in place
    ExpectAccepted(c);
  }
  // A broadcast weight inside out's storage overlaps it without being the same view.
  TestTensor& wide = Extra({20});
  RawCall c = Valid();
  c.weight = View(wide, {5}, {1}, 0);
  c.out = View(wide, {4, 5}, {5, 1}, 0);
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "out");
}

TEST_F(BackwardChecks, AnOutWhoseElementsShareMemoryIsRefused) {
  RawCall c = Valid();
  c.out = SelfOverlappingOut();
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "out");
}

// The order: the earlier rule wins when two are broken ----------------------------------------------

TEST_F(BackwardChecks, EachRuleWinsOverTheRulesAfterIt) {
  const std::vector<int64_t> nine = {1, 1, 1, 1, 1, 1, 1, 4, 5};
  // (2) dtype before (3) reduction
  ExpectRejected({Extra({4, 5}, ACL_INT32).get(), self_.get(), target_.get(), nullptr, 7, out_.get()},
                 ACLNN_ERR_PARAM_INVALID, "gradOutput dtype");
  ExpectRejected({grad_output_.get(), self_.get(), target_.get(), nullptr, 7, Extra({4, 5}, ACL_DOUBLE).get()},
                 ACLNN_ERR_PARAM_INVALID, "out dtype");
  // (3) reduction before (4) dims
  ExpectRejected({Extra(nine).get(), self_.get(), target_.get(), nullptr, -2, out_.get()}, ACLNN_ERR_PARAM_INVALID,
                 "reduction -2");
  // (4) dims before (5) out shape
  ExpectRejected({Extra(nine).get(), self_.get(), target_.get(), nullptr, 0, Extra({5, 4}).get()},
                 ACLNN_ERR_PARAM_INVALID, "gradOutput has 9 dims");
  // (5) out shape before (6) broadcasts
  ExpectRejected({Extra({3}).get(), self_.get(), target_.get(), nullptr, 0, Extra({5, 4}).get()},
                 ACLNN_ERR_PARAM_INVALID, "out shape");
  // (6) broadcasts before the address rules
  ExpectRejected({Shifted(ACL_FLOAT, 2), self_.get(), Extra({3}).get(), nullptr, 0, out_.get()},
                 ACLNN_ERR_PARAM_INVALID, "target");
  // addresses before out's memory
  TestTensor& storage = Extra({21});
  ExpectRejected({Shifted(ACL_FLOAT, 2), View(storage, {4, 5}, {5, 1}, 0), target_.get(), nullptr, 0,
                  View(storage, {4, 5}, {5, 1}, 1)},
                 ACLNN_ERR_PARAM_INVALID, "gradOutput data address");
}

// (7) promotion ---------------------------------------------------------------------------------------

TEST_F(BackwardChecks, EveryPromotionOfTheFloatTypesCastsToOut) {
  // Floats promote to a float and every float casts to every other: (7) never refuses a call the
  // earlier checks let through.
  ForEveryDTypeTriple([&](aclDataType self_dtype, aclDataType other, aclDataType weight_dtype) {
    ExpectAccepted({Extra({}, other).get(), Extra({4, 5}, self_dtype).get(), Extra({4, 5}, other).get(),
                    Extra({5}, weight_dtype).get(), 1, Extra({4, 5}, self_dtype).get()});
  });
}

}  // namespace
}  // namespace bce_prob_grad_test
