// aclnnBinaryCrossEntropyGetWorkspaceSize's checks, as its header states them, first failure wins:
// (1) null pointers (ACLNN_ERR_PARAM_NULLPTR), then ACLNN_ERR_PARAM_INVALID for (2) dtypes,
// (3) reduction, (4) dims, (5) target shape, (6) weight broadcast, (7) out shape, then for a
// non-empty self the data addresses and out's memory; (8) promotion. After every refusal no
// executor is made, no byte of any tensor has changed, and aclGetRecentErrMsg() names the
// first phase and the parameter.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "first_phase_checks.h"
#include "common/bce_prob_test_util.h"

namespace bce_prob_test {
namespace {

using acl_test::TensorHandle;

/// A valid call over [4, 5] fp32 tensors with a [5] weight, reduction none; each test breaks one
/// rule (or two, for the order). Every tensor made here is snapshot before a refused call and
/// compared after.
class ForwardChecks : public acl_test::FirstPhaseChecks {
 protected:
  ForwardChecks() {
    FillProbabilities(self_, 1);
    FillLabels(target_, 2);
    acl_test::FillRandom(weight_, 3, 0.5, 2);
    acl_test::FillRandom(out_, 4, -9, 9);  // not the poison: any write shows
    tracked_ = {&self_, &target_, &weight_, &out_};
  }

  RawCall Valid() { return {self_.get(), target_.get(), weight_.get(), 0, out_.get()}; }

  void ExpectRejected(const RawCall& c, aclnnStatus code, const std::string& what, bool null_ws = false,
                      bool null_executor = false) {
    ExpectRejectedCall(HarnessCall(c), kFirstPhase, code, what, null_ws, null_executor);
  }
  void ExpectAccepted(const RawCall& c) { ExpectAcceptedCall(HarnessCall(c)); }

  TestTensor self_{{4, 5}, ACL_FLOAT}, target_{{4, 5}, ACL_FLOAT}, weight_{{5}, ACL_FLOAT}, out_{{4, 5}, ACL_FLOAT};
};

// (1) required pointers ---------------------------------------------------------------------------

TEST_F(ForwardChecks, NullSelfTargetOutWorkspaceSizeOrExecutorIsANullptrErrorNamingIt) {
  RawCall c = Valid();
  c.self = nullptr;
  ExpectRejected(c, ACLNN_ERR_PARAM_NULLPTR, "self must not be null");
  c = Valid();
  c.target = nullptr;
  ExpectRejected(c, ACLNN_ERR_PARAM_NULLPTR, "target must not be null");
  c = Valid();
  c.out = nullptr;
  ExpectRejected(c, ACLNN_ERR_PARAM_NULLPTR, "out must not be null");
  ExpectRejected(Valid(), ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be null", /*null_ws=*/true);
  ExpectRejected(Valid(), ACLNN_ERR_PARAM_NULLPTR, "executor must not be null", false, /*null_executor=*/true);
}

TEST_F(ForwardChecks, ANullPointerWinsOverEveryLaterRule) {
  const TestTensor& int_self = Extra({9, 9, 9, 1, 1, 1, 1, 1, 1}, ACL_INT32);
  ExpectRejected({int_self.get(), nullptr, nullptr, 7, out_.get()}, ACLNN_ERR_PARAM_NULLPTR, "target");
}

TEST_F(ForwardChecks, ANullWeightIsAllOnes) { ExpectAccepted({self_.get(), target_.get(), nullptr, 0, out_.get()}); }

TEST_F(ForwardChecks, ADestroyedTensorIsAnInvalidParameterNamingIt) {
  const int64_t dims[2] = {4, 5};
  for (const char* name : {"self", "target", "weight", "out"}) {
    aclTensor* dead = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, self_.data());
    ASSERT_NE(dead, nullptr);
    ASSERT_EQ(aclDestroyTensor(dead), ACL_SUCCESS);
    RawCall c = Valid();
    const std::string n = name;
    if (n == "self") c.self = dead;
    if (n == "target") c.target = dead;
    if (n == "weight") c.weight = dead;
    if (n == "out") c.out = dead;
    ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, n + " is not a live tensor");
  }
}

// (2) dtypes ----------------------------------------------------------------------------------------

TEST_F(ForwardChecks, ADTypeOutsideTheFloatTypesIsRefusedNamingTheTensor) {
  for (const aclDataType bad : {ACL_INT32, ACL_INT64, ACL_INT8, ACL_UINT8, ACL_BOOL}) {
    SCOPED_TRACE(aclnn_cpu::DTypeName(bad));
    RawCall c = Valid();
    c.self = Extra({4, 5}, bad).get();
    ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "self dtype");
    c = Valid();
    c.target = Extra({4, 5}, bad).get();
    ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "target dtype");
    c = Valid();
    c.weight = Extra({5}, bad).get();
    ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "weight");
    c = Valid();
    c.out = Extra({4, 5}, bad).get();
    ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "out dtype");
  }
}

TEST_F(ForwardChecks, OutMustHaveSelfsDTypeNotTheTargetsOrThePromotedOne) {
  RawCall c = Valid();
  c.out = Extra({4, 5}, ACL_FLOAT16).get();
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "out dtype");
  c.out = Extra({4, 5}, ACL_DOUBLE).get();  // fp64 is wider, still not self's
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "out dtype");
  // self fp16 and target fp32 promote to fp32; out is self's fp16.
  TestTensor& half_self = Extra({4, 5}, ACL_FLOAT16);
  ExpectRejected({half_self.get(), target_.get(), nullptr, 0, out_.get()}, ACLNN_ERR_PARAM_INVALID, "out dtype");
  ExpectAccepted({half_self.get(), target_.get(), nullptr, 0, Extra({4, 5}, ACL_FLOAT16).get()});
}

// (3) reduction, (4) dims ---------------------------------------------------------------------------

TEST_F(ForwardChecks, AReductionOutsideZeroToTwoIsRefused) {
  for (const int64_t bad : {int64_t{3}, int64_t{-1}, int64_t{1} << 40}) {
    RawCall c = Valid();
    c.reduction = bad;
    ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "reduction " + std::to_string(bad));
  }
}

TEST_F(ForwardChecks, MoreThanEightDimsAreRefusedAndEightAccepted) {
  const std::vector<int64_t> nine = {1, 1, 1, 1, 1, 1, 1, 4, 5}, eight = {1, 1, 1, 1, 1, 1, 4, 5};
  ExpectRejected({Extra(nine).get(), Extra(nine).get(), nullptr, 0, Extra(nine).get()}, ACLNN_ERR_PARAM_INVALID,
                 "self has 9 dims");
  RawCall c = Valid();
  c.weight = Extra({1, 1, 1, 1, 1, 1, 1, 1, 5}).get();
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "weight");
  ExpectAccepted(
      {Extra(eight).get(), Extra(eight).get(), Extra({1, 1, 1, 1, 1, 1, 1, 5}).get(), 0, Extra(eight).get()});
}

// (5) target shape, (6) weight broadcast, (7) out shape ---------------------------------------------

TEST_F(ForwardChecks, TheTargetMustHaveSelfsShapeNotMerelyBroadcast) {
  for (const std::vector<int64_t>& dims : {std::vector<int64_t>{5, 4}, {5}, {1, 5}, {4, 1}, {}, {20}}) {
    RawCall c = Valid();
    c.target = Extra(dims).get();
    ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "target shape");
  }
}

TEST_F(ForwardChecks, TheWeightMustBroadcastToSelfsShape) {
  for (const std::vector<int64_t>& dims : {std::vector<int64_t>{3}, {4}, {2, 5}, {5, 4}, {2, 4, 5}, {1, 4, 5}}) {
    SCOPED_TRACE(acl_test::DimsText(dims));
    RawCall c = Valid();
    c.weight = Extra(dims).get();
    // [1, 4, 5] broadcasts with [4, 5], but to [1, 4, 5]: not self's shape.
    ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "weight");
  }
  for (const std::vector<int64_t>& dims : {std::vector<int64_t>{5}, {1}, {}, {4, 1}, {1, 5}, {4, 5}, {1, 1}}) {
    SCOPED_TRACE(acl_test::DimsText(dims));
    RawCall c = Valid();
    c.weight = Extra(dims).get();
    ExpectAccepted(c);
  }
}

TEST_F(ForwardChecks, OutHasSelfsShapeForNoneAndOneElementForMeanAndSum) {
  for (const std::vector<int64_t>& dims : {std::vector<int64_t>{5, 4}, {20}, {1}, {}, {1, 4, 5}}) {
    RawCall c = Valid();
    c.out = Extra(dims).get();
    ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "out shape");
  }
  for (const int64_t reduction : {1, 2}) {
    for (const std::vector<int64_t>& dims : {std::vector<int64_t>{4, 5}, {2}, {1, 1}, {0}}) {
      SCOPED_TRACE(::testing::Message() << "reduction " << reduction << " out " << acl_test::DimsText(dims));
      RawCall c = Valid();
      c.reduction = reduction;
      c.out = Extra(dims).get();
      ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "out shape");
    }
    for (const std::vector<int64_t>& dims : {std::vector<int64_t>{}, {1}}) {
      RawCall c = Valid();
      c.reduction = reduction;
      c.out = Extra(dims).get();
      ExpectAccepted(c);
    }
  }
}

// Memory: addresses and out's view (non-empty self only) -----------------------------------------

TEST_F(ForwardChecks, AMisalignedDataAddressIsRefusedNamingTheTensor) {
  for (const char* name : {"self", "target", "weight", "out"}) {
    RawCall c = Valid();
    const std::string n = name;
    if (n == "self") c.self = Shifted(ACL_FLOAT, 2);
    if (n == "target") c.target = Shifted(ACL_FLOAT, 2);
    if (n == "weight") c.weight = Shifted(ACL_FLOAT, 2, {5});
    if (n == "out") c.out = Shifted(ACL_FLOAT, 2);
    ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, n + " data address");
  }
  // A multiple of the element size is enough (4 bytes for fp32, 2 for fp16).
  RawCall c = Valid();
  c.self = Shifted(ACL_FLOAT, 4);
  ExpectAccepted(c);
  const aclTensor* half_self = Shifted(ACL_FLOAT16, 2);
  ExpectAccepted({half_self, target_.get(), nullptr, 0, Extra({4, 5}, ACL_FLOAT16).get()});
  ExpectRejected({Shifted(ACL_FLOAT16, 1), target_.get(), nullptr, 0, Extra({4, 5}, ACL_FLOAT16).get()},
                 ACLNN_ERR_PARAM_INVALID, "self data address");
}

TEST_F(ForwardChecks, AnEmptySelfWaivesTheAddressRules) {
  const int64_t dims[2] = {0, 5};
  TestTensor& storage = Extra({8});
  TensorHandle self(
      aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, static_cast<char*>(storage.data()) + 1));
  ASSERT_NE(self, nullptr) << aclGetRecentErrMsg();
  uint64_t ws = 1;
  aclOpExecutor* e = nullptr;
  const RawCall c{self.get(), Extra({0, 5}).get(), nullptr, 0, Extra({0, 5}).get()};
  ASSERT_EQ(HarnessCall(c).FirstPhase(&ws, &e), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(ws, 0u);
  EXPECT_EQ(aclnnBinaryCrossEntropy(nullptr, 0, e, nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
}

TEST_F(ForwardChecks, ForNoneAnOutThatOverlapsAnInputOtherThanAsTheSameViewIsRefused) {
  TestTensor& storage = Extra({21});
  const aclTensor* self = View(storage, {4, 5}, {5, 1}, 0);
  const aclTensor* shifted = View(storage, {4, 5}, {5, 1}, 1);
  ExpectRejected({self, target_.get(), nullptr, 0, shifted}, ACLNN_ERR_PARAM_INVALID, "out");
  // out over the weight's storage, the weight broadcast along rows: overlaps, not the same view.
  TestTensor& wide = Extra({20});
  ExpectRejected({self_.get(), target_.get(), View(wide, {5}, {1}, 0), 0, View(wide, {4, 5}, {5, 1}, 0)},
                 ACLNN_ERR_PARAM_INVALID, "out");
  // The very same view as self or as the target is in place: accepted.
  ExpectAccepted({self, target_.get(), nullptr, 0, View(storage, {4, 5}, {5, 1}, 0)});
}

TEST_F(ForwardChecks, ForNoneAnOutWhoseElementsShareMemoryIsRefused) {
  RawCall c = Valid();
  c.out = SelfOverlappingOut();
  ExpectRejected(c, ACLNN_ERR_PARAM_INVALID, "out");
}

TEST_F(ForwardChecks, ForMeanAndSumTheOutMayOverlapAnyInput) {
  // out's one element is written after every input is read.
  for (const int64_t reduction : {1, 2}) {
    RawCall c = Valid();
    c.reduction = reduction;
    c.out = View(self_, {}, {}, 7);
    ExpectAccepted(c);
  }
}

// The order: the earlier rule wins when two are broken ----------------------------------------------

TEST_F(ForwardChecks, EachRuleWinsOverTheRulesAfterIt) {
  const std::vector<int64_t> nine = {1, 1, 1, 1, 1, 1, 1, 4, 5};
  TestTensor& int_self = Extra({4, 5}, ACL_INT32);
  // (2) dtype before (3) reduction
  ExpectRejected({int_self.get(), target_.get(), nullptr, 7, out_.get()}, ACLNN_ERR_PARAM_INVALID, "self dtype");
  // out's dtype (2) before reduction (3)
  ExpectRejected({self_.get(), target_.get(), nullptr, 7, Extra({4, 5}, ACL_FLOAT16).get()}, ACLNN_ERR_PARAM_INVALID,
                 "out dtype");
  // (3) reduction before (4) dims
  ExpectRejected({Extra(nine).get(), target_.get(), nullptr, 3, out_.get()}, ACLNN_ERR_PARAM_INVALID, "reduction 3");
  // (4) dims before (5) target shape
  ExpectRejected({Extra(nine).get(), target_.get(), nullptr, 0, out_.get()}, ACLNN_ERR_PARAM_INVALID,
                 "self has 9 dims");
  // (5) target shape before (6) weight
  ExpectRejected({self_.get(), Extra({5, 4}).get(), Extra({3}).get(), 0, out_.get()}, ACLNN_ERR_PARAM_INVALID,
                 "target shape");
  // (6) weight before (7) out shape
  ExpectRejected({self_.get(), target_.get(), Extra({3}).get(), 0, Extra({5, 4}).get()}, ACLNN_ERR_PARAM_INVALID,
                 "weight");
  // (7) out shape before the address rules
  ExpectRejected({self_.get(), Shifted(ACL_FLOAT, 2), nullptr, 0, Extra({5, 4}).get()}, ACLNN_ERR_PARAM_INVALID,
                 "out shape");
  // Addresses before out's memory
  TestTensor& storage = Extra({21});
  ExpectRejected(
      {View(storage, {4, 5}, {5, 1}, 0), Shifted(ACL_FLOAT, 2), nullptr, 0, View(storage, {4, 5}, {5, 1}, 1)},
      ACLNN_ERR_PARAM_INVALID, "target data address");
}

// (8) promotion ---------------------------------------------------------------------------------------

TEST_F(ForwardChecks, EveryPromotionOfTheFloatTypesCastsToOut) {
  // PyTorch's rules promote floats to a float, and every float casts to every other: check (8)
  // never refuses a call the earlier checks let through.
  ForEveryDTypeTriple([&](aclDataType self_dtype, aclDataType target_dtype, aclDataType weight_dtype) {
    ExpectAccepted({Extra({4, 5}, self_dtype).get(), Extra({4, 5}, target_dtype).get(),
                    Extra({5}, weight_dtype).get(), 1, Extra({}, self_dtype).get()});
  });
}

}  // namespace
}  // namespace bce_prob_test
