// aclnnCpuSimdTargetName: the SIMD target that the run-time dispatch (HWY_DYNAMIC_DISPATCH) picks
// on this CPU, and that target's chunk sum of the deterministic reduction (ChosenChunkSumFloat). This unit is compiled for every target of the build, as every operator's kernel
// table is (Note [One target per translation unit], src/simd/kernel_parts.h), so the dispatch
// picks the same target here as for every kernel table: the target the kernels run.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/simd_target.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "aclnn/aclnn_cpu.h"
#include "hwy/highway.h"
#include "opdev/chunk_reduction.h"
#include "simd/chunk_sum-inl.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu {
namespace HWY_NAMESPACE {

const char* CompiledTargetName() { return hwy::TargetName(HWY_TARGET); }
ChunkSumFloatFn CompiledChunkSumFloat() { return &SumChunksFloat; }

}  // namespace HWY_NAMESPACE
}  // namespace aclnn_cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace aclnn_cpu {

HWY_EXPORT(CompiledTargetName);
HWY_EXPORT(CompiledChunkSumFloat);

ChunkSumFloatFn ChosenChunkSumFloat() { return HWY_DYNAMIC_DISPATCH(CompiledChunkSumFloat)(); }

}  // namespace aclnn_cpu

extern "C" ACL_FUNC_VISIBILITY const char* aclnnCpuSimdTargetName(void) {
  return HWY_DYNAMIC_DISPATCH(aclnn_cpu::CompiledTargetName)();
}
#endif  // HWY_ONCE
