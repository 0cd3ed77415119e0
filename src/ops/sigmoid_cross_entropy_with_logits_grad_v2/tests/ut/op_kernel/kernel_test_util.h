// Helpers of the op_kernel tests: every test runs once per Highway SIMD target of this machine,
// on poisoned, guarded buffers, against the float64 reference of common/bce_test_util.h.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "hwy/targets.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2.h"
#include "simd_targets.h"

namespace bce_kernel_test {

using aclnn_cpu::BFloat16;
using aclnn_cpu::Half;
using aclnn_cpu::IterSpace;
using aclnn_cpu::bce_grad::Access;
using aclnn_cpu::bce_grad::KernelDType;
using aclnn_cpu::bce_grad::KernelLaunch;
using aclnn_cpu::bce_grad::OperandIndex;
using aclnn_cpu::bce_grad::SigmoidCrossEntropyWithLogitsGradV2TilingData;
using aclnn_cpu::TileArgs;
using aclnn_cpu::TileFn;
using aclnn_cpu::bce_grad::kDout;
using aclnn_cpu::bce_grad::kGradient;
using aclnn_cpu::bce_grad::kPosWeight;
using aclnn_cpu::bce_grad::kPredict;
using aclnn_cpu::bce_grad::kTarget;
using aclnn_cpu::bce_grad::kWeight;

inline constexpr KernelDType kAllKernelDTypes[] = {KernelDType::kFloat, KernelDType::kFloat16,
                                                    KernelDType::kBFloat16, KernelDType::kDouble};

/// The widest vector of any x86 target (AVX-512): 16 fp32 lanes. Counts swept around multiples
/// of it cover every narrower target's vector and unrolled-loop boundaries too.
inline constexpr size_t kWidestVectorBytes = 64;

/// The tile arguments of a compute call over host vectors @p in (x, y, dout, weight, pos_weight)
/// writing @p out.
template <class Inputs, class T>
TileArgs TileOperandsOver(const Inputs& in, T* out) {
  TileArgs io;
  io.at[kPredict] = in.x.data();
  io.at[kTarget] = in.y.data();
  io.at[kDout] = in.dout.data();
  io.at[kWeight] = in.weight.data();
  io.at[kPosWeight] = in.pos_weight.data();
  io.at[kGradient] = out;
  return io;
}

/// The chosen SIMD target's kernel of tiling key @p key: the gradient with respect to self, or
/// (TargetKernel) to the target.
TileFn SelfKernel(uint32_t key);
TileFn TargetKernel(uint32_t key);
/// Calls @p fn over @p count elements of @p args with the scale @p scale.
inline void CallTile(TileFn fn, TileArgs args, size_t count, double scale) {
  args.scale = scale;
  fn(args, count);
}

aclDataType AclDTypeOf(KernelDType dtype);
/// The type the kernel computes in: fp64 for fp64 storage, fp32 otherwise.
aclDataType ComputeDTypeOf(KernelDType dtype);
/// "Fp16_Weight_PosWeight" for tiling key @p key.
std::string TilingKeyLabel(uint32_t key);

// ---------------------------------------------------------------------------------------------
// SIMD targets

/// Makes HWY_DYNAMIC_DISPATCH (and so ChosenKernelTable) pick a target while alive.
using acl_test::SimdTargetScope;
/// Test-name suffix: the target's name ("AVX2").
using acl_test::SimdTargetName;

/// Fixture of tests that run once per SIMD target (the parameter); the kernel table of that
/// target is chosen for the duration of the test.
class OnEverySimdTarget : public acl_test::OnEverySimdTargetTest {
 protected:
  void SetUp() override;
  /// The kernels of the target under test (HWY_DYNAMIC_DISPATCH on each call, as the library does).
  static TileFn Kernel(uint32_t key);
};

// ---------------------------------------------------------------------------------------------
// Buffers

/// Elements of one dtype between guard zones; every byte starts as the poison byte (0xFF), whose
/// elements are NaN in every float dtype.
class GuardedBuffer {
 public:
  static constexpr int64_t kGuardElems = 64;
  GuardedBuffer(int64_t elems, aclDataType dtype);

  /// Element 0; 64-byte aligned.
  void* data() const;
  int64_t size() const { return elems_; }
  aclDataType dtype() const { return dtype_; }
  size_t elem_bytes() const { return elem_bytes_; }

  /// Stores @p value rounded once (to nearest even) to the dtype.
  void Set(int64_t i, double value);
  /// The element, widened exactly.
  double Get(int64_t i) const;
  /// The element's bit pattern (zero-extended).
  uint64_t Bits(int64_t i) const;
  void SetBits(int64_t i, uint64_t bits);
  /// Whether element @p i still holds the poison bytes.
  bool IsPoison(int64_t i) const;
  /// Whether the guard zones before and after the elements still hold the poison bytes.
  bool GuardsIntact() const;
  /// Snapshot of the elements' bytes.
  std::vector<uint8_t> Snapshot() const;

 private:
  int64_t elems_;
  aclDataType dtype_;
  size_t elem_bytes_;
  size_t total_bytes_;
  size_t offset_ = 0;  // of the first guard in bytes_, for alignment
  std::unique_ptr<uint8_t[]> bytes_;
};

// ---------------------------------------------------------------------------------------------
// Float64 reference

/// The inputs of one element, widened exactly.
struct ElementInputs {
  double x, y, dout;
  std::optional<double> weight, pos_weight;
};

/// Whether @p got is the float64 reference of @p in (ReferenceGrad) within ErrorBound for the
/// compute and output dtypes; NaN must meet NaN and Inf the same Inf.
::testing::AssertionResult MatchesReference(double got, const ElementInputs& in, double scale, aclDataType compute,
                                            aclDataType out);

/// Values of a dtype drawn uniformly from [lo, hi) and rounded once to it.
double RandomIn(std::mt19937_64& rng, double lo, double hi, aclDataType dtype);

// ---------------------------------------------------------------------------------------------
// Hand-built launches

/// A KernelLaunch over a hand-filled tiling, with each operand in its own guarded storage laid
/// out as the test asks (dense, one constant value, or strided through the iteration space).
class HandLaunch {
 public:
  /// @p space_sizes: dims of the iteration space (product = tiling.totalDataNum).
  HandLaunch(const SigmoidCrossEntropyWithLogitsGradV2TilingData& tiling, KernelDType dtype,
             std::vector<int64_t> space_sizes);

  /// Operand @p o dense in the kernel dtype, read or written in place (kDirect).
  void Direct(OperandIndex o);
  /// Operand @p o is one value of @p dtype for every element (kConstant).
  void Constant(OperandIndex o, aclDataType dtype, double value);
  /// Operand @p o at storage index offset + sum(index_k * strides_k) of a storage of @p dtype
  /// (kStaged: gathered or scattered through a tile buffer).
  void Staged(OperandIndex o, aclDataType dtype, std::vector<int64_t> strides, int64_t offset = 0);
  /// The output is the predict operand's own storage (in-place, kDirect both).
  void OutputAliasesPredict();

  /// Fills the inputs (not constants) with values typical of the operator, then snapshots them.
  void FillInputs(uint64_t seed);
  /// Sets element @p linear of input @p o (rounded to the operand's dtype).
  void SetInput(OperandIndex o, int64_t linear, double value);
  /// Snapshots the inputs' storage (after filling by hand with SetInput).
  void SnapshotInputs();

  /// Runs RunBlock for every block, last block first (blocks are independent), each with its
  /// own poisoned 64-byte aligned workspace.
  void Run();

  double Input(OperandIndex o, int64_t linear) const;
  double Output(int64_t linear) const;
  uint64_t OutputBits(int64_t linear) const;
  const KernelLaunch& launch() const { return launch_; }
  int64_t numel() const { return numel_; }
  bool has_weight() const;
  bool has_pos_weight() const;

  /// Every output element against the float64 reference; reports the first few mismatches.
  ::testing::AssertionResult OutputMatchesReference() const;
  /// Every output element was written (no poison left), every storage element outside the
  /// output's view and every guard is untouched, and the inputs are unchanged.
  ::testing::AssertionResult WroteExactlyTheOutputView() const;

 private:
  struct Operand {
    Access access = Access::kAbsent;
    std::unique_ptr<GuardedBuffer> storage;
    std::vector<int64_t> strides;  // per space dim, in elements
    int64_t offset = 0;
    std::vector<uint8_t> snapshot;
  };
  int64_t StorageIndex(const Operand& op, int64_t linear) const;
  const Operand& operand(OperandIndex o) const { return operands_[o]; }
  void Bind(OperandIndex o);

  KernelLaunch launch_;
  KernelDType dtype_;
  std::vector<int64_t> space_sizes_;
  int64_t numel_;
  Operand operands_[aclnn_cpu::bce_grad::kOperandCount];
  std::vector<double> input_values_[aclnn_cpu::bce_grad::kOperandCount];  // per element, before the run
  bool output_aliases_predict_ = false;
};

/// Runs compute function @p fn of tiling key @p key on @p count elements of the given inputs
/// (as doubles, rounded to the key's dtype) and returns the outputs' bits; absent optional inputs
/// are passed as null pointers. The output sits between poisoned guards, checked here, and starts
/// @p out_misalign_elems elements past a 64-byte boundary (those elements must stay untouched).
struct TileRun {
  std::vector<uint64_t> bits;   // output element bit patterns
  std::vector<double> values;   // output elements widened
  bool guards_intact = true;
};
TileRun RunTile(TileFn fn, uint32_t key, const std::vector<double>& x, const std::vector<double>& y,
                const std::vector<double>& dout, const std::vector<double>& weight,
                const std::vector<double>& pos_weight, size_t count, double scale, bool stream = false,
                size_t out_misalign_elems = 0, bool dout_uniform = false);

}  // namespace bce_kernel_test
