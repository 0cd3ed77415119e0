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

}  // namespace HWY_NAMESPACE
}  // namespace aclnn_cpu
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_CPU_SIMD_KERNEL_TABLE_INL_H_
