// One block of the kernel: for each tile, CopyIn -> Compute -> CopyOut.
#include "op_kernel/sigmoid_cross_entropy_with_logits_grad_v2.h"

#include "common/alignment.h"
#include "op_host/sigmoid_cross_entropy_with_logits_grad_v2_tiling.h"

namespace aclnn_cpu::bce_grad {

// Note [Staging]
// The NPU kernel copies every operand tile from global memory into UB (CopyIn), computes there,
// and copies the result back (CopyOut). On the CPU the caches play UB's part, so a dense operand
// already in the kernel dtype is read and written in place (kDirect) and costs no copy. Only what
// the vector loop cannot read directly is staged through a per-block tile buffer in the workspace:
//  * kConstant - a broadcast scalar (a 0-dim gradOutput, say): converted once per block into a
//    filled buffer that every tile reuses (a constant dout only into its first element: the
//    kernel reads it once per call, TileOperands::dout_uniform);
//  * kRowDirect - rows dense in the kernel dtype but not next to each other (a pos_weight [C]
//    broadcast over [N, C] reads the same row again and again): no copy either; the tile is
//    computed row run by row run, each operand read or written in place;
//  * kStaged   - other strides, short broadcast rows or another dtype: gathered per tile into
//    the buffer (converting to the kernel dtype), and for the output computed into the buffer
//    and scattered through the view (converting to out's dtype).
// Either way Compute runs on the vector path with contiguous spans. The access of each operand is
// chosen after the plan has reordered the dims by stride (the output's first) and coalesced them,
// so operands that all share one permutation of a dense block (a transposed or channels-last
// problem) are kDirect.

uint64_t TileBufferBytes(const KernelLaunch& launch) {
  const uint64_t bytes = launch.tiling.tileDataNum * KernelDTypeSize(TilingKeyDType(launch.tiling_key));
  return AlignUp(bytes);
}

uint64_t BlockWorkspaceBytes(const KernelLaunch& launch) {
  uint64_t buffers = 0;
  for (const GlobalOperand& op : launch.operands) buffers += UsesTileBuffer(op.access) ? 1 : 0;
  return buffers * TileBufferBytes(launch);
}

namespace {

template <class T>
void RunBlockTyped(const KernelLaunch& launch, uint64_t block, void* block_workspace) {
  const auto& tiling = launch.tiling;
  const uint64_t buffer_bytes = TileBufferBytes(launch);
  char* next_buffer = static_cast<char*>(block_workspace);
  T* buffers[kOperandCount] = {};
  for (int o = 0; o < kOperandCount; ++o) {
    const GlobalOperand& op = launch.operands[o];
    if (!UsesTileBuffer(op.access)) continue;
    buffers[o] = reinterpret_cast<T*>(next_buffer);
    next_buffer += buffer_bytes;
    if (op.access == Access::kConstant) {  // CopyIn once per block
      T value{};
      VisitFloatDType(op.memory.dtype, [&](auto tag) {
        value = ConvertElement<T>(*reinterpret_cast<const decltype(tag)*>(op.memory.first));
      });
      // A constant dout is passed as dout_uniform: the kernel reads its first element only.
      const uint64_t filled = o == kDout ? 1 : tiling.tileDataNum;
      for (uint64_t k = 0; k < filled; ++k) buffers[o][k] = value;
    }
  }

  const uint64_t tiles = BlockTileNum(tiling, block);
  for (uint64_t t = 0; t < tiles; ++t) {
    const TileRange range = BlockTile(tiling, block, t);
    const auto begin = static_cast<int64_t>(range.begin);
    const auto count = static_cast<int64_t>(range.end - range.begin);
    if (count <= 0) continue;
    // CopyIn: element `pos` of the tile is at base[o] + pos for every operand but the row-direct
    // ones, which are addressed per row run below.
    char* tile_base[kOperandCount] = {};
    bool row_direct = false;
    for (int o = 0; o < kOperandCount; ++o) {
      const GlobalOperand& op = launch.operands[o];
      switch (op.access) {
        case Access::kAbsent: break;
        case Access::kDirect:
          tile_base[o] = const_cast<char*>(op.memory.first) + begin * static_cast<int64_t>(sizeof(T));
          break;
        case Access::kConstant: tile_base[o] = reinterpret_cast<char*>(buffers[o]); break;
        case Access::kRowDirect: row_direct = true; break;
        case Access::kStaged:
          if (o != kGradient) GatherRange(launch.space, op.memory, begin, count, buffers[o]);
          tile_base[o] = reinterpret_cast<char*>(buffers[o]);
          break;
      }
    }
    // Compute
    const double scale = std::is_same_v<T, double> ? tiling.globalScaleDouble : tiling.globalScale;
    const bool stream = tiling.nonTemporalOut != 0 && launch.operands[kGradient].access != Access::kStaged;
    const auto compute = [&](const char* const* at, int64_t elements) {
      TileOperands io;
      io.predict = at[kPredict];
      io.target = at[kTarget];
      io.dout = at[kDout];
      io.weight = at[kWeight];
      io.pos_weight = at[kPosWeight];
      io.gradient = const_cast<char*>(at[kGradient]);
      io.stream_gradient = stream;
      io.dout_uniform = launch.operands[kDout].access == Access::kConstant;
      launch.compute(io, static_cast<size_t>(elements), scale);
    };
    if (!row_direct) {
      compute(tile_base, count);
    } else {
      const StridedOperand* const memory[kOperandCount] = {
          &launch.operands[0].memory, &launch.operands[1].memory, &launch.operands[2].memory,
          &launch.operands[3].memory, &launch.operands[4].memory, &launch.operands[5].memory};
      ForEachRun(launch.space, memory, begin, count, [&](const int64_t* offsets, int64_t run, int64_t pos) {
        const char* at[kOperandCount] = {};
        for (int o = 0; o < kOperandCount; ++o) {
          const Access access = launch.operands[o].access;
          if (access == Access::kRowDirect) {
            at[o] = launch.operands[o].memory.first + offsets[o] * static_cast<int64_t>(sizeof(T));
          } else if (access == Access::kConstant) {
            at[o] = tile_base[o];  // the same value everywhere
          } else if (access != Access::kAbsent) {
            at[o] = tile_base[o] + pos * static_cast<int64_t>(sizeof(T));
          }
        }
        compute(at, run);
      });
    }
    // CopyOut
    if (launch.operands[kGradient].access == Access::kStaged) {
      ScatterRange(launch.space, buffers[kGradient], launch.operands[kGradient].memory, begin, count);
    }
  }
}

}  // namespace

void RunBlock(const KernelLaunch& launch, uint64_t block, void* block_workspace) {
  switch (TilingKeyDType(launch.tiling_key)) {
    case KernelDType::kFloat: RunBlockTyped<float>(launch, block, block_workspace); break;
    case KernelDType::kFloat16: RunBlockTyped<Half>(launch, block, block_workspace); break;
    case KernelDType::kBFloat16: RunBlockTyped<BFloat16>(launch, block, block_workspace); break;
    case KernelDType::kDouble: RunBlockTyped<double>(launch, block, block_workspace); break;
  }
}

}  // namespace aclnn_cpu::bce_grad
