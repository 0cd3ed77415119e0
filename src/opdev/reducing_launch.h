// The launch of an elementwise operator whose one output may be reduced (mean and sum, Note
// [Deterministic reduction]): an elementwise stage through the shared block driver, whose blocks
// write the output element by element (reduction none) or sum its values per chunk, and for mean
// and sum a combine stage that adds the chunk sums in order and writes the one result. Any
// operator with a reduction uses it: the operator gives its traits (ElementwiseTraits and
// kReduced, the operand index of the reduced output), its tiling and its tile function.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <span>
#include <type_traits>

#include "common/alignment.h"
#include "common/dtype.h"
#include "common/error.h"
#include "opdev/chunk_reduction.h"
#include "opdev/elementwise_block.h"
#include "opdev/elementwise_plan.h"
#include "opdev/elementwise_tiling.h"
#include "opdev/first_phase.h"
#include "opdev/kernel_variant.h"
#include "opdev/reduction.h"
#include "opdev/strided_iter.h"
#include "runtime/launch_plan.h"
#include "runtime/tensor.h"

namespace aclnn_cpu {

/// Chunks the chunk buffer of a block holds at most: their values are computed, then summed
/// together (Note [Chunks summed side by side]).
inline constexpr uint64_t kBufferChunks = 4;

/// An elementwise operator with a reducible output: ElementwiseTraits and the reduced output's
/// operand index.
template <class Traits>
concept ReducingTraits = ElementwiseTraits<Traits> && requires {
  { Traits::kReduced } -> std::convertible_to<size_t>;
};

/// The traits of an operator with one output, operand OUT of N, that mean and sum reduce (an
/// operator that never reduces launches with reduction none), and no input read once: a broadcast
/// scalar is read from the tile buffer the block driver fills.
template <size_t N, size_t OUT>
struct OneOutputTraits {
  static constexpr size_t kOperands = N;
  static constexpr bool IsOutput(size_t o) { return o == OUT; }
  static constexpr bool ReadsConstantOnce(size_t) { return false; }
  static constexpr size_t kReduced = OUT;
};

/// Everything the blocks of a launch need.
template <ReducingTraits Traits>
struct ReducingLaunch {
  ElementwiseTilingData tiling;
  KernelDType kernel_dtype = KernelDType::kFloat;
  ReductionType reduction = ReductionType::kNone;
  /// The tile function: for mean and sum, the reduced output in the compute type (the sums').
  TileFn compute = nullptr;
  ChunkSumFloatFn sum_chunk_float = nullptr;  ///< mean and sum of fp32 values
  IterSpace space;
  /// Absent operands have Access::kAbsent; the reduced output is absent for mean and sum (its
  /// values go to a chunk buffer, not to memory).
  GlobalOperand operands[Traits::kOperands];
  uint64_t total_elems = 0;  ///< N, for mean
  double scale = 1;          ///< TileArgs::scale of every tile
  /// mean and sum: where the one result goes (the reduced output's first element and dtype).
  void* result = nullptr;
  aclDataType result_dtype = ACL_FLOAT;
};

namespace reducing_detail {

inline uint64_t ComputeTypeSize(KernelDType dtype) { return dtype == KernelDType::kDouble ? 8 : 4; }

/// Layout of an elementwise block's slice: [tile buffers][chunk buffer][chunk sums].
struct SliceLayout {
  uint64_t tile_bytes = 0;
  uint64_t chunk_buffer_bytes = 0;
  uint64_t chunk_sums_bytes = 0;
};

/// Chunks a block's chunk buffer holds (Note [Chunks summed side by side]): kBufferChunks where
/// the reduced output is the only one and the inputs fit in the last-level cache; one where
/// another output's stores, streamed between the values' computation and their sums, pushed a
/// buffer of four out of L1, and one where the inputs come from memory (four were slower there;
/// docs/perf.md).
template <class Traits>
uint64_t BufferChunksOf(const ReducingLaunch<Traits>& launch) {
  bool other_outputs = false;
  for (size_t o = 0; o < Traits::kOperands; ++o) {
    other_outputs |= Traits::IsOutput(o) && o != Traits::kReduced && launch.operands[o].access != Access::kAbsent;
  }
  return other_outputs || launch.tiling.nonTemporalOut != 0 ? 1 : kBufferChunks;
}

template <class Traits>
SliceLayout LayoutOf(const ReducingLaunch<Traits>& launch) {
  SliceLayout l;
  l.tile_bytes = BlockWorkspaceBytes(launch.operands, launch.tiling.tileDataNum, launch.kernel_dtype);
  if (launch.reduction != ReductionType::kNone) {
    l.chunk_buffer_bytes = AlignUp(BufferChunksOf(launch) * kSumChunkElems * ComputeTypeSize(launch.kernel_dtype));
    const uint64_t max_block = std::max(launch.tiling.bigCoreDataNum, launch.tiling.smallCoreDataNum);
    l.chunk_sums_bytes = AlignUp((max_block + kSumChunkElems - 1) / kSumChunkElems * sizeof(ChunkSum));
  }
  return l;
}

/// The tile arguments every tile of a block shares: the read-once inputs, the scale, streaming
/// (only where no output is staged), prefetching (LaunchPrefetchesInputs).
template <class Traits>
TileArgs BlockArgs(const ReducingLaunch<Traits>& launch) {
  TileArgs args;
  args.scale = launch.scale;
  bool staged_output = false;
  for (size_t o = 0; o < Traits::kOperands; ++o) {
    if (Traits::ReadsConstantOnce(o)) args.read_once |= 1u << o;
    staged_output |= Traits::IsOutput(o) && launch.operands[o].access == Access::kStaged;
  }
  args.stream_outputs = launch.tiling.nonTemporalOut != 0 && !staged_output;
  args.prefetch_inputs =
      LaunchPrefetchesInputs(launch.operands, launch.tiling.totalDataNum, KernelDTypeSize(launch.kernel_dtype));
  return args;
}

template <class Traits, class T>
void RunNone(const ReducingLaunch<Traits>& launch, uint64_t block, char* slice) {
  TileArgs args = BlockArgs(launch);
  RunElementwiseBlock<Traits, T>(launch.tiling, launch.space, launch.operands, block, slice,
                                 [&](const char* const* at, int64_t count) {
                                   args.Take(at, Traits::kOperands);
                                   launch.compute(args, static_cast<size_t>(count));
                                 });
}

template <class Traits, class T>
void RunSums(const ReducingLaunch<Traits>& launch, uint64_t block, char* slice) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const SliceLayout layout = LayoutOf(launch);
  C* chunk = reinterpret_cast<C*>(slice + layout.tile_bytes);
  ChunkSum* sums = reinterpret_cast<ChunkSum*>(slice + layout.tile_bytes + layout.chunk_buffer_bytes);
  uint64_t filled = 0, done_chunks = 0;
  const uint64_t buffer_elems = BufferChunksOf(launch) * kSumChunkElems;
  // The chunks of the buffer's first n values (Note [Chunks summed side by side]).
  const auto sum_chunks = [&](const C* values, uint64_t n) {
    if constexpr (std::is_same_v<C, float>) {
      launch.sum_chunk_float(values, n, sums + done_chunks);
      done_chunks += (n + kSumChunkElems - 1) / kSumChunkElems;
    } else {
      for (uint64_t at = 0; at < n; at += kSumChunkElems) {
        sums[done_chunks++] = SumChunk(values + at, std::min(kSumChunkElems, n - at));
      }
    }
  };
  TileArgs args = BlockArgs(launch);
  // Element runs arrive in the iteration space's order and the block starts on a chunk boundary
  // (Note [Deterministic reduction]): each run fills the chunk buffer from where it stands.
  RunElementwiseBlock<Traits, T>(
      launch.tiling, launch.space, launch.operands, block, slice, [&](const char* const* at, int64_t count) {
        int64_t done = 0;
        while (done < count) {
          const int64_t take = std::min<int64_t>(count - done, static_cast<int64_t>(buffer_elems - filled));
          // A constant input's buffer holds its value at every position of a tile, so an offset
          // into it is the value too; a read-once input is the exception, read at its first
          // element only.
          for (size_t o = 0; o < Traits::kOperands; ++o) {
            const bool offset = at[o] != nullptr && !Traits::ReadsConstantOnce(o);
            args.at[o] = offset ? at[o] + done * static_cast<int64_t>(sizeof(T)) : at[o];
          }
          args.at[Traits::kReduced] = chunk + filled;
          launch.compute(args, static_cast<size_t>(take));
          filled += static_cast<uint64_t>(take);
          done += take;
          if (filled == buffer_elems) {
            sum_chunks(chunk, filled);
            filled = 0;
          }
        }
      });
  if (filled != 0) sum_chunks(chunk, filled);
}

}  // namespace reducing_detail

/// Workspace bytes of one elementwise block: tile buffers, and for mean and sum the chunk buffer
/// and the block's chunk sums.
template <class Traits>
uint64_t ElementwiseBlockWorkspaceBytes(const ReducingLaunch<Traits>& launch) {
  const reducing_detail::SliceLayout l = reducing_detail::LayoutOf(launch);
  return l.tile_bytes + l.chunk_buffer_bytes + l.chunk_sums_bytes;
}

/// Chunks of block @p block (0 for reduction none).
template <class Traits>
uint64_t BlockChunkCount(const ReducingLaunch<Traits>& launch, uint64_t block) {
  if (launch.reduction == ReductionType::kNone || block >= launch.tiling.blockDim) return 0;
  const uint64_t begin = std::min(BlockBegin(launch.tiling, block), launch.tiling.totalDataNum);
  const uint64_t size =
      block < launch.tiling.tailBlockNum ? launch.tiling.bigCoreDataNum : launch.tiling.smallCoreDataNum;
  const uint64_t end = std::min(begin + size, launch.tiling.totalDataNum);
  return (end - begin + kSumChunkElems - 1) / kSumChunkElems;
}

/// Runs elementwise block @p block with its workspace slice @p slice.
template <class Traits>
void RunElementwiseStageBlock(const ReducingLaunch<Traits>& launch, uint64_t block, char* slice) {
  VisitKernelDType(launch.kernel_dtype, [&]<class T>() {
    if (launch.reduction != ReductionType::kNone) {
      reducing_detail::RunSums<Traits, T>(launch, block, slice);
    } else {
      reducing_detail::RunNone<Traits, T>(launch, block, slice);
    }
  });
}

/// Stage 2 of mean and sum: adds every elementwise block's chunk sums in order (block b's slice
/// is @p stage_workspace + b * ElementwiseBlockWorkspaceBytes) and writes the result.
template <class Traits>
void RunCombine(const ReducingLaunch<Traits>& launch, const char* stage_workspace) {
  const reducing_detail::SliceLayout layout = reducing_detail::LayoutOf(launch);
  const uint64_t slice_bytes = ElementwiseBlockWorkspaceBytes(launch);
  ChunkSumTotal total;  // Note [Deterministic reduction]
  for (uint64_t b = 0; b < launch.tiling.blockDim; ++b) {
    const auto* sums = reinterpret_cast<const ChunkSum*>(stage_workspace + b * slice_bytes + layout.tile_bytes +
                                                         layout.chunk_buffer_bytes);
    total.Add(std::span<const ChunkSum>(sums, BlockChunkCount(launch, b)));
  }
  StoreFromDouble(launch.result, launch.result_dtype, 0, total.Result(launch.reduction, launch.total_elems));
}

/// The launch plan of one call: the elementwise stage and, for mean and sum, the combine.
template <class Traits>
class ReducingPlan final : public LaunchPlan {
 public:
  ReducingLaunch<Traits> launch;
  LaunchStage stages[2];
  size_t stage_count = 0;
  bool has_elementwise_stage = false;  ///< false for an empty problem: then stage 0 is the combine
  bool run_inline_if_idle = true;
  std::span<const LaunchStage> Stages() const override { return {stages, stage_count}; }
  bool RunInlineIfIdle() const override { return run_inline_if_idle; }
  void RunBlock(size_t stage, uint64_t block, char* workspace) const override {
    if (stage == 0 && has_elementwise_stage) {
      RunElementwiseStageBlock(launch, block, BlockWorkspace(workspace, 0, block));
    } else {
      RunCombine(launch, BlockWorkspace(workspace, 0, 0));
    }
  }
};

/// The tiling of a reducing launch: the shared elementwise tiling, for mean and sum with blocks
/// of whole chunks (Note [Deterministic reduction]), and whole units of the platform's own (a row
/// group's: Note [Row groups]) where both together fit a tile; whole chunks alone where they do not.
std::optional<ElementwiseTilingResult> ComputeReducingTiling(const PlatformInfo& platform,
                                                             const ElementwiseTilingProblem& problem,
                                                             ReductionType reduction);

/// The end of a reducing operator's first phase, after its checks: plans the launch of @p tensors
/// (the operator's operand order, absent ones null; operand 0 gives the shape and the element
/// count), tiles it (ComputeReducingTiling), takes the tile function kernel_for(kernel dtype,
/// sums) (sums: the reduced output in the compute type), caches the plan under @p key and hands
/// out its executor. @p reduction is what the launch does with Traits::kReduced (an operator whose
/// output is never reduced passes none); @p scale is every tile's TileArgs::scale.
template <ReducingTraits Traits, class KernelFor>
aclnnStatus MakeReducingExecutor(const char* api, const PlanCacheKey& key,
                                 const aclTensor* const (&tensors)[Traits::kOperands], aclDataType promoted,
                                 ReductionType reduction, double scale, KernelFor kernel_for, uint64_t* workspace_size,
                                 aclOpExecutor** executor) {
  auto plan = std::make_shared<ReducingPlan<Traits>>();  // std::bad_alloc: the entry point's guard
  ReducingLaunch<Traits>& launch = plan->launch;
  const aclTensor* shape = tensors[0];
  const aclTensor* reduced = tensors[Traits::kReduced];
  const bool sums = reduction != ReductionType::kNone;
  launch.reduction = reduction;
  launch.total_elems = static_cast<uint64_t>(shape->numel);
  launch.result = reduced->first_element();
  launch.result_dtype = reduced->dtype;
  launch.scale = scale;
  if (shape->numel != 0) {
    // mean and sum write no value per element: the reduced output is absent from the elementwise stage.
    const aclTensor* planned[Traits::kOperands];
    for (size_t o = 0; o < Traits::kOperands; ++o) planned[o] = sums && o == Traits::kReduced ? nullptr : tensors[o];
    const auto operands = PlanOperands<Traits>(shape->dims, planned, promoted, launch.space, launch.operands);
    launch.kernel_dtype = operands.kernel_dtype;
    const ElementwiseTilingProblem problem =
        MakeElementwiseProblem(launch.total_elems, launch.kernel_dtype, operands.Traffic());
    const PlatformInfo platform =
        LaunchPlatform(launch.space, launch.operands, launch.kernel_dtype, problem.ub_bytes_per_element);
    const auto tiling = ComputeReducingTiling(platform, problem, reduction);
    if (!tiling) return Fail(ACLNN_ERR_INNER_TILING_ERROR, api, ": tiling failed for ", shape->numel, " elements");
    launch.tiling = tiling->data;
    plan->run_inline_if_idle = tiling->run_inline_if_idle;
    launch.sum_chunk_float = ChosenChunkSumFloat();
    launch.compute = kernel_for(launch.kernel_dtype, sums);
    plan->stages[plan->stage_count++] = LaunchStage{launch.tiling.blockDim, ElementwiseBlockWorkspaceBytes(launch)};
    plan->has_elementwise_stage = true;
  }
  // mean and sum write their one element even for an empty problem (NaN and 0).
  if (sums) plan->stages[plan->stage_count++] = LaunchStage{1, 0};
  return CacheAndMakeExecutor(api, key, std::move(plan), workspace_size, executor);
}

}  // namespace aclnn_cpu
