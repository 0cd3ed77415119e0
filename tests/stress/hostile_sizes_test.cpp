// Hostile sizes (ctest label `hostile`): element or byte counts past 64 bits, dims past 2^31,
// storage too small for the view, negative dims / strides / offsets, huge offsets. aclCreateTensor
// must return nullptr with a message naming the rule, the operator an error code; nothing may
// crash, overflow (UBSan in the asan preset) or touch memory.
//   ctest --preset release -L hostile
//   ctest --preset asan -L hostile
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/bce_test_util.h"

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t k2Pow31 = int64_t{1} << 31;
constexpr int64_t k2Pow32 = int64_t{1} << 32;

/// A few bytes to point tensors at: the views below never get to read them.
alignas(64) unsigned char g_bytes[256];

struct CreateArgs {
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;  // empty: nullptr (contiguous)
  int64_t offset = 0;
  std::vector<int64_t> storage;
  aclDataType dtype = ACL_FLOAT;
  void* data = g_bytes;
};

aclTensor* Create(const CreateArgs& a) {
  return aclCreateTensor(a.dims.data(), a.dims.size(), a.dtype, a.strides.empty() ? nullptr : a.strides.data(),
                         a.offset, ACL_FORMAT_ND, a.storage.data(), a.storage.size(), a.data);
}

/// aclCreateTensor must refuse @p a with a message that contains @p word.
void ExpectRejected(const CreateArgs& a, const char* word) {
  aclTensor* t = Create(a);
  EXPECT_EQ(t, nullptr);
  const std::string message = aclGetRecentErrMsg();
  EXPECT_NE(message, "");
  EXPECT_NE(message.find(word), std::string::npos) << "message: " << message;
  if (t != nullptr) aclDestroyTensor(t);
}

TEST(HostileSizes, ElementCountPast64BitsIsRejected) {
  ExpectRejected({{k2Pow32, k2Pow32}, {0, 0}, 0, {1}}, "64 bits");
  ExpectRejected({{kMax, 2}, {0, 0}, 0, {1}}, "64 bits");
  ExpectRejected({{3, 5, kMax / 4}, {0, 0, 0}, 0, {1}}, "64 bits");
}

TEST(HostileSizes, ByteCountPast64BitsIsRejected) {
  // 2^62 elements fit in int64, their bytes do not.
  ExpectRejected({{int64_t{1} << 62}, {0}, 0, {1}}, "64 bits");
  ExpectRejected({{int64_t{1} << 61}, {0}, 0, {1}, ACL_DOUBLE}, "64 bits");
  // The storage's bytes as well.
  ExpectRejected({{1}, {1}, 0, {int64_t{1} << 62}}, "64 bits");
  ExpectRejected({{1}, {1}, 0, {k2Pow32, k2Pow32}}, "64 bits");
}

// The contiguous strides of such a shape overflow as well: they must be computed with checks (a
// signed overflow there, undefined behaviour that UBSan aborted on, was fixed in 67a11b8).
TEST(HostileSizes, ContiguousViewWithOverflowingShapeIsRejected) {
  // stride == nullptr: the library computes contiguous strides itself.
  ExpectRejected({{int64_t{1} << 40, int64_t{1} << 40, int64_t{1} << 40}, {}, 0, {1}}, "64 bits");
  ExpectRejected({{kMax, kMax}, {}, 0, {1}}, "64 bits");
}

TEST(HostileSizes, StorageTooSmallForTheViewIsRejected) {
  ExpectRejected({{10}, {1}, 0, {9}}, "storage");
  ExpectRejected({{10}, {1}, 1, {10}}, "storage");
  ExpectRejected({{4, 4}, {5, 1}, 0, {16}}, "storage");
  ExpectRejected({{2, 3}, {}, 0, {5}}, "storage");
  ExpectRejected({{1}, {1}, 0, {0}}, "storage");
  ExpectRejected({{}, {}, 0, {0}}, "storage");  // a scalar needs one element
}

TEST(HostileSizes, StridesWhoseReachOverflowsAreRejected) {
  ExpectRejected({{3}, {kMax / 2}, 0, {16}}, "storage");
  ExpectRejected({{2, 2}, {kMax, 1}, 0, {16}}, "storage");
  ExpectRejected({{k2Pow31 + 1}, {k2Pow32}, 0, {16}}, "storage");
}

TEST(HostileSizes, HugeOffsetsAreRejected) {
  ExpectRejected({{1}, {1}, kMax, {16}}, "storage");
  ExpectRejected({{2}, {1}, kMax - 1, {16}}, "storage");
  ExpectRejected({{1}, {1}, k2Pow32, {16}}, "storage");
}

TEST(HostileSizes, NegativeDimsStridesOffsetsAndStorageDimsAreRejected) {
  ExpectRejected({{-1}, {1}, 0, {16}}, "viewDims");
  ExpectRejected({{2, std::numeric_limits<int64_t>::min()}, {1, 1}, 0, {16}}, "viewDims");
  ExpectRejected({{4}, {-1}, 3, {16}}, "stride");
  ExpectRejected({{4}, {1}, -1, {16}}, "offset");
  ExpectRejected({{4}, {1}, 0, {-16}}, "storageDims");
  ExpectRejected({{4}, {1}, 0, {4, -1}}, "storageDims");
}

TEST(HostileSizes, BadCountsPointersAndDTypesAreRejected) {
  const int64_t dims[2] = {2, 2};
  const int64_t storage[1] = {4};
  EXPECT_EQ(aclCreateTensor(dims, 33, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, g_bytes), nullptr);
  EXPECT_STRNE(aclGetRecentErrMsg(), "");
  EXPECT_EQ(aclCreateTensor(dims, std::numeric_limits<uint64_t>::max(), ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage,
                            1, g_bytes),
            nullptr);
  EXPECT_STRNE(aclGetRecentErrMsg(), "");
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage,
                            std::numeric_limits<uint64_t>::max(), g_bytes),
            nullptr);
  EXPECT_STRNE(aclGetRecentErrMsg(), "");
  EXPECT_EQ(aclCreateTensor(nullptr, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, g_bytes), nullptr);
  EXPECT_STRNE(aclGetRecentErrMsg(), "");
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 1, g_bytes), nullptr);
  EXPECT_STRNE(aclGetRecentErrMsg(), "");
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, nullptr), nullptr);
  EXPECT_STRNE(aclGetRecentErrMsg(), "");
  for (int dtype : {-1, 13, 14, 26, 28, 99, -1000, std::numeric_limits<int>::max()}) {
    if (aclDataTypeSize(static_cast<aclDataType>(dtype)) != 0) continue;  // a type with a size is fine here
    EXPECT_EQ(aclCreateTensor(dims, 2, static_cast<aclDataType>(dtype), nullptr, 0, ACL_FORMAT_ND, storage, 1, g_bytes),
              nullptr)
        << dtype;
    EXPECT_STRNE(aclGetRecentErrMsg(), "");
  }
}

TEST(HostileSizes, EmptyViewsWithAnyStridesAreAccepted) {
  // An empty view addresses nothing: huge strides and a null pointer are fine.
  for (const CreateArgs& a : {CreateArgs{{0, kMax}, {kMax, kMax}, 0, {0}, ACL_FLOAT, nullptr},
                              CreateArgs{{k2Pow32, 0}, {}, 0, {1}, ACL_FLOAT16, nullptr}}) {
    aclTensor* t = Create(a);
    EXPECT_NE(t, nullptr) << aclGetRecentErrMsg();
    aclDestroyTensor(t);
  }
}

TEST(HostileSizes, EmptyContiguousViewWhoseOtherDimsOverflowIsAccepted) {
  // Its element count is 0, so nothing overflows that counts: the same view with explicit strides
  // is accepted, and so must it be with strides == nullptr.
  for (const CreateArgs& a : {CreateArgs{{0, int64_t{1} << 40, int64_t{1} << 40}, {}, 0, {0}, ACL_FLOAT, nullptr},
                              CreateArgs{{kMax, kMax, 0}, {}, 0, {1}, ACL_BF16, g_bytes}}) {
    aclTensor* t = Create(a);
    EXPECT_NE(t, nullptr) << aclGetRecentErrMsg();
    aclDestroyTensor(t);
  }
}

// ---------------------------------------------------------------------------------------------
// The operator on views past 2^31 elements (first phase only: nothing is read or written).
// ---------------------------------------------------------------------------------------------
/// The operator's tensors over g_bytes (never read: the executors below are not run), destroyed
/// at the end of the test. Each is made with Create and must be valid.
struct HugeProblem {
  aclTensor* dout = nullptr;
  aclTensor* self = nullptr;
  aclTensor* target = nullptr;
  aclTensor* out = nullptr;
  HugeProblem(const CreateArgs& dout_args, const CreateArgs& self_args, const CreateArgs& target_args,
              const CreateArgs& out_args)
      : dout(Create(dout_args)), self(Create(self_args)), target(Create(target_args)), out(Create(out_args)) {
    for (aclTensor* t : {dout, self, target, out}) EXPECT_NE(t, nullptr) << aclGetRecentErrMsg();
  }
  ~HugeProblem() {
    for (aclTensor* t : {dout, self, target, out}) aclDestroyTensor(t);
  }
  /// The first phase with these tensors (gradOutput and target replaceable); the executor, if
  /// any, is destroyed unrun.
  aclnnStatus FirstPhase(int64_t reduction = 0, uint64_t* workspace_size = nullptr) const {
    return FirstPhaseWith(dout, target, reduction, workspace_size);
  }
  aclnnStatus FirstPhaseWith(aclTensor* grad_output, aclTensor* target_tensor, int64_t reduction = 0,
                             uint64_t* workspace_size = nullptr) const {
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    const aclnnStatus s = aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
        grad_output, self, target_tensor, nullptr, nullptr, reduction, out, &ws, &e);
    if (s == ACLNN_SUCCESS) {
      EXPECT_EQ(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
    }
    if (workspace_size != nullptr) *workspace_size = ws;
    return s;
  }
};

/// A 0-dim gradOutput.
const CreateArgs kScalar{{}, {}, 0, {1}};

TEST(HostileSizes, FirstPhaseOnViewsPastTwoToThe31IsPlannedWith64BitCounts) {
  // self/target: 2^33 + 4 elements, stride 0 over one element. out claims a storage of that many
  // elements; it is never written because the executor is destroyed unrun.
  const int64_t rows = ((int64_t{1} << 33) + 3) / 3 + 1;
  const CreateArgs input{{rows, 3}, {0, 0}, 0, {1}, ACL_FLOAT16};
  // out starts past the inputs' element: it claims more storage than exists, but it must not
  // overlap an input (which the first phase refuses).
  const CreateArgs out{{rows, 3}, {}, 0, {rows * 3}, ACL_FLOAT16, g_bytes + 128};
  const HugeProblem h({{}, {}, 0, {1}, ACL_FLOAT16}, input, input, out);
  for (int64_t reduction : {0, 1, 2}) {
    uint64_t ws = 0;
    EXPECT_EQ(h.FirstPhase(reduction, &ws), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_LT(ws, uint64_t{1} << 32) << "the workspace is per-block tile buffers, not per element";
  }
}

TEST(HostileSizes, OutThatSharesMemoryIsRejectedByTheOperator) {
  // A stride-0 out past 2^31 elements would write one element 2^31 times.
  const CreateArgs expanded{{k2Pow31 + 5}, {0}, 0, {1}};
  const HugeProblem h(kScalar, expanded, expanded, expanded);
  EXPECT_EQ(h.FirstPhase(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("out"), std::string::npos) << aclGetRecentErrMsg();
}

TEST(HostileSizes, OutViewsThatShareNoMemoryAreWrittenWhateverTheirStrideOrder) {
  // dims [3,2], strides [2,3] address storage elements {0,3,2,5,4,7}: no two share memory, so
  // out is writable element by element (PyTorch accepts such an out as well). dims [5,5] with
  // strides [2,5] likewise (2i + 5j never repeats for i, j < 5). Refused with 161002 "has elements
  // that share memory" before 67a11b8.
  struct OutView {
    std::vector<int64_t> dims, strides;
    int64_t storage;
  };
  for (const OutView& v : {OutView{{3, 2}, {2, 3}, 8}, OutView{{5, 5}, {2, 5}, 29}}) {
    bce_test::TestTensor x(v.dims, ACL_FLOAT), y(v.dims, ACL_FLOAT), dout({}, ACL_FLOAT);
    bce_test::TestTensor out(v.dims, v.strides, 0, v.storage, ACL_FLOAT);
    std::mt19937_64 rng(5);
    x.FillUniform(rng, -4.0, 4.0);
    y.FillUniform(rng, 0.0, 1.0);
    dout.Set(0, 1.0);
    const bce_test::Problem p{&dout, &x, &y, nullptr, nullptr, 0, &out};
    ASSERT_EQ(bce_test::RunOperator(p), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(bce_test::CheckAgainstReference(p).mismatches, 0);
  }
}

TEST(HostileSizes, ShapesThatDifferPastTwoToThe31AreRejected) {
  const CreateArgs self{{k2Pow31}, {0}, 0, {1}};
  const HugeProblem h(CreateArgs{{k2Pow32}, {0}, 0, {1}}, self, CreateArgs{{k2Pow31 + 1}, {0}, 0, {1}},
                      CreateArgs{{k2Pow31}, {}, 0, {k2Pow31}});
  EXPECT_EQ(h.FirstPhaseWith(h.dout, h.self), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("gradOutput"), std::string::npos) << aclGetRecentErrMsg();
  EXPECT_EQ(h.FirstPhaseWith(h.self, h.target), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("target"), std::string::npos) << aclGetRecentErrMsg();
}

TEST(HostileSizes, NineDimsAreRejectedByTheOperatorNotByTheTensor) {
  const CreateArgs nine{std::vector<int64_t>(9, 1), {}, 0, {1}};
  const HugeProblem h(kScalar, nine, nine, nine);
  EXPECT_EQ(h.FirstPhase(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("dims"), std::string::npos) << aclGetRecentErrMsg();
}

}  // namespace
