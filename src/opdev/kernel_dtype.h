// The element type an elementwise kernel loads and stores, and how a call picks it.
#pragma once

#include <cstdint>
#include <span>

#include "acl/acl_base.h"
#include "runtime/tensor.h"

namespace aclnn_cpu {

/// The element type the kernel loads and stores. Mixed-dtype problems run on the compute type
/// (kFloat or kDouble) with the operands converted in CopyIn (see Note [Staging]).
enum class KernelDType : uint32_t { kFloat = 0, kFloat16 = 1, kBFloat16 = 2, kDouble = 3 };
inline constexpr uint32_t kKernelDTypeCount = 4;

/// "Fp32", "Fp16", "Bf16", "Fp64" (usable in test names).
inline constexpr const char* KernelDTypeLabel(KernelDType dtype) {
  switch (dtype) {
    case KernelDType::kFloat: return "Fp32";
    case KernelDType::kFloat16: return "Fp16";
    case KernelDType::kBFloat16: return "Bf16";
    case KernelDType::kDouble: return "Fp64";
  }
  return "Unknown";
}

/// Bytes of one element of the kernel dtype.
inline constexpr uint64_t KernelDTypeSize(KernelDType dtype) {
  switch (dtype) {
    case KernelDType::kFloat: return 4;
    case KernelDType::kFloat16: return 2;
    case KernelDType::kBFloat16: return 2;
    case KernelDType::kDouble: return 8;
  }
  return 0;
}

/// The kernel dtype of a storage dtype (one of the four float dtypes).
inline constexpr KernelDType KernelDTypeOf(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT16: return KernelDType::kFloat16;
    case ACL_BF16: return KernelDType::kBFloat16;
    case ACL_DOUBLE: return KernelDType::kDouble;
    default: return KernelDType::kFloat;
  }
}

/// The storage dtype the kernel runs on for these operands (null ones absent): their common
/// dtype when they all share one, else the compute dtype of @p promoted (fp64 for fp64, fp32
/// otherwise), with conversions in CopyIn / CopyOut.
inline aclDataType ChooseKernelDType(std::span<const aclTensor* const> operands, aclDataType promoted) {
  const aclTensor* first = nullptr;
  bool uniform = true;
  for (const aclTensor* t : operands) {
    if (t == nullptr) continue;
    if (first == nullptr) first = t;
    uniform &= t->dtype == first->dtype;
  }
  if (uniform && first != nullptr) return first->dtype;
  return promoted == ACL_DOUBLE ? ACL_DOUBLE : ACL_FLOAT;
}

}  // namespace aclnn_cpu
