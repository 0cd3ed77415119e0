// `run`: the operator once on random data of a given shape, dtype, reduction and broadcasts;
// prints the time of each phase and a checksum, and with --check compares every element with a
// float64 reference.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include "acl_session.h"
#include "aclnn/aclnn_cpu.h"
#include "cli_options.h"
#include "commands.h"
#include "common/dtype.h"
#include "memory_budget.h"
#include "platform/platform_info.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2_reference.h"
#include "ops/sigmoid_cross_entropy_with_logits_v2/op_kernel/sigmoid_cross_entropy_with_logits_v2_reference.h"
// The references of the loss of probabilities and its gradient live with their tests.
#include "ops/binary_cross_entropy/tests/ut/binary_cross_entropy_reference.h"
#include "ops/binary_cross_entropy_grad/tests/ut/binary_cross_entropy_grad_reference.h"

namespace aclnn_bce_cli {

using aclnn_cpu::bce_grad::ComputeReferenceTerms;
using aclnn_cpu::bce_grad::ReferenceErrorBound;
using aclnn_cpu::bce_grad::ReferenceTerms;

namespace {

struct RunOptions {
  std::string op = "backward";
  std::string shape = "4096x1024";
  std::string dtype = "fp32";
  std::string reduction = "mean";
  std::string grad_output = "full";
  std::string weight = "none";
  std::string pos_weight = "none";
  int threads = 0;
  uint64_t seed = 1;
  bool check = false;
};

/// Ranges of the random inputs: logits reaching well into both tails of the sigmoid (a probability
/// input, Domain::kUnitInterval, draws from [0, 1]), labels in [0, 1], gradients of either sign,
/// and positive weights around 1.
struct Range {
  double lo, hi;
};
constexpr Range kLogits = {-8.0, 8.0};
constexpr Range kProbabilities = {0.0, 1.0};
constexpr Range kTargets = {0.0, 1.0};
constexpr Range kGradOutputs = {-1.0, 1.0};
constexpr Range kWeights = {0.0, 2.0};
constexpr Range kPosWeights = {0.5, 4.0};

constexpr int kMismatchesShown = 5;

/// Bytes `run` allocates for self of @p dims: self, target, out and the broadcast operands, each
/// twice (device memory, and the host copy the inputs are filled in and out is read back into),
/// and the most workspace the tiling can ask for (each block's tile buffers fit the platform's UB
/// budget, and there is at most one block per thread).
uint64_t RunMemoryBytes(const RunOptions& options, const std::vector<int64_t>& dims, aclDataType dtype) {
  constexpr uint64_t kCopiesPerTensor = 2;    // device memory and host copy
  // self, target and each output of the API (counted at self's shape)
  uint64_t self_shaped_tensors = 2;
  for (const aclnn_cpu::apis::Operand& o : ApiOfOp(options.op).operands) self_shaped_tensors += o.is_output() ? 1 : 0;
  uint64_t tensor_bytes = SaturatingMul(self_shaped_tensors, TensorBytes(dims, dtype));
  for (const std::string* choice : {&options.grad_output, &options.weight, &options.pos_weight}) {
    const OperandShape shape = OperandShapeChoices().at(*choice);
    if (shape == OperandShape::kNone) continue;
    tensor_bytes = SaturatingAdd(tensor_bytes, TensorBytes(OperandDims(shape, dims), dtype));
  }
  const auto threads = static_cast<uint64_t>(aclnnCpuGetNumThreads());
  const aclnn_cpu::PlatformInfo platform = aclnn_cpu::CpuPlatform(threads);
  const uint64_t workspace_bytes = SaturatingMul(platform.core_num, platform.ub_size);
  return SaturatingAdd(SaturatingMul(kCopiesPerTensor, tensor_bytes), workspace_bytes);
}

/// Throws ResourceError, before anything is allocated, when the problem cannot fit this machine.
void RefuseWhatCannotFit(const RunOptions& options, const std::vector<int64_t>& dims, aclDataType dtype) {
  const uint64_t needed = RunMemoryBytes(options, dims, dtype);
  const uint64_t usable = UsableMemoryBytes();
  if (needed <= usable) return;
  throw ResourceError("run: not enough memory: self " + ShapeText(dims) + " " + options.dtype + " (" +
                      aclnn_cpu::DTypeName(dtype) + ") needs " + ByteText(needed) +
                      " for self, target, out and the broadcast operands (each on the device and in a host "
                      "copy) and the workspace, but this machine has " + ByteText(usable) + " of memory");
}

void FillUniform(DeviceTensor& tensor, Range range, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> dist(range.lo, range.hi);
  for (int64_t i = 0; i < tensor.numel(); ++i) tensor.Set(i, dist(rng));
  tensor.Upload();
}

/// An operand broadcast to self, as --grad-output / --weight / --pos-weight describe it.
struct BroadcastOperand {
  OperandShape shape = OperandShape::kNone;
  std::unique_ptr<DeviceTensor> tensor;

  BroadcastOperand(const std::string& choice, const std::vector<int64_t>& self_dims, aclDataType dtype, Range range,
                   std::mt19937_64& rng)
      : shape(OperandShapeChoices().at(choice)) {
    if (shape == OperandShape::kNone) return;
    tensor = std::make_unique<DeviceTensor>(OperandDims(shape, self_dims), dtype);
    FillUniform(*tensor, range, rng);
  }
  const DeviceTensor* get() const { return tensor.get(); }
  /// The value that feeds element @p index of self (row-major, last dim @p row_len).
  std::optional<double> At(int64_t index, int64_t row_len) const {
    switch (shape) {
      case OperandShape::kNone: return std::nullopt;
      case OperandShape::kFull: return tensor->Get(index);
      case OperandShape::kRow: return tensor->Get(row_len > 0 ? index % row_len : 0);
      case OperandShape::kScalar: break;
    }
    return tensor->Get(0);
  }
  std::string Describe() const {
    return shape == OperandShape::kNone ? "none" : ShapeText(tensor->dims());
  }
};

/// FNV-1a over the output's bytes: equal results give equal hashes, bit for bit.
uint64_t Fnv1a(const std::vector<uint8_t>& bytes) {
  constexpr uint64_t kOffsetBasis = 14695981039346656037ull;
  constexpr uint64_t kPrime = 1099511628211ull;
  uint64_t hash = kOffsetBasis;
  for (uint8_t byte : bytes) hash = (hash ^ byte) * kPrime;
  return hash;
}

struct Operands {
  const DeviceTensor& self;
  const DeviceTensor& target;
  const BroadcastOperand& grad_output;
  const BroadcastOperand& weight;
  const BroadcastOperand& pos_weight;
  const DeviceTensor& out;
};

/// What the reference says of one element: its value and the error bound of the kernel there.
struct ElementReference {
  double value;
  double bound;
};

/// Whether @p value is a right @p dtype result for the true value @p expected (within @p bound)
/// when that lies beyond the dtype's range, so that rounding it overflows: an infinity of its sign,
/// or, where the kernels are A2's (ACLNN_BCE_KERNELS=ascendc, whose final Cast saturates as A2's
/// does), the largest finite value of its sign.
bool OverflowAccepted(double value, double expected, double bound, aclDataType dtype) {
  double threshold = 0, largest = 0;  // the smallest magnitude that rounds to Inf; the largest finite
  switch (dtype) {
    case ACL_FLOAT16: threshold = 65520.0, largest = 65504.0; break;
    case ACL_BF16: threshold = 0x1.ffp127, largest = 0x1.fep127; break;
    case ACL_FLOAT: threshold = 0x1.ffffffp127, largest = 0x1.fffffep127; break;
    default: return false;
  }
  if (std::signbit(value) != std::signbit(expected) || std::fabs(expected) + bound < threshold) return false;
  static const bool saturates = [] {
    const char* kernels = std::getenv("ACLNN_BCE_KERNELS");
    return kernels != nullptr && std::string(kernels) == "ascendc";
  }();
  return std::isinf(value) || (saturates && std::fabs(value) == largest);
}

/// Compares each of @p n elements of @p got with @p reference(i); prints the first mismatches and
/// a summary line; returns the mismatches.
template <class Reference>
int64_t CheckElements(const char* what, const DeviceTensor& got, int64_t n, Reference&& reference) {
  int64_t mismatches = 0;
  double worst_ratio = 0;
  double worst_error = 0;
  for (int64_t i = 0; i < n; ++i) {
    const ElementReference ref = reference(i);
    const double value = got.Get(i);
    const double error = std::fabs(value - ref.value);
    if (!(error <= ref.bound) && !(std::isnan(value) && std::isnan(ref.value)) &&
        !OverflowAccepted(value, ref.value, ref.bound, got.dtype())) {
      if (mismatches < kMismatchesShown) {
        std::printf("  %s mismatch at %lld: got %.9g, float64 reference %.9g, error %.3g > bound %.3g\n", what,
                    static_cast<long long>(i), value, ref.value, error, ref.bound);
      }
      ++mismatches;
    }
    if (std::isfinite(error) && !OverflowAccepted(value, ref.value, ref.bound, got.dtype())) {
      worst_error = std::max(worst_error, error);
      if (ref.bound > 0) worst_ratio = std::max(worst_ratio, error / ref.bound);
    }
  }
  std::printf("check %s: %lld of %lld elements outside the error bound; max |error| %.3g, max error/bound %.3f\n",
              what, static_cast<long long>(mismatches), static_cast<long long>(n), worst_error, worst_ratio);
  return mismatches;
}

/// The gradient (the backward, or the fused call's gradInput @p grad with @p grad_output null
/// meaning 1) against the float64 reference; returns the mismatches.
int64_t CheckAgainstReference(const Operands& o, const DeviceTensor& grad, int64_t reduction) {
  const int64_t n = o.self.numel();
  const int64_t row_len = o.self.dims().empty() ? 1 : o.self.dims().back();
  const double scale = reduction == 1 ? 1.0 / static_cast<double>(n) : 1.0;
  // fp16 / bf16 / fp32 operands are computed in fp32, fp64 ones in fp64 (every operand has one dtype).
  const aclDataType compute = grad.dtype() == ACL_DOUBLE ? ACL_DOUBLE : ACL_FLOAT;
  return CheckElements("gradient", grad, n, [&](int64_t i) {
    const double dout = o.grad_output.get() != nullptr ? *o.grad_output.At(i, row_len) : 1.0;
    const ReferenceTerms ref = ComputeReferenceTerms(o.self.Get(i), o.target.Get(i), dout, o.weight.At(i, row_len),
                                                     o.pos_weight.At(i, row_len), scale);
    return ElementReference{ref.g, ReferenceErrorBound(ref, compute, grad.dtype())};
  });
}

/// The target gradient (--op target-backward) against its float64 reference.
int64_t CheckTargetAgainstReference(const Operands& o, int64_t reduction) {
  const int64_t n = o.self.numel();
  const int64_t row_len = o.self.dims().empty() ? 1 : o.self.dims().back();
  const double scale = reduction == 1 ? 1.0 / static_cast<double>(n) : 1.0;
  const aclDataType compute = o.out.dtype() == ACL_DOUBLE ? ACL_DOUBLE : ACL_FLOAT;
  return CheckElements("target gradient", o.out, n, [&](int64_t i) {
    const aclnn_cpu::bce_grad::TargetReferenceTerms ref = aclnn_cpu::bce_grad::ComputeTargetReferenceTerms(
        o.self.Get(i), *o.grad_output.At(i, row_len), o.weight.At(i, row_len), o.pos_weight.At(i, row_len), scale);
    return ElementReference{ref.g, aclnn_cpu::bce_grad::TargetErrorBound(ref, compute, o.out.dtype())};
  });
}

/// A loss (--op forward, bce) against @p reference(i, dtype): each element's reference and its
/// bound when written as dtype: every element for none, the exact mean or sum of the per-element
/// references (their bounds in fp64, the sums' type) for mean and sum; returns the mismatches.
template <class Reference>
int64_t CheckLossAgainst(const Operands& o, int64_t reduction, Reference&& element_reference) {
  const int64_t n = o.self.numel();
  const auto reference = [&](int64_t i) { return element_reference(i, reduction == 0 ? o.out.dtype() : ACL_DOUBLE); };
  if (reduction == 0) return CheckElements("loss", o.out, n, reference);
  int64_t mismatches = 0;
  double worst_ratio = 0;
  long double total = 0, total_bound = 0;
  for (int64_t i = 0; i < n; ++i) {
    const ElementReference ref = reference(i);
    total += ref.value;
    total_bound += ref.bound;
  }
  {
    const long double scale = reduction == 1 ? 1.0L / static_cast<long double>(n) : 1.0L;
    const double expected = static_cast<double>(total * scale);
    const double eps_out = aclnn_cpu::RoundingOf(o.out.dtype()).unit_roundoff;
    const double bound = static_cast<double>(total_bound * scale) + (static_cast<double>(n) * 0x1p-52 + eps_out) * std::fabs(expected);
    const double error = std::fabs(o.out.Get(0) - expected);
    const bool overflowed = OverflowAccepted(o.out.Get(0), expected, bound, o.out.dtype());
    if (!(error <= bound) && !overflowed) {
      std::printf("  mismatch: got %.9g, reference %.9g, error %.3g > bound %.3g\n", o.out.Get(0), expected, error, bound);
      ++mismatches;
    }
    if (bound > 0 && !overflowed) worst_ratio = error / bound;
  }
  std::printf("check loss: %lld mismatches; max error/bound %.3f\n", static_cast<long long>(mismatches), worst_ratio);
  return mismatches;
}

/// The loss (--op forward) against its reference.
int64_t CheckLossAgainstReference(const Operands& o, int64_t reduction) {
  const int64_t row_len = o.self.dims().empty() ? 1 : o.self.dims().back();
  const aclDataType compute = o.out.dtype() == ACL_DOUBLE ? ACL_DOUBLE : ACL_FLOAT;
  return CheckLossAgainst(o, reduction, [&](int64_t i, aclDataType written) {
    const aclnn_cpu::bce_loss::LossReferenceTerms ref = aclnn_cpu::bce_loss::ComputeLossReferenceTerms(
        o.self.Get(i), o.target.Get(i), o.weight.At(i, row_len), o.pos_weight.At(i, row_len));
    return ElementReference{ref.loss, aclnn_cpu::bce_loss::LossErrorBound(ref, compute, written)};
  });
}

/// The loss of probabilities (--op bce) against its reference.
int64_t CheckProbLossAgainstReference(const Operands& o, int64_t reduction) {
  const int64_t row_len = o.self.dims().empty() ? 1 : o.self.dims().back();
  const aclDataType compute = o.out.dtype() == ACL_DOUBLE ? ACL_DOUBLE : ACL_FLOAT;
  return CheckLossAgainst(o, reduction, [&](int64_t i, aclDataType written) {
    const aclnn_cpu::bce_prob::ProbLossReference ref =
        aclnn_cpu::bce_prob::ComputeProbLossReference(o.self.Get(i), o.target.Get(i), o.weight.At(i, row_len));
    return ElementReference{ref.loss, aclnn_cpu::bce_prob::ProbLossErrorBound(ref, compute, written)};
  });
}

/// Its gradient (--op bce-backward) against its reference.
int64_t CheckProbGradientAgainstReference(const Operands& o, int64_t reduction) {
  const int64_t n = o.self.numel();
  const int64_t row_len = o.self.dims().empty() ? 1 : o.self.dims().back();
  const double scale = reduction == 1 ? 1.0 / static_cast<double>(n) : 1.0;
  const aclDataType compute = o.out.dtype() == ACL_DOUBLE ? ACL_DOUBLE : ACL_FLOAT;
  return CheckElements("gradient", o.out, n, [&](int64_t i) {
    const double g = aclnn_cpu::bce_prob_grad::ProbGradReference(
        o.self.Get(i), o.target.Get(i), *o.grad_output.At(i, row_len), o.weight.At(i, row_len), scale);
    return ElementReference{g, aclnn_cpu::bce_prob_grad::ProbGradErrorBound(g, reduction == 1, compute, o.out.dtype())};
  });
}

int RunOnce(const RunOptions& options) {
  if (options.threads > 0 && aclnnCpuSetNumThreads(options.threads) != ACL_SUCCESS) {
    throw AclFailure("aclnnCpuSetNumThreads", ACL_ERROR_INVALID_PARAM);
  }
  const std::vector<int64_t> dims = ParseShape(options.shape);
  const aclDataType dtype = DTypeChoices().at(options.dtype);
  const int64_t reduction = ReductionChoices().at(options.reduction);
  RefuseWhatCannotFit(options, dims, dtype);

  namespace apis = aclnn_cpu::apis;
  const apis::Api& api = ApiOfOp(options.op);
  AclSession session;
  std::mt19937_64 rng(options.seed);
  DeviceTensor self(dims, dtype), target(dims, dtype);
  const bool probabilities = api.Find("self")->domain == apis::Domain::kUnitInterval;
  FillUniform(self, probabilities ? kProbabilities : kLogits, rng);
  FillUniform(target, kTargets, rng);
  // An API's outputs: a reduced one (the loss) has one element for mean and sum, every other one
  // self's shape.
  std::unique_ptr<DeviceTensor> outputs[apis::kTensorSlots];
  for (const apis::Operand& o : api.operands) {
    if (!o.is_output()) continue;
    const bool one_element = o.kind == apis::OperandKind::kReducedOutput && reduction != 0;
    outputs[o.slot] = std::make_unique<DeviceTensor>(one_element ? std::vector<int64_t>{} : dims, dtype);
  }
  // gradOutput as --grad-output shapes it; an optional one (the fused call's, one element) is a
  // 0-dim tensor for --grad-output scalar and none (1) otherwise; n/a where the API has none.
  const apis::Operand* grad_output_operand = api.Find("grad_output");
  const bool optional_grad_output =
      grad_output_operand != nullptr && grad_output_operand->kind == apis::OperandKind::kOptionalInput;
  const std::string grad_output_choice =
      grad_output_operand == nullptr || (optional_grad_output && options.grad_output != "scalar") ? "none"
                                                                                                   : options.grad_output;
  const BroadcastOperand grad_output(grad_output_choice, dims, dtype, kGradOutputs, rng);
  const BroadcastOperand weight(options.weight, dims, dtype, kWeights, rng);
  const BroadcastOperand pos_weight(options.pos_weight, dims, dtype, kPosWeights, rng);

  std::printf("%s: self %s %s (%s, format %s), gradOutput %s, weight %s, posWeight %s, reduction %s, seed %llu\n",
              api.second_phase_name, ShapeText(dims).c_str(), options.dtype.c_str(), aclnn_cpu::DTypeName(dtype),
              aclnn_cpu::FormatName(DeviceTensor::kFormat),
              grad_output_operand == nullptr                           ? "n/a"
              : optional_grad_output && grad_output.get() == nullptr ? "none (1)"
                                                                       : grad_output.Describe().c_str(),
              weight.Describe().c_str(), pos_weight.Describe().c_str(), options.reduction.c_str(),
              static_cast<unsigned long long>(options.seed));
  std::printf("CPU device: SIMD target %s, %d threads\n", aclnnCpuSimdTargetName(), aclnnCpuGetNumThreads());

  apis::Operands operands;
  operands.Set("self", self.get()).Set("target", target.get()).SetInt("reduction", reduction);
  const auto handle = [](const DeviceTensor* t) { return t != nullptr ? t->get() : nullptr; };
  if (grad_output_operand != nullptr) operands.Set("grad_output", handle(grad_output.get()));
  operands.Set("weight", handle(weight.get())).Set("pos_weight", handle(pos_weight.get()));
  for (size_t slot = 0; slot < apis::kTensorSlots; ++slot) {
    if (outputs[slot]) operands.tensors[slot] = outputs[slot]->get();
  }
  const CallTiming timing = RunApi(api, operands, session.stream());
  std::printf("first phase %.3f ms, second phase + synchronize %.3f ms, workspace %llu bytes\n",
              timing.first_phase_ms, timing.second_phase_ms, static_cast<unsigned long long>(timing.workspace_bytes));

  bool first_output = true;
  for (const apis::Operand& o : api.operands) {
    if (!o.is_output()) continue;
    DeviceTensor& result = *outputs[o.slot];
    result.Download();
    double sum = 0;
    for (int64_t i = 0; i < result.numel(); ++i) sum += result.Get(i);
    std::printf("checksum%s: sum %.17g, fnv1a 0x%016llx\n",
                first_output ? "" : (std::string(" (") + o.parameter + ")").c_str(), sum,
                static_cast<unsigned long long>(Fnv1a(result.host_bytes())));
    first_output = false;
  }

  if (!options.check) return kExitSuccess;
  const auto output = [&](const char* role) -> const DeviceTensor& { return *outputs[apis::TensorSlot(role)]; };
  const Operands checked{self, target, grad_output, weight, pos_weight, output("out")};
  // The reference of each API's outputs: what the CLI knows of each operator's math.
  int64_t mismatches = 0;
  switch (api.id) {
    case apis::ApiId::kBinaryCrossEntropyWithLogitsBackward:
      mismatches = CheckAgainstReference(checked, output("out"), reduction);
      break;
    case apis::ApiId::kBinaryCrossEntropyWithLogitsTargetBackward:
      mismatches = CheckTargetAgainstReference(checked, reduction);
      break;
    case apis::ApiId::kBinaryCrossEntropyWithLogits: mismatches = CheckLossAgainstReference(checked, reduction); break;
    case apis::ApiId::kBinaryCrossEntropyWithLogitsFused:
      mismatches = CheckLossAgainstReference(checked, reduction) +
                   CheckAgainstReference(checked, output("grad_input"), reduction);
      break;
    case apis::ApiId::kBinaryCrossEntropy: mismatches = CheckProbLossAgainstReference(checked, reduction); break;
    case apis::ApiId::kBinaryCrossEntropyBackward:
      mismatches = CheckProbGradientAgainstReference(checked, reduction);
      break;
    default:
      std::printf("--check: the command line has no reference for --op %s\n", options.op.c_str());
      return kExitUsage;
  }
  return mismatches == 0 ? kExitSuccess : kExitCheckFailed;
}

}  // namespace

void AddRunCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* run = app.add_subcommand("run", "Run the operator once on random data and print times and a checksum");
  run->add_option("--op", options->op,
                  "Operator, from the library's API list: backward (the gradient), target-backward (the gradient "
                  "with respect to the target), forward (the loss), fused (the loss and the gradient in one "
                  "pass), bce (the loss of probabilities, aclnnBinaryCrossEntropy) or bce-backward (its gradient)")
      ->check(CLI::IsMember(OpChoices()))
      ->capture_default_str();
  run->add_option("--shape", options->shape, "Shape of self: 4096x1024 or 4096,1024 ('', 'scalar' or () for 0 dims)")
      ->check(ShapeValidator());
  run->add_option("--dtype", options->dtype, "Element type of every operand")
      ->transform(CLI::IsMember(DTypeChoices(), CLI::ignore_case));
  run->add_option("--reduction", options->reduction, "Reduction of the forward loss")
      ->transform(CLI::IsMember(ReductionChoices(), CLI::ignore_case));
  run->add_option("--grad-output", options->grad_output, "Shape of gradOutput (the backwards): full, row ([C]) or scalar (0-dim); fused: scalar, else none (1)")
      ->transform(CLI::IsMember({"full", "row", "scalar"}, CLI::ignore_case));
  run->add_option("--weight", options->weight, "Shape of weight: none, full, row ([C]) or scalar (0-dim)")
      ->transform(CLI::IsMember(OperandShapeChoices(), CLI::ignore_case));
  run->add_option("--pos-weight", options->pos_weight, "Shape of posWeight: none, full, row ([C]) or scalar (0-dim)")
      ->transform(CLI::IsMember(OperandShapeChoices(), CLI::ignore_case));
  run->add_option("--threads", options->threads, "Threads of the CPU device (0: the default)")
      ->check(PlainDecimal(kMaxThreads));
  run->add_option("--seed", options->seed, "Seed of the random inputs")->check(PlainDecimal(UINT64_MAX));
  run->add_flag("--check", options->check, "Compare every element with a float64 reference (exit 1 on a mismatch)");
  run->callback([options, &exit_code] { exit_code = RunOnce(*options); });
}

}  // namespace aclnn_bce_cli
