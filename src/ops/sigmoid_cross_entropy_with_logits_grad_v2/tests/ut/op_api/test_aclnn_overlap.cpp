// out sharing memory with the inputs (docs/contract.md §3 step 5, Note [Aliasing]): an out that partially
// overlaps an input is refused with 161002 and writes nothing; the same view as any input runs
// in place with the bits of the out-of-place call; layouts that interleave without sharing a byte
// (columns of one buffer, halves of one allocation, a large interleaved out) run and are right;
// views the bounded search cannot decide are refused with a message that states the limit.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "common/bce_test_util.h"
#include "common/dtype.h"
#include "opdev/overlap.h"
#include "op_api_test_helpers.h"

namespace bce_test {
namespace {

enum class Input { kGradOutput, kSelf, kTarget, kWeight, kPosWeight };

const char* MessageName(Input input) {
  switch (input) {
    case Input::kGradOutput: return "gradOutput";
    case Input::kSelf: return "self";
    case Input::kTarget: return "target";
    case Input::kWeight: return "weightOptional";
    case Input::kPosWeight: return "posWeightOptional";
  }
  return "?";
}

/// Puts @p t in the slot of @p input.
void Put(RawCall& call, Input input, const aclTensor* t) {
  switch (input) {
    case Input::kGradOutput: call.grad_output = t; break;
    case Input::kSelf: call.self = t; break;
    case Input::kTarget: call.target = t; break;
    case Input::kWeight: call.weight = t; break;
    case Input::kPosWeight: call.pos_weight = t; break;
  }
}

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// Whether view element i of @p a and of @p b have the same bits, for every i (same dims, dtype).
::testing::AssertionResult SameBits(const TestTensor& a, const TestTensor& b) { return SameViewBits(a, b); }

// ---------------------------------------------------------------------------------------------
// Partial overlaps are refused.

class OutShiftedByOneElement : public ::testing::TestWithParam<Input> {};

// The case: out one element after self in one buffer of 100,000 (+1) floats. Before the
// rule this returned success with 5,882 of 100,000 results wrong, depending on timing.
TEST_P(OutShiftedByOneElement, IsRejectedWithBothNamesAndWritesNothing) {
  constexpr int64_t kN = 100000;
  TestTensor shared({kN + 1}, ACL_FLOAT);
  FillRandom(shared, 1, 0.25, 0.75);
  TensorHandle input = ViewOver(shared, {kN}, {1}, 0);
  TensorHandle out = ViewOver(shared, {kN}, {1}, 1);
  TestTensor x({kN}, ACL_FLOAT), y({kN}, ACL_FLOAT), dout({}, ACL_FLOAT);
  FillRandom(x, 2, -4, 4);
  FillRandom(y, 3, 0, 1);
  FillConstant(dout, 1.0);
  RawCall call{dout.get(), x.get(), y.get(), nullptr, nullptr, 0, out.get()};
  Put(call, GetParam(), input.get());
  const auto before = shared.StorageBytes();
  PrimeRecentErrMsg();
  EXPECT_EQ(RunRaw(call), ACLNN_ERR_PARAM_INVALID);
  const std::string message = aclGetRecentErrMsg();
  EXPECT_TRUE(Contains(message, std::string("out overlaps ") + MessageName(GetParam()))) << message;
  EXPECT_TRUE(Contains(message, "not the same view")) << message;
  EXPECT_EQ(FirstDifference(before, shared.StorageBytes()), -1);
}

INSTANTIATE_TEST_SUITE_P(EveryInput, OutShiftedByOneElement,
                         ::testing::Values(Input::kGradOutput, Input::kSelf, Input::kTarget, Input::kWeight,
                                           Input::kPosWeight),
                         [](const auto& param_info) { return std::string(MessageName(param_info.param)); });

TEST(OutOverlap, OutOverSelfsBytesWithAnotherElementSizeIsRejected) {
  // Same first byte, but fp32 out elements over fp16 self elements: not the same view.
  constexpr int64_t kN = 64;
  DeviceBuffer bytes(kN * 4);
  const int64_t dims[1] = {kN}, storage_half[1] = {2 * kN}, storage_float[1] = {kN};
  aclTensor* self = aclCreateTensor(dims, 1, ACL_FLOAT16, nullptr, 0, ACL_FORMAT_ND, storage_half, 1, bytes.get());
  aclTensor* out = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage_float, 1, bytes.get());
  TestTensor y({kN}, ACL_FLOAT), dout({}, ACL_FLOAT);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(FirstPhase({dout.get(), self, y.get(), nullptr, nullptr, 0, out}, &workspace_size, &executor),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(Contains(aclGetRecentErrMsg(), "out overlaps self")) << aclGetRecentErrMsg();
  aclDestroyTensor(self);
  aclDestroyTensor(out);
}

TEST(OutOverlap, BroadcastInputInsideOutIsRejected) {
  // weight [5] is out's first row: out's first row is written while later rows still read it.
  TestTensor shared({4, 5}, ACL_FLOAT);
  TensorHandle out = ViewOver(shared, {4, 5}, {5, 1}, 0);
  TensorHandle weight = ViewOver(shared, {5}, {1}, 0);
  TestTensor x({4, 5}, ACL_FLOAT), y({4, 5}, ACL_FLOAT), dout({}, ACL_FLOAT);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(FirstPhase({dout.get(), x.get(), y.get(), weight.get(), nullptr, 0, out.get()}, &workspace_size, &executor),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(Contains(aclGetRecentErrMsg(), "out overlaps weightOptional")) << aclGetRecentErrMsg();
}

// ---------------------------------------------------------------------------------------------
// Layouts that interleave without sharing a byte run, with the bits of separate buffers.

/// Runs x -> out with both as views over one buffer and compares with separate tensors.
void ExpectSharedBufferRunMatches(TestTensor& buffer, const std::vector<int64_t>& dims,
                                  const std::vector<int64_t>& self_strides, int64_t self_offset,
                                  const std::vector<int64_t>& out_strides, int64_t out_offset) {
  FillRandom(buffer, 10, -5, 5);
  TensorHandle self = ViewOver(buffer, dims, self_strides, self_offset);
  TensorHandle out = ViewOver(buffer, dims, out_strides, out_offset);
  TestTensor x_copy(dims, buffer.dtype()), y(dims, buffer.dtype()), dout({}, buffer.dtype()), pw({dims.back()}, buffer.dtype());
  TestTensor self_view(dims, self_strides, self_offset, buffer.storage_elems(), buffer.dtype());
  std::memcpy(self_view.data(), buffer.data(), static_cast<size_t>(buffer.storage_elems()) * aclDataTypeSize(buffer.dtype()));
  for (int64_t i = 0; i < x_copy.numel(); ++i) x_copy.Set(i, self_view.Get(i));
  FillRandom(y, 11, 0, 1);
  FillConstant(dout, 0.75);
  FillRandom(pw, 12, 0.5, 2);
  TestTensor expected(dims, buffer.dtype());
  ASSERT_EQ(RunOperator({&dout, &x_copy, &y, nullptr, &pw, 1, &expected}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(RunRaw({dout.get(), self.get(), y.get(), nullptr, pw.get(), 1, out.get()}), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  TestTensor out_view(dims, out_strides, out_offset, buffer.storage_elems(), buffer.dtype());
  std::memcpy(out_view.data(), buffer.data(), static_cast<size_t>(buffer.storage_elems()) * aclDataTypeSize(buffer.dtype()));
  EXPECT_TRUE(SameBits(out_view, expected));
  // self was not disturbed: its elements are still the inputs.
  for (int64_t i = 0; i < x_copy.numel(); ++i) {
    ASSERT_EQ(std::bit_cast<uint64_t>(self_view.Get(i)), std::bit_cast<uint64_t>(x_copy.Get(i))) << i;
  }
}

TEST(OutOverlap, OutAndSelfAsTwoColumnsOfOneBufferRun) {
  TestTensor buffer({100000, 2}, ACL_FLOAT);
  ExpectSharedBufferRunMatches(buffer, {100000}, {2}, 1, {2}, 0);
}

TEST(OutOverlap, OutAndSelfAsEvenAndOddRowsRun) {
  TestTensor buffer({2 * 300, 257}, ACL_BF16);
  ExpectSharedBufferRunMatches(buffer, {300, 257}, {2 * 257, 1}, 257, {2 * 257, 1}, 0);
}

TEST(OutOverlap, OutInTheFirstHalfAndSelfInTheSecondHalfRun) {
  TestTensor buffer({2, 64, 1000}, ACL_FLOAT16);
  ExpectSharedBufferRunMatches(buffer, {64, 1000}, {1000, 1}, 64000, {1000, 1}, 0);
}

TEST(OutOverlap, LargeInterleavedOutIsAcceptedAndRight) {
  // [3, 400000] with strides [2, 3]: 1.2 million distinct elements at 2i + 3j. Refused before
  // ("more than 1048576 elements"), now decided in a few steps without listing them.
  const std::vector<int64_t> dims{3, 400000};
  TestTensor out(dims, {2, 3}, 0, 2 * 2 + 3 * 399999 + 1, ACL_FLOAT);
  TestTensor x(dims, ACL_FLOAT), y(dims, ACL_FLOAT), dout({}, ACL_FLOAT);
  FillRandom(x, 20, -6, 6);
  FillRandom(y, 21, 0, 1);
  FillConstant(dout, 1.5);
  const Problem p{&dout, &x, &y, nullptr, nullptr, 0, &out};
  ASSERT_EQ(RunOperator(p), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(CheckAgainstReference(p).mismatches, 0);
}

// ---------------------------------------------------------------------------------------------
// The same view as target, weight or posWeight runs in place, with the out-of-place bits.

using InPlaceParam = std::tuple<Input, aclDataType, bool /*padded rows*/>;

class InPlace : public ::testing::TestWithParam<InPlaceParam> {};

TEST_P(InPlace, GivesTheBitsOfTheOutOfPlaceCall) {
  const auto [input, dtype, padded] = GetParam();
  const std::vector<int64_t> dims = padded ? std::vector<int64_t>{50, 260} : std::vector<int64_t>{64, 1031};
  const std::vector<int64_t> strides = padded ? std::vector<int64_t>{270, 1} : std::vector<int64_t>{1031, 1};
  const int64_t offset = padded ? 3 : 0, storage = dims[0] * strides[0] + offset;
  // Two identical sets of inputs: one for the out-of-place call, one run in place.
  struct Inputs {
    std::unique_ptr<TestTensor> x, y, dout, w, pw;
  };
  auto make = [&](Inputs& in) {
    auto tensor = [&](Input which) {
      return which == input ? std::make_unique<TestTensor>(dims, strides, offset, storage, dtype)
                            : std::make_unique<TestTensor>(dims, dtype);
    };
    in.x = tensor(Input::kSelf);
    in.y = tensor(Input::kTarget);
    in.dout = tensor(Input::kGradOutput);
    in.w = tensor(Input::kWeight);
    in.pw = tensor(Input::kPosWeight);
    FillRandom(*in.x, 30, -6, 6);
    FillRandom(*in.y, 31, 0, 1);
    FillRandom(*in.dout, 32, -2, 2);
    FillRandom(*in.w, 33, 0.1, 2);
    FillRandom(*in.pw, 34, 0.5, 3);
  };
  Inputs pristine, aliased;
  make(pristine);
  make(aliased);
  TestTensor expected(dims, dtype);
  ASSERT_EQ(RunOperator({pristine.dout.get(), pristine.x.get(), pristine.y.get(), pristine.w.get(), pristine.pw.get(), 1,
                         &expected}),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  TestTensor* target_of_out = nullptr;
  switch (input) {
    case Input::kTarget: target_of_out = aliased.y.get(); break;
    case Input::kWeight: target_of_out = aliased.w.get(); break;
    default: target_of_out = aliased.pw.get(); break;
  }
  TensorHandle out = ViewOver(*target_of_out, dims, strides, offset);
  ASSERT_EQ(RunRaw({aliased.dout->get(), aliased.x->get(), aliased.y->get(), aliased.w->get(), aliased.pw->get(), 1,
                    out.get()}),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_TRUE(SameBits(*target_of_out, expected));
}

INSTANTIATE_TEST_SUITE_P(TargetWeightPosWeight, InPlace,
                         ::testing::Combine(::testing::Values(Input::kTarget, Input::kWeight, Input::kPosWeight),
                                            ::testing::Values(ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE),
                                            ::testing::Bool()),
                         [](const auto& param_info) {
                           const aclDataType dtype = std::get<1>(param_info.param);
                           return std::string(MessageName(std::get<0>(param_info.param))) + "_" +
                                  aclnn_cpu::DTypeShortName(dtype) +
                                  (std::get<2>(param_info.param) ? "_padded" : "_dense");
                         });

TEST(InPlaceMixed, HalfOutInPlaceOfABFloat16WeightGivesTheOutOfPlaceBits) {
  // Same view, same element size, another dtype: the kernel computes in fp32 and stages both.
  const std::vector<int64_t> dims{40, 300};
  auto run = [&](bool in_place, TestTensor& expected_or_weight_out) {
    TestTensor x(dims, ACL_FLOAT), y(dims, ACL_FLOAT16), dout({}, ACL_FLOAT), w(dims, ACL_BF16);
    FillRandom(x, 40, -6, 6);
    FillRandom(y, 41, 0, 1);
    FillConstant(dout, 1.25);
    FillRandom(w, 42, 0.1, 2);
    if (!in_place) {
      ASSERT_EQ(RunOperator({&dout, &x, &y, &w, nullptr, 0, &expected_or_weight_out}), ACLNN_SUCCESS)
          << aclGetRecentErrMsg();
      return;
    }
    const int64_t storage[1] = {w.storage_elems()};
    aclTensor* out = aclCreateTensor(dims.data(), 2, ACL_FLOAT16, nullptr, 0, ACL_FORMAT_ND, storage, 1, w.data());
    ASSERT_EQ(RunRaw({dout.get(), x.get(), y.get(), w.get(), nullptr, 0, out}), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    aclDestroyTensor(out);
    std::memcpy(expected_or_weight_out.data(), w.data(), static_cast<size_t>(w.storage_elems()) * 2);
  };
  TestTensor expected(dims, ACL_FLOAT16), got(dims, ACL_FLOAT16);
  run(false, expected);
  run(true, got);
  EXPECT_TRUE(SameBits(got, expected));
}

// ---------------------------------------------------------------------------------------------
// What the bounded search cannot decide is refused, and the message states the limit.

TEST(OutOverlap, UndecidableInterleavedOutIsRefusedWithTheLimit) {
  // Seven dims of unrelated strides: whether two elements meet is not settled within the limit.
  const std::vector<int64_t> dims{57, 58, 22, 57, 50, 18, 16}, strides{4926, 3083, 1885, 4928, 3696, 671, 3540};
  int64_t storage = 1;
  for (size_t k = 0; k < dims.size(); ++k) storage += (dims[k] - 1) * strides[k];
  DeviceBuffer bytes(static_cast<uint64_t>(storage) * 4);
  const int64_t storage_dims[1] = {storage}, one[1] = {1};
  const std::vector<int64_t> zeros(dims.size(), 0);
  aclTensor* out = aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND, storage_dims, 1,
                                   bytes.get());
  TestTensor scalar({}, ACL_FLOAT);
  // self and target expanded from one element (the first phase reads no data).
  aclTensor* expanded = aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT, zeros.data(), 0, ACL_FORMAT_ND, one, 1,
                                        scalar.data());
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(FirstPhase({scalar.get(), expanded, expanded, nullptr, nullptr, 0, out}, &workspace_size, &executor),
            ACLNN_ERR_PARAM_INVALID);
  const std::string message = aclGetRecentErrMsg();
  EXPECT_TRUE(Contains(message, "out view")) << message;
  EXPECT_TRUE(Contains(message, "limit of " + std::to_string(aclnn_cpu::kMaxOverlapSearchSteps) + " search steps"))
      << message;
  aclDestroyTensor(out);
  aclDestroyTensor(expanded);
}

TEST(OutOverlap, UndecidableOverlapWithAnInputIsRefusedWithTheLimit) {
  // out nests (its own elements are distinct at once); self interleaves with it in seven dims.
  const std::vector<int64_t> dims{11, 7, 2, 10, 3, 2, 12};
  const std::vector<int64_t> out_strides{960960, 137280, 68640, 6864, 1716, 572, 44};
  const std::vector<int64_t> self_strides{1409, 1584, 371, 1100, 2639, 2384, 2244};
  int64_t storage = 1;
  for (size_t k = 0; k < dims.size(); ++k) storage += (dims[k] - 1) * out_strides[k];
  TestTensor scalar({}, ACL_FLOAT), y(dims, ACL_FLOAT);
  DeviceBuffer bytes(static_cast<uint64_t>(storage) * 4);  // 42 MB, never touched: the first phase reads no data
  const int64_t storage_dims[1] = {storage};
  void* base = bytes.get();
  aclTensor* out = aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT, out_strides.data(), 0, ACL_FORMAT_ND,
                                   storage_dims, 1, base);
  aclTensor* self = aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT, self_strides.data(), 2, ACL_FORMAT_ND,
                                    storage_dims, 1, base);
  ASSERT_EQ(aclnn_cpu::InternalOverlap({base, 4, dims, out_strides}), aclnn_cpu::Overlap::kNone);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(FirstPhase({scalar.get(), self, y.get(), nullptr, nullptr, 0, out}, &workspace_size, &executor),
            ACLNN_ERR_PARAM_INVALID);
  const std::string message = aclGetRecentErrMsg();
  EXPECT_TRUE(Contains(message, "out and self")) << message;
  EXPECT_TRUE(Contains(message, "limit of " + std::to_string(aclnn_cpu::kMaxOverlapSearchSteps) + " search steps"))
      << message;
  aclDestroyTensor(out);
  aclDestroyTensor(self);
}

}  // namespace
}  // namespace bce_test
