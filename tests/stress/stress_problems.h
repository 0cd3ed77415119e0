// Problems shared by the stress tests: fixed inputs (read-only, so that many threads may use them
// at once), an out layout, and the out bytes of a single-threaded reference run ("golden").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/bce_test_util.h"
#include "client/two_phase_call.h"

namespace bce_stress {

/// One problem of the operator. Its input aclTensors are created up front (TestTensor::get is
/// not thread-safe on first use); outs are made per user with MakeOut.
struct StressProblem {
  std::string name;
  std::vector<int64_t> dims;
  std::unique_ptr<bce_test::TestTensor> dout, self, target, weight, pos_weight;
  int64_t reduction = 0;
  aclDataType out_dtype = ACL_FLOAT;
  std::vector<int64_t> out_strides;
  int64_t out_offset = 0;
  int64_t out_storage_elems = 1;
  /// Out's storage bytes (poisoned outside the view) after a single-threaded run.
  std::vector<uint8_t> golden;

  /// A fresh, poisoned out for this problem (its aclTensor already created).
  std::unique_ptr<bce_test::TestTensor> MakeOut() const;
};

/// A dozen problems: every dtype, small ones that run inline on the caller, large ones that
/// run on several workers and tiles, broadcasts, permuted and padded views, an empty one, a
/// scalar. Golden results are computed on the default stream before returning.
std::vector<std::unique_ptr<StressProblem>> MakeStressProblems();

/// The first phase for @p p into @p out; on success *executor and *workspace_size are set.
aclnnStatus FirstPhase(const StressProblem& p, aclTensor* out, uint64_t* workspace_size, aclOpExecutor** executor);

/// Both phases of @p p into @p out, enqueued on @p stream and NOT synchronized. The workspace
/// (if any) is held by @p workspace (aclrtFree waits for the launches that use it).
aclnnStatus Enqueue(const StressProblem& p, aclTensor* out, aclrtStream stream, aclnn_cpu::DeviceMemory& workspace);

/// A problem's fresh out and the executor its first phase made (nullptr if that failed).
struct Planned {
  std::unique_ptr<bce_test::TestTensor> out;
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
};
/// MakeOut + FirstPhase, expecting success.
Planned Plan(const StressProblem& p);

/// A test fixture whose tests share the stress problems (made once per test suite).
class StressProblemsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite();
  static void TearDownTestSuite();
  static const std::vector<std::unique_ptr<StressProblem>>& problems();
  static const StressProblem& problem(size_t k) { return *problems()[k]; }
};

}  // namespace bce_stress
