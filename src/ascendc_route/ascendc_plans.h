// The AscendC route's plan of each operator that has an AscendC kernel: one function per kernel,
// called by the operator's first phase in place of its CPU plan when ChooseKernels says so
// (Note [AscendC route]).
#pragma once

#include <memory>

#include "acl/acl_base.h"
#include "opdev/reduction.h"
#include "runtime/launch_plan.h"

namespace aclnn_cpu::ascendc_route {

// Note [Plugging in an AscendC kernel]
// A kernel <op> (its op_kernel/ascendc/ entry and its op_host/a2/ tiling written, as the gradient's
// are) joins the route in five small steps; the rest (GM buffers, casts, periods and expansion,
// the launch, findings, the copy into out, the second phase) is shared:
//  1. twin_interface.h: an AscendcKernel value, kOp.
//  2. twin/<op>_launch.cpp: `void Launch<Op>(TwinDType dtype, uint32_t block_dim, uint8_t* const*
//     gm)`, declared in twin/twin_launches.h: ICPU_RUN_KF of the typed __global__ entry for
//     float, half and bfloat16_t, with gm[] named as the entry's parameters, in its order.
//  3. twin/twin_kernels.cpp: its case in FindTwinKernel, {"<op>", &Launch<Op>}.
//  4. <op>_route.cpp: `aclnnStatus Plan<Op>OnTwin(api, the first phase's tensors, promoted,
//     reduction, std::shared_ptr<const LaunchPlan>& plan)`, declared here: plan stays null for fp64
//     (!TwinComputes: the caller keeps its CPU plan); else a TwinLaunchBuilder with the entry's GM
//     arguments in order (Input with kTotal or kPeriodic, Output, Workspace), the A2 tiling of the
//     Elements() of each (a failure: Fail(ACLNN_ERR_INNER_TILING_ERROR, ...)), Tiling(&data,
//     sizeof data), plan = Finish(block_dim).
//  5. The first phase (op_api): after its checks, ChooseKernels(api, use_twin); when use_twin and
//     self is not empty, Plan<Op>OnTwin and, when it gave a plan, CacheAndMakeExecutor with it
//     (the gradients' GetWorkspaceSize does it for each GradientCall's twin_plan; the loss's
//     first phase calls PlanSigmoidCrossEntropyWithLogitsV2OnTwin).
// Files: <op> is the op's folder name, with a suffix for a second kernel of the folder
// (sigmoid_cross_entropy_with_logits_grad_v2_target_route.cpp), or both kernels in the folder's
// files. CMake: twin/*.cpp are compiled with the twin, *_route.cpp into the library, each with the
// op folder its name starts with on its include path (src/CMakeLists.txt), and every op's
// op_host/a2/*.cpp into the library (cmake/aclnn_op.cmake, aclnn_add_op). Tests: the op's
// API-level tests registered again in the ascendc mode (the gradient's tests/CMakeLists.txt,
// label aclnn_ascendc).

/// aclnnBinaryCrossEntropyWithLogitsBackward on the AscendC kernel SigmoidCrossEntropyWithLogitsGradV2:
/// predict = self and target of self's shape, dout = gradOutput, weight and pos_weight read through
/// their period (or expanded), the gradient into out; the A2 tiling TileGradForAtlasA2. @p plan
/// stays null for an fp64 @p promoted. Fails with ACLNN_ERR_INNER_TILING_ERROR when the tiling does.
aclnnStatus PlanSigmoidCrossEntropyWithLogitsGradV2OnTwin(const char* api, const aclTensor* self,
                                                          const aclTensor* target, const aclTensor* grad_output,
                                                          const aclTensor* weight, const aclTensor* pos_weight,
                                                          const aclTensor* out, aclDataType promoted,
                                                          ReductionType reduction,
                                                          std::shared_ptr<const LaunchPlan>& plan);

/// aclnnBinaryCrossEntropyWithLogitsTargetBackward on the AscendC kernel
/// SigmoidCrossEntropyWithLogitsGradV2's target variant (..._of_target): the backward's arguments
/// and plan, the target not passed (the kernel does not read it).
aclnnStatus PlanSigmoidCrossEntropyWithLogitsGradV2OfTargetOnTwin(const char* api, const aclTensor* self,
                                                                  const aclTensor* target,
                                                                  const aclTensor* grad_output,
                                                                  const aclTensor* weight,
                                                                  const aclTensor* pos_weight, const aclTensor* out,
                                                                  aclDataType promoted, ReductionType reduction,
                                                                  std::shared_ptr<const LaunchPlan>& plan);

/// aclnnBinaryCrossEntropyWithLogits on the AscendC kernel SigmoidCrossEntropyWithLogitsV2: predict
/// = self and target, weight and pos_weight read through their period (or expanded), the loss into
/// out (self's shape for none, one element for mean and sum, summed across cores through the
/// workspace); the A2 tiling TileLossForAtlasA2. @p plan stays null for an fp64 @p promoted.
aclnnStatus PlanSigmoidCrossEntropyWithLogitsV2OnTwin(const char* api, const aclTensor* self, const aclTensor* target,
                                                      const aclTensor* weight, const aclTensor* pos_weight,
                                                      const aclTensor* out, aclDataType promoted,
                                                      ReductionType reduction,
                                                      std::shared_ptr<const LaunchPlan>& plan);

}  // namespace aclnn_cpu::ascendc_route
