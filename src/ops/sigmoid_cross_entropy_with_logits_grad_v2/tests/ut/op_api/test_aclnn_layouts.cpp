// Memory layouts (docs/contract.md §4): non-contiguous inputs read in place, a non-contiguous out written
// in place through its view and nowhere else, out aliasing self or gradOutput, empty views.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <set>
#include <vector>

#include "aclnn/aclnn_cpu.h"
#include "common/bce_test_util.h"
#include "op_api_test_helpers.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_reference.h"
#include "permuted_strides.h"

namespace bce_test {
namespace {

using aclnn_cpu::bce_grad::ReferenceGradient;

/// Storage elements a view needs: its last element + 1, plus @p slack elements past it.
int64_t StorageFor(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides, int64_t offset,
                   int64_t slack = 3) {
  int64_t last = offset;
  for (size_t k = 0; k < dims.size(); ++k) last += (dims[k] - 1) * strides[k];
  return last + 1 + slack;
}

/// A strided view over a poisoned storage just large enough (plus slack).
std::unique_ptr<TestTensor> Strided(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
                                    int64_t offset, aclDataType dtype = ACL_FLOAT) {
  return std::make_unique<TestTensor>(dims, strides, offset, StorageFor(dims, strides, offset), dtype);
}

/// Every storage element of @p out outside its view still holds the poison byte; every element
/// inside was written (not the poison NaN: the tests use finite inputs).
void ExpectOnlyViewWritten(const TestTensor& out) {
  std::set<int64_t> in_view;
  for (int64_t i = 0; i < out.numel(); ++i) in_view.insert(out.StorageIndex(i));
  const std::vector<uint8_t> bytes = out.StorageBytes();
  const size_t size = aclDataTypeSize(out.dtype());
  int64_t outside_changed = 0;
  for (int64_t e = 0; e < out.storage_elems(); ++e) {
    if (in_view.count(e) != 0) continue;
    for (size_t b = 0; b < size; ++b) {
      if (bytes[static_cast<size_t>(e) * size + b] != kPoisonByte) {
        if (outside_changed++ < 5) ADD_FAILURE() << "storage element " << e << " outside the view was written";
        break;
      }
    }
  }
  EXPECT_EQ(outside_changed, 0);
  int64_t unwritten = 0;
  for (int64_t i = 0; i < out.numel(); ++i) {
    if (std::isnan(out.Get(i)) && unwritten++ < 5) ADD_FAILURE() << "view element " << i << " was not written";
  }
  EXPECT_EQ(unwritten, 0);
}

/// Random finite inputs for a problem.
void FillInputs(const Problem& p, uint64_t seed) {
  FillRandom(*p.self, seed, -6, 6);
  FillRandom(*p.target, seed + 1, 0, 1);
  FillRandom(*p.grad_output, seed + 2, -2, 2);
  if (p.weight) FillRandom(*p.weight, seed + 3, 0.1, 2);
  if (p.pos_weight) FillRandom(*p.pos_weight, seed + 4, 0.5, 3);
}

void RunFillAndCheck(const Problem& p, uint64_t seed) {
  FillInputs(p, seed);
  ASSERT_EQ(RunOperator(p), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(CheckAgainstReference(p).mismatches, 0);
}

// ---------------------------------------------------------------------------------------------
// Non-contiguous inputs are read in place.

TEST(StridedInputs, TransposedSelfIsReadInPlace) {
  auto x = Strided({37, 23}, {1, 37}, 0);
  TestTensor y({37, 23}, ACL_FLOAT), dout({37, 23}, ACL_FLOAT), out({37, 23}, ACL_FLOAT);
  RunFillAndCheck({&dout, x.get(), &y, nullptr, nullptr, 0, &out}, 1);
}

TEST(StridedInputs, SlicedSelfAndTargetWithOffsetAreReadInPlace) {
  auto x = Strided({20, 30}, {40, 1}, 85);
  auto y = Strided({20, 30}, {32, 1}, 7);
  TestTensor dout({20, 30}, ACL_FLOAT), out({20, 30}, ACL_FLOAT);
  RunFillAndCheck({&dout, x.get(), y.get(), nullptr, nullptr, 1, &out}, 2);
}

TEST(StridedInputs, StepStridedOperandsAreReadInPlace) {
  auto x = Strided({16, 20}, {60, 3}, 1);
  auto y = Strided({16, 20}, {41, 2}, 0);
  auto dout = Strided({16, 20}, {100, 5}, 4);
  auto w = Strided({16, 20}, {21, 1}, 2);
  auto pw = Strided({20}, {2}, 1);
  TestTensor out({16, 20}, ACL_FLOAT);
  RunFillAndCheck({dout.get(), x.get(), y.get(), w.get(), pw.get(), 2, &out}, 3);
}

TEST(StridedInputs, StrideZeroExpandedSelfAndTargetAreReadInPlace) {
  auto x = Strided({24, 33}, {0, 1}, 0);  // every row is the same storage row
  auto y = Strided({24, 33}, {1, 0}, 0);  // every column is the same storage column
  TestTensor dout({24, 33}, ACL_FLOAT), out({24, 33}, ACL_FLOAT);
  RunFillAndCheck({&dout, x.get(), y.get(), nullptr, nullptr, 0, &out}, 4);
}

TEST(StridedInputs, StrideZeroExpandedGradOutputAndWeightAreReadInPlace) {
  auto dout = Strided({24, 33}, {0, 0}, 5);  // one element seen everywhere
  auto w = Strided({24, 33}, {1, 0}, 0);
  TestTensor x({24, 33}, ACL_FLOAT), y({24, 33}, ACL_FLOAT), out({24, 33}, ACL_FLOAT);
  RunFillAndCheck({dout.get(), &x, &y, w.get(), nullptr, 1, &out}, 5);
}

TEST(StridedInputs, StridedInputsOfMixedDtypesAreReadInPlace) {
  auto x = Strided({19, 21}, {1, 19}, 0, ACL_FLOAT16);
  auto y = Strided({19, 21}, {50, 2}, 3, ACL_BF16);
  auto dout = Strided({19, 21}, {0, 1}, 0, ACL_DOUBLE);
  TestTensor out({19, 21}, ACL_BF16);
  RunFillAndCheck({dout.get(), x.get(), y.get(), nullptr, nullptr, 0, &out}, 6);
}

TEST(StridedInputs, LargeTransposedInputsAcrossManyBlocks) {
  auto x = Strided({512, 300}, {1, 512}, 0);
  auto y = Strided({512, 300}, {1, 512}, 0);
  TestTensor dout({}, ACL_FLOAT), out({512, 300}, ACL_FLOAT);
  RunFillAndCheck({&dout, x.get(), y.get(), nullptr, nullptr, 1, &out}, 7);
}

TEST(StridedInputs, TransposedSelfInTilesOfWholeRowGroupsAcrossThreadCounts) {
  // 200 rows of 1000: the staged self is copied in groups of 16 rows and the tiles hold whole
  // groups (Note [Row groups]); 200 is not a multiple of 16, so the last group is short.
  auto x = Strided({200, 1000}, {1, 200}, 0);
  TestTensor y({200, 1000}, ACL_FLOAT), dout({200, 1000}, ACL_FLOAT), w({1000}, ACL_FLOAT), out({200, 1000}, ACL_FLOAT);
  const int32_t before = aclnnCpuGetNumThreads();
  for (const int32_t threads : {1, 2, 3}) {
    SCOPED_TRACE(::testing::Message() << "threads " << threads);
    ASSERT_EQ(aclnnCpuSetNumThreads(threads), ACL_SUCCESS);
    out.Poison();
    RunFillAndCheck({&dout, x.get(), &y, &w, nullptr, 1, &out}, 8);
  }
  ASSERT_EQ(aclnnCpuSetNumThreads(before), ACL_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// A non-contiguous out is written in place, through its view only.

TEST(StridedOut, StepStridedOutWritesOnlyItsView) {
  auto out = Strided({13, 17}, {40, 2}, 5);
  TestTensor x({13, 17}, ACL_FLOAT), y({13, 17}, ACL_FLOAT), dout({13, 17}, ACL_FLOAT);
  RunFillAndCheck({&dout, &x, &y, nullptr, nullptr, 0, out.get()}, 10);
  ExpectOnlyViewWritten(*out);
}

TEST(StridedOut, TransposedOutWritesEveryElementOfItsView) {
  auto out = Strided({29, 31}, {1, 29}, 0);
  TestTensor x({29, 31}, ACL_FLOAT), y({29, 31}, ACL_FLOAT), dout({}, ACL_FLOAT);
  RunFillAndCheck({&dout, &x, &y, nullptr, nullptr, 1, out.get()}, 11);
  ExpectOnlyViewWritten(*out);
}

// Rows of at least kMinRowDirectElems with a gap between them (a slice of a wider tensor) are
// written in place row by row; the gaps keep their poison.
TEST(StridedOut, PaddedLongRowsAreWrittenInPlaceAndTheGapsAreUntouched) {
  for (aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
    auto out = Strided({40, 300}, {333, 1}, 7, dtype);
    auto x = Strided({40, 300}, {301, 1}, 1, dtype);
    TestTensor y({40, 300}, dtype), dout({}, dtype), pw({300}, dtype);
    RunFillAndCheck({&dout, x.get(), &y, nullptr, &pw, 1, out.get()}, 12);
    ExpectOnlyViewWritten(*out);
  }
}

TEST(Aliasing, PaddedLongRowsOutIsSelf) {
  auto self = Strided({50, 260}, {270, 1}, 2);
  TestTensor y({50, 260}, ACL_FLOAT), dout({50, 260}, ACL_FLOAT);
  FillInputs({&dout, self.get(), &y, nullptr, nullptr, 0, self.get()}, 13);
  std::vector<double> x_values(static_cast<size_t>(self->numel()));
  for (int64_t i = 0; i < self->numel(); ++i) x_values[static_cast<size_t>(i)] = self->Get(i);
  ASSERT_EQ(RunOperator({&dout, self.get(), &y, nullptr, nullptr, 0, self.get()}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  for (int64_t i = 0; i < self->numel(); ++i) {
    const double expected = ReferenceGradient(x_values[static_cast<size_t>(i)], y.Get(i), dout.Get(i), std::nullopt,
                                              std::nullopt, 1.0);
    ASSERT_NEAR(self->Get(i), expected, 1e-6 * (1 + std::fabs(expected))) << "element " << i;
  }
  ExpectOnlyViewWritten(*self);
}

TEST(StridedOut, OutAtAnOffsetWritesNothingBeforeOrAfterIt) {
  auto out = Strided({6, 10}, {10, 1}, 17);
  TestTensor x({6, 10}, ACL_FLOAT), y({6, 10}, ACL_FLOAT), dout({6, 10}, ACL_FLOAT);
  RunFillAndCheck({&dout, &x, &y, nullptr, nullptr, 2, out.get()}, 12);
  ExpectOnlyViewWritten(*out);
}

TEST(StridedOut, SizeOneDimWithAnyStrideIsIgnored) {
  auto out = Strided({5, 1, 7}, {9, 1000, 1}, 2);
  TestTensor x({5, 1, 7}, ACL_FLOAT), y({5, 1, 7}, ACL_FLOAT), dout({5, 1, 7}, ACL_FLOAT);
  RunFillAndCheck({&dout, &x, &y, nullptr, nullptr, 0, out.get()}, 13);
  ExpectOnlyViewWritten(*out);
}

TEST(StridedOut, StridedHalfOutFromMixedInputsWritesOnlyItsView) {
  auto out = Strided({15, 18}, {37, 2}, 1, ACL_FLOAT16);
  TestTensor x({15, 18}, ACL_FLOAT), y({15, 18}, ACL_FLOAT16), dout({18}, ACL_BF16), w({15, 1}, ACL_FLOAT);
  RunFillAndCheck({&dout, &x, &y, &w, nullptr, 1, out.get()}, 14);
  ExpectOnlyViewWritten(*out);
}

TEST(StridedOut, StridedDoubleOutWritesOnlyItsView) {
  auto out = Strided({9, 4, 5}, {60, 1, 8}, 3, ACL_DOUBLE);
  TestTensor x({9, 4, 5}, ACL_DOUBLE), y({9, 4, 5}, ACL_DOUBLE), dout({9, 4, 5}, ACL_DOUBLE);
  RunFillAndCheck({&dout, &x, &y, nullptr, nullptr, 0, out.get()}, 15);
  ExpectOnlyViewWritten(*out);
}

TEST(StridedOut, LargeStridedOutAcrossManyBlocksWritesOnlyItsView) {
  auto out = Strided({400, 700}, {1403, 2}, 1);
  TestTensor x({400, 700}, ACL_FLOAT), y({400, 700}, ACL_FLOAT), dout({700}, ACL_FLOAT);
  RunFillAndCheck({&dout, &x, &y, nullptr, nullptr, 1, out.get()}, 16);
  ExpectOnlyViewWritten(*out);
}

TEST(StridedOut, OutWhoseElementsShareMemoryIsRejected) {
  auto out = Strided({4, 5}, {0, 1}, 0);  // every row is the same storage row
  TestTensor x({4, 5}, ACL_FLOAT), y({4, 5}, ACL_FLOAT), dout({4, 5}, ACL_FLOAT);
  Problem p{&dout, &x, &y, nullptr, nullptr, 0, out.get()};
  FillInputs(p, 17);
  const auto before = out->StorageBytes();
  EXPECT_EQ(RunOperator(p), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("out"), std::string::npos) << aclGetRecentErrMsg();
  EXPECT_EQ(FirstDifference(before, out->StorageBytes()), -1);
}

// ---------------------------------------------------------------------------------------------
// out may alias self or gradOutput exactly (same storage, same view).

/// Runs @p aliased (whose out shares storage with an input) and checks it against the reference
/// computed from @p pristine, a copy of the inputs before the run.
void RunAliasedAndCheck(const RawCall& aliased, Problem pristine) {
  ASSERT_EQ(RunRaw(aliased), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(CheckAgainstReference(pristine).mismatches, 0);
}

TEST(Aliasing, OutIsTheSelfTensor) {
  TestTensor x({33, 40}, ACL_FLOAT), x_before({33, 40}, ACL_FLOAT), y({33, 40}, ACL_FLOAT), dout({}, ACL_FLOAT);
  FillRandom(x, 20, -6, 6);
  FillRandom(x_before, 20, -6, 6);
  FillRandom(y, 21, 0, 1);
  FillRandom(dout, 22, 0.5, 2);
  RunAliasedAndCheck({dout.get(), x.get(), y.get(), nullptr, nullptr, 1, x.get()},
                     {&dout, &x_before, &y, nullptr, nullptr, 1, &x});
}

TEST(Aliasing, OutIsASecondTensorOverSelfsStorage) {
  TestTensor x({33, 40}, ACL_FLOAT), x_before({33, 40}, ACL_FLOAT), y({33, 40}, ACL_FLOAT), dout({33, 40}, ACL_FLOAT),
      pw({40}, ACL_FLOAT);
  FillRandom(x, 23, -6, 6);
  FillRandom(x_before, 23, -6, 6);
  FillRandom(y, 24, 0, 1);
  FillRandom(dout, 25, -2, 2);
  FillRandom(pw, 26, 0.5, 3);
  TensorHandle out = ContiguousOver(x);
  RunAliasedAndCheck({dout.get(), x.get(), y.get(), nullptr, pw.get(), 0, out.get()},
                     {&dout, &x_before, &y, nullptr, &pw, 0, &x});
}

TEST(Aliasing, OutIsTheGradOutputTensor) {
  TestTensor x({33, 40}, ACL_FLOAT), y({33, 40}, ACL_FLOAT), dout({33, 40}, ACL_FLOAT),
      dout_before({33, 40}, ACL_FLOAT), w({33, 1}, ACL_FLOAT);
  FillRandom(x, 27, -6, 6);
  FillRandom(y, 28, 0, 1);
  FillRandom(dout, 29, -2, 2);
  FillRandom(dout_before, 29, -2, 2);
  FillRandom(w, 30, 0.1, 2);
  RunAliasedAndCheck({dout.get(), x.get(), y.get(), w.get(), nullptr, 2, dout.get()},
                     {&dout_before, &x, &y, &w, nullptr, 2, &dout});
}

TEST(Aliasing, OutIsAStridedViewThatIsAlsoSelf) {
  const std::vector<int64_t> dims{16, 20}, strides{45, 2};
  auto x = Strided(dims, strides, 3);
  auto x_before = Strided(dims, strides, 3);
  TestTensor y(dims, ACL_FLOAT), dout(dims, ACL_FLOAT);
  FillRandom(*x, 31, -6, 6);
  FillRandom(*x_before, 31, -6, 6);
  FillRandom(y, 32, 0, 1);
  FillRandom(dout, 33, -2, 2);
  TensorHandle out = ViewOver(*x, dims, strides, 3);
  RunAliasedAndCheck({dout.get(), x->get(), y.get(), nullptr, nullptr, 0, out.get()},
                     {&dout, x_before.get(), &y, nullptr, nullptr, 0, x.get()});
  ExpectOnlyViewWritten(*x);
}

TEST(Aliasing, OutIsSelfWhileOtherInputsNeedConversion) {
  TestTensor x({21, 35}, ACL_FLOAT), x_before({21, 35}, ACL_FLOAT), y({21, 35}, ACL_FLOAT),
      dout({21, 35}, ACL_FLOAT16), w({35}, ACL_BF16);
  FillRandom(x, 34, -6, 6);
  FillRandom(x_before, 34, -6, 6);
  FillRandom(y, 35, 0, 1);
  FillRandom(dout, 36, -2, 2);
  FillRandom(w, 37, 0.1, 2);
  RunAliasedAndCheck({dout.get(), x.get(), y.get(), w.get(), nullptr, 1, x.get()},
                     {&dout, &x_before, &y, &w, nullptr, 1, &x});
}

TEST(Aliasing, OutIsHalfGradOutputWhileSelfIsDouble) {
  TestTensor x({21, 35}, ACL_DOUBLE), y({21, 35}, ACL_FLOAT16), dout({21, 35}, ACL_FLOAT16),
      dout_before({21, 35}, ACL_FLOAT16);
  FillRandom(x, 38, -6, 6);
  FillRandom(y, 39, 0, 1);
  FillRandom(dout, 40, -2, 2);
  FillRandom(dout_before, 40, -2, 2);
  RunAliasedAndCheck({dout.get(), x.get(), y.get(), nullptr, nullptr, 0, dout.get()},
                     {&dout_before, &x, &y, nullptr, nullptr, 0, &dout});
}

TEST(Aliasing, OutIsSelfAcrossManyBlocks) {
  const std::vector<int64_t> dims{1024, 1031};
  TestTensor x(dims, ACL_FLOAT), x_before(dims, ACL_FLOAT), y(dims, ACL_FLOAT), dout({}, ACL_FLOAT), pw({1031}, ACL_FLOAT);
  FillRandom(x, 41, -6, 6);
  FillRandom(x_before, 41, -6, 6);
  FillRandom(y, 42, 0, 1);
  FillRandom(dout, 43, 0.5, 2);
  FillRandom(pw, 44, 0.5, 3);
  RunAliasedAndCheck({dout.get(), x.get(), y.get(), nullptr, pw.get(), 1, x.get()},
                     {&dout, &x_before, &y, nullptr, &pw, 1, &x});
}

// ---------------------------------------------------------------------------------------------
// Operands that all share one permutation of a dense block (a transpose, channels-last) are
// walked in storage order: no operand is staged, so no workspace is needed.

using test_support::PermutedDense;

struct SharedPermutationCase {
  std::vector<int64_t> dims;
  std::vector<int> storage_order;
};

TEST(SharedPermutation, SixOperandsOfOneLayoutRunInPlaceWithoutWorkspaceAndMatchTheReference) {
  const SharedPermutationCase cases[] = {
      {{37, 23}, {1, 0}},              // a transpose
      {{4, 5, 6}, {2, 0, 1}},          // a rotation of the dims
      {{2, 3, 9, 11}, {0, 2, 3, 1}},   // NCHW sizes in NHWC memory (channels-last)
      {{3, 1, 7, 2}, {3, 1, 0, 2}},    // with a size-1 dim
      {{300, 257}, {1, 0}},            // several blocks' worth
  };
  for (const SharedPermutationCase& c : cases) {
    for (const aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16}) {
      SCOPED_TRACE(::testing::Message() << "dims " << c.dims.size() << "-d, first " << c.dims[0] << ", dtype "
                                        << static_cast<int>(dtype));
      const std::vector<int64_t> strides = PermutedDense(c.dims, c.storage_order);
      auto x = Strided(c.dims, strides, 0, dtype), y = Strided(c.dims, strides, 0, dtype);
      auto dout = Strided(c.dims, strides, 0, dtype), w = Strided(c.dims, strides, 0, dtype);
      auto pw = Strided(c.dims, strides, 0, dtype), out = Strided(c.dims, strides, 0, dtype);
      const Problem p{dout.get(), x.get(), y.get(), w.get(), pw.get(), 1, out.get()};
      FillInputs(p, 60);
      uint64_t workspace_size = 12345;
      aclOpExecutor* executor = nullptr;
      ASSERT_EQ(FirstPhase({dout->get(), x->get(), y->get(), w->get(), pw->get(), 1, out->get()}, &workspace_size,
                           &executor),
                ACLNN_SUCCESS)
          << aclGetRecentErrMsg();
      EXPECT_EQ(workspace_size, 0u) << "an operand was staged";
      ASSERT_EQ(aclnnBinaryCrossEntropyWithLogitsBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS)
          << aclGetRecentErrMsg();
      ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
      EXPECT_EQ(CheckAgainstReference(p).mismatches, 0);
      ExpectOnlyViewWritten(*out);
    }
  }
}

TEST(SharedPermutation, ATransposedOutOverRowMajorInputsStagesSomethingAndIsRight) {
  // The walk follows out's layout, so the row-major inputs are the staged ones.
  const std::vector<int64_t> dims = {64, 48};
  auto out = Strided(dims, {1, 64}, 0);
  TestTensor x(dims, ACL_FLOAT), y(dims, ACL_FLOAT), dout(dims, ACL_FLOAT);
  const Problem p{&dout, &x, &y, nullptr, nullptr, 0, out.get()};
  FillInputs(p, 61);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(FirstPhase({dout.get(), x.get(), y.get(), nullptr, nullptr, 0, out->get()}, &workspace_size, &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_GT(workspace_size, 0u);
  DeviceBuffer workspace(workspace_size);
  ASSERT_EQ(aclnnBinaryCrossEntropyWithLogitsBackward(workspace.get(), workspace_size, executor, nullptr),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(CheckAgainstReference(p).mismatches, 0);
  ExpectOnlyViewWritten(*out);
}

// ---------------------------------------------------------------------------------------------
// Empty self: workspace 0, success, nothing written.

void ExpectEmptyCallWritesNothing(const std::vector<int64_t>& dims, aclDataType dtype) {
  TestTensor x(dims, dtype), y(dims, dtype), dout(dims, dtype), out(dims, dtype);
  FillRandom(out, 50, -1, 1);
  const auto before = out.StorageBytes();
  uint64_t workspace_size = 12345;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(FirstPhase({dout.get(), x.get(), y.get(), nullptr, nullptr, 1, out.get()}, &workspace_size, &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(workspace_size, 0u);
  ASSERT_EQ(aclnnBinaryCrossEntropyWithLogitsBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(FirstDifference(before, out.StorageBytes()), -1);
}

TEST(EmptySelf, LeadingZeroDimNeedsNoWorkspaceAndWritesNothing) { ExpectEmptyCallWritesNothing({0, 5}, ACL_FLOAT); }

TEST(EmptySelf, MiddleZeroDimNeedsNoWorkspaceAndWritesNothing) { ExpectEmptyCallWritesNothing({3, 0, 4}, ACL_FLOAT16); }

TEST(EmptySelf, OneDimZeroNeedsNoWorkspaceAndWritesNothing) { ExpectEmptyCallWritesNothing({0}, ACL_DOUBLE); }

TEST(EmptySelf, EmptyOutViewOverAFilledStorageLeavesItUntouched) {
  TestTensor x({0, 4}, ACL_FLOAT), y({0, 4}, ACL_FLOAT), dout({}, ACL_FLOAT);
  TestTensor storage({10}, ACL_FLOAT);
  FillRandom(storage, 51, -1, 1);
  const auto before = storage.StorageBytes();
  TensorHandle out = ViewOver(storage, {0, 4}, {4, 1}, 2);
  ASSERT_EQ(RunRaw({dout.get(), x.get(), y.get(), nullptr, nullptr, 2, out.get()}), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(FirstDifference(before, storage.StorageBytes()), -1);
}

// ---------------------------------------------------------------------------------------------
// The operator on tensors made the way CANN's samples make them.

TEST(AclTensorInOperator, ContiguousTensorsWithViewShapeStorageDimsWork) {
  TestTensor x({6, 7}, ACL_FLOAT), y({6, 7}, ACL_FLOAT), dout({6, 7}, ACL_FLOAT), out({6, 7}, ACL_FLOAT);
  FillRandom(x, 1, -4, 4);
  FillRandom(y, 2, 0, 1);
  FillRandom(dout, 3, -2, 2);
  TensorHandle tx = ContiguousOver(x), ty = ContiguousOver(y), tdout = ContiguousOver(dout), tout = ContiguousOver(out);
  ASSERT_EQ(RunRaw({tdout.get(), tx.get(), ty.get(), nullptr, nullptr, 0, tout.get()}), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(CheckAgainstReference({&dout, &x, &y, nullptr, nullptr, 0, &out}).mismatches, 0);
}

TEST(AclTensorInOperator, ViewsWithMultiDimStorageDimsWork) {
  // A [4, 5] window at row 1, column 2 of an [8, 9] storage, described by its 2-D storage shape.
  TestTensor x({4, 5}, {9, 1}, 11, 72, ACL_FLOAT), out({4, 5}, {9, 1}, 11, 72, ACL_FLOAT);
  TestTensor y({4, 5}, ACL_FLOAT), dout({}, ACL_FLOAT);
  FillRandom(x, 4, -4, 4);
  FillRandom(y, 5, 0, 1);
  dout.Set(0, 1.5);
  const int64_t view[2] = {4, 5}, strides[2] = {9, 1}, storage_dims[2] = {8, 9};
  TensorHandle tx(aclCreateTensor(view, 2, ACL_FLOAT, strides, 11, ACL_FORMAT_ND, storage_dims, 2, x.data()));
  TensorHandle tout(aclCreateTensor(view, 2, ACL_FLOAT, strides, 11, ACL_FORMAT_ND, storage_dims, 2, out.data()));
  ASSERT_NE(tx, nullptr) << aclGetRecentErrMsg();
  ASSERT_NE(tout, nullptr) << aclGetRecentErrMsg();
  ASSERT_EQ(RunRaw({dout.get(), tx.get(), y.get(), nullptr, nullptr, 1, tout.get()}), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(CheckAgainstReference({&dout, &x, &y, nullptr, nullptr, 1, &out}).mismatches, 0);
}

}  // namespace
}  // namespace bce_test
