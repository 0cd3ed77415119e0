// The library's float64 reference and error bound (op_kernel/..._reference.h) behind a plain
// interface, so that the AscendC tests, which include the twin's headers, need not include the
// library's acl headers in the same translation unit.
#pragma once

#include <cstdint>

namespace bce_grad_ascendc_test {

enum class OutType { kFloat, kHalf, kBFloat16 };

struct ReferenceValue {
  double gradient = 0;  ///< the float64 reference gradient
  double bound = 0;     ///< the largest |got - gradient| the library promises (Note [Error bound])
};

/// One element's reference: weight and pos_weight null when absent. fp32 compute.
ReferenceValue GradReference(double x, double y, double dout, const double* weight, const double* pos_weight,
                             double scale, OutType out);

/// One element's reference of the gradient with respect to the target (ComputeTargetReferenceTerms,
/// TargetErrorBound): weight and pos_weight null when absent. fp32 compute.
ReferenceValue TargetGradReference(double x, double dout, const double* weight, const double* pos_weight,
                                   double scale, OutType out);

}  // namespace bce_grad_ascendc_test
