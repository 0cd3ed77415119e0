// The blocks of the loss launch: the elementwise stage through the shared block driver (the loss
// to memory, or to a chunk buffer summed per chunk), and the combine stage of mean and sum.
#include "ops/sigmoid_cross_entropy_with_logits_v2/op_kernel/sigmoid_cross_entropy_with_logits_v2.h"

#include <algorithm>
#include <span>
#include <type_traits>

#include "common/alignment.h"
#include "common/dtype.h"
#include "opdev/elementwise_block.h"

namespace aclnn_cpu::bce_loss {
namespace {

uint64_t ComputeTypeSize(KernelDType dtype) { return dtype == KernelDType::kDouble ? 8 : 4; }

/// Layout of an elementwise block's slice: [tile buffers][chunk buffer][chunk sums].
struct SliceLayout {
  uint64_t tile_bytes = 0;
  uint64_t chunk_buffer_bytes = 0;
  uint64_t chunk_sums_bytes = 0;
};

/// Chunks a block's chunk buffer holds (Note [Chunks summed side by side]): kBufferChunks for the
/// loss alone where its inputs fit in the last-level cache; one for the fused call, whose gradient
/// stores, streamed between the losses' computation and their sums, pushed a buffer of four out
/// of L1, and one where the inputs come from memory (four were slower there; docs/perf.md).
uint64_t BufferChunksOf(const LossLaunch& launch) {
  const bool fused = launch.operands[kGradient].access != Access::kAbsent;
  return fused || launch.tiling.nonTemporalOut != 0 ? 1 : kBufferChunks;
}

SliceLayout LayoutOf(const LossLaunch& launch) {
  SliceLayout l;
  const bool sums = launch.reduction != ReductionType::kNone;
  l.tile_bytes = BlockWorkspaceBytes(launch.operands, launch.tiling.tileDataNum, launch.kernel_dtype);
  if (sums) {
    l.chunk_buffer_bytes = AlignUp(BufferChunksOf(launch) * kSumChunkElems * ComputeTypeSize(launch.kernel_dtype));
    const uint64_t max_block = std::max(launch.tiling.bigCoreDataNum, launch.tiling.smallCoreDataNum);
    l.chunk_sums_bytes = AlignUp((max_block + kSumChunkElems - 1) / kSumChunkElems * sizeof(ChunkSum));
  }
  return l;
}

/// The tile arguments every compute call of a block shares: dout (read once), the scale, streaming.
TileArgs BlockArgs(const LossLaunch& launch) {
  TileArgs args;
  args.scale = launch.gradient_scale;
  args.read_once = 1u << kDout;
  const Access loss = launch.operands[kLoss].access, gradient = launch.operands[kGradient].access;
  args.stream_outputs = launch.tiling.nonTemporalOut != 0 && loss != Access::kStaged && gradient != Access::kStaged;
  return args;
}

template <class T>
void RunNone(const LossLaunch& launch, uint64_t block, char* slice) {
  TileArgs args = BlockArgs(launch);
  RunElementwiseBlock<LossTraits, T>(launch.tiling, launch.space, launch.operands, block, slice,
                                     [&](const char* const* at, int64_t count) {
                                       args.Take(at, kOperandCount);
                                       launch.compute(args, static_cast<size_t>(count));
                                     });
}

template <class T>
void RunSums(const LossLaunch& launch, uint64_t block, char* slice) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const SliceLayout layout = LayoutOf(launch);
  C* chunk = reinterpret_cast<C*>(slice + layout.tile_bytes);
  ChunkSum* sums = reinterpret_cast<ChunkSum*>(slice + layout.tile_bytes + layout.chunk_buffer_bytes);
  uint64_t filled = 0, done_chunks = 0;
  const uint64_t buffer_elems = BufferChunksOf(launch) * kSumChunkElems;
  // The chunks of the buffer's first n losses (Note [Chunks summed side by side]).
  const auto sum_chunks = [&](const C* losses, uint64_t n) {
    if constexpr (std::is_same_v<C, float>) {
      launch.sum_chunk_float(losses, n, sums + done_chunks);
      done_chunks += (n + kSumChunkElems - 1) / kSumChunkElems;
    } else {
      for (uint64_t at = 0; at < n; at += kSumChunkElems) {
        sums[done_chunks++] = SumChunk(losses + at, std::min(kSumChunkElems, n - at));
      }
    }
  };
  TileArgs args = BlockArgs(launch);
  // Element runs arrive in the iteration space's order and the block starts on a chunk boundary
  // (Note [Deterministic reduction]): each run fills the chunk buffer from where it stands.
  RunElementwiseBlock<LossTraits, T>(
      launch.tiling, launch.space, launch.operands, block, slice, [&](const char* const* at, int64_t count) {
        int64_t done = 0;
        while (done < count) {
          const int64_t take = std::min<int64_t>(count - done, static_cast<int64_t>(buffer_elems - filled));
          const auto offset = [&](const char* p) { return p == nullptr ? nullptr : p + done * static_cast<int64_t>(sizeof(T)); };
          // A constant input's buffer holds its value at every position of a tile, so an offset
          // into it is the value too; dout is the exception, read at its first element only.
          for (const int o : {kPredict, kTarget, kWeight, kPosWeight, kGradient}) args.at[o] = offset(at[o]);
          args.at[kDout] = at[kDout];
          args.at[kLoss] = chunk + filled;
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

}  // namespace

uint64_t ElementwiseBlockWorkspaceBytes(const LossLaunch& launch) {
  const SliceLayout l = LayoutOf(launch);
  return l.tile_bytes + l.chunk_buffer_bytes + l.chunk_sums_bytes;
}

uint64_t BlockChunkCount(const LossLaunch& launch, uint64_t block) {
  if (launch.reduction == ReductionType::kNone || block >= launch.tiling.blockDim) return 0;
  const uint64_t begin = std::min(BlockBegin(launch.tiling, block), launch.tiling.totalDataNum);
  const uint64_t size = block < launch.tiling.tailBlockNum ? launch.tiling.bigCoreDataNum : launch.tiling.smallCoreDataNum;
  const uint64_t end = std::min(begin + size, launch.tiling.totalDataNum);
  return (end - begin + kSumChunkElems - 1) / kSumChunkElems;
}

void RunElementwiseStageBlock(const LossLaunch& launch, uint64_t block, char* slice) {
  VisitKernelDType(launch.kernel_dtype, [&]<class T>() {
    if (launch.reduction != ReductionType::kNone) {
      RunSums<T>(launch, block, slice);
    } else {
      RunNone<T>(launch, block, slice);
    }
  });
}

void RunCombine(const LossLaunch& launch, const char* stage_workspace) {
  const SliceLayout layout = LayoutOf(launch);
  const uint64_t slice_bytes = ElementwiseBlockWorkspaceBytes(launch);
  ChunkSumTotal total;  // Note [Deterministic reduction]
  for (uint64_t b = 0; b < launch.tiling.blockDim; ++b) {
    const auto* sums =
        reinterpret_cast<const ChunkSum*>(stage_workspace + b * slice_bytes + layout.tile_bytes + layout.chunk_buffer_bytes);
    total.Add(std::span<const ChunkSum>(sums, BlockChunkCount(launch, b)));
  }
  StoreFromDouble(launch.result, launch.result_dtype, 0, total.Result(launch.reduction, launch.total_elems));
}

}  // namespace aclnn_cpu::bce_loss
