#include "ascendc_route/twin_plan.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <span>
#include <utility>

#include "common/dtype.h"
#include "common/error.h"

namespace aclnn_cpu::ascendc_route {
namespace {

using Arg = TwinLaunchBuilder::Arg;
using Kind = Arg::Kind;

std::atomic<TilingHookForTesting> g_tiling_hook{nullptr};

TwinDType TwinDTypeOf(aclDataType compute) {
  switch (compute) {
    case ACL_FLOAT16: return TwinDType::kFloat16;
    case ACL_BF16: return TwinDType::kBFloat16;
    default: return TwinDType::kFloat;
  }
}

/// The elements of @p shape's last @p suffix dims.
uint64_t SuffixElements(const DimVector& shape, int suffix) {
  uint64_t elements = 1;
  for (int k = shape.rank - suffix; k < shape.rank; ++k) elements *= static_cast<uint64_t>(shape.v[k]);
  return elements;
}

/// The dims of @p shape an input of the kPeriodic form is read over: 0 for a single element, the
/// count of its dims after leading 1s where they are the last dims of @p shape, else all of them
/// (expanded). Note [Operands on the twin].
int PeriodSuffix(const aclTensor& tensor, const DimVector& shape) {
  if (tensor.numel == 1) return 0;
  int first = 0;
  while (first < tensor.dims.rank && tensor.dims.v[first] == 1) ++first;
  const int rank = tensor.dims.rank - first;
  if (rank > shape.rank) return shape.rank;
  for (int k = 0; k < rank; ++k) {
    if (tensor.dims.v[first + k] != shape.v[shape.rank - rank + k]) return shape.rank;
  }
  return rank;
}

/// The walk of @p tensor's elements over the last @p suffix dims of @p shape, in the kernel's
/// (row-major) order: @p space and @p view, coalesced.
void PlanView(const aclTensor& tensor, const DimVector& shape, int suffix, IterSpace& space, StridedOperand& view) {
  const DimVector strides = BroadcastStrides(tensor.dims, tensor.strides, shape);
  space = IterSpace{};
  view = StridedOperand{};
  view.first = tensor.first_element();
  view.dtype = tensor.dtype;
  space.ndim = suffix;
  for (int k = 0; k < suffix; ++k) {
    space.sizes[k] = shape.v[shape.rank - suffix + k];
    view.strides[k] = strides.v[shape.rank - suffix + k];
  }
  StridedOperand* walked[1] = {&view};
  CoalesceDims(space, walked);  // a 0-dim space becomes 1-D of 1
}

/// Owns a launch's GM buffers.
class GmBuffers {
 public:
  explicit GmBuffers(size_t count) : gm_(count, nullptr) {}
  ~GmBuffers() {
    for (uint8_t* gm : gm_) TwinGmRelease(gm);
  }
  GmBuffers(const GmBuffers&) = delete;
  GmBuffers& operator=(const GmBuffers&) = delete;
  uint8_t*& operator[](size_t i) { return gm_[i]; }
  uint8_t* const* data() const { return gm_.data(); }

 private:
  std::vector<uint8_t*> gm_;
};

/// The plan of one launch on the twin (Note [AscendC route]).
class TwinPlan final : public LaunchPlan {
 public:
  TwinPlan(AscendcKernel kernel, TwinKernelEntry entry, aclDataType compute, std::vector<Arg> args,
           uint32_t block_dim)
      : kernel_(kernel), entry_(entry), compute_(compute), args_(std::move(args)), block_dim_(block_dim) {}

  // One block without workspace: HasWork() says the launch is not empty, WorkspaceSize() is 0.
  std::span<const LaunchStage> Stages() const override { return {&stage_, 1}; }
  bool RunInlineIfIdle() const override { return true; }
  bool RunsOnCaller() const override { return true; }
  // Not reached: the second phase runs the plan itself (RunsOnCaller). Were it reached, the run
  // would still print its findings.
  void RunBlock(size_t, uint64_t, char*) const override { (void)RunOnCaller("AscendC route", nullptr); }

  aclnnStatus RunOnCaller(const char* api, void*) const noexcept override {
    return Guarded(api, ExceptionCodes<aclnnStatus>{ACLNN_ERR_RUNTIME_ERROR, ACLNN_ERR_RUNTIME_ERROR},
                   [&] { return Run(api); });
  }

 private:
  aclnnStatus Run(const char* api) const {
    if (entry_.launch == nullptr) {
      return Fail(ACLNN_ERR_INNER, api, ": this build has no launch of the AscendC kernel ", static_cast<int>(kernel_));
    }
    GmBuffers gm(args_.size());
    for (size_t a = 0; a < args_.size(); ++a) {
      const Arg& arg = args_[a];
      if (arg.bytes == 0) continue;
      gm[a] = TwinGmAllocate(arg.bytes);
      if (gm[a] == nullptr) {
        return Fail(ACLNN_ERR_RUNTIME_ERROR, api, ": the CPU twin could not map ", arg.bytes, " bytes of GM for the ",
                    entry_.name, " kernel");
      }
      if (arg.kind == Kind::kInput) {
        VisitFloatDType(compute_, [&](auto tag) {
          using Compute = decltype(tag);
          GatherRange(arg.space, arg.view, 0, static_cast<int64_t>(arg.elements), reinterpret_cast<Compute*>(gm[a]));
        });
      } else if (arg.kind == Kind::kTiling) {
        std::memcpy(gm[a], arg.tiling.data(), arg.tiling.size());
        if (const TilingHookForTesting hook = g_tiling_hook.load()) hook(kernel_, gm[a], arg.tiling.size());
      }
    }
    const TwinRunReport report = RunOnTwin(entry_.launch, TwinDTypeOf(compute_), block_dim_, gm.data());
    if (report.errors != 0) {
      return Fail(ACLNN_ERR_RUNTIME_ERROR, api, ": the AscendC kernel ", entry_.name, " had ", report.errors,
                  " error finding(s) and ", report.warnings,
                  " warning(s) on the CPU twin (each printed on stderr); its outputs were not written. The first: ",
                  report.first_error);
    }
    for (size_t a = 0; a < args_.size(); ++a) {
      const Arg& arg = args_[a];
      if (arg.kind != Kind::kOutput) continue;
      VisitFloatDType(compute_, [&](auto tag) {
        using Compute = decltype(tag);
        ScatterRange(arg.space, reinterpret_cast<const Compute*>(gm[a]), arg.view, 0,
                     static_cast<int64_t>(arg.elements));
      });
    }
    return ACLNN_SUCCESS;
  }

  AscendcKernel kernel_;
  TwinKernelEntry entry_;
  aclDataType compute_;
  std::vector<Arg> args_;
  uint32_t block_dim_;
  LaunchStage stage_{1, 0};
};

}  // namespace

bool TwinComputes(aclDataType compute) {
  return compute == ACL_FLOAT || compute == ACL_FLOAT16 || compute == ACL_BF16;
}

void SetTilingHookForTesting(TilingHookForTesting hook) { g_tiling_hook.store(hook); }

TwinLaunchBuilder::TwinLaunchBuilder(AscendcKernel kernel, aclDataType compute, const DimVector& shape)
    : kernel_(kernel), compute_(compute), shape_(shape) {}

size_t TwinLaunchBuilder::Input(const aclTensor* tensor, TwinInputForm form) {
  if (resolved_) std::abort();  // a programming error: inputs come before Elements()
  Arg arg;
  arg.kind = tensor != nullptr ? Kind::kInput : Kind::kAbsent;
  arg.form = form;
  arg.tensor = tensor;
  args_.push_back(std::move(arg));
  return args_.size() - 1;
}

size_t TwinLaunchBuilder::Output(const aclTensor* tensor) {
  Arg arg;
  arg.kind = Kind::kOutput;
  arg.tensor = tensor;
  PlanView(*tensor, tensor->dims, tensor->dims.rank, arg.space, arg.view);
  arg.elements = static_cast<uint64_t>(tensor->numel);
  arg.bytes = arg.elements * DTypeSize(compute_);
  args_.push_back(std::move(arg));
  return args_.size() - 1;
}

size_t TwinLaunchBuilder::Workspace(uint64_t bytes) {
  Arg arg;
  arg.kind = bytes != 0 ? Kind::kWorkspace : Kind::kAbsent;
  arg.bytes = bytes;
  args_.push_back(std::move(arg));
  return args_.size() - 1;
}

size_t TwinLaunchBuilder::Tiling(const void* data, size_t bytes) {
  Arg arg;
  arg.kind = Kind::kTiling;
  const auto* first = static_cast<const unsigned char*>(data);
  arg.tiling.assign(first, first + bytes);
  arg.bytes = bytes;
  args_.push_back(std::move(arg));
  return args_.size() - 1;
}

void TwinLaunchBuilder::ResolveForms() {
  if (resolved_) return;
  resolved_ = true;
  const uint64_t total = SuffixElements(shape_, shape_.rank);
  // Each periodic input's own suffix; the longest of those that are a proper period is shared.
  int shared = 0;
  for (Arg& arg : args_) {
    if (arg.kind != Kind::kInput) continue;
    arg.suffix_dims = arg.form == TwinInputForm::kPeriodic ? PeriodSuffix(*arg.tensor, shape_) : shape_.rank;
    const uint64_t period = SuffixElements(shape_, arg.suffix_dims);
    if (period > 1 && period < total) shared = std::max(shared, arg.suffix_dims);
  }
  for (Arg& arg : args_) {
    if (arg.kind != Kind::kInput) continue;
    const uint64_t period = SuffixElements(shape_, arg.suffix_dims);
    if (period > 1 && period < total) arg.suffix_dims = shared;
    PlanView(*arg.tensor, shape_, arg.suffix_dims, arg.space, arg.view);
    arg.elements = SuffixElements(shape_, arg.suffix_dims);
    arg.bytes = arg.elements * DTypeSize(compute_);
  }
}

uint64_t TwinLaunchBuilder::Elements(size_t arg) {
  ResolveForms();
  return args_.at(arg).elements;
}

std::shared_ptr<const LaunchPlan> TwinLaunchBuilder::Finish(uint32_t block_dim) {
  ResolveForms();
  for (Arg& arg : args_) arg.tensor = nullptr;
  return std::make_shared<TwinPlan>(kernel_, FindTwinKernel(kernel_), compute_, std::move(args_), block_dim);
}

}  // namespace aclnn_cpu::ascendc_route
