#include "opdev/tensor_checks.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>

#include "common/dtype.h"
#include "common/error.h"
#include "common/shape.h"
#include "opdev/overlap.h"
#include "runtime/tensor.h"

namespace aclnn_cpu {

aclnnStatus CheckLive(const char* api, std::span<const NamedTensor> tensors) {
  // One registry lookup per group of kMaxCheckedTensors handles (one for any operator's call).
  for (size_t begin = 0; begin < tensors.size(); begin += kMaxCheckedTensors) {
    std::array<const aclTensor*, kMaxCheckedTensors> handles;  // the first `count` are set
    const size_t count = std::min(tensors.size() - begin, handles.size());
    for (size_t i = 0; i < count; ++i) handles[i] = tensors[begin + i].tensor;
    const int dead = FirstDeadTensor(std::span<const aclTensor* const>(handles.data(), count));
    if (dead >= 0) {
      return Fail(ACLNN_ERR_PARAM_INVALID, api, ": ", tensors[begin + static_cast<size_t>(dead)].name,
                  " is not a live tensor (destroyed, or not made by aclCreateTensor)");
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckDims(const char* api, std::span<const NamedTensor> tensors) {
  for (const auto& t : tensors) {
    if (t.tensor != nullptr && t.tensor->dims.rank > kMaxDims) {
      return Fail(ACLNN_ERR_PARAM_INVALID, api, ": ", t.name, " has ", t.tensor->dims.rank,
                  " dims, more than the maximum of ", kMaxDims);
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckAclnnReduction(const char* api, int64_t reduction, ReductionType& parsed) {
  const std::optional<ReductionType> type = FromAclnnReduction(reduction);
  if (!type) {
    return Fail(ACLNN_ERR_PARAM_INVALID, api, ": reduction ", reduction, " must be 0 (none), 1 (mean) or 2 (sum)");
  }
  parsed = *type;
  return ACLNN_SUCCESS;
}

aclnnStatus CheckFloatDTypes(const char* api, std::span<const NamedTensor> tensors) {
  for (const auto& t : tensors) {
    if (t.tensor != nullptr && !IsSupportedFloat(t.tensor->dtype)) {
      return FailAs(ACLNN_CPU_ERROR_TYPE, ACLNN_ERR_PARAM_INVALID, api, ": ", t.name, " dtype ",
                    DTypeName(t.tensor->dtype), " is not supported; expected FLOAT, FLOAT16, BF16 or DOUBLE");
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckSameDType(const char* api, NamedTensor t, NamedTensor reference) {
  if (t.tensor->dtype != reference.tensor->dtype) {
    return FailAs(ACLNN_CPU_ERROR_TYPE, ACLNN_ERR_PARAM_INVALID, api, ": ", t.name, " dtype ",
                  DTypeName(t.tensor->dtype), " must equal ", reference.name, " dtype ",
                  DTypeName(reference.tensor->dtype));
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckSameFormat(const char* api, NamedTensor t, NamedTensor reference) {
  if (t.tensor->format != reference.tensor->format) {
    return Fail(ACLNN_ERR_PARAM_INVALID, api, ": ", t.name, " format ", FormatName(t.tensor->format), " must equal ",
                reference.name, " format ", FormatName(reference.tensor->format));
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckSameShape(const char* api, std::span<const NamedTensor> tensors, NamedTensor reference) {
  for (const auto& t : tensors) {
    if (!(t.tensor->dims == reference.tensor->dims)) {
      return Fail(ACLNN_ERR_PARAM_INVALID, api, ": ", t.name, " shape ", FormatDims(t.tensor->dims.span()),
                  " must equal ", reference.name, " shape ", FormatDims(reference.tensor->dims.span()));
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckBroadcastsTo(const char* api, std::span<const NamedTensor> tensors, NamedTensor reference) {
  for (const auto& t : tensors) {
    if (t.tensor == nullptr) continue;
    const auto shape = BroadcastShapes(t.tensor->dims, reference.tensor->dims);
    if (!shape || !(*shape == reference.tensor->dims)) {
      return Fail(ACLNN_ERR_PARAM_INVALID, api, ": ", t.name, " shape ", FormatDims(t.tensor->dims.span()),
                  " must broadcast to ", reference.name, " shape ", FormatDims(reference.tensor->dims.span()));
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckAlignment(const char* api, std::span<const NamedTensor> tensors) {
  for (const auto& t : tensors) {
    if (t.tensor == nullptr || t.tensor->numel == 0) continue;
    const auto address = reinterpret_cast<uintptr_t>(t.tensor->first_element());
    if (address % t.tensor->element_size() != 0) {
      return Fail(ACLNN_ERR_PARAM_INVALID, api, ": ", t.name, " data address ", reinterpret_cast<const void*>(address),
                  " is not aligned to its element size of ", t.tensor->element_size(), " bytes");
    }
  }
  return ACLNN_SUCCESS;
}

namespace {
MemoryView ViewOf(const aclTensor& t) {
  return {t.first_element(), static_cast<int64_t>(t.element_size()), t.dims.span(), t.strides.span()};
}
}  // namespace

aclnnStatus CheckOutMemory(const char* api, NamedTensor out, std::span<const NamedTensor> inputs) {
  const aclTensor& o = *out.tensor;
  const MemoryView out_view = ViewOf(o);
  switch (InternalOverlap(out_view)) {
    case Overlap::kNone: break;
    case Overlap::kShared:
      return Fail(ACLNN_ERR_PARAM_INVALID, api, ": ", out.name, " view (stride ", FormatDims(o.strides.span()),
                  ") has elements that share memory; ", out.name, " must be writable element by element");
    case Overlap::kUndecided:
      return Fail(ACLNN_ERR_PARAM_INVALID, api, ": ", out.name, " view (shape ", FormatDims(o.dims.span()),
                  ", stride ", FormatDims(o.strides.span()), ") interleaves its strides so that the limit of ",
                  kMaxOverlapSearchSteps,
                  " search steps passes before it is proven that no two elements share memory; use a view whose "
                  "strides nest");
  }
  for (const auto& t : inputs) {
    if (t.tensor == nullptr) continue;
    const MemoryView view = ViewOf(*t.tensor);
    if (SameView(out_view, view)) continue;  // in place
    switch (MutualOverlap(out_view, view)) {
      case Overlap::kNone: break;
      case Overlap::kShared:
        return Fail(ACLNN_ERR_PARAM_INVALID, api, ": ", out.name, " overlaps ", t.name,
                    " in memory but is not the same view; ", out.name,
                    " must not partially overlap an input (it may be the same view as one, for an in-place call)");
      case Overlap::kUndecided:
        return Fail(ACLNN_ERR_PARAM_INVALID, api, ": ", out.name, " and ", t.name,
                    " interleave in memory and the limit of ", kMaxOverlapSearchSteps,
                    " search steps passes before it is proven that they share no byte; ", out.name,
                    " must not partially overlap an input");
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckOutputsDisjoint(const char* api, NamedTensor a, NamedTensor b) {
  if (a.tensor->numel == 0 || b.tensor->numel == 0) return ACLNN_SUCCESS;
  switch (MutualOverlap(ViewOf(*a.tensor), ViewOf(*b.tensor))) {
    case Overlap::kNone: return ACLNN_SUCCESS;
    case Overlap::kShared:
      return Fail(ACLNN_ERR_PARAM_INVALID, api, ": ", a.name, " and ", b.name, " share memory; the two outputs ",
                  "must not overlap");
    case Overlap::kUndecided:
      return Fail(ACLNN_ERR_PARAM_INVALID, api, ": ", a.name, " and ", b.name, " interleave in memory and the limit of ",
                  kMaxOverlapSearchSteps, " search steps passes before it is proven that they share no byte; ",
                  "the two outputs must not overlap");
  }
  return ACLNN_SUCCESS;
}

}  // namespace aclnn_cpu
