// The Atlas A2 tiling of the AscendC kernel of SigmoidCrossEntropyWithLogitsV2 (the loss): a pure
// function (platform, problem) -> TilingData, the launch's core count and the workspace the
// reductions need. Plain C++: no AscendC header.
#pragma once

#include <cstdint>
#include <string>

#include "op_kernel/ascendc/sigmoid_cross_entropy_with_logits_v2_ascendc_tiling_data.h"
#include "platform/platform_info.h"

namespace aclnn_cpu::bce_loss::a2 {

/// The kernel's data types, as the NPU original's dtype_enum (its tiling keys).
enum class A2LossDType : uint32_t { kHalf = TILING_KEY_HALF, kFloat = TILING_KEY_FLOAT, kBFloat16 = TILING_KEY_BFLOAT16 };

/// What the tiling needs to know of one launch. Element counts are of the contiguous tensors;
/// an operand of count P is read at index i % P (Note [Loss operands read through a period]).
struct A2LossProblem {
  uint64_t total = 0;                       ///< elements of self (= target)
  A2LossDType dtype = A2LossDType::kFloat;  ///< of self, target, weight, pos_weight and the loss
  uint64_t weight_count = 0;                ///< 0 (absent), 1, the shared period, or total
  uint64_t pos_weight_count = 0;            ///< the same
  uint32_t reduction = BCE_LOSS_REDUCTION_NONE;  ///< ACLNN's encoding: 0 none, 1 mean, 2 sum
};

/// The launch: the kernel's TilingData, its core count, the UB bytes one core allocates, and the
/// workspace bytes the launch must pass (the kernel's user workspace; 0 for reduction none).
struct A2LossTiling {
  SigmoidCrossEntropyWithLogitsV2TilingData data{};
  uint32_t block_dim = 0;
  uint64_t ub_bytes = 0;
  uint64_t workspace_bytes = 0;
};

/// Elements of a tile are a multiple of this: 256 bytes of fp32, one full repeat of an A2 vector
/// instruction, so that every core and tile starts 32-byte aligned in GM.
inline constexpr uint64_t kA2LossTileGranule = 64;
/// Elements of one chunk of the sum: REDUCE_CHUNK_ELEMS of the kernel (Note [Deterministic sum
/// across cores]); for mean and sum tiles are a multiple of it.
inline constexpr uint64_t kA2LossReduceChunkElems = 1024;
/// fp32 partial sums one chunk leaves in the workspace: one 32-byte block.
inline constexpr uint64_t kA2LossPartialElems = 8;
/// UB bytes the tiling leaves out at the top: GetCoreMemSize(UB) on 910B reports 256 bytes less
/// than the 192 KiB (a reserve for mixed kernels' messages).
inline constexpr uint64_t kA2LossUbReserveBytes = 256;

/// UB bytes one core of the kernel allocates with tiles of @p tile_elems elements: its InitBuffer
/// calls, each rounded up to 32 bytes (the kernel's buffer list, restated).
uint64_t A2LossUbBytes(const A2LossProblem& problem, uint64_t tile_elems);

/// The workspace of the sum of @p total losses: every level's partials (8 fp32 per chunk of
/// 1024 values, level after level until one block is left). 0 for reduction none.
uint64_t A2LossWorkspaceBytes(uint64_t total, uint32_t reduction);

/// Fills @p tiling for @p problem on @p platform (Atlas A2: AtlasA2Platform()). Returns false with
/// @p error saying why when the problem is not one the kernel runs: no elements, more than
/// 2^32 - 1 (totalLength is 32-bit, as in the original), an unknown dtype or reduction, an operand
/// count that is neither 1, total nor a divisor of total shared by the other broadcast operand,
/// or a UB too small for one tile.
bool TileLossForAtlasA2(const PlatformInfo& platform, const A2LossProblem& problem, A2LossTiling* tiling,
                        std::string* error);

}  // namespace aclnn_cpu::bce_loss::a2
