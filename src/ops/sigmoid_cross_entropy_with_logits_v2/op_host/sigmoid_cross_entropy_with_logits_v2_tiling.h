// The tiling of SigmoidCrossEntropyWithLogitsV2 (the loss): the shared elementwise tiling, with
// blocks and tiles made of whole sum chunks for mean and sum (Note [Deterministic reduction]).
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "opdev/elementwise_tiling.h"
#include "opdev/reduction.h"
#include "platform/platform_info.h"

namespace aclnn_cpu::bce_loss {

/// Splits @p total_elems elements moving @p traffic (the present operands) into blocks and
/// tiles on @p platform. For mean and sum the alignment unit is one chunk of kSumChunkElems
/// elements, so every block and tile starts on a chunk boundary whatever the core count.
std::optional<ElementwiseTilingResult> ComputeLossTiling(const PlatformInfo& platform, uint64_t total_elems,
                                                         KernelDType kernel_dtype, ReductionType reduction,
                                                         std::span<const OperandTraffic> traffic);

}  // namespace aclnn_cpu::bce_loss
