#include "opdev/elementwise_plan.h"

#include <cstdlib>
#include <numeric>

#include "common/alignment.h"
#include "common/dtype.h"

namespace aclnn_cpu {

void PlanElementwise(const DimVector& shape, std::span<const ElementwiseOperandSpec> specs, aclDataType kernel_dtype,
                     IterSpace& space, std::span<GlobalOperand> operands) {
  space.ndim = shape.rank;
  for (int k = 0; k < shape.rank; ++k) space.sizes[k] = shape.v[k];
  // An operator with more operands is a programming error that no input can cause.
  if (specs.size() > kMaxElementwiseOperands || operands.size() != specs.size()) std::abort();
  StridedOperand* walked[kMaxElementwiseOperands];
  size_t walked_count = 0;
  // Outputs first: their layout decides the walk where operands disagree.
  for (const bool outputs : {true, false}) {
    for (size_t o = 0; o < specs.size(); ++o) {
      const ElementwiseOperandSpec& spec = specs[o];
      GlobalOperand& op = operands[o];
      if (spec.output != outputs) continue;
      op = GlobalOperand{};
      if (spec.tensor == nullptr) continue;
      op.memory.first = spec.tensor->first_element();
      op.memory.dtype = spec.tensor->dtype;
      const DimVector strides = BroadcastStrides(spec.tensor->dims, spec.tensor->strides, shape);
      for (int k = 0; k < shape.rank; ++k) op.memory.strides[k] = strides.v[k];
      walked[walked_count++] = &op.memory;
    }
  }
  const std::span<StridedOperand*> present(walked, walked_count);
  ReorderDims(space, present);
  CoalesceDims(space, present);

  const int inner = space.ndim - 1;
  for (size_t o = 0; o < specs.size(); ++o) {
    GlobalOperand& op = operands[o];
    const bool output = specs[o].output;
    if (specs[o].tensor == nullptr) continue;
    const bool native = op.memory.dtype == kernel_dtype;
    if (native && IsDense(space, op.memory)) {
      op.access = Access::kDirect;
    } else if (!output && IsBroadcastScalar(space, op.memory)) {
      op.access = Access::kConstant;
    } else if (native && op.memory.strides[inner] == 1 && space.sizes[inner] >= kMinRowDirectElems) {
      op.access = Access::kRowDirect;
    } else {
      op.access = Access::kStaged;
    }
  }
}

size_t OperandTrafficOf(std::span<const GlobalOperand> operands, std::span<OperandTraffic> traffic) {
  size_t count = 0;
  for (const GlobalOperand& op : operands) {
    if (op.access == Access::kAbsent || count == traffic.size()) continue;
    traffic[count].dtype_bytes = DTypeSize(op.memory.dtype);
    traffic[count].broadcast_scalar = op.access == Access::kConstant;
    ++count;
  }
  return count;
}

PlatformInfo AlignTilesToRowGroups(const PlatformInfo& platform, const IterSpace& space,
                                   std::span<const GlobalOperand> operands, KernelDType kernel_dtype,
                                   uint64_t ub_bytes_per_element) {
  if (space.ndim < 2 || platform.block_size == 0 || ub_bytes_per_element == 0) return platform;
  const int inner = space.ndim - 1;
  bool wide = false;
  for (const GlobalOperand& op : operands) {
    wide |= op.access == Access::kStaged && op.memory.strides[inner] >= kWideStride;
  }
  if (!wide) return platform;
  // The new unit: the least common multiple of the old one and a group, in bytes of the kernel
  // dtype (the tiling counts units of block_size bytes). It must fit a tile.
  const uint64_t group_bytes =
      static_cast<uint64_t>(space.sizes[inner]) * static_cast<uint64_t>(kRowBlock) * KernelDTypeSize(kernel_dtype);
  PlatformInfo aligned = platform;
  aligned.block_size = std::lcm(platform.block_size, group_bytes);
  return UnitFitsTile(aligned, kernel_dtype, ub_bytes_per_element) ? aligned : platform;
}

uint64_t TileBufferBytes(uint64_t tile_elems, KernelDType dtype) {
  return AlignUp(tile_elems * KernelDTypeSize(dtype));
}

uint64_t BlockWorkspaceBytes(std::span<const GlobalOperand> operands, uint64_t tile_elems, KernelDType dtype) {
  uint64_t buffers = 0;
  for (const GlobalOperand& op : operands) buffers += UsesTileBuffer(op.access) ? 1 : 0;
  return buffers * TileBufferBytes(tile_elems, dtype);
}

}  // namespace aclnn_cpu
