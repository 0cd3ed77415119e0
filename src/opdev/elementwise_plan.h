// The plan every elementwise operator shares (the TensorIterator step of PyTorch, the
// elementwise framework of ops-nn): each operand's strides broadcast to the output shape, the
// dims reordered by stride and coalesced, and each operand classified by how the kernel reaches
// it (Note [Staging]). An operator lists its operands; the plan knows nothing of their meaning.
#pragma once

#include <concepts>
#include <cstdint>
#include <span>

#include "acl/acl_base.h"
#include "common/shape.h"
#include "opdev/elementwise_tiling.h"
#include "opdev/kernel_variant.h"
#include "opdev/strided_iter.h"
#include "runtime/tensor.h"

namespace aclnn_cpu {

// Note [Staging]
// The NPU kernel copies every operand tile from global memory into UB (CopyIn), computes there,
// and copies the result back (CopyOut). On the CPU the caches play UB's part, so a dense operand
// already in the kernel dtype is read and written in place (kDirect) and costs no copy. Only what
// the vector loop cannot read directly is staged through a per-block tile buffer in the workspace:
//  * kConstant - a broadcast scalar input (a 0-dim gradOutput, say): converted once per block
//    into a filled buffer that every tile reuses (into its first element only when the operator's
//    traits say its kernel reads that operand once: ReadsConstantOnce);
//  * kRowDirect - rows dense in the kernel dtype but not next to each other (a pos_weight [C]
//    broadcast over [N, C] reads the same row again and again): no copy either; the tile is
//    computed row run by row run, each operand read or written in place;
//  * kStaged   - other strides, short broadcast rows or another dtype: gathered per tile into
//    the buffer (converting to the kernel dtype), and for an output computed into the buffer
//    and scattered through the view (converting to the output's dtype).
// Either way Compute runs on the vector path with contiguous spans. The access of each operand is
// chosen after the plan has reordered the dims by stride (the outputs' first) and coalesced them,
// so operands that all share one permutation of a dense block (a transposed or channels-last
// problem) are kDirect.

/// How an operand reaches the kernel. See Note [Staging].
enum class Access : uint8_t {
  kAbsent,    ///< optional input not given: compiled away by the operator's tiling key
  kDirect,    ///< dense in the kernel dtype: the kernel reads/writes global memory in place
  kConstant,  ///< one value for all elements (inputs only): converted once per block into a buffer
  kRowDirect, ///< rows (the innermost dim) dense in the kernel dtype, rows anywhere (a broadcast
              ///< pos_weight [C] over [N, C], a padded view): read/written in place row by row
  kStaged,    ///< anything else: gathered (CopyIn) / scattered (CopyOut) via a tile buffer
};

/// Shortest innermost dim for kRowDirect: below it, a kernel call per row costs more than the
/// gather it saves.
inline constexpr int64_t kMinRowDirectElems = 256;

/// Whether an operand of this access goes through a tile buffer of the block's workspace.
inline constexpr bool UsesTileBuffer(Access access) {
  return access == Access::kConstant || access == Access::kStaged;
}

/// An operand of the launch as the kernel sees it: no aclTensor, just memory and strides.
struct GlobalOperand {
  Access access = Access::kAbsent;
  StridedOperand memory;
};

/// Whether a launch over @p elements elements of these operands prefetches its inputs
/// (PrefetchesInputs, Note [Prefetch from memory]): every operand read or written element by
/// element counts @p elem_bytes per element (a constant one nothing).
template <size_t N>
constexpr bool LaunchPrefetchesInputs(const GlobalOperand (&operands)[N], uint64_t elements, uint64_t elem_bytes) {
  uint64_t bytes_per_element = 0;
  for (const GlobalOperand& o : operands) {
    if (o.access != Access::kAbsent && o.access != Access::kConstant) bytes_per_element += elem_bytes;
  }
  return PrefetchesInputs(elements, bytes_per_element);
}

// Note [Elementwise traits]
// What the shared elementwise layer knows of an operator is a traits type:
//   static constexpr size_t kOperands;                 // inputs and outputs, in the op's order
//   static constexpr bool IsOutput(size_t o);           // written by the kernel (never kConstant)
//   static constexpr bool ReadsConstantOnce(size_t o);  // a kConstant input the kernel reads at
//                                                       // element 0 only (a uniform gradOutput)
// The plan (PlanElementwise), the block driver (RunElementwiseBlock) and the workspace size take
// it; the operator keeps only its operand order, its checks and its per-tile compute function.
template <class Traits>
concept ElementwiseTraits = requires(size_t o) {
  { Traits::kOperands } -> std::convertible_to<size_t>;
  { Traits::IsOutput(o) } -> std::same_as<bool>;
  { Traits::ReadsConstantOnce(o) } -> std::same_as<bool>;
};

/// What an operator tells the plan about one operand.
struct ElementwiseOperandSpec {
  const aclTensor* tensor = nullptr;  ///< null: an optional input not given (kAbsent)
  bool output = false;                ///< written by the kernel (never kConstant)
};

/// Most operands one elementwise call may have (inputs and outputs together).
inline constexpr size_t kMaxElementwiseOperands = 16;

/// Plans the walk of the space of @p shape for @p specs (operands[i] describes specs[i]; both
/// spans have one length, at most kMaxElementwiseOperands): every tensor's strides broadcast to
/// @p shape (it must broadcast: the operator's checks said so), the dims reordered with the
/// outputs ranked first and then the inputs in their order (a scattered write costs more than a
/// gathered read), coalesced, and each operand's access chosen for a kernel that loads and stores
/// @p kernel_dtype.
void PlanElementwise(const DimVector& shape, std::span<const ElementwiseOperandSpec> specs, aclDataType kernel_dtype,
                     IterSpace& space, std::span<GlobalOperand> operands);

/// PlanElementwise for an operator's operands in its order (null: absent).
template <ElementwiseTraits Traits>
void PlanElementwise(const DimVector& shape, const aclTensor* const (&tensors)[Traits::kOperands],
                     aclDataType kernel_dtype, IterSpace& space, GlobalOperand (&operands)[Traits::kOperands]) {
  ElementwiseOperandSpec specs[Traits::kOperands];
  for (size_t o = 0; o < Traits::kOperands; ++o) specs[o] = {tensors[o], Traits::IsOutput(o)};
  PlanElementwise(shape, specs, kernel_dtype, space, operands);
}

/// The cost model's view of the planned operands (absent ones left out), for MakeElementwiseProblem.
/// Writes at most operands.size() entries into @p traffic and returns how many.
size_t OperandTrafficOf(std::span<const GlobalOperand> operands, std::span<OperandTraffic> traffic);

// Note [Row groups]
// A staged operand whose innermost dim has a wide stride (a transposed view: element i + 1 of a
// row lies kWideStride elements or more from element i) is copied kRowBlock rows at a time
// (CopyRowGroup), so that each cache line of its storage, which holds the same column of
// neighbouring rows, is used whole while it sits in L1. That only works for groups of kRowBlock
// whole rows; a tile that starts or ends inside a group leaves short groups whose lines are
// fetched once per tile that touches them, each for a few elements (a transposed self ran at about
// twice its roofline: docs/perf.md). On the CPU the
// tiling's alignment unit is therefore widened to whole row groups for such a launch, when a
// group fits a tile; the results do not change (each element's computation does not depend on the
// tile), only where the tiles start.

/// The platform a launch over @p space with @p operands is tiled for: @p platform, with its
/// alignment unit (block_size) widened to whole groups of kRowBlock rows of the innermost dim when
/// a staged operand reads that dim with a wide stride and one group (at @p ub_bytes_per_element)
/// fits its tile budget (Note [Row groups]); @p platform unchanged otherwise.
PlatformInfo AlignTilesToRowGroups(const PlatformInfo& platform, const IterSpace& space,
                                   std::span<const GlobalOperand> operands, KernelDType kernel_dtype,
                                   uint64_t ub_bytes_per_element);

/// Bytes of one tile buffer: @p tile_elems elements of @p dtype, rounded up to kDeviceAlignment.
uint64_t TileBufferBytes(uint64_t tile_elems, KernelDType dtype);

/// Bytes of one block's workspace: a tile buffer per operand that UsesTileBuffer.
uint64_t BlockWorkspaceBytes(std::span<const GlobalOperand> operands, uint64_t tile_elems, KernelDType dtype);

}  // namespace aclnn_cpu
