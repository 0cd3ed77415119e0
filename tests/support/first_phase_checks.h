// The fixture of an operator's first-phase check tests: the tensors a test tracks by their
// storage bytes, further tracked tensors, views and misaligned handles over them, and the two
// expectations: a call refused with a code and a message naming the first phase and the
// parameter, no executor made and no tracked byte changed; or a call accepted and run.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn_call.h"
#include "test_tensor.h"

namespace acl_test {

class FirstPhaseChecks : public ::testing::Test {
 protected:
  /// A further tensor, filled with values in [0.25, 0.75) (float dtypes) and tracked.
  TestTensor& Extra(const std::vector<int64_t>& dims, aclDataType dtype = ACL_FLOAT) {
    extras_.push_back(std::make_unique<TestTensor>(dims, dtype));
    TestTensor& t = *extras_.back();
    FillRandom(t, 10 + extras_.size(), 0.25, 0.75);
    tracked_.push_back(&t);
    return t;
  }

  /// A handle of @p dims / @p strides / @p offset over a tracked tensor's storage, owned here.
  const aclTensor* View(const TestTensor& base, const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
                        int64_t offset) {
    handles_.push_back(ViewOver(base, dims, strides, offset));
    return handles_.back().get();
  }

  /// A handle of @p dims (20 elements) and @p dtype whose data starts @p byte_shift bytes into a
  /// tracked storage.
  const aclTensor* Shifted(aclDataType dtype, int64_t byte_shift, std::vector<int64_t> dims = {4, 5}) {
    TestTensor& storage = Extra({32}, dtype);
    const int64_t storage_dims[1] = {20};
    aclTensor* t = aclCreateTensor(dims.data(), dims.size(), dtype, nullptr, 0, ACL_FORMAT_ND, storage_dims, 1,
                                   static_cast<char*>(storage.data()) + byte_shift);
    EXPECT_NE(t, nullptr) << aclGetRecentErrMsg();
    handles_.emplace_back(t);
    return t;
  }

  /// A [4, 5] out whose elements share memory (each row the same five elements of a tracked storage).
  const aclTensor* SelfOverlappingOut() { return View(Extra({5}), {4, 5}, {0, 1}, 0); }

  /// Runs the first phase of @p call expecting @p code and a message naming @p first_phase and
  /// @p what; no executor, no tracked byte changed. @p null_ws / @p null_executor pass null
  /// out-pointers.
  void ExpectRejectedCall(AclnnCall call, const char* first_phase, aclnnStatus code, const std::string& what,
                          bool null_ws, bool null_executor) {
    PrimeRecentErrMsg();
    std::vector<std::vector<uint8_t>> before;
    for (const TestTensor* t : tracked_) before.push_back(t->StorageBytes());
    uint64_t ws = 12345;
    aclOpExecutor* e = nullptr;
    const aclnnStatus status = call.FirstPhase(null_ws ? nullptr : &ws, null_executor ? nullptr : &e);
    const std::string message = aclGetRecentErrMsg();
    EXPECT_EQ(status, code) << message;
    EXPECT_EQ(e, nullptr);
    EXPECT_NE(message.find(what), std::string::npos) << "message does not name '" << what << "': " << message;
    EXPECT_NE(message.find(first_phase), std::string::npos) << message;
    for (size_t i = 0; i < tracked_.size(); ++i) {
      EXPECT_EQ(FirstDifference(before[i], tracked_[i]->StorageBytes()), -1) << "storage of tensor " << i << " changed";
    }
    if (status == ACLNN_SUCCESS && e != nullptr) aclDestroyAclOpExecutor(e);
  }

  /// Runs both phases of @p call expecting success.
  void ExpectAcceptedCall(AclnnCall call) {
    const CallOutcome r = call.Run();
    EXPECT_EQ(r.status, ACLNN_SUCCESS) << r.failed_step << ": " << r.message;
  }

  std::vector<const TestTensor*> tracked_;
  std::vector<std::unique_ptr<TestTensor>> extras_;
  std::vector<TensorHandle> handles_;
};

}  // namespace acl_test
