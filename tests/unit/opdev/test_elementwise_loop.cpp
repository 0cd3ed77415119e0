// The shared per-target loop (ElementwiseTile, src/opdev/elementwise_loop-inl.h) on toy operators
// of its own, apart from any real operator, on every SIMD target this build has and this CPU runs:
// every count from 0 past several staged blocks, streaming on and off, outputs in the storage and
// in the compute type, absent inputs, in place. What every operator relies on: each element's
// result depends only on its own inputs (the same bits at any position, through the whole-vector,
// the staged and the padded-tail paths), every element of the tile is written and nothing past it.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "opdev/test_elementwise_loop.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "opdev/elementwise_loop-inl.h"
#include "simd/exp-inl.h"
#include "simd/log1p-inl.h"
#include "simd/softplus_tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// out = a * b (+ c where c is present), a product and a sum (no fused rounding): no staged form.
template <class Storage, bool HAS_C>
struct MulAddOp {
  using T = Storage;
  using D = hn::ScalableTag<float>;
  using V = hn::Vec<D>;
  static constexpr int kInputOperands[] = {0, 1, 2};
  static constexpr int kOutputOperands[] = {3};
  static constexpr size_t kInputs = 3;
  static constexpr size_t kOutputs = 1;
  static constexpr bool Reads(size_t j) { return j < 2 || HAS_C; }
  static constexpr bool ComputeOutput(size_t) { return false; }
  static constexpr StagedForm kStaged = StagedForm::kNone;

  template <size_t K>
  HWY_INLINE void Vectors(D, const V (&in)[kInputs][K], V (&out)[kOutputs][K]) const {
    for (size_t k = 0; k < K; ++k) out[0][k] = hn::Add(hn::Mul(in[0][k], in[1][k]), in[2][k]);  // c: zero if absent
  }
  template <size_t K>
  HWY_INLINE void Staged(D, const V (&)[kInputs][K], const V*, const V*, V (&)[kOutputs][K]) const {}
};

/// out0 = x * exp(-|x|) + y (storage type), out1 = log1p(exp(-|x|)) (compute type, SoftplusTailN):
/// the staged form with the tail, whose results must be those of the whole-vector form bit for bit.
template <class Storage>
struct StagedToyOp {
  using T = Storage;
  using D = hn::ScalableTag<float>;
  using V = hn::Vec<D>;
  static constexpr int kInputOperands[] = {0, 1};
  static constexpr int kOutputOperands[] = {2, 3};
  static constexpr size_t kInputs = 2;
  static constexpr size_t kOutputs = 2;
  static constexpr bool Reads(size_t) { return true; }
  static constexpr bool ComputeOutput(size_t j) { return j == 1; }
  static constexpr StagedForm kStaged = StagedForm::kExpLog1p;

  template <size_t K>
  HWY_INLINE void Staged(D d, const V (&in)[kInputs][K], const V* e, const V* tail, V (&out)[kOutputs][K]) const {
    (void)d;
    for (size_t k = 0; k < K; ++k) {
      out[0][k] = hn::Add(hn::Mul(in[0][k], e[k]), in[1][k]);
      out[1][k] = tail[k];
    }
  }
  template <size_t K>
  HWY_INLINE void Vectors(D d, const V (&in)[kInputs][K], V (&out)[kOutputs][K]) const {
    V minus_abs_x[K], e[K], tail[K];
    for (size_t k = 0; k < K; ++k) minus_abs_x[k] = hn::Or(in[0][k], hn::SignBit(d));
    ExpNonPositiveN<K>(d, minus_abs_x, e);
    SoftplusTailFromExpN<K>(d, in[0], e, tail);
    Staged<K>(d, in, e, tail, out);
  }
};

template <class Op>
void RunToy(const void* const* operands, size_t count, bool stream) {
  TileArgs args;
  for (size_t o = 0; o < Op::kInputs + Op::kOutputs; ++o) args.at[o] = operands[o];
  args.stream_outputs = stream;
  ElementwiseTile<Op>::Run(Op{}, args, count);
}

void MulAddFloat(const void* const* operands, size_t count, bool stream, bool has_c) {
  has_c ? RunToy<MulAddOp<float, true>>(operands, count, stream)
        : RunToy<MulAddOp<float, false>>(operands, count, stream);
}
void StagedToyFloat(const void* const* operands, size_t count, bool stream) {
  RunToy<StagedToyOp<float>>(operands, count, stream);
}
void StagedToyBFloat16(const void* const* operands, size_t count, bool stream) {
  RunToy<StagedToyOp<hwy::bfloat16_t>>(operands, count, stream);
}

}  // namespace HWY_NAMESPACE
}  // namespace aclnn_cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "common/dtype.h"
#include "simd_targets.h"

namespace aclnn_cpu {
namespace {

HWY_EXPORT(MulAddFloat);
HWY_EXPORT(StagedToyFloat);
HWY_EXPORT(StagedToyBFloat16);

using acl_test::OnEverySimdTarget;

/// Counts from 0 past several staged blocks of the widest target (two groups of four 16-lane
/// vectors: 128 fp32 elements), so every path and every tail length runs.
constexpr size_t kMaxCount = 300;
/// Poison in every element outside a tile, and an output offset that breaks chunk alignment.
constexpr uint32_t kPoisonBits = 0x7FBADBADu;

std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

/// A buffer of n elements of 4 bytes between guards of poison, 64-byte aligned at begin + offset.
class Guarded {
 public:
  Guarded(size_t n, size_t offset) : n_(n), offset_(offset), bytes_(new uint32_t[n + offset + 32 + 16]) {
    base_ = reinterpret_cast<uint32_t*>((reinterpret_cast<uintptr_t>(bytes_.get()) + 63) & ~uintptr_t{63}) + 16;
    for (size_t i = 0; i < n + offset + 16; ++i) base_[i] = kPoisonBits;
  }
  uint32_t* data() { return base_ + offset_; }
  bool GuardsIntact() const {
    for (size_t i = 0; i < offset_; ++i) {
      if (base_[i] != kPoisonBits) return false;
    }
    for (size_t i = offset_ + n_; i < offset_ + n_ + 16; ++i) {
      if (base_[i] != kPoisonBits) return false;
    }
    return true;
  }

 private:
  size_t n_, offset_;
  std::unique_ptr<uint32_t[]> bytes_;
  uint32_t* base_;
};

TEST(ElementwiseLoop, WholeVectorFormComputesEveryElementAndNothingElse) {
  const std::vector<float> a = RandomFloats(kMaxCount, 1, -4, 4), b = RandomFloats(kMaxCount, 2, -4, 4),
                           c = RandomFloats(kMaxCount, 3, -4, 4);
  OnEverySimdTarget([&](const char*) {
    for (const bool has_c : {false, true}) {
      for (const bool stream : {false, true}) {
        for (size_t n = 0; n <= kMaxCount; ++n) {
          for (const size_t offset : {0, 3}) {
            // Inputs of exactly n elements (a sanitizer build catches a read past them).
            const std::vector<float> an(a.begin(), a.begin() + n), bn(b.begin(), b.begin() + n),
                cn(c.begin(), c.begin() + n);
            Guarded out(n, offset);
            const void* operands[4] = {an.data(), bn.data(), has_c ? cn.data() : nullptr, out.data()};
            HWY_DYNAMIC_DISPATCH(MulAddFloat)(operands, n, stream, has_c);
            ASSERT_TRUE(out.GuardsIntact()) << n << " elements, offset " << offset;
            for (size_t i = 0; i < n; ++i) {
              const float product = a[i] * b[i];
              const float want = has_c ? product + c[i] : product + 0.0f;
              float got;
              std::memcpy(&got, out.data() + i, 4);
              ASSERT_EQ(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(want))
                  << "element " << i << " of " << n << (has_c ? ", with c" : ", without c");
            }
          }
        }
      }
    }
  });
}

TEST(ElementwiseLoop, InPlaceGivesTheSameBits) {
  const std::vector<float> a = RandomFloats(kMaxCount, 4, -4, 4), b = RandomFloats(kMaxCount, 5, -4, 4);
  OnEverySimdTarget([&](const char*) {
    std::vector<float> separate(kMaxCount), in_place = a;
    const void* apart[4] = {a.data(), b.data(), nullptr, separate.data()};
    HWY_DYNAMIC_DISPATCH(MulAddFloat)(apart, kMaxCount, false, false);
    const void* aliased[4] = {in_place.data(), b.data(), nullptr, in_place.data()};
    HWY_DYNAMIC_DISPATCH(MulAddFloat)(aliased, kMaxCount, false, false);
    for (size_t i = 0; i < kMaxCount; ++i) ASSERT_EQ(std::bit_cast<uint32_t>(in_place[i]), std::bit_cast<uint32_t>(separate[i])) << i;
  });
}

/// Runs the staged toy over x, y (4-byte float or 2-byte bf16 storage) and returns out0's and
/// out1's bits, checking the guards of both outputs.
template <class Storage>
void RunStagedToy(const std::vector<float>& x, const std::vector<float>& y, size_t n, bool stream, size_t offset,
                  std::vector<uint32_t>& out0, std::vector<uint32_t>& out1) {
  std::vector<Storage> xs(n), ys(n);
  for (size_t i = 0; i < n; ++i) {
    if constexpr (sizeof(Storage) == 2) {
      xs[i] = std::bit_cast<Storage>(FloatToBFloat16(x[i]).bits);
      ys[i] = std::bit_cast<Storage>(FloatToBFloat16(y[i]).bits);
    } else {
      xs[i] = x[i];
      ys[i] = y[i];
    }
  }
  // out0 in the storage type (bf16 pairs packed in the 4-byte guarded elements), out1 in float.
  Guarded o0(n, offset), o1(n, offset);
  const void* operands[4] = {xs.data(), ys.data(), o0.data(), o1.data()};
  if constexpr (sizeof(Storage) == 2) {
    HWY_DYNAMIC_DISPATCH(StagedToyBFloat16)(operands, n, stream);
  } else {
    HWY_DYNAMIC_DISPATCH(StagedToyFloat)(operands, n, stream);
  }
  ASSERT_TRUE(o1.GuardsIntact()) << n;
  out0.assign(n, 0);
  out1.assign(o1.data(), o1.data() + n);
  const auto* bytes = reinterpret_cast<const unsigned char*>(o0.data());
  for (size_t i = 0; i < n; ++i) std::memcpy(&out0[i], bytes + i * sizeof(Storage), sizeof(Storage));
  // Nothing before out0 and past its last element: untouched poison bytes.
  ASSERT_TRUE(o0.GuardsIntact()) << n;
  const auto* poison = reinterpret_cast<const unsigned char*>(&kPoisonBits);
  for (size_t b = n * sizeof(Storage); b < n * 4; ++b) ASSERT_EQ(bytes[b], poison[b % 4]) << "byte " << b << " of " << n;
}

template <class Storage>
void ExpectEveryPositionGivesTheLoneElementsBits() {
  const std::vector<float> x = RandomFloats(kMaxCount, 6, -30, 30), y = RandomFloats(kMaxCount, 7, -1, 1);
  OnEverySimdTarget([&](const char*) {
    // Each element alone: a count of one, through the padded tail.
    std::vector<uint32_t> lone0(kMaxCount), lone1(kMaxCount), got0, got1;
    for (size_t i = 0; i < kMaxCount; ++i) {
      std::vector<uint32_t> o0, o1;
      RunStagedToy<Storage>({x[i]}, {y[i]}, 1, false, 0, o0, o1);
      lone0[i] = o0[0];
      lone1[i] = o1[0];
    }
    for (const bool stream : {false, true}) {
      for (size_t n = 0; n <= kMaxCount; n += (n < 140 ? 1 : 23)) {
        for (const size_t offset : {0, 1}) {
          RunStagedToy<Storage>(x, y, n, stream, offset, got0, got1);
          for (size_t i = 0; i < n; ++i) {
            ASSERT_EQ(got0[i], lone0[i]) << "out0, element " << i << " of " << n;
            ASSERT_EQ(got1[i], lone1[i]) << "out1, element " << i << " of " << n;
          }
        }
      }
    }
  });
}

TEST(ElementwiseLoop, StagedFormGivesEachElementTheBitsItHasAloneFloat) {
  ExpectEveryPositionGivesTheLoneElementsBits<float>();
}

TEST(ElementwiseLoop, StagedFormGivesEachElementTheBitsItHasAloneBFloat16) {
  ExpectEveryPositionGivesTheLoneElementsBits<hwy::bfloat16_t>();
}

}  // namespace
}  // namespace aclnn_cpu
#endif  // HWY_ONCE
