// The block driver every elementwise operator shares: one block of a launch, tile by tile,
// through CopyIn -> Compute -> CopyOut, as the AscendC kernel runs per AI core (Note [Staging]).
// The operator supplies only its per-tile compute function; the operands may be any mix of
// inputs and outputs.
#pragma once

#include <cstdint>
#include <span>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/alignment.h"
#include "opdev/elementwise_plan.h"
#include "opdev/elementwise_tiling.h"
#include "opdev/strided_iter.h"

namespace aclnn_cpu {

// Note [Streaming stores]
// A kernel asked to stream its outputs (non-temporal stores, for launches larger than the last
// level cache) leaves them unfenced: x86's non-temporal stores are weakly ordered, and the fence
// that makes them visible to another thread is taken once per block, at the end of
// RunElementwiseBlock, before the pool publishes the block as done. A fence per kernel call cost
// a row-direct launch (a call per row) some 15% (docs/perf.md). The calling thread sees its own
// stores in any case, so a kernel's direct callers (the tests) need no fence.

/// Makes the calling thread's non-temporal stores visible to other threads before its later
/// stores (SFENCE on x86; other targets' streaming stores are plain stores).
inline void FenceStreamingStores() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

/// Runs block @p block of an elementwise launch of the operator of @p Traits (Note [Elementwise
/// traits]) over @p space whose operands are @p operands,
/// all computed in the kernel type T, using @p block_workspace (BlockWorkspaceBytes bytes, each
/// buffer kDeviceAlignment-aligned; unused when that is 0).
/// compute(const char* const* at, int64_t count) computes @p count contiguous elements: at[o]
/// points at operand o's first element in T (null for an absent operand; for a kConstant one, a
/// buffer filled with its value, only its first element when Traits::ReadsConstantOnce(o)). Outputs are
/// written through their at[o]. A compute that keeps a per-block partial result (a reduction's
/// block sum) sees every element of the block exactly once, in order.
/// Every element's inputs are read before the element is written, so an output may be the very
/// same view as an input (in place). Ends with FenceStreamingStores (Note [Streaming stores]).
template <ElementwiseTraits Traits, class T, class Compute>
void RunElementwiseBlock(const ElementwiseTilingData& tiling, const IterSpace& space,
                         const GlobalOperand (&operands)[Traits::kOperands], uint64_t block, void* block_workspace,
                         Compute&& compute) {
  constexpr size_t N = Traits::kOperands;
  const uint64_t buffer_bytes = AlignUp(tiling.tileDataNum * sizeof(T));
  char* next_buffer = static_cast<char*>(block_workspace);
  T* buffers[N] = {};
  bool any_row_direct = false;
  for (size_t o = 0; o < N; ++o) {
    const GlobalOperand& op = operands[o];
    any_row_direct |= op.access == Access::kRowDirect;
    if (!UsesTileBuffer(op.access)) continue;
    buffers[o] = reinterpret_cast<T*>(next_buffer);
    next_buffer += buffer_bytes;
    if (op.access == Access::kConstant) {  // CopyIn once per block
      T value{};
      VisitFloatDType(op.memory.dtype, [&](auto tag) {
        value = ConvertElement<T>(*reinterpret_cast<const decltype(tag)*>(op.memory.first));
      });
      const uint64_t filled = Traits::ReadsConstantOnce(o) ? 1 : tiling.tileDataNum;
      for (uint64_t k = 0; k < filled; ++k) buffers[o][k] = value;
    }
  }
  const StridedOperand* memory[N];
  for (size_t o = 0; o < N; ++o) memory[o] = &operands[o].memory;

  const uint64_t tiles = BlockTileNum(tiling, block);
  for (uint64_t t = 0; t < tiles; ++t) {
    const TileRange range = BlockTile(tiling, block, t);
    const auto begin = static_cast<int64_t>(range.begin);
    const auto count = static_cast<int64_t>(range.end - range.begin);
    if (count <= 0) continue;
    // CopyIn: element `pos` of the tile is at tile_base[o] + pos for every operand but the
    // row-direct ones, which are addressed per row run below.
    char* tile_base[N] = {};
    for (size_t o = 0; o < N; ++o) {
      const GlobalOperand& op = operands[o];
      switch (op.access) {
        case Access::kAbsent:
        case Access::kRowDirect: break;
        case Access::kDirect:
          tile_base[o] = const_cast<char*>(op.memory.first) + begin * static_cast<int64_t>(sizeof(T));
          break;
        case Access::kConstant: tile_base[o] = reinterpret_cast<char*>(buffers[o]); break;
        case Access::kStaged:
          if (!Traits::IsOutput(o)) GatherRange(space, op.memory, begin, count, buffers[o]);
          tile_base[o] = reinterpret_cast<char*>(buffers[o]);
          break;
      }
    }
    // Compute
    if (!any_row_direct) {
      compute(static_cast<const char* const*>(tile_base), count);
    } else {
      ForEachRun(space, memory, begin, count, [&](const int64_t* offsets, int64_t run, int64_t pos) {
        const char* at[N] = {};
        for (size_t o = 0; o < N; ++o) {
          const Access access = operands[o].access;
          if (access == Access::kRowDirect) {
            at[o] = operands[o].memory.first + offsets[o] * static_cast<int64_t>(sizeof(T));
          } else if (access == Access::kConstant) {
            at[o] = tile_base[o];  // the same value everywhere
          } else if (access != Access::kAbsent) {
            at[o] = tile_base[o] + pos * static_cast<int64_t>(sizeof(T));
          }
        }
        compute(static_cast<const char* const*>(at), run);
      });
    }
    // CopyOut
    for (size_t o = 0; o < N; ++o) {
      if (Traits::IsOutput(o) && operands[o].access == Access::kStaged) {
        ScatterRange(space, buffers[o], operands[o].memory, begin, count);
      }
    }
  }
  FenceStreamingStores();
}

}  // namespace aclnn_cpu
