// The AscendC route: the plan of one launch of an AscendC kernel on the CPU twin, built by a first
// phase in place of its CPU plan when ACLNN_BCE_KERNELS=ascendc. Knows no operator: an operator's
// route function (ascendc_plans.h) names its kernel, lists its GM arguments in the kernel entry's
// order and calls its A2 tiling.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "acl/acl_base.h"
#include "ascendc_route/twin_interface.h"
#include "common/shape.h"
#include "opdev/strided_iter.h"
#include "runtime/launch_plan.h"
#include "runtime/tensor.h"

namespace aclnn_cpu::ascendc_route {

// Note [AscendC route]
// ACLNN_BCE_KERNELS=ascendc (read when the library is loaded, Note [Kernels mode at load time])
// makes the ACLNN calls of the operators that have an AscendC kernel run it on the CPU twin
// (ascendc_cpu/), API -> A2 tiling -> kernel, as CANN runs it on an Atlas A2 NPU:
//  * First phase: every check and message as in the CPU mode (the checks run first; only the plan
//    differs). The route is chosen where the plan is made (ChooseKernels: a value of the variable
//    that is not a mode, or ascendc in a build without the twin, fails there). The plan: each
//    operand's GM argument (Note [Operands on the twin]), the operator's A2 tiling on
//    AtlasA2Platform() (its TilingData and blockDim), the kernel from the table. fp64, which A2
//    does not have, runs the CPU kernels (the route function gives no plan). An empty self
//    launches nothing, as in the CPU mode. The workspace asked for is 0: GM is the twin's.
//  * Second phase: the plan runs on the calling thread once the stream's earlier launches have
//    finished (Note [Launches run by the caller], runtime/launch_plan.h), so the call returns after
//    the kernel ran: GM buffers of exactly the size the kernel is told (GmAlloc), inputs copied
//    and cast into them, the tiling copied into GM, ICPU_RUN_KF with the tiling's blockDim (one
//    launch of the process at a time, Note [One launch on the twin at a time]), then each output
//    cast and copied into its tensor's view (any strides and dtype; in place works, as every input
//    was copied before the launch).
//  * Findings: the twin prints each one itself, as in a kernel unit test, and ASCENDC_CPU_FATAL=1
//    ends the process after a run with an error (the exit happens outside any stream's launch, so
//    the runtime's exit handler does not wait for it). A run with an error finding also fails the
//    second phase (ACLNN_ERR_RUNTIME_ERROR, the first error in the message) and leaves the outputs
//    unwritten: a golden reference never returns a result the twin found wrong. Warnings are
//    printed, not failed.
// What differs from the CPU mode: speed (the twin checks every access), the last bits of
// transcendental functions (the twin's Exp is correctly rounded; the CPU kernels' and A2's are
// not), the second phase is synchronous, and non-periodic broadcasts are expanded on the host.

// Note [Operands on the twin]
// As aclnn does on the NPU, the kernel gets contiguous GM tensors of the compute dtype (the
// promoted dtype: inputs of another dtype are cast on the host, where aclnn inserts a Cast, with
// the library's round-to-nearest-even conversions). An input the kernel reads through a period
// (TwinInputForm::kPeriodic, Note [Operands read through a period] of the gradient's TilingData)
// is passed as its P elements when it broadcasts as one: a single element (0-dim, [1], [1, 1]),
// the trailing dims of the output shape ([C] or [1, C] over [N, C], [H, W] over [N, C, H, W]), or
// the output shape itself. The kernels take one period for all such operands: when two differ
// ([W] and [H, W]), each is expanded to the longer (the trailing dims both are part of). Any other
// broadcast ([N, 1] over [N, C], [C, 1] over [N, C, H, W]) is expanded on the host to the output
// shape, as aclnn's BroadcastTo would. A kTotal input (self, target) is always the output shape.

/// How an input of the kernel may be passed (Note [Operands on the twin]).
enum class TwinInputForm {
  kTotal,     ///< the output shape's elements, expanded on the host if it broadcasts
  kPeriodic,  ///< P elements read through the period i % P where it broadcasts as one
};

/// The element types of the twin's kernels: fp32, fp16 and bf16 have one, fp64 none (A2 has no fp64).
bool TwinComputes(aclDataType compute);

/// A test-only hook (Note [Faults on purpose]): called with every launch's TilingData as it is
/// copied into GM, before the kernel runs. Null: none.
using TilingHookForTesting = void (*)(AscendcKernel kernel, void* tiling, size_t bytes);
void SetTilingHookForTesting(TilingHookForTesting hook);

/// Builds the plan of one launch of a kernel over the elements of an output shape. Its GM arguments
/// are added in the kernel entry's order (Input, Output, Workspace, Tiling); Elements() tells the
/// tiling each one's element count.
class TwinLaunchBuilder {
 public:
  /// @p compute: the kernel's element type (TwinComputes must hold); @p shape: the output shape,
  /// over which the inputs broadcast.
  TwinLaunchBuilder(AscendcKernel kernel, aclDataType compute, const DimVector& shape);

  /// An input (null: absent, a null GM pointer). Returns its argument index.
  size_t Input(const aclTensor* tensor, TwinInputForm form);
  /// An output of @p tensor's own shape, copied into its view after the run.
  size_t Output(const aclTensor* tensor);
  /// A GM workspace of @p bytes (0: a null pointer).
  size_t Workspace(uint64_t bytes);
  /// The TilingData, copied into GM of exactly @p bytes at each launch.
  size_t Tiling(const void* data, size_t bytes);

  /// The elements of argument @p arg's GM buffer (0 for an absent input). The first call fixes the
  /// inputs' forms (Note [Operands on the twin]): inputs come before it.
  uint64_t Elements(size_t arg);

  /// The plan: the arguments so far, launched on @p block_dim cores.
  std::shared_ptr<const LaunchPlan> Finish(uint32_t block_dim);

  /// One GM argument of the launch.
  struct Arg {
    enum class Kind : uint8_t { kAbsent, kInput, kOutput, kWorkspace, kTiling };
    Kind kind = Kind::kAbsent;
    TwinInputForm form = TwinInputForm::kTotal;
    const aclTensor* tensor = nullptr;  ///< while building only: the plan keeps the view
    int suffix_dims = 0;                ///< an input's dims of the output shape it is read over
    IterSpace space;                    ///< the elements in the kernel's order ...
    StridedOperand view;                ///< ... and where they are in the tensor
    uint64_t elements = 0;
    uint64_t bytes = 0;                 ///< of the GM buffer
    std::vector<unsigned char> tiling;  ///< kTiling: the TilingData
  };

 private:
  void ResolveForms();
  AscendcKernel kernel_;
  aclDataType compute_;
  DimVector shape_;
  std::vector<Arg> args_;
  bool resolved_ = false;
};

}  // namespace aclnn_cpu::ascendc_route
