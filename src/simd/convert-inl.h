// Vector loads and stores of fp16, bf16, fp32 and fp64 storage, widened to and narrowed from the
// compute type (fp32, or fp64 for fp64 storage).
// Per-SIMD-target code: include it from a file compiled through hwy/foreach_target.h.

// What every target shares: the storage tag of native bf16 stores and the CPU test for them.
#include "simd/native_bf16.h"

// Per-target include guard (the Highway idiom).
#if defined(ACLNN_CPU_SIMD_CONVERT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_CPU_SIMD_CONVERT_INL_H_
#undef ACLNN_CPU_SIMD_CONVERT_INL_H_
#else
#define ACLNN_CPU_SIMD_CONVERT_INL_H_
#endif

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwy/cache_control.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ---------------------------------------------------------------------------------------------
// Loads and stores of the storage types, widened to / narrowed from the compute type.
//
// Contract (all targets):
//   LoadWide:  exact (fp16, bf16 -> fp32 are exact widenings).
//   StoreNarrow: one rounding to nearest even; overflow -> Inf; NaN stays NaN (quiet).
// Highway 1.0.3 gets this right only in part: its bf16 DemoteTo truncates, and without F16C its
// fp16 conversions truncate and turn Inf/NaN into finite numbers. We use the hardware F16C path
// on x86 AVX2 and above, and our own integer code everywhere else.
// ---------------------------------------------------------------------------------------------

#undef ACLNN_CPU_HAVE_HW_F16
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)
#define ACLNN_CPU_HAVE_HW_F16 1
#else
#define ACLNN_CPU_HAVE_HW_F16 0
#endif

template <class DF>
HWY_INLINE hn::Vec<DF> HalfBitsToFloat(DF df, hn::Vec<hn::RebindToUnsigned<DF>> h) {
  const hn::RebindToUnsigned<DF> du;
  const hn::RebindToSigned<DF> di;
  const auto sign = hn::ShiftLeft<16>(hn::And(h, hn::Set(du, 0x8000u)));
  const auto exponent = hn::And(hn::ShiftRight<10>(h), hn::Set(du, 0x1Fu));
  const auto mantissa = hn::And(h, hn::Set(du, 0x3FFu));
  const auto normal = hn::Or(hn::ShiftLeft<23>(hn::Add(exponent, hn::Set(du, 112u))), hn::ShiftLeft<13>(mantissa));
  const auto quiet = hn::IfThenElseZero(hn::RebindMask(du, hn::Ne(hn::BitCast(di, mantissa), hn::Zero(di))),
                                        hn::Set(du, 0x00400000u));
  const auto inf_nan = hn::Or(hn::Or(hn::Set(du, 0x7F800000u), hn::ShiftLeft<13>(mantissa)), quiet);
  // Subnormal (and zero): mantissa * 2^-24 is exact in binary32.
  const auto subnormal =
      hn::BitCast(du, hn::Mul(hn::ConvertTo(df, hn::BitCast(di, mantissa)), hn::Set(df, 0x1p-24f)));
  const auto exp_i = hn::BitCast(di, exponent);
  auto bits = hn::IfThenElse(hn::RebindMask(du, hn::Eq(exp_i, hn::Set(di, 31))), inf_nan, normal);
  bits = hn::IfThenElse(hn::RebindMask(du, hn::Eq(exp_i, hn::Zero(di))), subnormal, bits);
  return hn::BitCast(df, hn::Or(bits, sign));
}

template <class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> FloatToHalfBits(DF df, hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du;
  const hn::RebindToSigned<DF> di;
  const auto bits = hn::BitCast(du, v);
  const auto sign = hn::And(hn::ShiftRight<16>(bits), hn::Set(du, 0x8000u));
  const auto abs_bits = hn::And(bits, hn::Set(du, 0x7FFFFFFFu));
  const auto abs_i = hn::BitCast(di, abs_bits);  // non-negative: signed compares are safe
  // Normal range: rebias and round the 13 dropped bits to nearest even.
  const auto lsb = hn::And(hn::ShiftRight<13>(abs_bits), hn::Set(du, 1u));
  const auto normal = hn::ShiftRight<13>(
      hn::Sub(hn::Add(abs_bits, hn::Add(hn::Set(du, 0xFFFu), lsb)), hn::Set(du, 0x38000000u)));
  // Below 2^-14: adding 0.5f puts the binary16 subnormal grid on binary32's last bit, so the
  // float addition itself rounds to nearest even.
  const auto subnormal =
      hn::Sub(hn::BitCast(du, hn::Add(hn::BitCast(df, abs_bits), hn::Set(df, 0.5f))), hn::Set(du, 0x3F000000u));
  auto h = hn::IfThenElse(hn::RebindMask(du, hn::Lt(abs_i, hn::Set(di, 0x38800000))), subnormal, normal);
  h = hn::IfThenElse(hn::RebindMask(du, hn::Gt(abs_i, hn::Set(di, 0x477FEFFF))), hn::Set(du, 0x7C00u), h);
  const auto nan = hn::Or(hn::Set(du, 0x7E00u), hn::And(hn::ShiftRight<13>(abs_bits), hn::Set(du, 0x3FFu)));
  h = hn::IfThenElse(hn::RebindMask(du, hn::Gt(abs_i, hn::Set(di, 0x7F800000))), nan, h);
  return hn::Or(h, sign);
}

/// The bf16 nearest to each lane (ties to even; NaN stays NaN, made quiet) in the upper 16 bits
/// of the lane; the lower 16 bits are not specified. Callers shift or select halves, which joins
/// a pair of vectors into one register of bf16 with one shift and one blend.
template <class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> BFloat16InUpperHalf(DF /*df*/, hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du;
  const auto bits = hn::BitCast(du, v);
  const auto lsb = hn::And(hn::ShiftRight<16>(bits), hn::Set(du, 1u));
  const auto rounded = hn::Add(bits, hn::Add(hn::Set(du, 0x7FFFu), lsb));
  // Eq(v, v) is an ordered compare on every target, so false exactly for NaN. (Highway 1.0.3's
  // Ne(v, v) is ordered too on AVX2 and AVX-512, and so also false for NaN: not usable here.)
  return hn::IfThenElse(hn::RebindMask(du, hn::Eq(v, v)), rounded, hn::Or(bits, hn::Set(du, 0x00400000u)));
}

/// Loads Lanes(d) elements of storage type T widened to the compute type of d.
template <class T, class D>
HWY_INLINE hn::Vec<D> LoadWide(D d, const T* HWY_RESTRICT p) {
  if constexpr (std::is_same_v<T, hn::TFromD<D>>) {
    return hn::LoadU(d, p);
  } else if constexpr (std::is_same_v<T, hwy::bfloat16_t>) {
    const hn::Rebind<hwy::bfloat16_t, D> dbf;
    return hn::PromoteTo(d, hn::LoadU(dbf, p));
  } else {
    static_assert(std::is_same_v<T, hwy::float16_t>);
#if ACLNN_CPU_HAVE_HW_F16
    const hn::Rebind<hwy::float16_t, D> dh;
    return hn::PromoteTo(d, hn::LoadU(dh, p));
#else
    const hn::Rebind<uint16_t, D> du16;
    const hn::RebindToUnsigned<D> du;
    return HalfBitsToFloat(d, hn::PromoteTo(du, hn::LoadU(du16, reinterpret_cast<const uint16_t*>(p))));
#endif
  }
}

/// Whether a vector of Lanes(D) elements of T is a whole register that Stream may write (Highway
/// rounds partial 128-bit vectors up to 16 bytes, which would write past the tile).
template <class T, class D>
constexpr bool kCanStream = HWY_LANES(hn::TFromD<D>) * sizeof(T) >= 16 || HWY_TARGET == HWY_SCALAR;

/// Stores Lanes(d) compute-type values as storage type T (one rounding to nearest even);
/// kStream: with a non-temporal store to a vector-aligned @p p.
template <bool kStream = false, class T, class D>
HWY_INLINE void StoreNarrow(D d, hn::Vec<D> v, T* HWY_RESTRICT p) {
  if constexpr (std::is_same_v<T, hn::TFromD<D>>) {
    if constexpr (kStream) {
      hn::Stream(v, d, p);
    } else {
      hn::StoreU(v, d, p);
    }
  } else {
    const hn::Rebind<uint16_t, D> du16;
    const hn::RebindToSigned<D> di;
    hn::Vec<hn::RebindToUnsigned<D>> bits;
    if constexpr (std::is_same_v<T, hwy::bfloat16_t>) {
      bits = hn::ShiftRight<16>(BFloat16InUpperHalf(d, v));
    } else {
      static_assert(std::is_same_v<T, hwy::float16_t>);
#if ACLNN_CPU_HAVE_HW_F16
      const hn::Rebind<hwy::float16_t, D> dh;
      const hn::Rebind<uint16_t, D> du16_out;
      const auto half = hn::BitCast(du16_out, hn::DemoteTo(dh, v));
      if constexpr (kStream) {
        hn::Stream(half, du16_out, reinterpret_cast<uint16_t*>(p));
      } else {
        hn::StoreU(half, du16_out, reinterpret_cast<uint16_t*>(p));
      }
      return;
#else
      bits = FloatToHalfBits(d, v);
#endif
    }
    // Values are <= 0xFFFF, so the saturating i32 -> u16 demotion is exact.
    const auto narrow = hn::DemoteTo(du16, hn::BitCast(di, bits));
    if constexpr (kStream) {
      hn::Stream(narrow, du16, reinterpret_cast<uint16_t*>(p));
    } else {
      hn::StoreU(narrow, du16, reinterpret_cast<uint16_t*>(p));
    }
  }
}

/// StorageChunk<T, D>: the unit an elementwise kernel loads and stores, kVectors compute vectors
/// of Lanes(d) elements each (kVectors * Lanes(d) elements of storage type T).
/// bf16 loads one whole register of 2 * Lanes(d) values and splits it into the even and the odd
/// elements with one shift and one mask (a bf16 is the top half of a float), and joins them back
/// the same way on store: half the instructions of widening half-registers. For a per-element
/// computation the order within a chunk does not matter; StoreCompute writes compute-type results
/// (a loss to be summed) back in element order.
template <class T, class D>
struct StorageChunk {
  static constexpr size_t kVectors = 1;
  using V = hn::Vec<D>;
  static HWY_INLINE void Load(D d, const T* HWY_RESTRICT p, V* v) { v[0] = LoadWide(d, p); }
  template <bool kStream>
  static HWY_INLINE void Store(D d, const V* v, T* HWY_RESTRICT p) {
    StoreNarrow<kStream>(d, v[0], p);
  }
  static HWY_INLINE void StoreCompute(D d, const V* v, hn::TFromD<D>* HWY_RESTRICT p) { hn::StoreU(v[0], d, p); }
  static constexpr bool kCanStreamChunk = kCanStream<T, D>;
};

template <class D>
struct StorageChunk<hwy::bfloat16_t, D> {
  static constexpr size_t kVectors = 2;
  using V = hn::Vec<D>;
  static HWY_INLINE void Load(D d, const hwy::bfloat16_t* HWY_RESTRICT p, V* v) {
    const hn::RebindToUnsigned<D> du;
    const auto pairs = hn::LoadU(du, reinterpret_cast<const uint32_t*>(p));
    v[0] = hn::BitCast(d, hn::ShiftLeft<16>(pairs));                      // even elements
    v[1] = hn::BitCast(d, hn::And(pairs, hn::Set(du, 0xFFFF0000u)));      // odd elements
  }
  template <bool kStream>
  static HWY_INLINE void Store(D d, const V* v, hwy::bfloat16_t* HWY_RESTRICT p) {
    const hn::RebindToUnsigned<D> du;
    // Even elements from v[0] shifted down into the low halves, odd ones from the high halves of v[1].
    const auto even = hn::ShiftRight<16>(BFloat16InUpperHalf(d, v[0]));
#if HWY_TARGET == HWY_SCALAR  // one-lane vectors cannot be viewed as 16-bit lanes
    const auto pairs = hn::Or(even, hn::And(BFloat16InUpperHalf(d, v[1]), hn::Set(du, 0xFFFF0000u)));
#else
    const hn::Repartition<uint16_t, D> du16;
    const auto pairs =
        hn::BitCast(du, hn::OddEven(hn::BitCast(du16, BFloat16InUpperHalf(d, v[1])), hn::BitCast(du16, even)));
#endif
    if constexpr (kStream) {
      hn::Stream(pairs, du, reinterpret_cast<uint32_t*>(p));
    } else {
      hn::StoreU(pairs, du, reinterpret_cast<uint32_t*>(p));
    }
  }
  static HWY_INLINE void StoreCompute(D d, const V* v, hn::TFromD<D>* HWY_RESTRICT p) {
    hn::StoreInterleaved2(v[0], v[1], d, p);  // even, odd: element order
  }
  static constexpr bool kCanStreamChunk = true;  // always a whole register
};

// ---------------------------------------------------------------------------------------------
// Note [Native bf16 stores]
// AVX512-BF16's VCVTNE2PS2BF16 narrows two vectors of floats to bf16 in one instruction, with the
// rounding of BFloat16InUpperHalf (to nearest even, overflow to infinity, a NaN made quiet with
// its sign and upper payload kept), except that it reads a subnormal float as zero. So
// StorageChunk<NativeBFloat16> stores a chunk with it, and one VPERMW that puts the even and odd
// elements back in order, unless a lane of the chunk is subnormal (two VFPCLASSPS): that chunk
// takes BFloat16InUpperHalf's integer code. Every lane gets the bits of the integer code: the
// kernels' narrowing tests (KernelNarrowing.Bf16*, every bf16 pattern and every rounding tie,
// run on every target) take this path on CPUs that have the instruction, and fail if the
// subnormal test or the element order is taken out. The
// instruction is written as inline assembly: Highway 1.0.3 has no op for it, and its intrinsic
// needs the avx512bf16 target on every function it is inlined into, which the AVX3 target's
// kernels do not have; the kernel tables take this type for bf16 only where CpuHasAvx512Bf16().
// The bf16 backward and the fused call got faster (docs/perf.md). Loads need nothing new: a
// bf16 is the upper half of a float.
// ---------------------------------------------------------------------------------------------
#undef ACLNN_CPU_HAVE_NATIVE_BF16_STORE
#if HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86
#define ACLNN_CPU_HAVE_NATIVE_BF16_STORE 1
#else
#define ACLNN_CPU_HAVE_NATIVE_BF16_STORE 0
#endif

template <class D>
struct StorageChunk<NativeBFloat16, D> : StorageChunk<hwy::bfloat16_t, D> {
  using Software = StorageChunk<hwy::bfloat16_t, D>;
  using V = hn::Vec<D>;
  template <bool kStream>
  static HWY_INLINE void Store(D d, const V* v, NativeBFloat16* HWY_RESTRICT p) {
#if ACLNN_CPU_HAVE_NATIVE_BF16_STORE
    if constexpr (std::is_same_v<hn::TFromD<D>, float> && hn::MaxLanes(D()) * sizeof(float) == 64) {
      constexpr int kDenormal = 0x20;  // VFPCLASSPS category
      if (HWY_LIKELY((_mm512_fpclass_ps_mask(v[0].raw, kDenormal) | _mm512_fpclass_ps_mask(v[1].raw, kDenormal)) ==
                     0)) {
        __m512i halves;  // bf16 of v[0] in the lower 16 words, of v[1] in the upper (AT&T order)
        asm("vcvtne2ps2bf16 %1, %2, %0" : "=v"(halves) : "v"(v[0].raw), "v"(v[1].raw));
        alignas(64) static constexpr uint16_t kEvenOdd[32] = {0, 16, 1, 17, 2,  18, 3,  19, 4,  20, 5,
                                                              21, 6, 22, 7, 23, 8,  24, 9,  25, 10, 26,
                                                              11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
        const __m512i pairs = _mm512_permutexvar_epi16(_mm512_load_si512(kEvenOdd), halves);
        if constexpr (kStream) {
          _mm512_stream_si512(reinterpret_cast<__m512i*>(p), pairs);
        } else {
          _mm512_storeu_si512(p, pairs);
        }
        return;
      }
    }
#endif
    Software::template Store<kStream>(d, v, p);
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace aclnn_cpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_CPU_SIMD_CONVERT_INL_H_
