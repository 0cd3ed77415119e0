#include "kernel_test_util.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "common/alignment.h"
#include "common/bce_test_util.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_host/sigmoid_cross_entropy_with_logits_grad_v2_tiling.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_reference.h"

namespace bce_kernel_test {

using aclnn_cpu::bce_grad::ChosenKernelTable;
using aclnn_cpu::bce_grad::KernelVariantKey;
using aclnn_cpu::bce_grad::kDout;
using aclnn_cpu::bce_grad::kGradient;
using aclnn_cpu::bce_grad::kOperandCount;
using aclnn_cpu::bce_grad::kPosWeight;
using aclnn_cpu::bce_grad::kPredict;
using aclnn_cpu::bce_grad::kTarget;
using aclnn_cpu::bce_grad::kWeight;
using aclnn_cpu::bce_grad::MakeTilingKey;
using aclnn_cpu::bce_grad::RunBlock;
using aclnn_cpu::bce_grad::BlockWorkspaceBytes;
using aclnn_cpu::bce_grad::TilingKeyDType;
using aclnn_cpu::bce_grad::TilingKeyHasPosWeight;
using aclnn_cpu::bce_grad::TilingKeyHasWeight;

namespace {
constexpr uint8_t kPoisonByte = bce_test::kPoisonByte;
// Workspaces and buffers start on this boundary, as RunBlock requires and non-temporal
// stores of the widest vectors need.
constexpr size_t kAlignment = aclnn_cpu::kDeviceAlignment;
}  // namespace

aclDataType AclDTypeOf(KernelDType dtype) {
  switch (dtype) {
    case KernelDType::kFloat: return ACL_FLOAT;
    case KernelDType::kFloat16: return ACL_FLOAT16;
    case KernelDType::kBFloat16: return ACL_BF16;
    case KernelDType::kDouble: return ACL_DOUBLE;
  }
  return ACL_DT_UNDEFINED;
}

aclDataType ComputeDTypeOf(KernelDType dtype) { return dtype == KernelDType::kDouble ? ACL_DOUBLE : ACL_FLOAT; }

std::string TilingKeyLabel(uint32_t key) {
  return std::string(KernelDTypeLabel(TilingKeyDType(key))) + (TilingKeyHasWeight(key) ? "_Weight" : "") +
         (TilingKeyHasPosWeight(key) ? "_PosWeight" : "");
}

// ---------------------------------------------------------------------------------------------

void OnEverySimdTarget::SetUp() {
  acl_test::OnEverySimdTargetTest::SetUp();
  // The dispatch really switched: the library reports the target it runs.
  ASSERT_STREQ(ChosenKernelTable().target_name, hwy::TargetName(GetParam()));
}

TileFn OnEverySimdTarget::Kernel(uint32_t key) { return SelfKernel(key); }

TileFn SelfKernel(uint32_t key) { return ChosenKernelTable().fn[KernelVariantKey(key, false)]; }
TileFn TargetKernel(uint32_t key) { return ChosenKernelTable().fn[KernelVariantKey(key, true)]; }

// ---------------------------------------------------------------------------------------------

GuardedBuffer::GuardedBuffer(int64_t elems, aclDataType dtype)
    : elems_(elems), dtype_(dtype), elem_bytes_(aclnn_cpu::DTypeSize(dtype)) {
  total_bytes_ = static_cast<size_t>(elems_ + 2 * kGuardElems) * elem_bytes_;
  // Over-allocate so that the first guard, and so the data (the guard is a multiple of 64 bytes
  // for every dtype of 2 bytes or more), starts on a 64-byte boundary.
  bytes_.reset(new uint8_t[total_bytes_ + kAlignment]);
  std::memset(bytes_.get(), kPoisonByte, total_bytes_ + kAlignment);
  const auto address = reinterpret_cast<uintptr_t>(bytes_.get());
  offset_ = (kAlignment - address % kAlignment) % kAlignment;
}

void* GuardedBuffer::data() const { return bytes_.get() + offset_ + kGuardElems * elem_bytes_; }

void GuardedBuffer::Set(int64_t i, double value) { aclnn_cpu::StoreFromDouble(data(), dtype_, i, value); }

double GuardedBuffer::Get(int64_t i) const { return aclnn_cpu::LoadAsDouble(data(), dtype_, i); }

uint64_t GuardedBuffer::Bits(int64_t i) const {
  uint64_t bits = 0;
  std::memcpy(&bits, static_cast<const uint8_t*>(data()) + static_cast<size_t>(i) * elem_bytes_, elem_bytes_);
  return bits;
}

void GuardedBuffer::SetBits(int64_t i, uint64_t bits) {
  std::memcpy(static_cast<uint8_t*>(data()) + static_cast<size_t>(i) * elem_bytes_, &bits, elem_bytes_);
}

bool GuardedBuffer::IsPoison(int64_t i) const {
  const uint8_t* p = static_cast<const uint8_t*>(data()) + static_cast<size_t>(i) * elem_bytes_;
  for (size_t k = 0; k < elem_bytes_; ++k) {
    if (p[k] != kPoisonByte) return false;
  }
  return true;
}

bool GuardedBuffer::GuardsIntact() const {
  const uint8_t* begin = bytes_.get() + offset_;
  const size_t guard_bytes = static_cast<size_t>(kGuardElems) * elem_bytes_;
  const uint8_t* after = static_cast<const uint8_t*>(data()) + static_cast<size_t>(elems_) * elem_bytes_;
  for (size_t k = 0; k < guard_bytes; ++k) {
    if (begin[k] != kPoisonByte || after[k] != kPoisonByte) return false;
  }
  return true;
}

std::vector<uint8_t> GuardedBuffer::Snapshot() const {
  const auto* p = static_cast<const uint8_t*>(data());
  return std::vector<uint8_t>(p, p + static_cast<size_t>(elems_) * elem_bytes_);
}

// ---------------------------------------------------------------------------------------------

::testing::AssertionResult MatchesReference(double got, const ElementInputs& in, double scale, aclDataType compute,
                                            aclDataType out) {
  const aclnn_cpu::bce_grad::ReferenceTerms terms =
      aclnn_cpu::bce_grad::ComputeReferenceTerms(in.x, in.y, in.dout, in.weight, in.pos_weight, scale);
  const double ref = terms.g;
  const double bound = aclnn_cpu::bce_grad::ReferenceErrorBound(terms, compute, out);
  const bool ok = (std::isnan(ref) && std::isnan(got)) || (std::isinf(ref) && got == ref) ||
                  std::fabs(got - ref) <= bound;
  if (ok) return ::testing::AssertionSuccess();
  auto failure = ::testing::AssertionFailure();
  failure << "got " << got << ", float64 reference " << ref << " (bound " << bound << ") for x=" << in.x
          << " y=" << in.y << " dout=" << in.dout;
  if (in.weight) failure << " weight=" << *in.weight;
  if (in.pos_weight) failure << " pos_weight=" << *in.pos_weight;
  return failure << " scale=" << scale;
}

double RandomIn(std::mt19937_64& rng, double lo, double hi, aclDataType dtype) {
  const double value = std::uniform_real_distribution<double>(lo, hi)(rng);
  alignas(8) uint8_t element[8];
  aclnn_cpu::StoreFromDouble(element, dtype, 0, value);
  return aclnn_cpu::LoadAsDouble(element, dtype, 0);
}

// ---------------------------------------------------------------------------------------------

HandLaunch::HandLaunch(const SigmoidCrossEntropyWithLogitsGradV2TilingData& tiling, KernelDType dtype,
                       std::vector<int64_t> space_sizes)
    : dtype_(dtype), space_sizes_(std::move(space_sizes)) {
  launch_.tiling = tiling;
  launch_.space.ndim = static_cast<int>(space_sizes_.size());
  numel_ = 1;
  for (size_t k = 0; k < space_sizes_.size(); ++k) {
    launch_.space.sizes[k] = space_sizes_[k];
    numel_ *= space_sizes_[k];
  }
  EXPECT_EQ(static_cast<uint64_t>(numel_), tiling.totalDataNum) << "space and tiling disagree";
}

void HandLaunch::Bind(OperandIndex o) {
  Operand& op = operands_[o];
  auto& global = launch_.operands[o];
  global.access = op.access;
  global.memory.dtype = op.storage->dtype();
  global.memory.first = static_cast<const char*>(op.storage->data()) + op.offset * static_cast<int64_t>(op.storage->elem_bytes());
  for (size_t k = 0; k < op.strides.size(); ++k) global.memory.strides[k] = op.strides[k];
}

void HandLaunch::Direct(OperandIndex o) {
  Operand& op = operands_[o];
  op.access = Access::kDirect;
  op.storage = std::make_unique<GuardedBuffer>(numel_, AclDTypeOf(dtype_));
  op.strides.assign(space_sizes_.size(), 0);
  int64_t stride = 1;
  for (size_t k = space_sizes_.size(); k-- > 0;) {
    op.strides[k] = stride;
    stride *= space_sizes_[k];
  }
  op.offset = 0;
  Bind(o);
}

void HandLaunch::Constant(OperandIndex o, aclDataType dtype, double value) {
  Operand& op = operands_[o];
  op.access = Access::kConstant;
  op.storage = std::make_unique<GuardedBuffer>(1, dtype);
  op.storage->Set(0, value);
  op.strides.assign(space_sizes_.size(), 0);
  op.offset = 0;
  Bind(o);
}

void HandLaunch::Staged(OperandIndex o, aclDataType dtype, std::vector<int64_t> strides, int64_t offset) {
  Operand& op = operands_[o];
  op.access = Access::kStaged;
  int64_t last = offset;
  for (size_t k = 0; k < strides.size(); ++k) last += (space_sizes_[k] - 1) * strides[k];
  op.storage = std::make_unique<GuardedBuffer>(last + 1, dtype);
  op.strides = std::move(strides);
  op.offset = offset;
  Bind(o);
}

void HandLaunch::OutputAliasesPredict() {
  output_aliases_predict_ = true;
  launch_.operands[kGradient] = launch_.operands[kPredict];
}

bool HandLaunch::has_weight() const { return operands_[kWeight].access != Access::kAbsent; }
bool HandLaunch::has_pos_weight() const { return operands_[kPosWeight].access != Access::kAbsent; }

int64_t HandLaunch::StorageIndex(const Operand& op, int64_t linear) const {
  int64_t index = op.offset;
  for (size_t k = space_sizes_.size(); k-- > 0;) {
    index += (linear % space_sizes_[k]) * op.strides[k];
    linear /= space_sizes_[k];
  }
  return index;
}

void HandLaunch::FillInputs(uint64_t seed) {
  std::mt19937_64 rng(seed);
  // Logits wide enough to saturate the sigmoid, soft labels, and weights of either sign for dout.
  const double lo[] = {-12.0, 0.0, -2.0, 0.0, 0.25};
  const double hi[] = {12.0, 1.0, 2.0, 2.0, 4.0};
  for (int o = kPredict; o <= kPosWeight; ++o) {
    Operand& op = operands_[o];
    if (op.access == Access::kAbsent || op.access == Access::kConstant) continue;
    std::uniform_real_distribution<double> dist(lo[o], hi[o]);
    for (int64_t i = 0; i < op.storage->size(); ++i) op.storage->Set(i, dist(rng));
  }
  SnapshotInputs();
}

void HandLaunch::SetInput(OperandIndex o, int64_t linear, double value) {
  Operand& op = operands_[o];
  op.storage->Set(StorageIndex(op, linear), value);
}

void HandLaunch::SnapshotInputs() {
  for (int o = kPredict; o <= kPosWeight; ++o) {
    Operand& op = operands_[o];
    if (op.access == Access::kAbsent) continue;
    op.snapshot = op.storage->Snapshot();
    input_values_[o].resize(static_cast<size_t>(numel_));
    for (int64_t i = 0; i < numel_; ++i) input_values_[o][static_cast<size_t>(i)] = op.storage->Get(StorageIndex(op, i));
  }
}

void HandLaunch::Run() {
  launch_.tiling_key = MakeTilingKey(dtype_, has_weight(), has_pos_weight());
  launch_.compute = SelfKernel(launch_.tiling_key);
  const uint64_t block_bytes = BlockWorkspaceBytes(launch_);
  const size_t workspace_bytes = (block_bytes + kAlignment - 1) / kAlignment * kAlignment;
  for (uint64_t block = launch_.tiling.blockDim; block-- > 0;) {
    void* workspace = workspace_bytes == 0 ? nullptr : std::aligned_alloc(kAlignment, workspace_bytes);
    if (workspace != nullptr) std::memset(workspace, kPoisonByte, workspace_bytes);
    RunBlock(launch_, block, workspace);
    std::free(workspace);
  }
}

double HandLaunch::Input(OperandIndex o, int64_t linear) const {
  return input_values_[o][static_cast<size_t>(linear)];
}

double HandLaunch::Output(int64_t linear) const {
  const Operand& op = output_aliases_predict_ ? operands_[kPredict] : operands_[kGradient];
  return op.storage->Get(StorageIndex(op, linear));
}

uint64_t HandLaunch::OutputBits(int64_t linear) const {
  const Operand& op = output_aliases_predict_ ? operands_[kPredict] : operands_[kGradient];
  return op.storage->Bits(StorageIndex(op, linear));
}

::testing::AssertionResult HandLaunch::OutputMatchesReference() const {
  const aclDataType compute = ComputeDTypeOf(dtype_);
  const Operand& out = output_aliases_predict_ ? operands_[kPredict] : operands_[kGradient];
  const double scale = dtype_ == KernelDType::kDouble ? launch_.tiling.globalScaleDouble
                                                      : static_cast<double>(launch_.tiling.globalScale);
  int64_t mismatches = 0;
  auto failure = ::testing::AssertionFailure();
  for (int64_t i = 0; i < numel_; ++i) {
    ElementInputs in{Input(kPredict, i), Input(kTarget, i), Input(kDout, i), std::nullopt, std::nullopt};
    if (has_weight()) in.weight = Input(kWeight, i);
    if (has_pos_weight()) in.pos_weight = Input(kPosWeight, i);
    if (auto ok = MatchesReference(Output(i), in, scale, compute, out.storage->dtype()); !ok) {
      if (mismatches < 5) failure << "\n  element " << i << ": " << ok.message();
      ++mismatches;
    }
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return failure << "\n  " << mismatches << " of " << numel_ << " elements differ from the float64 reference";
}

::testing::AssertionResult HandLaunch::WroteExactlyTheOutputView() const {
  const Operand& out = output_aliases_predict_ ? operands_[kPredict] : operands_[kGradient];
  std::vector<bool> in_view(static_cast<size_t>(out.storage->size()), false);
  for (int64_t i = 0; i < numel_; ++i) in_view[static_cast<size_t>(StorageIndex(out, i))] = true;
  if (!out.storage->GuardsIntact()) return ::testing::AssertionFailure() << "a guard of the output was written";
  if (!output_aliases_predict_) {
    for (int64_t s = 0; s < out.storage->size(); ++s) {
      if (in_view[static_cast<size_t>(s)] && out.storage->IsPoison(s)) {
        return ::testing::AssertionFailure() << "output storage element " << s << " was never written";
      }
      if (!in_view[static_cast<size_t>(s)] && !out.storage->IsPoison(s)) {
        return ::testing::AssertionFailure() << "output storage element " << s << " outside the view was written";
      }
    }
  }
  for (int o = kPredict; o <= kPosWeight; ++o) {
    const Operand& op = operands_[o];
    if (op.access == Access::kAbsent || (output_aliases_predict_ && o == kPredict)) continue;
    if (!op.storage->GuardsIntact()) return ::testing::AssertionFailure() << "a guard of input " << o << " was written";
    if (op.storage->Snapshot() != op.snapshot) return ::testing::AssertionFailure() << "input " << o << " was written";
  }
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------------------------

TileRun RunTile(TileFn fn, uint32_t key, const std::vector<double>& x, const std::vector<double>& y,
                const std::vector<double>& dout, const std::vector<double>& weight,
                const std::vector<double>& pos_weight, size_t count, double scale, bool stream,
                size_t out_misalign_elems, bool dout_uniform) {
  const aclDataType dtype = AclDTypeOf(TilingKeyDType(key));
  const auto n = static_cast<int64_t>(count);
  // Inputs in allocations of exactly count elements, so that a sanitizer build catches a read
  // past the tile.
  const size_t elem_bytes = aclnn_cpu::DTypeSize(dtype);
  auto make = [&](const std::vector<double>& values, int64_t elems) {
    std::vector<uint8_t> buffer(static_cast<size_t>(elems) * elem_bytes);
    for (int64_t i = 0; i < elems; ++i) aclnn_cpu::StoreFromDouble(buffer.data(), dtype, i, values[static_cast<size_t>(i)]);
    return buffer;
  };
  // A uniform dout is one element: the kernel may read dout[0] only.
  const auto bx = make(x, n), by = make(y, n), bdout = make(dout, dout_uniform ? 1 : n);
  std::vector<uint8_t> bw, bpw;
  if (TilingKeyHasWeight(key)) bw = make(weight, n);
  if (TilingKeyHasPosWeight(key)) bpw = make(pos_weight, n);
  const auto misalign = static_cast<int64_t>(out_misalign_elems);
  GuardedBuffer out(n + misalign, dtype);
  TileArgs io;
  io.at[kPredict] = bx.data();
  io.at[kTarget] = by.data();
  io.at[kDout] = bdout.data();
  io.at[kWeight] = TilingKeyHasWeight(key) ? bw.data() : nullptr;  // absent inputs must not be read
  io.at[kPosWeight] = TilingKeyHasPosWeight(key) ? bpw.data() : nullptr;
  io.at[kGradient] = static_cast<uint8_t*>(out.data()) + out_misalign_elems * out.elem_bytes();
  io.stream_outputs = stream;
  if (dout_uniform) io.read_once = 1u << kDout;
  io.scale = scale;
  fn(io, count);
  TileRun run;
  run.guards_intact = out.GuardsIntact();
  for (int64_t i = 0; i < misalign; ++i) run.guards_intact &= out.IsPoison(i);
  for (int64_t i = misalign; i < n + misalign; ++i) {
    run.bits.push_back(out.Bits(i));
    run.values.push_back(out.Get(i));
  }
  return run;
}

}  // namespace bce_kernel_test
