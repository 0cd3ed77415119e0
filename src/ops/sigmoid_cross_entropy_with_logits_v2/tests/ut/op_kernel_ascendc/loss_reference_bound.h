// The library's float64 reference of the loss and its error bound (op_kernel/..._reference.h)
// behind a plain interface, so that the AscendC tests, which include the twin's headers, need not
// include the library's acl headers in the same translation unit.
#pragma once

#include <cstdint>

namespace bce_loss_ascendc_test {

enum class OutType { kFloat, kHalf, kBFloat16 };

struct LossReferenceValue {
  double loss = 0;   ///< the float64 reference loss
  double bound = 0;  ///< the largest |got - loss| the library promises for an fp32-computed loss
                     ///< written as the output type (Note [Loss error bound])
};

/// One element's reference: weight and pos_weight null when absent. fp32 compute.
LossReferenceValue LossReference(double x, double y, const double* weight, const double* pos_weight, OutType out);

/// The rounding of @p out: its unit roundoff and smallest subnormal.
double UnitRoundoff(OutType out);
double SmallestSubnormal(OutType out);

}  // namespace bce_loss_ascendc_test
