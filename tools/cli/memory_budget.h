// What `run` may allocate: the bytes a problem needs, counted before anything is allocated, and
// the memory this machine can offer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl_base.h"

namespace aclnn_bce_cli {

/// a * b and a + b, or UINT64_MAX when the result does not fit.
uint64_t SaturatingMul(uint64_t a, uint64_t b);
uint64_t SaturatingAdd(uint64_t a, uint64_t b);

/// Bytes of a contiguous tensor of @p dims and @p dtype (UINT64_MAX when that does not fit).
uint64_t TensorBytes(const std::vector<int64_t>& dims, aclDataType dtype);

/// Physical memory of this machine, capped by the process's address-space and data limits
/// (RLIMIT_AS, RLIMIT_DATA) when they are set; UINT64_MAX when the system does not say.
uint64_t UsableMemoryBytes();

/// "17179869184 bytes (16.0 GiB)".
std::string ByteText(uint64_t bytes);

}  // namespace aclnn_bce_cli
