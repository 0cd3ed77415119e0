// The kernel of SigmoidCrossEntropyWithLogitsGradV2 on the CPU: Kernel<T, HAS_WEIGHT,
// HAS_POS_WEIGHT> computes a tile; RunBlock drives one block's tiles through the shared
// elementwise block driver (CopyIn -> Compute -> CopyOut, as the AscendC kernel does per AI core).
#pragma once

#include <cstddef>
#include <cstdint>

#include "opdev/elementwise_plan.h"
#include "opdev/strided_iter.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_tiling_data.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_tiling_key.h"

namespace aclnn_cpu::bce_grad {

/// One tile's operands, contiguous, all in the kernel dtype T of the tiling key. weight and
/// pos_weight are read only when the key has them.
struct TileOperands {
  const void* predict = nullptr;
  const void* target = nullptr;
  const void* dout = nullptr;
  const void* weight = nullptr;
  const void* pos_weight = nullptr;
  void* gradient = nullptr;
  /// Store full, aligned vectors of the gradient with non-temporal stores (values unchanged), left
  /// unfenced (Note [Streaming stores], elementwise_block.h).
  bool stream_gradient = false;
  /// Every dout element has the value of dout[0] (a broadcast scalar): the kernel reads only
  /// dout[0]. The results are bitwise those of the materialized dout.
  bool dout_uniform = false;
};

/// Computes @p count elements of a tile (any count >= 0). Each element's result depends only on
/// that element's inputs and @p scale: no tile or lane position changes a bit of it.
using ComputeTileFn = void (*)(const TileOperands& io, size_t count, double scale);

/// The kernels of one SIMD target, indexed by tiling key.
struct KernelTable {
  ComputeTileFn compute[kTilingKeyCount];         ///< the gradient with respect to self
  ComputeTileFn target_compute[kTilingKeyCount];  ///< ... to the target (reads no target)
  const char* target_name;
};

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
/// gradient out, and a constant dout read once (TileOperands::dout_uniform).
struct GradTraits {
  static constexpr size_t kOperands = kOperandCount;
  static constexpr bool IsOutput(size_t o) { return o == kGradient; }
  static constexpr bool ReadsConstantOnce(size_t o) { return o == kDout; }
};

/// Everything a block needs: the tiling, the kernel, the iteration space and the operands.
struct KernelLaunch {
  SigmoidCrossEntropyWithLogitsGradV2TilingData tiling;
  uint32_t tiling_key = 0;
  ComputeTileFn compute = nullptr;
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
