// aclTensor: a view over caller-owned storage. Validated once at creation, immutable after.
#pragma once

#include <cstdint>
#include <span>

#include "aclnn/acl_meta.h"
#include "common/shape.h"

struct aclTensor {
  aclDataType dtype = ACL_DT_UNDEFINED;
  aclFormat format = ACL_FORMAT_ND;
  aclnn_cpu::DimVector dims;     ///< view shape
  aclnn_cpu::DimVector strides;  ///< view strides in elements (>= 0)
  int64_t offset = 0;            ///< view offset in elements
  aclnn_cpu::DimVector storage_dims;
  int64_t storage_elems = 0;     ///< elements the storage holds
  int64_t numel = 0;             ///< elements in the view
  void* data = nullptr;          ///< storage start

  /// Address of the view's first element.
  char* first_element() const;
  size_t element_size() const;
};

namespace aclnn_cpu {
/// Whether @p t is a tensor made by aclCreateTensor and not destroyed since. Looks the pointer up
/// in the registry of live tensors and never reads *t (see Note [Tensor handles]).
bool IsLiveTensor(const aclTensor* t);
/// The index of the first of @p tensors that is neither null nor live, or -1: one registry lookup
/// for all the operands of a call.
int FirstDeadTensor(std::span<const aclTensor* const> tensors);
}  // namespace aclnn_cpu
