#include "common/bce_test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "common/dtype.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_reference.h"

namespace bce_test {

using aclnn_cpu::bce_grad::ComputeReferenceTerms;
using aclnn_cpu::bce_grad::ReferenceErrorBound;
using aclnn_cpu::bce_grad::ReferenceGradient;
using aclnn_cpu::bce_grad::ReferenceTerms;

aclnnStatus RunOperator(const Problem& p, aclrtStream stream) {
  return GradientCall(aclnn_cpu::apis::ApiId::kBinaryCrossEntropyWithLogitsBackward, p).Run(stream).status;
}

CheckResult CheckAgainstReference(const Problem& p) {
  CheckResult result;
  const auto& dims = p.self->dims();
  const int64_t n = p.self->numel();
  bool any_double = false;
  for (const TestTensor* t : {p.grad_output, p.self, p.target, p.weight, p.pos_weight}) {
    if (t != nullptr && t->dtype() == ACL_DOUBLE) any_double = true;
  }
  const aclDataType compute = any_double ? ACL_DOUBLE : ACL_FLOAT;
  // The kernel multiplies by 1/N rounded to the compute type.
  const double scale = p.reduction == 1 ? (compute == ACL_DOUBLE ? 1.0 / static_cast<double>(n)
                                                                 : static_cast<double>(static_cast<float>(1.0 / static_cast<double>(n))))
                                        : 1.0;
  for (int64_t i = 0; i < n; ++i) {
    const double x = p.self->Get(i);
    const double y = p.target->Get(i);
    const double dout = BroadcastGet(*p.grad_output, dims, i);
    std::optional<double> w, pw;
    if (p.weight) w = BroadcastGet(*p.weight, dims, i);
    if (p.pos_weight) pw = BroadcastGet(*p.pos_weight, dims, i);
    const ReferenceTerms t = ComputeReferenceTerms(x, y, dout, w, pw, scale);
    const double got = p.out->Get(i);
    const double bound = ReferenceErrorBound(t, compute, p.out->dtype());
    const double err = std::fabs(got - t.g);
    const bool ok = (std::isnan(t.g) && std::isnan(got)) || err <= bound ||
                    (std::isinf(t.g) && got == t.g);
    if (!ok) {
      if (result.mismatches < 10) {
        ADD_FAILURE() << "element " << i << ": got " << got << ", float64 reference " << t.g << " (x=" << x
                      << " y=" << y << " dout=" << dout << "), error " << err << " > bound " << bound;
      }
      ++result.mismatches;
    }
    if (bound > 0 && std::isfinite(err)) result.max_error_over_bound = std::max(result.max_error_over_bound, err / bound);
  }
  return result;
}

}  // namespace bce_test
