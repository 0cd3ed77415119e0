// The one call harness of the operators' tests: a call of an API of the list (src/client/api_table.h)
// built operand by operand, by role, then run as a CANN client runs it (the first phase, a
// workspace from aclrtMalloc, the second phase, the synchronize) or its first phase alone:
//
//   const CallOutcome r = AclnnCall(ApiId::kBinaryCrossEntropyWithLogits)
//                             .With("self", x).With("target", y).With("out", out).Reduction(1).Run();
//   EXPECT_EQ(r.status, ACLNN_SUCCESS) << r.message;
//
// An operand left out is null (an absent optional input, or the null a check refuses).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "acl/acl.h"
#include "client/api_table.h"
#include "test_tensor.h"

namespace acl_test {

/// What a run came to: the first failing step's status (ACLNN_SUCCESS when none), its name, and
/// the library's message then ("" on success).
struct CallOutcome {
  aclnnStatus status = ACLNN_SUCCESS;
  std::string failed_step;
  std::string message;
  bool ok() const { return status == ACLNN_SUCCESS; }
};

class AclnnCall {
 public:
  explicit AclnnCall(aclnn_cpu::apis::ApiId api) : api_(&aclnn_cpu::apis::Get(api)) {}

  /// The tensor of @p role (a role of the list: self, target, weight, out, ...); null leaves it out.
  AclnnCall& With(std::string_view role, const aclTensor* tensor) {
    operands_.Set(role, tensor);
    return *this;
  }
  AclnnCall& With(std::string_view role, const TestTensor* tensor) {
    return With(role, tensor != nullptr ? tensor->get() : nullptr);
  }
  AclnnCall& With(std::string_view role, const TestTensor& tensor) { return With(role, tensor.get()); }
  AclnnCall& With(std::string_view role, std::nullptr_t) { return With(role, static_cast<const aclTensor*>(nullptr)); }
  /// Several tensors at once: {{"self", x}, {"target", y}, ...}.
  AclnnCall& With(std::initializer_list<std::pair<std::string_view, const TestTensor*>> tensors) {
    for (const auto& [role, tensor] : tensors) With(role, tensor);
    return *this;
  }
  AclnnCall& With(std::initializer_list<std::pair<std::string_view, const aclTensor*>> tensors) {
    for (const auto& [role, tensor] : tensors) With(role, tensor);
    return *this;
  }
  /// ACLNN's reduction: 0 none, 1 mean, 2 sum (any other value, for the checks).
  AclnnCall& Reduction(int64_t reduction) {
    operands_.SetInt("reduction", reduction);
    return *this;
  }

  const aclnn_cpu::apis::Api& api() const { return *api_; }

  /// The first phase alone, with the given out-pointers (null ones too, for the checks).
  aclnnStatus FirstPhase(uint64_t* workspace_size, aclOpExecutor** executor) const {
    return api_->first_phase(operands_, workspace_size, executor);
  }
  /// Both phases on @p stream with a workspace of their own, synchronised.
  CallOutcome Run(aclrtStream stream = nullptr) const {
    aclnn_cpu::DeviceMemory workspace;
    const aclnn_cpu::TwoPhaseResult r = aclnn_cpu::apis::Call(*api_, operands_, stream, workspace);
    if (r.ok()) return {};
    return {r.status, r.failed_step, aclGetRecentErrMsg()};
  }

 private:
  const aclnn_cpu::apis::Api* api_;
  aclnn_cpu::apis::Operands operands_;
};

}  // namespace acl_test
