// Helpers of the op_api tests beyond common/bce_test_util.h: the two phases on raw aclTensor
// handles (second views over one storage, other formats: see tests/support/test_tensor.h).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/bce_test_util.h"

namespace bce_test {

/// The arguments of the first phase, as raw pointers.
struct RawCall {
  const aclTensor* grad_output = nullptr;
  const aclTensor* self = nullptr;
  const aclTensor* target = nullptr;
  const aclTensor* weight = nullptr;
  const aclTensor* pos_weight = nullptr;
  int64_t reduction = 0;
  aclTensor* out = nullptr;
};

/// The backward's call of @p c through the shared harness.
inline acl_test::AclnnCall BackwardCall(const RawCall& c) {
  return GradientCall(aclnn_cpu::apis::ApiId::kBinaryCrossEntropyWithLogitsBackward, c);
}

inline aclnnStatus FirstPhase(const RawCall& c, uint64_t* workspace_size, aclOpExecutor** executor) {
  return BackwardCall(c).FirstPhase(workspace_size, executor);
}

/// Both phases on raw tensors, synchronised; the first non-success status.
inline aclnnStatus RunRaw(const RawCall& c, aclrtStream stream = nullptr) { return BackwardCall(c).Run(stream).status; }

}  // namespace bce_test
