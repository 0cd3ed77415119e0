// Support of this operator's tests on top of tests/support/test_tensor.h: one end-to-end call
// (Problem, RunOperator) and its check against the float64 reference and its error bound.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "acl/acl.h"
#include "aclnn_call.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"
#include "test_tensor.h"

namespace bce_test {

// The operator-independent support (tests/support/test_tensor.h), named here so that the tests
// of this operator use it unqualified.
using acl_test::BroadcastGet;
using acl_test::ContiguousOver;
using acl_test::DeviceBuffer;
using acl_test::FillConstant;
using acl_test::FillRandom;
using acl_test::FirstDifference;
using acl_test::kPoisonByte;
using acl_test::PrimeRecentErrMsg;
using acl_test::SameViewBits;
using acl_test::TensorHandle;
using acl_test::TestTensor;
using acl_test::ViewOver;

/// Inputs and reduction of one end-to-end call.
struct Problem {
  TestTensor* grad_output;
  TestTensor* self;
  TestTensor* target;
  TestTensor* weight = nullptr;
  TestTensor* pos_weight = nullptr;
  int64_t reduction = 0;
  TestTensor* out;
};

/// The call of @p api, the backward or the target gradient (one signature), over the operands
/// of @p c (a Problem, or the op_api tests' raw handles) through the shared harness
/// (tests/support/aclnn_call.h).
template <class Call>
acl_test::AclnnCall GradientCall(aclnn_cpu::apis::ApiId api, const Call& c) {
  return acl_test::AclnnCall(api)
      .With({{"grad_output", c.grad_output}, {"self", c.self}, {"target", c.target}, {"weight", c.weight},
             {"pos_weight", c.pos_weight}})
      .With("out", c.out)
      .Reduction(c.reduction);
}

/// Runs both phases on @p stream (synchronised). Returns the first non-success status.
aclnnStatus RunOperator(const Problem& p, aclrtStream stream = nullptr);

/// Checks every element of out against the float64 reference with ErrorBound; broadcasting of
/// gradOutput / weight / pos_weight follows numpy rules. Returns the number of mismatches
/// (each also reported through gtest with its index), and the max error in units of the bound.
struct CheckResult {
  int64_t mismatches = 0;
  double max_error_over_bound = 0;
};
CheckResult CheckAgainstReference(const Problem& p);


}  // namespace bce_test
