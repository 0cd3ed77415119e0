#include "reference_bound.h"

#include <optional>

#include "op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_reference.h"

namespace bce_grad_ascendc_test {
namespace {

aclDataType OutDType(OutType out) {
  return out == OutType::kFloat ? ACL_FLOAT : out == OutType::kHalf ? ACL_FLOAT16 : ACL_BF16;
}

}  // namespace

ReferenceValue GradReference(double x, double y, double dout, const double* weight, const double* pos_weight,
                             double scale, OutType out) {
  using namespace aclnn_cpu::bce_grad;
  const std::optional<double> w = weight ? std::optional<double>(*weight) : std::nullopt;
  const std::optional<double> pw = pos_weight ? std::optional<double>(*pos_weight) : std::nullopt;
  const ReferenceTerms terms = ComputeReferenceTerms(x, y, dout, w, pw, scale);
  return {terms.g, ReferenceErrorBound(terms, ACL_FLOAT, OutDType(out))};
}

ReferenceValue TargetGradReference(double x, double dout, const double* weight, const double* pos_weight,
                                   double scale, OutType out) {
  using namespace aclnn_cpu::bce_grad;
  const std::optional<double> w = weight ? std::optional<double>(*weight) : std::nullopt;
  const std::optional<double> pw = pos_weight ? std::optional<double>(*pos_weight) : std::nullopt;
  const TargetReferenceTerms terms = ComputeTargetReferenceTerms(x, dout, w, pw, scale);
  return {terms.g, TargetErrorBound(terms, ACL_FLOAT, OutDType(out))};
}

}  // namespace bce_grad_ascendc_test
