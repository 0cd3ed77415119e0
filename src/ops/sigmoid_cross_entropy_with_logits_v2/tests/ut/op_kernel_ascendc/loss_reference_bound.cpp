#include "loss_reference_bound.h"

#include <optional>

#include "op_kernel/sigmoid_cross_entropy_with_logits_v2_reference.h"

namespace bce_loss_ascendc_test {
namespace {

aclDataType DTypeOf(OutType out) {
  return out == OutType::kFloat ? ACL_FLOAT : out == OutType::kHalf ? ACL_FLOAT16 : ACL_BF16;
}

}  // namespace

LossReferenceValue LossReference(double x, double y, const double* weight, const double* pos_weight, OutType out) {
  using namespace aclnn_cpu::bce_loss;
  const std::optional<double> w = weight ? std::optional<double>(*weight) : std::nullopt;
  const std::optional<double> pw = pos_weight ? std::optional<double>(*pos_weight) : std::nullopt;
  const LossReferenceTerms terms = ComputeLossReferenceTerms(x, y, w, pw);
  return {terms.loss, LossErrorBound(terms, ACL_FLOAT, DTypeOf(out))};
}

double UnitRoundoff(OutType out) { return aclnn_cpu::RoundingOf(DTypeOf(out)).unit_roundoff; }
double SmallestSubnormal(OutType out) { return aclnn_cpu::RoundingOf(DTypeOf(out)).smallest_subnormal; }

}  // namespace bce_loss_ascendc_test
