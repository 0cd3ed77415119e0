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

void RunBlock(const KernelLaunch& launch, uint64_t block, void* block_workspace) {
  VisitKernelDType(TilingKeyDType(launch.tiling_key), [&]<class T>() {
    const auto& tiling = launch.tiling;
    TileArgs args;
    args.scale = std::is_same_v<T, double> ? tiling.globalScaleDouble : tiling.globalScale;
    args.stream_outputs = tiling.nonTemporalOut != 0 && launch.operands[kGradient].access != Access::kStaged;
    args.prefetch_inputs = LaunchPrefetchesInputs(launch.operands, tiling.totalDataNum, sizeof(T));
    // A constant dout is read once (GradTraits::ReadsConstantOnce): the kernel loads dout[0].
    if (launch.operands[kDout].access == Access::kConstant) args.read_once = 1u << kDout;
    RunElementwiseBlock<GradTraits, T>(tiling, launch.space, launch.operands, block, block_workspace,
                                       [&](const char* const* at, int64_t elements) {
                                         args.Take(at, kOperandCount);
                                         launch.compute(args, static_cast<size_t>(elements));
                                       });
  });
}

}  // namespace aclnn_cpu::bce_grad
