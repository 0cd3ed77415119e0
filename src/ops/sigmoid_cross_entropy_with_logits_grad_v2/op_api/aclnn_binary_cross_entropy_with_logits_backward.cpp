// ACLNN L2 API of SigmoidCrossEntropyWithLogitsGradV2: checks (SPEC §3), dtype promotion, the plan
// (iteration space, operand access, tiling, kernel) and the executor.
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"

#include <algorithm>
#include <array>
#include <memory>
#include <new>
#include <vector>

#include "common/dtype.h"
#include "common/error.h"
#include "opdev/overlap.h"
#include "opdev/strided_iter.h"
#include "platform/platform_info.h"
#include "op_host/sigmoid_cross_entropy_with_logits_grad_v2_def.h"
#include "op_host/sigmoid_cross_entropy_with_logits_grad_v2_tiling.h"
#include "op_kernel/sigmoid_cross_entropy_with_logits_grad_v2.h"
#include "runtime/executor.h"
#include "runtime/tensor.h"
#include "runtime/thread_pool.h"

namespace aclnn_cpu::bce_grad {
namespace {

constexpr const char* kFirstPhase = "aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize";
constexpr const char* kSecondPhase = "aclnnBinaryCrossEntropyWithLogitsBackward";

/// The tensors of one call, in the order of the checks' messages.
struct NamedTensor {
  const char* name;
  const aclTensor* tensor;
};

aclnnStatus CheckNotNull(const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target,
                         const aclTensor* out, const uint64_t* workspaceSize, aclOpExecutor* const* executor) {
  const NamedTensor required[] = {{"gradOutput", gradOutput}, {"self", self}, {"target", target}, {"out", out}};
  for (const auto& t : required) {
    if (t.tensor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, kFirstPhase, ": ", t.name, " must not be null");
  }
  if (workspaceSize == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, kFirstPhase, ": workspaceSize must not be null");
  if (executor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, kFirstPhase, ": executor must not be null");
  return ACLNN_SUCCESS;
}

aclnnStatus CheckLive(std::span<const NamedTensor> tensors) {
  std::array<const aclTensor*, kOperandCount> handles{};
  for (size_t i = 0; i < tensors.size() && i < handles.size(); ++i) handles[i] = tensors[i].tensor;
  const int dead = FirstDeadTensor(std::span<const aclTensor* const>(handles.data(), tensors.size()));
  if (dead >= 0) {
    return Fail(ACLNN_ERR_PARAM_INVALID, kFirstPhase, ": ", tensors[static_cast<size_t>(dead)].name,
                " is not a live tensor (destroyed, or not made by aclCreateTensor)");
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckDims(std::span<const NamedTensor> tensors) {
  for (const auto& t : tensors) {
    if (t.tensor != nullptr && t.tensor->dims.rank > kMaxDims) {
      return Fail(ACLNN_ERR_PARAM_INVALID, kFirstPhase, ": ", t.name, " has ", t.tensor->dims.rank,
                  " dims, more than the maximum of ", kMaxDims);
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckDTypes(std::span<const NamedTensor> tensors, const aclTensor* target, const aclTensor* out) {
  for (const auto& t : tensors) {
    if (t.tensor != nullptr && !IsSupportedFloat(t.tensor->dtype)) {
      return Fail(ACLNN_ERR_PARAM_INVALID, kFirstPhase, ": ", t.name, " dtype ", DTypeName(t.tensor->dtype),
                  " is not supported; expected FLOAT, FLOAT16, BF16 or DOUBLE");
    }
  }
  if (out->dtype != target->dtype) {
    return Fail(ACLNN_ERR_PARAM_INVALID, kFirstPhase, ": out dtype ", DTypeName(out->dtype),
                " must equal target dtype ", DTypeName(target->dtype));
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckFormats(const aclTensor* self, const aclTensor* target, const aclTensor* out) {
  if (target->format != self->format) {
    return Fail(ACLNN_ERR_PARAM_INVALID, kFirstPhase, ": target format ", FormatName(target->format),
                " must equal self format ", FormatName(self->format));
  }
  if (out->format != self->format) {
    return Fail(ACLNN_ERR_PARAM_INVALID, kFirstPhase, ": out format ", FormatName(out->format),
                " must equal self format ", FormatName(self->format));
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckShapes(const aclTensor* self, std::span<const NamedTensor> same_shape,
                        std::span<const NamedTensor> broadcast) {
  if (self->numel == 0) return ACLNN_SUCCESS;  // SPEC §3.5: the shape rule is waived for an empty self
  for (const auto& t : same_shape) {
    if (!(t.tensor->dims == self->dims)) {
      return Fail(ACLNN_ERR_PARAM_INVALID, kFirstPhase, ": ", t.name, " shape ", FormatDims(t.tensor->dims.span()),
                  " must equal self shape ", FormatDims(self->dims.span()));
    }
  }
  for (const auto& t : broadcast) {
    if (t.tensor == nullptr) continue;
    const auto shape = BroadcastShapes(t.tensor->dims, self->dims);
    if (!shape || !(*shape == self->dims)) {
      return Fail(ACLNN_ERR_PARAM_INVALID, kFirstPhase, ": ", t.name, " shape ", FormatDims(t.tensor->dims.span()),
                  " must broadcast to self shape ", FormatDims(self->dims.span()));
    }
  }
  return ACLNN_SUCCESS;
}

MemoryView ViewOf(const aclTensor& t) {
  return {t.first_element(), static_cast<int64_t>(t.element_size()), t.dims.span(), t.strides.span()};
}

// Note [Aliasing]
// out is written element by element while the inputs are read, so out must not share memory with
// itself, and it may share memory with an input only as the very same view (in place). That is
// safe for every input, not only self and gradOutput: each out element depends only on the inputs
// at its own index, and every path reads an element's inputs before it writes the element (a
// kDirect or kRowDirect chunk is loaded before it is stored, a partial chunk is copied into a
// buffer first, kStaged inputs are gathered before the tile is computed and out is scattered
// after it, a kConstant input is read once per block, and an identical view of an input is
// classified like out or both are staged). Any other overlap would make results depend on the
// order and timing of the blocks, so it is refused, as PyTorch does. The decision is exact
// (common/overlap.h); where its bounded search gives up, the call is refused too.

/// SPEC §3.5, after the shape rules and for a non-empty self only: out's elements are distinct
/// (InternalOverlap), and out is either the same view as an input or shares no byte with it.
aclnnStatus CheckOutMemory(const aclTensor* out, std::span<const NamedTensor> inputs) {
  const MemoryView out_view = ViewOf(*out);
  switch (InternalOverlap(out_view)) {
    case Overlap::kNone: break;
    case Overlap::kShared:
      return Fail(ACLNN_ERR_PARAM_INVALID, kFirstPhase, ": out view (stride ", FormatDims(out->strides.span()),
                  ") has elements that share memory; out must be writable element by element");
    case Overlap::kUndecided:
      return Fail(ACLNN_ERR_PARAM_INVALID, kFirstPhase, ": out view (shape ", FormatDims(out->dims.span()),
                  ", stride ", FormatDims(out->strides.span()),
                  ") interleaves its strides so that the limit of ", kMaxOverlapSearchSteps,
                  " search steps passes before it is proven that no two elements share memory; use a view whose "
                  "strides nest");
  }
  for (const auto& t : inputs) {
    if (t.tensor == nullptr) continue;
    const MemoryView view = ViewOf(*t.tensor);
    if (SameView(out_view, view)) continue;  // in place: see Note [Aliasing]
    switch (MutualOverlap(out_view, view)) {
      case Overlap::kNone: break;
      case Overlap::kShared:
        return Fail(ACLNN_ERR_PARAM_INVALID, kFirstPhase, ": out overlaps ", t.name,
                    " in memory but is not the same view; out must not partially overlap an input (it may be "
                    "the same view as one, for an in-place call)");
      case Overlap::kUndecided:
        return Fail(ACLNN_ERR_PARAM_INVALID, kFirstPhase, ": out and ", t.name,
                    " interleave in memory and the limit of ", kMaxOverlapSearchSteps,
                    " search steps passes before it is proven that they share no byte; out must not partially "
                    "overlap an input");
    }
  }
  return ACLNN_SUCCESS;
}

/// For a non-empty self: each present, non-empty tensor's data address is a multiple of its
/// element size. The kernel reads single elements with typed loads (a broadcast scalar, a staged
/// gather, a partial chunk), which a misaligned address makes undefined behaviour (and a fault
/// where the compiler vectorizes them with aligned instructions); aclrtMalloc memory and any C++
/// array of the element type are aligned.
aclnnStatus CheckAlignment(std::span<const NamedTensor> tensors) {
  for (const auto& t : tensors) {
    if (t.tensor == nullptr || t.tensor->numel == 0) continue;
    const auto address = reinterpret_cast<uintptr_t>(t.tensor->first_element());
    if (address % t.tensor->element_size() != 0) {
      return Fail(ACLNN_ERR_PARAM_INVALID, kFirstPhase, ": ", t.name, " data address ",
                  reinterpret_cast<const void*>(address), " is not aligned to its element size of ",
                  t.tensor->element_size(), " bytes");
    }
  }
  return ACLNN_SUCCESS;
}

/// The launch plan of one call: a KernelLaunch plus the runtime's view of it.
class BcePlan final : public LaunchPlan {
 public:
  KernelLaunch launch;
  bool run_inline_if_idle = true;
  uint64_t NumBlocks() const override { return launch.tiling.blockDim; }
  bool RunInlineIfIdle() const override { return run_inline_if_idle; }
  uint64_t block_workspace_bytes = 0;  ///< BlockWorkspaceBytes(launch), computed once
  uint64_t WorkspaceBytesPerBlock() const override { return block_workspace_bytes; }
  void RunBlock(uint64_t block, void* block_workspace) const override {
    bce_grad::RunBlock(launch, block, block_workspace);
  }
};

KernelDType KernelDTypeOf(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT16: return KernelDType::kFloat16;
    case ACL_BF16: return KernelDType::kBFloat16;
    case ACL_DOUBLE: return KernelDType::kDouble;
    default: return KernelDType::kFloat;
  }
}

/// Builds the plan of a checked, non-empty call. See Note [Staging].
aclnnStatus BuildLaunch(const aclTensor* const (&tensors)[kOperandCount], aclDataType promoted,
                        ReductionType reduction, BcePlan& plan) {
  KernelLaunch& launch = plan.launch;
  const aclTensor* self = tensors[kPredict];
  // Kernel dtype: the common storage dtype when all operands share one, else the compute dtype
  // with conversions in CopyIn / CopyOut.
  const aclDataType compute = promoted == ACL_DOUBLE ? ACL_DOUBLE : ACL_FLOAT;
  bool uniform = true;
  for (const aclTensor* t : tensors) uniform &= (t == nullptr || t->dtype == self->dtype);
  const aclDataType kernel_acl_dtype = uniform ? self->dtype : compute;
  const KernelDType kernel_dtype = KernelDTypeOf(kernel_acl_dtype);

  launch.space.ndim = self->dims.rank;
  for (int k = 0; k < self->dims.rank; ++k) launch.space.sizes[k] = self->dims.v[k];
  // The output first: its layout decides the walk where operands disagree (a scattered write
  // costs more than a gathered read).
  StridedOperand* present[kOperandCount];
  int present_count = 0;
  constexpr int kWalkPriority[kOperandCount] = {kGradient, kPredict, kTarget, kDout, kWeight, kPosWeight};
  for (const int o : kWalkPriority) {
    const aclTensor* t = tensors[o];
    GlobalOperand& op = launch.operands[o];
    if (t == nullptr) continue;
    op.memory.first = t->first_element();
    op.memory.dtype = t->dtype;
    const DimVector strides = BroadcastStrides(t->dims, t->strides, self->dims);
    for (int k = 0; k < self->dims.rank; ++k) op.memory.strides[k] = strides.v[k];
    present[present_count++] = &op.memory;
  }
  const std::span<StridedOperand*> walked(present, static_cast<size_t>(present_count));
  ReorderDims(launch.space, walked);
  CoalesceDims(launch.space, walked);

  OperandTraffic traffic[kOperandCount];
  size_t traffic_count = 0;
  for (int o = 0; o < kOperandCount; ++o) {
    GlobalOperand& op = launch.operands[o];
    if (tensors[o] == nullptr) continue;
    const bool native = op.memory.dtype == kernel_acl_dtype;
    if (native && IsDense(launch.space, op.memory)) {
      op.access = Access::kDirect;
    } else if (o != kGradient && IsBroadcastScalar(launch.space, op.memory)) {
      op.access = Access::kConstant;
    } else if (native && op.memory.strides[launch.space.ndim - 1] == 1 &&
               launch.space.sizes[launch.space.ndim - 1] >= kMinRowDirectElems) {
      op.access = Access::kRowDirect;
    } else {
      op.access = Access::kStaged;
    }
    traffic[traffic_count].dtype_bytes = DTypeSize(op.memory.dtype);
    traffic[traffic_count].broadcast_scalar = op.access == Access::kConstant;
    ++traffic_count;
  }

  const TilingProblem problem =
      MakeTilingProblem(static_cast<uint64_t>(self->numel), kernel_dtype, tensors[kWeight] != nullptr,
                        tensors[kPosWeight] != nullptr, reduction,
                        std::span<const OperandTraffic>(traffic, traffic_count));
  const PlatformInfo platform = CpuPlatform(static_cast<uint64_t>(ThreadPool::Instance().NumThreads()));
  const auto tiling = ComputeTiling(platform, problem);
  if (!tiling) return Fail(ACLNN_ERR_INNER_TILING_ERROR, kFirstPhase, ": tiling failed for ", self->numel, " elements");

  launch.tiling = tiling->data;
  plan.run_inline_if_idle = tiling->run_inline_if_idle;
  launch.tiling_key = tiling->tiling_key;
  launch.compute = ChosenKernelTable().compute[tiling->tiling_key];
  plan.block_workspace_bytes = BlockWorkspaceBytes(launch);
  return ACLNN_SUCCESS;
}

}  // namespace
}  // namespace aclnn_cpu::bce_grad

using namespace aclnn_cpu;
using namespace aclnn_cpu::bce_grad;

namespace {
aclnnStatus GetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target,
                             const aclTensor* weightOptional, const aclTensor* posWeightOptional, int64_t reduction,
                             aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  // 1. required pointers
  if (aclnnStatus s = CheckNotNull(gradOutput, self, target, out, workspaceSize, executor)) return s;
  const NamedTensor all[] = {{"gradOutput", gradOutput},   {"self", self},
                             {"target", target},           {"weightOptional", weightOptional},
                             {"posWeightOptional", posWeightOptional}, {"out", out}};
  if (aclnnStatus s = CheckLive(all)) return s;
  // 2. dims, 3. dtypes, 4. formats, 5. shapes, 6. reduction
  if (aclnnStatus s = CheckDims(all)) return s;
  if (aclnnStatus s = CheckDTypes(all, target, out)) return s;
  if (aclnnStatus s = CheckFormats(self, target, out)) return s;
  const NamedTensor same_shape[] = {{"target", target}, {"out", out}};
  const NamedTensor broadcast[] = {{"gradOutput", gradOutput},
                                   {"weightOptional", weightOptional},
                                   {"posWeightOptional", posWeightOptional}};
  if (aclnnStatus s = CheckShapes(self, same_shape, broadcast)) return s;
  const NamedTensor inputs[] = {{"gradOutput", gradOutput}, {"self", self}, {"target", target},
                                {"weightOptional", weightOptional}, {"posWeightOptional", posWeightOptional}};
  if (self->numel != 0) {  // SPEC §3.5: waived for an empty self, as the shape rule is
    if (aclnnStatus s = CheckAlignment(all)) return s;
    if (aclnnStatus s = CheckOutMemory(out, inputs)) return s;
  }
  const auto reduction_type = FromAclnnReduction(reduction);
  if (!reduction_type) {
    return Fail(ACLNN_ERR_PARAM_INVALID, kFirstPhase, ": reduction ", reduction,
                " must be 0 (none), 1 (mean) or 2 (sum)");
  }
  // Promotion (PyTorch rules), then castable to out.
  aclDataType promoted = PromoteFloat(self->dtype, target->dtype);
  promoted = PromoteFloat(promoted, gradOutput->dtype);
  if (weightOptional != nullptr) promoted = PromoteFloat(promoted, weightOptional->dtype);
  if (posWeightOptional != nullptr) promoted = PromoteFloat(promoted, posWeightOptional->dtype);
  if (!CanCast(promoted, out->dtype)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, kFirstPhase, ": promoted dtype ", DTypeName(promoted),
                " cannot be cast to out dtype ", DTypeName(out->dtype));
  }

  auto plan = std::make_shared<BcePlan>();  // std::bad_alloc: see the guard below
  if (self->numel != 0) {
    const aclTensor* const tensors[kOperandCount] = {self, target, gradOutput, weightOptional, posWeightOptional, out};
    if (aclnnStatus s = BuildLaunch(tensors, promoted, *reduction_type, *plan)) return s;
  }
  aclOpExecutor* e = CreateExecutor(plan);
  if (e == nullptr) return Fail(ACLNN_ERR_RUNTIME_ERROR, kFirstPhase, ": out of memory");
  *workspaceSize = plan->WorkspaceSize();
  *executor = e;
  return ACLNN_SUCCESS;
}
}  // namespace

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* self, const aclTensor* target, const aclTensor* weightOptional,
    const aclTensor* posWeightOptional, int64_t reduction, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  // Out of memory (the plan, the executor's registry) gives ACLNN_ERR_RUNTIME_ERROR and leaves
  // *executor unset; see Note [No exceptions across the C API].
  return Guarded(kFirstPhase, ExceptionCodes<aclnnStatus>{ACLNN_ERR_RUNTIME_ERROR, ACLNN_ERR_RUNTIME_ERROR}, [&] {
    return GetWorkspaceSize(gradOutput, self, target, weightOptional, posWeightOptional, reduction, out,
                            workspaceSize, executor);
  });
}

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnBinaryCrossEntropyWithLogitsBackward(void* workspace,
                                                                                  uint64_t workspaceSize,
                                                                                  aclOpExecutor* executor,
                                                                                  aclrtStream stream) {
  return LaunchExecutor(kSecondPhase, workspace, workspaceSize, executor, stream);
}
