// The kernel of SigmoidCrossEntropyWithLogitsGradV2 on the CPU: Kernel<T, HAS_WEIGHT,
// HAS_POS_WEIGHT> computes a tile; RunBlock drives one block's tiles through
// CopyIn -> Compute -> CopyOut, as the AscendC kernel does per AI core.
#pragma once

#include <cstddef>
#include <cstdint>

#include "opdev/strided_iter.h"
#include "op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_tiling_data.h"
#include "op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_tiling_key.h"

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
  /// Store full, aligned vectors of the gradient with non-temporal stores (values unchanged).
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
  ComputeTileFn compute[kTilingKeyCount];
  const char* target_name;
};

/// The kernels of the best SIMD target of this CPU (runtime dispatch).
const KernelTable& ChosenKernelTable();

/// How an operand reaches the kernel. See Note [Staging].
enum class Access : uint8_t {
  kAbsent,    ///< optional input not given: compiled away by the tiling key
  kDirect,    ///< dense in the kernel dtype: the kernel reads/writes global memory in place
  kConstant,  ///< one value for all elements: converted once per block into a filled buffer
  kRowDirect, ///< rows (the innermost dim) dense in the kernel dtype, rows anywhere (a broadcast
              ///< pos_weight [C] over [N, C], a padded view): read/written in place row by row
  kStaged,    ///< anything else: gathered (CopyIn) / scattered (CopyOut) via a tile buffer
};

/// Shortest innermost dim for kRowDirect: below it, a kernel call per row costs more than the
/// gather it saves.
inline constexpr int64_t kMinRowDirectElems = 256;

/// An operand of the launch as the kernel sees it: no aclTensor, just memory and strides.
struct GlobalOperand {
  Access access = Access::kAbsent;
  StridedOperand memory;
};

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

/// Everything a block needs: the tiling, the kernel, the iteration space and the operands.
struct KernelLaunch {
  SigmoidCrossEntropyWithLogitsGradV2TilingData tiling;
  uint32_t tiling_key = 0;
  ComputeTileFn compute = nullptr;
  IterSpace space;
  GlobalOperand operands[kOperandCount];
};

/// Bytes of one tile buffer for @p tile_elems elements of the kernel dtype, 64-byte aligned.
uint64_t TileBufferBytes(const KernelLaunch& launch);

/// Whether an operand of this access goes through a tile buffer of the block's workspace.
inline constexpr bool UsesTileBuffer(Access access) {
  return access == Access::kConstant || access == Access::kStaged;
}

/// Bytes of one block's workspace: a tile buffer per operand that UsesTileBuffer.
uint64_t BlockWorkspaceBytes(const KernelLaunch& launch);

/// Runs block @p block of @p launch using @p block_workspace (BlockWorkspaceBytes bytes,
/// 64-byte aligned; unused when that is 0).
void RunBlock(const KernelLaunch& launch, uint64_t block, void* block_workspace);

}  // namespace aclnn_cpu::bce_grad
