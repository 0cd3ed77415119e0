// aclTensor: a view over caller-owned storage. Validated once at creation, immutable after.
#pragma once

#include <cstdint>

#include "aclnn/acl_meta.h"
#include "common/shape.h"

struct aclTensor {
  /// Set while the tensor is alive; cleared on destruction to catch use after destroy.
  static constexpr uint64_t kMagic = 0x41434c54454e534full;  // "ACLTENSO"
  uint64_t magic = kMagic;
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
/// Whether @p t points at a live tensor made by aclCreateTensor (a cheap sanity check only).
bool IsLiveTensor(const aclTensor* t);
}  // namespace aclnn_cpu
