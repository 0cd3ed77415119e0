// Decoding a libFuzzer input into API arguments: a byte reader whose exhausted state reads as
// zeros (so that choice 0 is always the ordinary one and short inputs make ordinary calls), the
// "interesting" 64-bit values of sizes and strides, and every aclDataType / aclFormat value
// including invalid ones. A violated invariant prints what was decoded and aborts.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "acl/acl_base.h"

namespace bce_fuzz {

class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  /// The next byte, 0 once the input is used up.
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  /// A value in [0, n) from one byte (n <= 256).
  uint32_t Below(uint32_t n) { return Byte() % n; }
  /// True with probability about 1/n (never when the input is used up).
  bool OneIn(uint32_t n) { return pos_ < size_ && Byte() % n == n - 1; }
  /// Eight bytes, little-endian (zeros past the end).
  uint64_t U64() {
    uint64_t v = 0;
    for (int k = 0; k < 8; ++k) v |= static_cast<uint64_t>(Byte()) << (8 * k);
    return v;
  }

  /// A size, stride or offset: small values mostly, then the edges where 32- and 64-bit
  /// arithmetic breaks, then any 64-bit value.
  int64_t InterestingI64() {
    static constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    static constexpr int64_t kEdges[] = {
        -1,
        -2,
        std::numeric_limits<int64_t>::min(),
        kMax,
        kMax - 1,
        kMax / 2,
        kMax / 2 + 1,
        kMax / 3 + 1,
        kMax / 4 + 1,
        kMax / 8 + 1,
        (int64_t{1} << 31) - 1,
        int64_t{1} << 31,
        (int64_t{1} << 31) + 1,
        (int64_t{1} << 32) - 1,
        int64_t{1} << 32,
        (int64_t{1} << 32) + 1,
        int64_t{1} << 40,
        int64_t{1} << 61,
        int64_t{1} << 62,
        (int64_t{1} << 62) + 1,
        3037000500,  // just above sqrt(2^63)
        65536,
        65537,
        4096,
        -(int64_t{1} << 31),
    };
    const uint8_t selector = Byte();
    if (selector < 160) return selector % 9;
    if (selector < 224) return kEdges[selector % (sizeof(kEdges) / sizeof(kEdges[0]))];
    if (selector < 240) return static_cast<int64_t>(Byte()) * 37 + 9;
    return static_cast<int64_t>(U64());
  }

  /// Any aclDataType value: mostly the operator's float types, then every enumerator, then values
  /// that name no type at all. (Those stay within the enum's range of values, -64..63: a value
  /// outside it is undefined behaviour in C++ before the library ever sees it.)
  aclDataType AnyDType() {
    static constexpr int kFloat[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
    static constexpr int kAll[] = {ACL_DT_UNDEFINED, ACL_FLOAT,  ACL_FLOAT16, ACL_INT8,      ACL_INT32,
                                   ACL_UINT8,        ACL_INT16,  ACL_UINT16,  ACL_UINT32,    ACL_INT64,
                                   ACL_UINT64,       ACL_DOUBLE, ACL_BOOL,    ACL_STRING,    ACL_COMPLEX64,
                                   ACL_COMPLEX128,   ACL_BF16,   ACL_INT4,    ACL_UINT1,     ACL_COMPLEX32,
                                   5,                14,         15,          26,            28,
                                   40,               63,         -2,          -64};
    const uint8_t selector = Byte();
    if (selector < 224) return static_cast<aclDataType>(kFloat[selector % 4]);
    return static_cast<aclDataType>(kAll[selector % (sizeof(kAll) / sizeof(kAll[0]))]);
  }

  /// Any aclFormat value: mostly ND, then every enumerator, then values that name no format (within
  /// the enum's range of values, -64..63).
  aclFormat AnyFormat() {
    static constexpr int kAll[] = {ACL_FORMAT_UNDEFINED, ACL_FORMAT_NCHW,       ACL_FORMAT_NHWC,
                                   ACL_FORMAT_ND,        ACL_FORMAT_NC1HWC0,    ACL_FORMAT_FRACTAL_Z,
                                   ACL_FORMAT_NC1HWC0_C04, ACL_FORMAT_HWCN,     ACL_FORMAT_NDHWC,
                                   ACL_FORMAT_FRACTAL_NZ, ACL_FORMAT_NCDHW,     ACL_FORMAT_NDC1HWC0,
                                   ACL_FRACTAL_Z_3D,     ACL_FORMAT_NC,         ACL_FORMAT_NCL,
                                   5,                    50,                    63,
                                   -2,                   -64};
    const uint8_t selector = Byte();
    if (selector < 224) return ACL_FORMAT_ND;
    return static_cast<aclFormat>(kAll[selector % (sizeof(kAll) / sizeof(kAll[0]))]);
  }

  size_t consumed() const { return pos_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

/// A deterministic generator for bulk values (seeded from the input): splitmix64.
class SplitMix {
 public:
  explicit SplitMix(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [lo, hi).
  double Uniform(double lo, double hi) { return lo + (hi - lo) * static_cast<double>(Next() >> 11) * 0x1p-53; }

 private:
  uint64_t state_;
};

/// Reports a broken invariant and aborts (libFuzzer then saves the input as a crash).
[[noreturn]] inline void Violation(const char* what, const char* detail) {
  std::fprintf(stderr, "\n*** invariant violated: %s\n%s\n", what, detail);
  std::fflush(stderr);
  std::abort();
}

}  // namespace bce_fuzz
