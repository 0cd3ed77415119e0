// aclCreateTensor / aclDestroyTensor (docs/contract.md §2): a view (shape, strides in elements, offset) over
// a storage; every element of the view must lie inside the storage.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "test_tensor.h"

namespace acl_test {
namespace {

/// Storage for the tests' views: 64 floats.
class AclTensorTest : public ::testing::Test {
 protected:
  static constexpr int64_t kStorageElems = 64;

  /// aclCreateTensor over this storage with storageDims [kStorageElems].
  TensorHandle Create(const std::vector<int64_t>& dims, const std::vector<int64_t>* strides, int64_t offset,
                      aclDataType dtype = ACL_FLOAT, void* data = nullptr, int64_t storage_elems = kStorageElems) {
    const int64_t storage_dims[1] = {storage_elems};
    return TensorHandle(aclCreateTensor(dims.data(), dims.size(), dtype, strides ? strides->data() : nullptr, offset,
                                        ACL_FORMAT_ND, storage_dims, 1, data ? data : storage_));
  }

  /// Expects aclCreateTensor with these arguments to fail with a message naming @p what.
  void ExpectRejected(const std::vector<int64_t>& dims, const std::vector<int64_t>* strides, int64_t offset,
                      const std::string& what, aclDataType dtype = ACL_FLOAT, int64_t storage_elems = kStorageElems) {
    PrimeRecentErrMsg();
    TensorHandle t = Create(dims, strides, offset, dtype, nullptr, storage_elems);
    EXPECT_EQ(t, nullptr);
    const std::string message = aclGetRecentErrMsg();
    EXPECT_NE(message.find(what), std::string::npos) << "message does not name " << what << ": " << message;
  }

  alignas(64) float storage_[kStorageElems] = {};
};

// ---------------------------------------------------------------------------------------------
// Accepted views.

TEST_F(AclTensorTest, ContiguousViewWithViewShapeAsStorageDimsIsAccepted) {
  const int64_t dims[2] = {8, 8};
  TensorHandle t(aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, storage_));
  EXPECT_NE(t, nullptr) << aclGetRecentErrMsg();
}

TEST_F(AclTensorTest, ViewWithOneDimStorageDimsIsAccepted) {
  const std::vector<int64_t> strides{16, 2};
  EXPECT_NE(Create({4, 8}, &strides, 1), nullptr) << aclGetRecentErrMsg();
}

TEST_F(AclTensorTest, ViewEndingOnTheLastStorageElementIsAccepted) {
  const std::vector<int64_t> strides{9, 1};
  EXPECT_NE(Create({7, 1}, &strides, 63 - 54), nullptr) << aclGetRecentErrMsg();  // last = 9 + 6 * 9 = 63
}

TEST_F(AclTensorTest, ZeroDimTensorOverZeroDimStorageIsAccepted) {
  TensorHandle scalar(aclCreateTensor(nullptr, 0, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, storage_));
  EXPECT_NE(scalar, nullptr) << aclGetRecentErrMsg();
}

TEST_F(AclTensorTest, ZeroDimViewAtAnOffsetOfALargerStorageIsAccepted) {
  EXPECT_NE(Create({}, nullptr, 63), nullptr) << aclGetRecentErrMsg();
}

TEST_F(AclTensorTest, EmptyViewIsAccepted) {
  EXPECT_NE(Create({0, 5}, nullptr, 0), nullptr) << aclGetRecentErrMsg();
  EXPECT_NE(Create({3, 0}, nullptr, 0, ACL_FLOAT, nullptr, 0), nullptr) << aclGetRecentErrMsg();
}

TEST_F(AclTensorTest, EmptyViewWithNullDataIsAccepted) {
  const int64_t dims[2] = {0, 4};
  TensorHandle t(aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, nullptr));
  EXPECT_NE(t, nullptr) << aclGetRecentErrMsg();
}

TEST_F(AclTensorTest, StrideZeroViewOverOneElementIsAccepted) {
  const std::vector<int64_t> strides{0, 0};
  EXPECT_NE(Create({1000, 1000}, &strides, 0, ACL_FLOAT, nullptr, 1), nullptr) << aclGetRecentErrMsg();
}

TEST_F(AclTensorTest, ThirtyTwoDimsAreAccepted) {
  EXPECT_NE(Create(std::vector<int64_t>(32, 1), nullptr, 0), nullptr) << aclGetRecentErrMsg();
}

TEST_F(AclTensorTest, EveryFloatDtypeIsAccepted) {
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
    EXPECT_NE(Create({4, 4}, nullptr, 0, dtype), nullptr) << dtype << ": " << aclGetRecentErrMsg();
  }
}

TEST_F(AclTensorTest, DestroyingNullIsAccepted) { EXPECT_EQ(aclDestroyTensor(nullptr), ACLNN_SUCCESS); }

// ---------------------------------------------------------------------------------------------
// Rejected views: nullptr and a message naming the rule.

TEST_F(AclTensorTest, ViewOnePastTheStorageIsRejected) {
  const std::vector<int64_t> strides{9, 1};
  ExpectRejected({7, 1}, &strides, 10, "storage");  // last = 10 + 54 = 64
}

TEST_F(AclTensorTest, ContiguousViewLargerThanTheStorageIsRejected) { ExpectRejected({5, 13}, nullptr, 0, "storage"); }

TEST_F(AclTensorTest, OffsetPastTheStorageIsRejected) { ExpectRejected({1}, nullptr, 64, "storage"); }

TEST_F(AclTensorTest, StridesReachingPastTheStorageAreRejected) {
  const std::vector<int64_t> strides{1, 32};
  ExpectRejected({2, 3}, &strides, 0, "storage");  // last = 1 + 2 * 32 = 65
}

TEST_F(AclTensorTest, ZeroDimViewPastItsOneElementStorageIsRejected) {
  PrimeRecentErrMsg();
  TensorHandle t(aclCreateTensor(nullptr, 0, ACL_FLOAT, nullptr, 1, ACL_FORMAT_ND, nullptr, 0, storage_));
  EXPECT_EQ(t, nullptr);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("storage"), std::string::npos) << aclGetRecentErrMsg();
}

TEST_F(AclTensorTest, NegativeDimIsRejected) { ExpectRejected({2, -3}, nullptr, 0, "viewDims"); }

TEST_F(AclTensorTest, NegativeStrideIsRejected) {
  const std::vector<int64_t> strides{4, -1};
  ExpectRejected({2, 4}, &strides, 10, "stride");
}

TEST_F(AclTensorTest, NegativeOffsetIsRejected) { ExpectRejected({2, 4}, nullptr, -1, "offset"); }

TEST_F(AclTensorTest, NegativeStorageDimIsRejected) {
  const int64_t dims[1] = {4};
  const int64_t storage_dims[2] = {-2, -32};
  PrimeRecentErrMsg();
  EXPECT_EQ(aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage_dims, 2, storage_), nullptr);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("storageDims"), std::string::npos) << aclGetRecentErrMsg();
}

TEST_F(AclTensorTest, ElementCountOverflowIsRejected) {
  ExpectRejected({int64_t{1} << 40, int64_t{1} << 40}, nullptr, 0, "view");
}

TEST_F(AclTensorTest, ByteCountOverflowIsRejected) {
  // 2^61 elements fit in int64, 2^61 * 8 bytes do not.
  ExpectRejected({int64_t{1} << 61}, nullptr, 0, "view", ACL_DOUBLE, std::numeric_limits<int64_t>::max());
}

TEST_F(AclTensorTest, StorageByteCountOverflowIsRejected) {
  ExpectRejected({4}, nullptr, 0, "storage", ACL_FLOAT, int64_t{1} << 62);
}

TEST_F(AclTensorTest, ReachOverflowIsRejected) {
  // 3 * (2^62 - 1) does not fit in int64: the reach itself overflows.
  const std::vector<int64_t> strides{std::numeric_limits<int64_t>::max() / 2, 1};
  ExpectRejected({4, 1}, &strides, 0, "storage");
}

TEST_F(AclTensorTest, NullDataForANonEmptyViewIsRejected) {
  const int64_t dims[1] = {4};
  PrimeRecentErrMsg();
  EXPECT_EQ(aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, nullptr), nullptr);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("tensorData"), std::string::npos) << aclGetRecentErrMsg();
}

TEST_F(AclTensorTest, NullDataForAZeroDimTensorIsRejected) {
  PrimeRecentErrMsg();
  EXPECT_EQ(aclCreateTensor(nullptr, 0, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, nullptr), nullptr);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("tensorData"), std::string::npos) << aclGetRecentErrMsg();
}

TEST_F(AclTensorTest, NullViewDimsWithNonZeroCountIsRejected) {
  const int64_t storage_dims[1] = {4};
  PrimeRecentErrMsg();
  EXPECT_EQ(aclCreateTensor(nullptr, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage_dims, 1, storage_), nullptr);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("viewDims"), std::string::npos) << aclGetRecentErrMsg();
}

TEST_F(AclTensorTest, MoreThanThirtyTwoDimsAreRejected) {
  ExpectRejected(std::vector<int64_t>(33, 1), nullptr, 0, "viewDimsNum");
}

TEST_F(AclTensorTest, UnknownDtypeIsRejected) {
  ExpectRejected({4}, nullptr, 0, "dataType", ACL_DT_UNDEFINED);
  ExpectRejected({4}, nullptr, 0, "dataType", static_cast<aclDataType>(1234));
}

}  // namespace
}  // namespace acl_test
