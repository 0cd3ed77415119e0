// Test support of aclnnBinaryCrossEntropyBackward (the gradient of the loss of probabilities),
// on top of the shared tests/support and the loss's test support (its fills and view checks): a
// call by role through the harness, the reference of every element taken before the run (so
// that an in-place call is judged on the inputs it read), and the check of every element of out
// against the reference and its bound (Note [Probability gradient error bound]).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "aclnn_call.h"
#include "common/dtype.h"
#include "dims.h"
#include "ops/binary_cross_entropy/tests/ut/common/bce_prob_test_util.h"
#include "ops/binary_cross_entropy_grad/tests/ut/binary_cross_entropy_grad_reference.h"
#include "test_tensor.h"

namespace bce_prob_grad_test {

using acl_test::TestTensor;
using aclnn_cpu::bce_prob_grad::MatchesReference;
using aclnn_cpu::bce_prob_grad::ProbGradErrorBound;
using aclnn_cpu::bce_prob_grad::ProbGradReference;
using bce_prob_test::ExpectNothingWrittenOutsideTheView;
using bce_prob_test::ExpectTargetsAgree;
using bce_prob_test::LargestUlpBetween;
using bce_prob_test::OutputsOfEveryTarget;
using bce_prob_test::FillLabels;
using bce_prob_test::ForEveryDTypeLengthAndReduction;
using bce_prob_test::ForEveryDTypeTriple;
using bce_prob_test::FillProbabilities;
using bce_prob_test::TargetList;
using bce_prob_test::ThreadCountGuard;
using bce_prob_test::UlpDistance;
using bce_prob_test::UlpIn;
using bce_prob_test::Verdict;

constexpr const char* kFirstPhase = "aclnnBinaryCrossEntropyBackwardGetWorkspaceSize";

/// One call of aclnnBinaryCrossEntropyBackward: gradOutput, self, target, an optional weight,
/// the forward's reduction, out (the gradient).
/// P: TestTensor* (the tests' tensors) or const aclTensor* (handles: the checks' null, destroyed
/// or misaligned ones).
template <class P>
struct BackwardCallOf {
  P grad_output;
  P self;
  P target;
  P weight = nullptr;
  int64_t reduction = 0;
  P out;
};
using BackwardCall = BackwardCallOf<TestTensor*>;
using RawCall = BackwardCallOf<const aclTensor*>;

template <class P>
acl_test::AclnnCall CallOf(const BackwardCallOf<P>& c) {
  return acl_test::AclnnCall(aclnn_cpu::apis::ApiId::kBinaryCrossEntropyBackward)
      .With({{"grad_output", c.grad_output},
             {"self", c.self},
             {"target", c.target},
             {"weight", c.weight},
             {"out", c.out}})
      .Reduction(c.reduction);
}
inline acl_test::AclnnCall HarnessCall(const BackwardCall& c) { return CallOf(c); }
inline acl_test::AclnnCall HarnessCall(const RawCall& c) { return CallOf(c); }

inline aclnnStatus RunCall(const BackwardCall& c) { return HarnessCall(c).Run().status; }

/// The type the operator computes in: fp64 when any input is fp64, else fp32.
inline aclDataType ComputeDType(const BackwardCall& c) {
  for (const TestTensor* t : {c.grad_output, c.self, c.target, c.weight}) {
    if (t != nullptr && t->dtype() == ACL_DOUBLE) return ACL_DOUBLE;
  }
  return ACL_FLOAT;
}

/// The reference gradient of every element of @p c's inputs as they are now (before the run).
inline std::vector<double> ReferenceOf(const BackwardCall& c) {
  const std::vector<int64_t>& dims = c.self->dims();
  const double scale = c.reduction == 1 ? 1.0 / static_cast<double>(c.self->numel()) : 1.0;
  std::vector<double> refs;
  refs.reserve(static_cast<size_t>(c.self->numel()));
  for (int64_t i = 0; i < c.self->numel(); ++i) {
    const std::optional<double> w =
        c.weight ? std::optional<double>(acl_test::BroadcastGet(*c.weight, dims, i)) : std::nullopt;
    refs.push_back(ProbGradReference(c.self->Get(i), acl_test::BroadcastGet(*c.target, dims, i),
                                     acl_test::BroadcastGet(*c.grad_output, dims, i), w, scale));
  }
  return refs;
}

/// Every element of out against @p refs (ReferenceOf before the run).
inline Verdict CheckOut(const BackwardCall& c, const std::vector<double>& refs) {
  Verdict v;
  const aclDataType compute = ComputeDType(c);
  for (int64_t i = 0; i < c.out->numel(); ++i) {
    const double g = refs[static_cast<size_t>(i)];
    const double got = c.out->Get(i);
    const double bound = ProbGradErrorBound(g, c.reduction == 1, compute, c.out->dtype());
    if (std::isfinite(g) && std::isfinite(got))
      v.worst_ulp = std::max(v.worst_ulp, std::fabs(got - g) / UlpIn(g, c.out->dtype()));
    if (!MatchesReference(got, g, bound, c.out->dtype()) && v.mismatches++ < 8) {
      ADD_FAILURE() << "element " << i << " of " << acl_test::DimsText(c.self->dims()) << " ("
                    << aclnn_cpu::DTypeShortName(c.out->dtype()) << ", reduction " << c.reduction << "): got " << got
                    << ", reference " << g << ", bound " << bound << " (x=" << c.self->Get(i) << ")";
    }
  }
  return v;
}

/// Runs @p c (reference taken first) and checks every element of out.
inline Verdict RunAndCheck(const BackwardCall& c) {
  const std::vector<double> refs = ReferenceOf(c);
  const acl_test::CallOutcome r = HarnessCall(c).Run();
  EXPECT_EQ(r.status, ACLNN_SUCCESS) << r.failed_step << ": " << r.message;
  if (!r.ok()) return {1, 0};
  return CheckOut(c, refs);
}

}  // namespace bce_prob_grad_test
