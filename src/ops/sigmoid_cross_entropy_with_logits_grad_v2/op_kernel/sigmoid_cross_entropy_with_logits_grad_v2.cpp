// One block of the kernel: the shared elementwise block driver with this operator's tile compute.
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2.h"

#include <type_traits>

#include "opdev/elementwise_block.h"

namespace aclnn_cpu::bce_grad {

uint64_t TileBufferBytes(const KernelLaunch& launch) {
  return ::aclnn_cpu::TileBufferBytes(launch.tiling.tileDataNum, TilingKeyDType(launch.tiling_key));
}

uint64_t BlockWorkspaceBytes(const KernelLaunch& launch) {
  return ::aclnn_cpu::BlockWorkspaceBytes(launch.operands, launch.tiling.tileDataNum, TilingKeyDType(launch.tiling_key));
}

namespace {

template <class T>
void RunBlockTyped(const KernelLaunch& launch, uint64_t block, void* block_workspace) {
  const auto& tiling = launch.tiling;
  const double scale = std::is_same_v<T, double> ? tiling.globalScaleDouble : tiling.globalScale;
  TileOperands io;
  io.stream_gradient = tiling.nonTemporalOut != 0 && launch.operands[kGradient].access != Access::kStaged;
  // A constant dout is read once (GradTraits::ReadsConstantOnce): the kernel loads dout[0].
  io.dout_uniform = launch.operands[kDout].access == Access::kConstant;
  RunElementwiseBlock<GradTraits, T>(tiling, launch.space, launch.operands, block, block_workspace,
                         [&](const char* const* at, int64_t elements) {
                           io.predict = at[kPredict];
                           io.target = at[kTarget];
                           io.dout = at[kDout];
                           io.weight = at[kWeight];
                           io.pos_weight = at[kPosWeight];
                           io.gradient = const_cast<char*>(at[kGradient]);
                           launch.compute(io, static_cast<size_t>(elements), scale);
                         });
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
