// One block of the kernel: for each tile, CopyIn -> Compute -> CopyOut.
#include "op_kernel/sigmoid_cross_entropy_with_logits_grad_v2.h"

#include "op_host/sigmoid_cross_entropy_with_logits_grad_v2_tiling.h"

namespace aclnn_cpu::bce_grad {

// Note [Staging]
// The NPU kernel copies every operand tile from global memory into UB (CopyIn), computes there,
// and copies the result back (CopyOut). On the CPU the caches play UB's part, so a dense operand
// already in the kernel dtype is read and written in place (kDirect) and costs no copy. Only what
// the vector loop cannot read directly is staged through a per-block tile buffer in the workspace:
//  * kConstant - a broadcast scalar (a 0-dim gradOutput, say): converted once per block into a
//    filled buffer that every tile reuses;
//  * kStaged   - strides, broadcast rows (pos_weight [C] over [N, C]) or another dtype: gathered
//    per tile into the buffer (converting to the kernel dtype), and for the output computed
//    into the buffer and scattered through the view (converting to out's dtype).
// Either way Compute runs on the vector path with contiguous spans.

uint64_t TileBufferBytes(const KernelLaunch& launch) {
  const uint64_t bytes = launch.tiling.tileDataNum * KernelDTypeSize(TilingKeyDType(launch.tiling_key));
  return (bytes + 63) / 64 * 64;
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
    if (op.access != Access::kConstant && op.access != Access::kStaged) continue;
    buffers[o] = reinterpret_cast<T*>(next_buffer);
    next_buffer += buffer_bytes;
    if (op.access == Access::kConstant) {  // CopyIn once per block
      T value{};
      VisitFloatDType(op.memory.dtype, [&](auto tag) {
        value = ConvertElement<T>(*reinterpret_cast<const decltype(tag)*>(op.memory.first));
      });
      for (uint64_t k = 0; k < tiling.tileDataNum; ++k) buffers[o][k] = value;
    }
  }

  const uint64_t tiles = BlockTileNum(tiling, block);
  for (uint64_t t = 0; t < tiles; ++t) {
    const TileRange range = BlockTile(tiling, block, t);
    const auto begin = static_cast<int64_t>(range.begin);
    const auto count = static_cast<int64_t>(range.end - range.begin);
    if (count <= 0) continue;
    const void* in[kOperandCount] = {};
    void* out = nullptr;
    // CopyIn
    for (int o = 0; o < kOperandCount; ++o) {
      const GlobalOperand& op = launch.operands[o];
      switch (op.access) {
        case Access::kAbsent: break;
        case Access::kDirect: {
          char* p = const_cast<char*>(op.memory.first) + begin * static_cast<int64_t>(sizeof(T));
          if (o == kGradient) out = p; else in[o] = p;
          break;
        }
        case Access::kConstant: in[o] = buffers[o]; break;
        case Access::kStaged:
          if (o == kGradient) {
            out = buffers[o];
          } else {
            GatherRange(launch.space, op.memory, begin, count, buffers[o]);
            in[o] = buffers[o];
          }
          break;
      }
    }
    // Compute
    TileOperands io;
    io.predict = in[kPredict];
    io.target = in[kTarget];
    io.dout = in[kDout];
    io.weight = in[kWeight];
    io.pos_weight = in[kPosWeight];
    io.gradient = out;
    io.stream_gradient = tiling.nonTemporalOut != 0 && launch.operands[kGradient].access == Access::kDirect;
    const double scale = std::is_same_v<T, double> ? tiling.globalScaleDouble : tiling.globalScale;
    launch.compute(io, static_cast<size_t>(count), scale);
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
