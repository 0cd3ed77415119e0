#include "runtime/tensor.h"

#include <algorithm>
#include <limits>
#include <new>

#include "common/dtype.h"
#include "common/error.h"
#include "runtime/handle_registry.h"

using aclnn_cpu::CheckedNumel;
using aclnn_cpu::DimVector;
using aclnn_cpu::Fail;
using aclnn_cpu::FormatDims;
using aclnn_cpu::kMaxTensorRank;

char* aclTensor::first_element() const {
  return static_cast<char*>(data) + offset * static_cast<int64_t>(element_size());
}

size_t aclTensor::element_size() const { return aclnn_cpu::DTypeSize(dtype); }

namespace aclnn_cpu {
namespace {

// Note [Tensor handles]
// Tensors are checked through a registry of live handles with a quarantine of destroyed ones (see
// Note [Live handles]): a stale handle of one of the last kQuarantine tensors destroyed is
// reported as destroyed, never taken for a new tensor that reuses its address.
constexpr size_t kQuarantine = 1024;

using TensorRegistry = HandleRegistry<const aclTensor*, NoEntry, kQuarantine>;
TensorRegistry& Registry() {
  static auto* registry = new TensorRegistry;  // leaked: tensors may be destroyed during exit
  return *registry;
}
const bool g_registry_made = (Registry(), true);  // at load time; see HandleRegistry()

}  // namespace

bool IsLiveTensor(const aclTensor* t) {
  const aclTensor* one[] = {t};
  return t != nullptr && FirstDeadTensor(one) < 0;
}

int FirstDeadTensor(std::span<const aclTensor* const> tensors) { return Registry().FirstDead(tensors); }

}  // namespace aclnn_cpu

namespace {

// The kinds of aclCreateTensor's refusals (Note [Error kinds] in common/error.h).
constexpr aclnnCpuErrorKind kNullPointer = ACLNN_CPU_ERROR_NULL_POINTER;
constexpr aclnnCpuErrorKind kType = ACLNN_CPU_ERROR_TYPE;
constexpr aclnnCpuErrorKind kValue = ACLNN_CPU_ERROR_VALUE;
constexpr aclnnCpuErrorKind kRuntime = ACLNN_CPU_ERROR_RUNTIME;

aclTensor* FailTensor(aclnnCpuErrorKind kind, auto... parts) {
  aclnn_cpu::FailAs(kind, 0, "aclCreateTensor: ", parts...);
  return nullptr;
}

}  // namespace

namespace {
aclTensor* CreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t* stride,
                        int64_t offset, aclFormat format, const int64_t* storageDims, uint64_t storageDimsNum,
                        void* tensorData) {
  if (viewDimsNum > static_cast<uint64_t>(kMaxTensorRank)) {
    return FailTensor(kValue, "viewDimsNum ", viewDimsNum, " exceeds the maximum of ", kMaxTensorRank);
  }
  if (storageDimsNum > static_cast<uint64_t>(kMaxTensorRank)) {
    return FailTensor(kValue, "storageDimsNum ", storageDimsNum, " exceeds the maximum of ", kMaxTensorRank);
  }
  if (viewDims == nullptr && viewDimsNum != 0) {
    return FailTensor(kNullPointer, "viewDims is null but viewDimsNum is ", viewDimsNum);
  }
  if (storageDims == nullptr && storageDimsNum != 0) {
    return FailTensor(kNullPointer, "storageDims is null but storageDimsNum is ", storageDimsNum);
  }
  const size_t elem_size = aclnn_cpu::DTypeSize(dataType);
  if (elem_size == 0) {
    return FailTensor(kType, "dataType ", static_cast<int>(dataType), " has no byte size on this device");
  }
  if (offset < 0) return FailTensor(kValue, "offset ", offset, " must be >= 0");

  DimVector dims, strides, storage;
  dims.rank = strides.rank = static_cast<int>(viewDimsNum);
  storage.rank = static_cast<int>(storageDimsNum);
  for (int i = 0; i < dims.rank; ++i) {
    dims.v[i] = viewDims[i];
    if (viewDims[i] < 0) return FailTensor(kValue, "viewDims[", i, "] = ", viewDims[i], " must be >= 0");
  }
  for (int i = 0; i < storage.rank; ++i) {
    storage.v[i] = storageDims[i];
    if (storageDims[i] < 0) return FailTensor(kValue, "storageDims[", i, "] = ", storageDims[i], " must be >= 0");
  }
  if (stride != nullptr) {
    for (int i = 0; i < strides.rank; ++i) {
      strides.v[i] = stride[i];
      if (stride[i] < 0) return FailTensor(kValue, "stride[", i, "] = ", stride[i], " must be >= 0");
    }
  } else {
    // Contiguous row-major strides, without undefined overflow. An empty view addresses nothing,
    // so its strides only need to be defined: they saturate. A non-empty one whose strides
    // overflow has too many elements, which the numel check below reports.
    int64_t s = 1;
    for (int i = strides.rank - 1; i >= 0; --i) {
      strides.v[i] = s;
      if (__builtin_mul_overflow(s, std::max<int64_t>(dims.v[i], 1), &s)) s = INT64_MAX;
    }
  }

  const auto numel = CheckedNumel(dims.span());
  int64_t bytes = 0;
  if (!numel || __builtin_mul_overflow(*numel, static_cast<int64_t>(elem_size), &bytes)) {
    return FailTensor(kValue, "view shape ", FormatDims(dims.span()), " has more bytes than 64 bits can count");
  }
  const auto storage_elems = CheckedNumel(storage.span());
  if (!storage_elems ||
      __builtin_mul_overflow(*storage_elems, static_cast<int64_t>(elem_size), &bytes)) {
    return FailTensor(kValue, "storage shape ", FormatDims(storage.span()), " has more bytes than 64 bits can count");
  }
  if (*numel > 0) {
    // Highest element index the view addresses: offset + sum((d - 1) * stride).
    int64_t last = offset;
    bool overflow = false;
    for (int i = 0; i < dims.rank; ++i) {
      int64_t step = 0;
      overflow |= __builtin_mul_overflow(dims.v[i] - 1, strides.v[i], &step);
      overflow |= __builtin_add_overflow(last, step, &last);
    }
    if (overflow || last >= *storage_elems) {
      return FailTensor(kValue, "view (shape ", FormatDims(dims.span()), ", stride ", FormatDims(strides.span()),
                        ", offset ", offset, ") reaches element ",
                        overflow ? std::string("past 2^63") : std::to_string(last), " but storage ",
                        FormatDims(storage.span()), " holds ", *storage_elems, " elements");
    }
    if (tensorData == nullptr) return FailTensor(kNullPointer, "tensorData is null for a non-empty view");
  }

  auto* t = new (std::nothrow) aclTensor;
  if (t == nullptr) return FailTensor(kRuntime, "out of memory");
  if (!aclnn_cpu::Registry().Insert(t, {})) {
    delete t;
    return FailTensor(kRuntime, "out of memory");
  }
  t->dtype = dataType;
  t->format = format;
  t->dims = dims;
  t->strides = strides;
  t->offset = offset;
  t->storage_dims = storage;
  t->storage_elems = *storage_elems;
  t->numel = *numel;
  t->data = tensorData;
  return t;
}
}  // namespace

extern "C" ACL_FUNC_VISIBILITY aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum,
                                                          aclDataType dataType, const int64_t* stride,
                                                          int64_t offset, aclFormat format,
                                                          const int64_t* storageDims,
                                                          uint64_t storageDimsNum, void* tensorData) {
  try {  // see Note [No exceptions across the C API]
    return CreateTensor(viewDims, viewDimsNum, dataType, stride, offset, format, storageDims, storageDimsNum,
                        tensorData);
  } catch (...) {  // only std::bad_alloc can come here (a message being formatted)
    aclnn_cpu::SetStaticRecentError("aclCreateTensor: out of memory");
    return nullptr;
  }
}

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensor(const aclTensor* tensor) {
  if (tensor == nullptr) return ACLNN_SUCCESS;
  const auto taken = aclnn_cpu::Registry().Take(tensor);
  if (!taken) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                "aclDestroyTensor: tensor is not a live tensor (already destroyed, or not made by aclCreateTensor)");
  }
  delete taken->evicted;  // see Note [Tensor handles]
  return ACLNN_SUCCESS;
}
