// libFuzzer target: aclCreateTensor with arbitrary dims, strides, offsets, storage dims, counts,
// dtypes, formats and null pointers.
//
// Invariants (abort on violation): no crash and no sanitizer report; the tensor is created exactly
// when an independent model of the documented rules (acl_meta.h) says it is valid, computed in
// 128-bit arithmetic; a refusal returns nullptr and leaves a message of its own in
// aclGetRecentErrMsg().
//   scripts/fuzz.sh            (builds the fuzz preset, replays fuzz/corpus/create_tensor)
//   build/fuzz/fuzz/fuzz_create_tensor fuzz/corpus/create_tensor -max_total_time=60
//   BCE_FUZZ_DESCRIBE=1 build/fuzz/fuzz/fuzz_create_tensor -runs=0 fuzz/corpus/create_tensor
#include <array>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "acl/acl.h"
#include "fuzz_input.h"

namespace {

using bce_fuzz::ByteReader;

// Arrays handed to the library are this long whatever count is claimed, so that a library that
// read past the count it was told would be caught by ASan only beyond this (and counts above 32
// must be refused before anything is read).
constexpr size_t kArray = 64;
constexpr uint64_t kMaxRank = 32;  // acl_meta.h: viewDimsNum 0..32
alignas(64) unsigned char g_storage[64];

using int128 = __int128;
constexpr int128 kI64Max = std::numeric_limits<int64_t>::max();

struct Decoded {
  uint64_t view_num = 0, storage_num = 0;
  std::array<int64_t, kArray> dims{}, strides{}, storage{};
  bool dims_null = false, strides_null = false, storage_null = false, data_null = false;
  int64_t offset = 0;
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_ND;
};

uint64_t DecodeCount(ByteReader& in) {
  const uint8_t b = in.Byte();
  if (b < 200) return b % 10;  // 0..9: operators' range and a little past
  if (b < 250) return b % 40;  // around the 32 limit
  return in.U64();             // anything
}

Decoded Decode(ByteReader& in) {
  Decoded d;
  d.view_num = DecodeCount(in);
  for (size_t i = 0; i < std::min<uint64_t>(d.view_num, kArray); ++i) d.dims[i] = in.InterestingI64();
  d.strides_null = in.Below(3) == 1;
  if (!d.strides_null) {
    for (size_t i = 0; i < std::min<uint64_t>(d.view_num, kArray); ++i) d.strides[i] = in.InterestingI64();
  }
  d.offset = in.InterestingI64();
  d.dtype = in.AnyDType();
  d.format = in.AnyFormat();
  // Storage: the view's shape, one dim of elements, or anything.
  switch (in.Below(4)) {
    case 0: {
      d.storage_num = 1;
      d.storage[0] = in.InterestingI64();
      break;
    }
    case 1: {
      d.storage_num = std::min<uint64_t>(d.view_num, kArray);
      d.storage = d.dims;
      break;
    }
    default: {
      d.storage_num = DecodeCount(in);
      for (size_t i = 0; i < std::min<uint64_t>(d.storage_num, kArray); ++i) d.storage[i] = in.InterestingI64();
    }
  }
  d.dims_null = in.OneIn(16);
  d.storage_null = in.OneIn(16);
  d.data_null = in.OneIn(8);
  return d;
}

/// Product of @p n dims (all >= 0) in 128 bits, saturated: any zero makes it 0 (an empty view or
/// storage), otherwise a value above int64 stays above it.
int128 Product(const std::array<int64_t, kArray>& dims, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) {
    if (dims[i] == 0) return 0;
  }
  int128 p = 1;
  for (uint64_t i = 0; i < n; ++i) {
    p *= dims[i];
    if (p > kI64Max) p = kI64Max + 1;
  }
  return p;
}

/// The documented rules of aclCreateTensor; returns "" when the tensor is valid, else the rule.
std::string Model(const Decoded& d) {
  if (d.view_num > kMaxRank) return "more than 32 view dims";
  if (d.storage_num > kMaxRank) return "more than 32 storage dims";
  if (d.dims_null && d.view_num != 0) return "null viewDims";
  if (d.storage_null && d.storage_num != 0) return "null storageDims";
  const size_t elem = aclDataTypeSize(d.dtype);
  if (elem == 0) return "dtype without a size";
  if (d.offset < 0) return "negative offset";
  for (uint64_t i = 0; i < d.view_num; ++i) {
    if (d.dims[i] < 0) return "negative view dim";
  }
  for (uint64_t i = 0; i < d.storage_num; ++i) {
    if (d.storage[i] < 0) return "negative storage dim";
  }
  if (!d.strides_null) {
    for (uint64_t i = 0; i < d.view_num; ++i) {
      if (d.strides[i] < 0) return "negative stride";
    }
  }
  const int128 numel = Product(d.dims, d.view_num);
  if (numel > kI64Max || numel * static_cast<int128>(elem) > kI64Max) return "view bytes past 64 bits";
  const int128 storage = Product(d.storage, d.storage_num);
  if (storage > kI64Max || storage * static_cast<int128>(elem) > kI64Max) return "storage bytes past 64 bits";
  if (numel == 0) return "";
  // Highest element addressed: offset + sum((dim - 1) * stride); contiguous when strides are null.
  int128 last = d.offset;
  if (d.strides_null) {
    last += numel - 1;
  } else {
    for (uint64_t i = 0; i < d.view_num; ++i) last += static_cast<int128>(d.dims[i] - 1) * d.strides[i];
  }
  if (last >= storage) return "view outside storage";
  if (d.data_null) return "null data for a non-empty view";
  return "";
}

std::string Describe(const Decoded& d) {
  std::string s = "viewDimsNum " + std::to_string(d.view_num) + (d.dims_null ? " (null)" : "") + " dims [";
  for (size_t i = 0; i < std::min<uint64_t>(d.view_num, kArray); ++i) s += std::to_string(d.dims[i]) + ",";
  s += "] strides ";
  if (d.strides_null) {
    s += "null";
  } else {
    s += "[";
    for (size_t i = 0; i < std::min<uint64_t>(d.view_num, kArray); ++i) s += std::to_string(d.strides[i]) + ",";
    s += "]";
  }
  s += " offset " + std::to_string(d.offset) + " dtype " + std::to_string(static_cast<int>(d.dtype)) + " format " +
       std::to_string(static_cast<int>(d.format)) + " storageDimsNum " + std::to_string(d.storage_num) +
       (d.storage_null ? " (null)" : "") + " storage [";
  for (size_t i = 0; i < std::min<uint64_t>(d.storage_num, kArray); ++i) s += std::to_string(d.storage[i]) + ",";
  s += std::string("] data ") + (d.data_null ? "null" : "set");
  return s;
}


}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  aclInit(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ByteReader in(data, size);
  const Decoded d = Decode(in);
  const std::string rule = Model(d);
  aclrtFree(nullptr);  // leaves a known message, so that a refusal must replace it with its own
  const std::string sentinel = aclGetRecentErrMsg();
  aclTensor* t = aclCreateTensor(d.dims_null ? nullptr : d.dims.data(), d.view_num, d.dtype,
                                 d.strides_null ? nullptr : d.strides.data(), d.offset, d.format,
                                 d.storage_null ? nullptr : d.storage.data(), d.storage_num,
                                 d.data_null ? nullptr : g_storage);
  if (std::getenv("BCE_FUZZ_DESCRIBE") != nullptr) {  // what a corpus file means
    std::fprintf(stderr, "%s\n  -> %s (model: %s)\n", Describe(d).c_str(), t ? "created" : aclGetRecentErrMsg(),
                 rule.empty() ? "valid" : rule.c_str());
  }
  if (rule.empty() && t == nullptr) {
    bce_fuzz::Violation("aclCreateTensor refused a valid tensor",
                        (Describe(d) + "\nmessage: " + aclGetRecentErrMsg()).c_str());
  }
  if (!rule.empty() && t != nullptr) {
    bce_fuzz::Violation("aclCreateTensor accepted an invalid tensor", (Describe(d) + "\nrule: " + rule).c_str());
  }
  if (t == nullptr && (aclGetRecentErrMsg()[0] == '\0' || sentinel == aclGetRecentErrMsg())) {
    bce_fuzz::Violation("aclCreateTensor returned nullptr without a message of its own", Describe(d).c_str());
  }
  if (t != nullptr && aclDestroyTensor(t) != ACLNN_SUCCESS) {
    bce_fuzz::Violation("aclDestroyTensor failed on a created tensor", Describe(d).c_str());
  }
  return 0;
}
