// The kernel of SigmoidCrossEntropyWithLogitsGradV2 on the CPU: Kernel<T, HAS_WEIGHT,
// HAS_POS_WEIGHT> computes a tile; RunBlock drives one block's tiles through the shared
// elementwise block driver (CopyIn -> Compute -> CopyOut, as the AscendC kernel does per AI core).
#pragma once

#include <cstddef>
#include <cstdint>

#include "opdev/elementwise_plan.h"
#include "opdev/kernel_variant.h"
#include "opdev/strided_iter.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_tiling_data.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_tiling_key.h"

namespace aclnn_cpu::bce_grad {

/// The kernel variants (TileFn over TileArgs, src/opdev/kernel_variant.h) of one SIMD target: the
/// gradient with respect to self or, OF_TARGET, to the target (which reads no target), by
/// KernelVariantKey. A tile's operands are at[OperandIndex]; dout is read once where
/// TileArgs::ReadsOnce(kDout) (a broadcast scalar: the results are bitwise those of the
/// materialized dout); scale is the tiling's globalScale.
inline constexpr uint32_t kKernelFeatures = 3;  // of_target, has_weight, has_pos_weight
using KernelTable = VariantTable<kKernelFeatures>;
/// The variant of tiling key @p tiling_key (its dtype, weight and pos_weight) for self or the target.
constexpr uint32_t KernelVariantKey(uint32_t tiling_key, bool of_target) {
  return MakeVariantKey<kKernelFeatures>(TilingKeyDType(tiling_key),
                                         {of_target, TilingKeyHasWeight(tiling_key), TilingKeyHasPosWeight(tiling_key)});
}

/// The kernels of the best SIMD target of this CPU (runtime dispatch).
const KernelTable& ChosenKernelTable();

// The operand's access (Note [Staging]) and its memory are the shared elementwise plan's.
using ::aclnn_cpu::Access;
using ::aclnn_cpu::GlobalOperand;
using ::aclnn_cpu::kMinRowDirectElems;
using ::aclnn_cpu::UsesTileBuffer;

// Note [Names]
// The ACLNN API keeps CANN's parameter names; the IR operator, the tiling and the kernel keep the
// NPU original's input names. One operand, by layer:
//   ACLNN parameter      IR / kernel (OperandIndex)   formula
//   self                 predict (kPredict)           x
//   target               target (kTarget)             y
//   gradOutput           dout (kDout)                 dout
//   weightOptional       weight (kWeight)             w
//   posWeightOptional    pos_weight (kPosWeight)      pw
//   out                  gradient (kGradient)         g
enum OperandIndex : int { kPredict = 0, kTarget, kDout, kWeight, kPosWeight, kGradient, kOperandCount };

/// The operator for the shared elementwise layer (Note [Elementwise traits]): five inputs, the
/// gradient out, and a constant dout read once (TileArgs::read_once).
struct GradTraits {
  static constexpr size_t kOperands = kOperandCount;
  static constexpr bool IsOutput(size_t o) { return o == kGradient; }
  static constexpr bool ReadsConstantOnce(size_t o) { return o == kDout; }
};

/// Everything a block needs: the tiling, the kernel, the iteration space and the operands.
struct KernelLaunch {
  SigmoidCrossEntropyWithLogitsGradV2TilingData tiling;
  uint32_t tiling_key = 0;
  TileFn compute = nullptr;
  IterSpace space;
  GlobalOperand operands[kOperandCount];
};

/// Bytes of one tile buffer of the launch (TileBufferBytes of its tile and kernel dtype).
uint64_t TileBufferBytes(const KernelLaunch& launch);

/// Bytes of one block's workspace: a tile buffer per operand that UsesTileBuffer.
uint64_t BlockWorkspaceBytes(const KernelLaunch& launch);

/// Runs block @p block of @p launch using @p block_workspace (BlockWorkspaceBytes bytes,
/// 64-byte aligned; unused when that is 0).
void RunBlock(const KernelLaunch& launch, uint64_t block, void* block_workspace);

}  // namespace aclnn_cpu::bce_grad
