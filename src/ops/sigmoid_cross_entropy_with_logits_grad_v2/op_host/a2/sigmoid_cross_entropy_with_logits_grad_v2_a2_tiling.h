// The Atlas A2 tiling of the AscendC kernels of SigmoidCrossEntropyWithLogitsGradV2 (the gradient
// of self and of the target): a pure function (platform, problem) -> TilingData and the launch's
// core count. Plain C++: no AscendC header.
#pragma once

#include <cstdint>
#include <string>

#include "op_kernel/ascendc/sigmoid_cross_entropy_with_logits_grad_v2_ascendc_tiling_data.h"
#include "platform/platform_info.h"

namespace aclnn_cpu::bce_grad::a2 {

/// What the tiling needs to know of one launch. Element counts are of the contiguous tensors;
/// an operand of count P is read at index i % P (Note [Operands read through a period]).
struct A2GradProblem {
  uint64_t total = 0;             ///< elements of self (= target = out)
  uint32_t dtype_bytes = 4;       ///< 4 (fp32) or 2 (fp16, bf16)
  uint64_t dout_count = 0;        ///< 1, the shared period, or total
  uint64_t weight_count = 0;      ///< 0 (absent), 1, the shared period, or total
  uint64_t pos_weight_count = 0;  ///< the same
  float scale = 1.0f;             ///< 1/N for reduction mean, else 1
  /// The kernel: the gradient of self (sigmoid_cross_entropy_with_logits_grad_v2_typed) or, true,
  /// of the target (..._of_target_typed), which reads no target and has other work buffers.
  bool of_target = false;
};

/// The launch: the kernel's TilingData, its core count, and the UB bytes one core allocates.
struct A2GradTiling {
  SigmoidCrossEntropyWithLogitsGradV2TilingData data{};
  uint32_t block_dim = 0;
  uint64_t ub_bytes = 0;
};

/// Elements of a tile are a multiple of this: 256 bytes of fp32, one full repeat of an A2 vector
/// instruction, so no vector instruction of a whole tile runs a partial repeat.
inline constexpr uint64_t kA2TileGranule = 64;
/// UB bytes the tiling leaves out at the top: GetCoreMemSize(UB) on 910B reports 256 bytes less
/// than the 192 KiB (a reserve for mixed kernels' messages).
inline constexpr uint64_t kA2UbReserveBytes = 256;

/// UB bytes one core of the kernel allocates with tiles of @p tile_elems elements: its InitBuffer
/// calls, each rounded up to 32 bytes (the kernel's buffer list, restated).
uint64_t A2GradUbBytes(const A2GradProblem& problem, uint64_t tile_elems);

/// Fills @p tiling for @p problem on @p platform (Atlas A2: AtlasA2Platform()). Returns false with
/// @p error saying why when the problem is not one the kernel runs: no elements, a dtype size
/// other than 2 or 4, an operand count that is neither 1, total nor a divisor of total shared by
/// the other broadcast operands, or a UB too small for one tile.
bool TileGradForAtlasA2(const PlatformInfo& platform, const A2GradProblem& problem, A2GradTiling* tiling,
                        std::string* error);

}  // namespace aclnn_cpu::bce_grad::a2
