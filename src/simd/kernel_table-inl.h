// An operator's kernel table for one SIMD target, from the parts compiled apart (Note [One target
// per translation unit], src/simd/kernel_parts.h): the one table builder every operator's dispatch
// file calls. Per-SIMD-target code: include it from a file compiled through hwy/foreach_target.h.

// Per-target include guard (the Highway idiom).
#if defined(ACLNN_CPU_SIMD_KERNEL_TABLE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_CPU_SIMD_KERNEL_TABLE_INL_H_
#undef ACLNN_CPU_SIMD_KERNEL_TABLE_INL_H_
#else
#define ACLNN_CPU_SIMD_KERNEL_TABLE_INL_H_
#endif

#include <cstddef>
#include <type_traits>
#include <utility>

#include "hwy/highway.h"
#include "opdev/kernel_variant.h"
#include "simd/convert-inl.h"
#include "simd/kernel_parts.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu {
namespace HWY_NAMESPACE {

/// This target's kernel table: a value-initialised Table whose parts this target has
/// (KernelPartCompiled) are filled in part order by fill_part(table, std::integral_constant<size_t,
/// part>) (so the native bf16 part overwrites bf16's), and whose target_name is this target's. A
/// part the target does not have is never named, so its empty unit leaves no symbol missing.
template <class Table, class FillPart>
Table BuildKernelTable(FillPart fill_part) {
  Table table{};
  const auto fill_if_compiled = [&]<size_t kPart>(std::integral_constant<size_t, kPart> part) {
    if constexpr (KernelPartCompiled(kPart, HWY_TARGET)) fill_part(table, part);
  };
  [&]<size_t... kPart>(std::index_sequence<kPart...>) {
    (fill_if_compiled(std::integral_constant<size_t, kPart>{}), ...);
  }(std::make_index_sequence<kKernelPartCount>());
  table.target_name = hwy::TargetName(HWY_TARGET);
  return table;
}

/// Calls f.template operator()<F...>() for every combination of N bools, false before true and the
/// first the slowest (the order of their variant keys).
template <size_t N, bool... F, class Fn>
HWY_INLINE void ForEachFeatureCombination(Fn& f) {
  if constexpr (sizeof...(F) == N) {
    f.template operator()<F...>();
  } else {
    ForEachFeatureCombination<N, F..., false>(f);
    ForEachFeatureCombination<N, F..., true>(f);
  }
}

/// Fills @p table's variants of kernel part kPart's element type T: for every combination F... of
/// the table's feature bits, fn[MakeVariantKey(dtype of T, {F...})] = variant.template
/// operator()<T, F...>() (the operator's tile function of that variant). False, leaving the table
/// as it is, for the native bf16 part where this CPU has no AVX512-BF16 (targets without it
/// compile no such part: KernelPartCompiled). The operator's part filler, which the part files
/// instantiate (ACLNN_KERNEL_PART_INSTANCE), calls this.
template <size_t kPart, class Table, class Variant>
bool FillVariantsOfPart(Table& table, Variant variant) {
  using T = KernelPartElement<kPart>;
  static_assert(kPart != kNativeBFloat16Part || ACLNN_CPU_HAVE_NATIVE_BF16_STORE,
                "KernelPartCompiled keeps the native bf16 part off this target");
  if (kPart == kNativeBFloat16Part && !CpuHasAvx512Bf16()) return false;
  const auto put = [&]<bool... F>() {
    table.fn[MakeVariantKey<Table::kFeatures>(kKernelDTypeOf<T>, {F...})] = variant.template operator()<T, F...>();
  };
  ForEachFeatureCombination<Table::kFeatures>(put);
  return true;
}

}  // namespace HWY_NAMESPACE
}  // namespace aclnn_cpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_CPU_SIMD_KERNEL_TABLE_INL_H_

#ifndef ACLNN_CPU_SIMD_KERNEL_TABLE_MACROS_
#define ACLNN_CPU_SIMD_KERNEL_TABLE_MACROS_
/// An operator's part file (one unit per SIMD target and part, Note [One target per translation
/// unit]): instantiates the part filler FILL_PART<ACLNN_KERNEL_PART>(TABLE&) of namespace NS's
/// per-target namespace. No HWY_BEFORE_NAMESPACE: the instantiation takes the target attributes of
/// the template's definition in the -inl.h, and clang rejects a target region that declares no
/// function.
#define ACLNN_KERNEL_PART_INSTANCE(NS, FILL_PART, TABLE)                                                  \
  namespace NS::HWY_NAMESPACE {                                                                          \
  static_assert(ACLNN_KERNEL_PART < ::aclnn_cpu::kKernelPartCount, "aclnn_add_kernel_parts: PARTS too large"); \
  template bool FILL_PART<ACLNN_KERNEL_PART>(TABLE & table);                                              \
  }

/// An operator's dispatch file, compiled through hwy/foreach_target.h: per target, GET_TABLE()
/// returns that target's TABLE, built from the parts (BuildKernelTable) by FILL_PART (defined in
/// the -inl.h, instantiated in the part files).
#define ACLNN_KERNEL_TABLE_OF_TARGET(NS, TABLE, FILL_PART, GET_TABLE)                                \
  HWY_BEFORE_NAMESPACE();                                                                          \
  namespace NS::HWY_NAMESPACE {                                                                    \
  template <size_t kPart>                                                                          \
  bool FILL_PART(TABLE& table);                                                                    \
  const TABLE* GET_TABLE() {                                                                       \
    static const TABLE table = ::aclnn_cpu::HWY_NAMESPACE::BuildKernelTable<TABLE>(                \
        [](TABLE& t, auto part) { FILL_PART<decltype(part)::value>(t); });                         \
    return &table;                                                                                 \
  }                                                                                                \
  }                                                                                                \
  HWY_AFTER_NAMESPACE()

/// The same file's run-time dispatch (under #if HWY_ONCE): CHOSEN() returns the table of the best
/// SIMD target of this CPU (HWY_DYNAMIC_DISPATCH, so tests can pick another).
#define ACLNN_KERNEL_TABLE_DISPATCH(NS, TABLE, GET_TABLE, CHOSEN)                    \
  namespace NS {                                                                   \
  HWY_EXPORT(GET_TABLE);                                                           \
  const TABLE& CHOSEN() { return *HWY_DYNAMIC_DISPATCH(GET_TABLE)(); }             \
  }
#endif  // ACLNN_CPU_SIMD_KERNEL_TABLE_MACROS_
