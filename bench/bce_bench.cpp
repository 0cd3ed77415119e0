// Benchmark of aclnnBinaryCrossEntropyWithLogitsBackward (the gradient),
// aclnnBinaryCrossEntropyWithLogits (the loss: "fwd" cases),
// aclnnBinaryCrossEntropyWithLogitsFused (the loss and the gradient in one pass: "fused" cases,
// also timed against the forward call followed by the backward call: fwd+bwd/fused) and the BCE
// pair of probabilities, aclnnBinaryCrossEntropy ("bce" cases) and
// aclnnBinaryCrossEntropyBackward ("bce-bwd" cases).
//
// For each case it measures, interleaved in one run (this machine is noisy, so only ratios taken
// side by side mean anything):
//   op       - the whole two-phase call (GetWorkspaceSize + Backward + SynchronizeStream);
//   roofline - a plain loop on the same worker threads that reads the same input streams and
//              writes the same output bytes with trivial arithmetic;
//   torch    - PyTorch's composite backward formula through libtorch (when built with it).
// and prints median times, effective GB/s (bytes the operator must move / time), op/roofline (and
// fwd+bwd/fused) as the median of the ratios within each round, and torch/op. With --check it exits non-zero when a target of the performance issue is missed.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "acl/acl.h"
#include "aclnn/aclnn_cpu.h"
#include "client/api_table.h"
#include "common/dtype.h"
#include "platform/platform_info.h"
#include "runtime/thread_pool.h"
#include "roofline.h"

#ifdef ACLNN_BCE_BENCH_WITH_TORCH
#include <torch/torch.h>
#include <torch/version.h>
constexpr const char* kTorchVersion = TORCH_VERSION;
#else
constexpr const char* kTorchVersion = "not built";
#endif

namespace {

using aclnn_cpu::DTypeShortName;

using Clock = std::chrono::steady_clock;
namespace apis = aclnn_cpu::apis;

/// kAllTransposed: all six operands are the same transpose of a dense [cols, rows] block, which
/// reordering dims by stride turns back into one dense run.
/// kForwardNone / kForwardMean: the loss with four same-shape inputs (self, target, weight,
/// posWeight), reduction none (an out of self's shape) or mean (one element).
/// kFusedMean: the fused call on the same four inputs, mean, no gradOutput (1): the loss's one
/// element and the gradient [n]; its roofline reads four streams and writes one.
/// kProbNone / kProbMean: aclnnBinaryCrossEntropy with three same-shape inputs (self in [0, 1],
/// target, weight), reduction none or mean.
/// kProbBackward: aclnnBinaryCrossEntropyBackward with four same-shape inputs (gradOutput, self,
/// target, weight), reduction none.
enum class Layout {
  kSameShape,
  kScalarDoutRowPosWeight,
  kTransposedInput,
  kAllTransposed,
  kForwardNone,
  kForwardMean,
  kFusedMean,
  kProbNone,
  kProbMean,
  kProbBackward
};

/// The layouts of the BCE pair of probabilities (self must lie in [0, 1]).
bool IsProb(Layout l) { return l == Layout::kProbNone || l == Layout::kProbMean || l == Layout::kProbBackward; }

/// The API of the list a layout times.
apis::ApiId ApiOf(Layout l) {
  switch (l) {
    case Layout::kForwardNone:
    case Layout::kForwardMean: return apis::ApiId::kBinaryCrossEntropyWithLogits;
    case Layout::kFusedMean: return apis::ApiId::kBinaryCrossEntropyWithLogitsFused;
    case Layout::kProbNone:
    case Layout::kProbMean: return apis::ApiId::kBinaryCrossEntropy;
    case Layout::kProbBackward: return apis::ApiId::kBinaryCrossEntropyBackward;
    default: return apis::ApiId::kBinaryCrossEntropyWithLogitsBackward;
  }
}

const char* LayoutName(Layout l) {
  switch (l) {
    case Layout::kSameShape: return "same-shape x5";
    case Layout::kScalarDoutRowPosWeight: return "dout[] pw[C] mean";
    case Layout::kTransposedInput: return "transposed self";
    case Layout::kAllTransposed: return "all transposed x6";
    case Layout::kForwardNone: return "fwd x4 none";
    case Layout::kForwardMean: return "fwd x4 mean";
    case Layout::kFusedMean: return "fused x4 mean";
    case Layout::kProbNone: return "bce x3 none";
    case Layout::kProbMean: return "bce x3 mean";
    case Layout::kProbBackward: return "bce-bwd x4 none";
  }
  return "?";
}

/// A device buffer + tensor.
struct Buffer {
  void* data = nullptr;
  size_t bytes = 0;
  aclTensor* tensor = nullptr;
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() {
    if (tensor) aclDestroyTensor(tensor);
    if (data) aclrtFree(data);
  }
  void Alloc(size_t n, aclDataType dtype) {
    bytes = n * aclDataTypeSize(dtype);
    if (aclrtMalloc(&data, std::max<size_t>(bytes, 1), ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) std::abort();
  }
  void View(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides, int64_t storage, aclDataType dtype) {
    tensor = aclCreateTensor(dims.data(), dims.size(), dtype, strides.data(), 0, ACL_FORMAT_ND, &storage, 1, data);
    if (!tensor) {
      std::fprintf(stderr, "aclCreateTensor: %s\n", aclGetRecentErrMsg());
      std::abort();
    }
  }
  void Fill(size_t n, aclDataType dtype, std::mt19937_64& rng, double lo, double hi) {
    std::uniform_real_distribution<double> dist(lo, hi);
    for (size_t i = 0; i < n; ++i) aclnn_cpu::StoreFromDouble(data, dtype, static_cast<int64_t>(i), dist(rng));
  }
};

struct Case {
  aclDataType dtype;
  int64_t numel;
  Layout layout;
};

struct Measurement {
  double op_s = 0, roofline_s = 0, torch_s = 0;
  double separate_s = 0;  ///< fused cases: the forward call, then the backward call
  double bytes = 0;
  // Medians of the ratios taken within each round (the two timings next to each other), which
  // this noisy shared machine's memory bandwidth disturbs less than a ratio of two medians.
  double op_over_roofline = 0, separate_over_op = 0;
  double repeatable_s = 0;         ///< the second phase alone on a repeatable executor
  double fresh_over_repeatable = 0;  ///< median of the ratio within each round
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

class Bench {
 public:
  explicit Bench(const Case& c, aclrtStream stream) : c_(c), stream_(stream) {
    std::mt19937_64 rng(42);
    const int64_t n = c.numel;
    const aclDataType dt = c.dtype;
    // [rows, cols] with cols a typical class count for the broadcast case.
    cols_ = std::min<int64_t>(n, 1024);
    rows_ = n / cols_;
    const std::vector<int64_t> dims{rows_, cols_};
    const std::vector<int64_t> transposed{1, rows_};
    // Every operand but a transposed self walks its storage this way.
    const std::vector<int64_t> strides = c.layout == Layout::kAllTransposed ? transposed : std::vector<int64_t>{cols_, 1};
    const bool fused = c.layout == Layout::kFusedMean;
    const bool forward = c.layout == Layout::kForwardNone || c.layout == Layout::kForwardMean || fused;
    const bool one_out = c.layout == Layout::kForwardMean || fused || c.layout == Layout::kProbMean;
    for (Buffer* b : {&x_, &y_}) b->Alloc(n, dt);
    out_.Alloc(one_out ? 1 : static_cast<size_t>(n), dt);
    if (IsProb(c.layout)) {
      x_.Fill(n, dt, rng, 0, 1);  // probabilities
    } else {
      x_.Fill(n, dt, rng, -8, 8);
    }
    y_.Fill(n, dt, rng, 0, 1);
    if (c.layout == Layout::kTransposedInput) {
      // self is the transpose of a [cols, rows] storage.
      x_.View(dims, transposed, n, dt);
    } else {
      x_.View(dims, strides, n, dt);
    }
    y_.View(dims, strides, n, dt);
    if (one_out) {
      out_.View({}, {}, 1, dt);
    } else {
      out_.View(dims, strides, n, dt);
    }
    bytes_ = 3.0 * static_cast<double>(n) * static_cast<double>(aclDataTypeSize(dt));
    if (IsProb(c.layout)) {
      w_.Alloc(n, dt);
      w_.View(dims, strides, n, dt);
      w_.Fill(n, dt, rng, 0, 2);
      reduction_ = c.layout == Layout::kProbMean ? 1 : 0;
      // self, target, weight, and out for none (mean's one element does not count).
      bytes_ = (c.layout == Layout::kProbMean ? 3.0 : 4.0) * static_cast<double>(n) * static_cast<double>(aclDataTypeSize(dt));
      if (c.layout == Layout::kProbBackward) {
        dout_.Alloc(n, dt);
        dout_.View(dims, strides, n, dt);
        dout_.Fill(n, dt, rng, -1, 1);
        bytes_ += static_cast<double>(n) * static_cast<double>(aclDataTypeSize(dt));
      }
    } else if (forward) {
      for (Buffer* b : {&w_, &pw_}) {
        b->Alloc(n, dt);
        b->View(dims, strides, n, dt);
      }
      w_.Fill(n, dt, rng, 0, 2);
      pw_.Fill(n, dt, rng, 0.5, 3);
      reduction_ = one_out ? 1 : 0;
      // Four inputs, and out for none or the fused gradient (the mean's one element does not count).
      bytes_ = (c.layout == Layout::kForwardMean ? 4.0 : 5.0) * static_cast<double>(n) *
               static_cast<double>(aclDataTypeSize(dt));
      if (fused) {
        grad_.Alloc(static_cast<size_t>(n), dt);
        grad_.View(dims, strides, n, dt);
        one_.Alloc(1, dt);
        one_.Fill(1, dt, rng, 1, 1);
        one_.View({}, {}, 1, dt);
      }
    } else if (c.layout == Layout::kScalarDoutRowPosWeight) {
      dout_.Alloc(1, dt);
      dout_.Fill(1, dt, rng, 0.5, 1.5);
      dout_.View({}, {}, 1, dt);
      pw_.Alloc(static_cast<size_t>(cols_), dt);
      pw_.Fill(static_cast<size_t>(cols_), dt, rng, 0.5, 3);
      pw_.View({cols_}, {1}, cols_, dt);
      reduction_ = 1;
      bytes_ -= static_cast<double>(n) * static_cast<double>(aclDataTypeSize(dt));  // x, y, out only
      bytes_ += static_cast<double>(cols_ + 1) * static_cast<double>(aclDataTypeSize(dt));
    } else {
      for (Buffer* b : {&dout_, &w_, &pw_}) {
        b->Alloc(n, dt);
        b->View(dims, strides, n, dt);
      }
      dout_.Fill(n, dt, rng, -1, 1);
      w_.Fill(n, dt, rng, 0, 2);
      pw_.Fill(n, dt, rng, 0.5, 3);
      bytes_ += 3.0 * static_cast<double>(n) * static_cast<double>(aclDataTypeSize(dt));
      reduction_ = 0;
    }
#ifdef ACLNN_BCE_BENCH_WITH_TORCH
    SetUpTorch();
#endif
  }

  double bytes() const { return bytes_; }
  bool fused() const { return c_.layout == Layout::kFusedMean; }

  /// The API of the list the case times (src/client/api_table.h).
  const apis::Api& Api() const { return apis::Get(ApiOf(c_.layout)); }

  /// The case's tensors as @p api's operands, by role (an operand the case leaves out stays null).
  apis::Operands OperandsOf(const apis::Api& api, const Buffer& grad_output, const Buffer& out) const {
    const std::pair<const char*, const Buffer*> by_role[] = {
        {"self", &x_},        {"target", &y_}, {"weight", &w_},         {"pos_weight", &pw_},
        {"grad_output", &grad_output}, {"out", &out}, {"grad_input", &grad_}};
    apis::Operands operands;
    for (const auto& [role, buffer] : by_role) {
      if (api.Has(role)) operands.Set(role, buffer->tensor);
    }
    operands.SetInt("reduction", reduction_);
    return operands;
  }

  /// The operator's first phase for this case (GetWorkspaceSize with the case's tensors).
  aclnnStatus FirstPhase(uint64_t* workspace_size, aclOpExecutor** executor) {
    return Api().first_phase(OperandsOf(Api(), dout_, out_), workspace_size, executor);
  }
  using SecondPhaseFn = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);
  SecondPhaseFn SecondPhase() const { return Api().second_phase; }

  /// The whole two-phase call as a client makes it: a fresh executor each time.
  void RunOp() {
    Check(aclnn_cpu::CallTwoPhase([&](uint64_t* size, aclOpExecutor** executor) { return FirstPhase(size, executor); },
                                  SecondPhase(), stream_, workspace_));
  }

  /// The second phase alone, on one executor made repeatable (aclSetAclOpExecutorRepeatable) by
  /// the first call: what a fresh executor costs over it is the first phase and its planning.
  void RunRepeatable() {
    if (repeatable_ == nullptr) {
      uint64_t size = 0;
      if (FirstPhase(&size, &repeatable_) != ACLNN_SUCCESS || aclSetAclOpExecutorRepeatable(repeatable_) != 0 ||
          repeatable_workspace_.Reserve(size) != ACL_SUCCESS) {
        std::fprintf(stderr, "repeatable executor: %s\n", aclGetRecentErrMsg());
        std::abort();
      }
      repeatable_size_ = size;
    }
    if (SecondPhase()(repeatable_workspace_.get(), repeatable_size_, repeatable_, stream_) != ACLNN_SUCCESS ||
        aclrtSynchronizeStream(stream_) != ACL_SUCCESS) {
      std::fprintf(stderr, "repeatable executor run: %s\n", aclGetRecentErrMsg());
      std::abort();
    }
  }

  ~Bench() {
    if (repeatable_ != nullptr) aclDestroyAclOpExecutor(repeatable_);
  }
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;

  /// Fused cases: what the fused call replaces, the forward call and then the backward call
  /// (gradOutput a 0-dim 1), each as a client makes it.
  void RunSeparate() {
    const apis::Api& forward = apis::Get(apis::ApiId::kBinaryCrossEntropyWithLogits);
    const apis::Api& backward = apis::Get(apis::ApiId::kBinaryCrossEntropyWithLogitsBackward);
    Check(apis::Call(forward, OperandsOf(forward, dout_, out_), stream_, workspace_));
    Check(apis::Call(backward, OperandsOf(backward, one_, grad_), stream_, second_workspace_));
  }

  void RunRoofline() {
    if (c_.dtype == ACL_FLOAT) {
      RunRooflineTyped<float>();
    } else if (c_.dtype == ACL_DOUBLE) {
      RunRooflineTyped<double>();
    } else {
      RunRooflineTyped<uint16_t>();
    }
  }

#ifdef ACLNN_BCE_BENCH_WITH_TORCH
  /// Whether this libtorch implements the formula for the dtype (1.13 has no CPU fp16 sigmoid).
  bool TorchSupported() {
    try {
      if (IsProb(c_.layout)) {
        RunTorch();
      } else {
        (void)t_x_.narrow(1, 0, 1).sigmoid();
      }
      return true;
    } catch (const c10::Error&) {
      return false;
    }
  }

  void RunTorch() {
    if (c_.layout == Layout::kProbNone || c_.layout == Layout::kProbMean) {
      sink_ = torch::binary_cross_entropy(t_x_, t_y_, t_w_, reduction_ == 1 ? at::Reduction::Mean : at::Reduction::None);
      return;
    }
    if (c_.layout == Layout::kProbBackward) {
      sink_ = torch::binary_cross_entropy_backward(t_dout_, t_x_, t_y_, t_w_, at::Reduction::None);
      return;
    }
    if (c_.layout == Layout::kForwardNone || c_.layout == Layout::kForwardMean || c_.layout == Layout::kFusedMean) {
      sink_ = torch::binary_cross_entropy_with_logits(t_x_, t_y_, t_w_, t_pw_,
                                                      reduction_ == 1 ? at::Reduction::Mean : at::Reduction::None);
      if (c_.layout != Layout::kFusedMean) return;
    }
    // PyTorch's backward of binary_cross_entropy_with_logits (FunctionsManual.cpp), op by op.
    torch::Tensor grad_input;
    if (t_pw_.defined()) {
      auto t = t_pw_.mul(t_y_);
      grad_input = t.add(1).sub_(t_y_).mul_(t_x_.sigmoid()).sub_(t);
    } else {
      grad_input = t_x_.sigmoid() - t_y_;
    }
    if (t_dout_.defined()) grad_input.mul_(t_dout_);
    if (t_w_.defined()) grad_input.mul_(t_w_);
    if (reduction_ == 1) grad_input.div_(static_cast<double>(c_.numel));
    sink_ = grad_input;
  }
#endif

 private:
  template <class T>
  void RunRooflineTyped() {
    bce_bench::RooflineJob<T> job;
    if (c_.layout == Layout::kProbBackward) job.AddInput(static_cast<const T*>(dout_.data));
    job.AddInput(static_cast<const T*>(x_.data));
    job.AddInput(static_cast<const T*>(y_.data));
    if (IsProb(c_.layout)) {
      job.AddInput(static_cast<const T*>(w_.data));
    } else if (c_.layout == Layout::kForwardNone || c_.layout == Layout::kForwardMean || c_.layout == Layout::kFusedMean) {
      job.AddInput(static_cast<const T*>(w_.data));
      job.AddInput(static_cast<const T*>(pw_.data));
    } else if (c_.layout != Layout::kScalarDoutRowPosWeight) {
      job.AddInput(static_cast<const T*>(dout_.data));
      job.AddInput(static_cast<const T*>(w_.data));
      job.AddInput(static_cast<const T*>(pw_.data));
    }
    job.out = c_.layout == Layout::kForwardMean || c_.layout == Layout::kProbMean ? nullptr
              : c_.layout == Layout::kFusedMean   ? static_cast<T*>(grad_.data)
                                                  : static_cast<T*>(out_.data);
    double partials[ACLNN_CPU_MAX_THREADS] = {};
    job.partials = partials;
    job.n = c_.numel;
    // The same worker count the operator's tiling would use for this many bytes (the operator's,
    // bytes_), and the tiling's rule for streaming out.
    job.SetLaunch(bce_bench::PlanRooflineLaunch(bytes_, aclnn_cpu::ThreadPool::Instance().NumThreads()));
    aclnn_cpu::ThreadPool::Instance().Run(job.chunks, &bce_bench::RooflineJob<T>::Run, &job);
  }

#ifdef ACLNN_BCE_BENCH_WITH_TORCH
  torch::Tensor Wrap(const Buffer& b, std::vector<int64_t> sizes, std::vector<int64_t> strides) {
    const auto st = c_.dtype == ACL_FLOAT ? torch::kFloat : c_.dtype == ACL_FLOAT16 ? torch::kHalf
                  : c_.dtype == ACL_BF16 ? torch::kBFloat16 : torch::kDouble;
    return torch::from_blob(b.data, sizes, strides, torch::TensorOptions().dtype(st));
  }
  void SetUpTorch() {
    const std::vector<int64_t> transposed{1, rows_};
    const std::vector<int64_t> strides = c_.layout == Layout::kAllTransposed ? transposed : std::vector<int64_t>{cols_, 1};
    t_x_ = Wrap(x_, {rows_, cols_}, c_.layout == Layout::kTransposedInput ? transposed : strides);
    t_y_ = Wrap(y_, {rows_, cols_}, strides);
    if (IsProb(c_.layout)) {
      t_w_ = Wrap(w_, {rows_, cols_}, strides);
      if (c_.layout == Layout::kProbBackward) t_dout_ = Wrap(dout_, {rows_, cols_}, strides);
    } else if (c_.layout == Layout::kForwardNone || c_.layout == Layout::kForwardMean || c_.layout == Layout::kFusedMean) {
      t_w_ = Wrap(w_, {rows_, cols_}, strides);
      t_pw_ = Wrap(pw_, {rows_, cols_}, strides);
    } else if (c_.layout == Layout::kScalarDoutRowPosWeight) {
      t_dout_ = Wrap(dout_, {}, {});
      t_pw_ = Wrap(pw_, {cols_}, {1});
    } else {
      t_dout_ = Wrap(dout_, {rows_, cols_}, strides);
      t_w_ = Wrap(w_, {rows_, cols_}, strides);
      t_pw_ = Wrap(pw_, {rows_, cols_}, strides);
    }
  }
  torch::Tensor t_x_, t_y_, t_dout_, t_w_, t_pw_, sink_;
#endif

  Case c_;
  aclrtStream stream_;
  int64_t rows_ = 0, cols_ = 0;
  Buffer x_, y_, dout_, w_, pw_, out_, grad_, one_;
  int64_t reduction_ = 0;
  double bytes_ = 0;
  aclnn_cpu::DeviceMemory workspace_, second_workspace_, repeatable_workspace_;
  aclOpExecutor* repeatable_ = nullptr;
  uint64_t repeatable_size_ = 0;

  static void Check(const aclnn_cpu::TwoPhaseResult& r) {
    if (!r.ok()) {
      std::fprintf(stderr, "%s: %d %s\n", r.failed_step, r.status, aclGetRecentErrMsg());
      std::abort();
    }
  }
};

/// Times fn over enough repetitions to take >= min_seconds, returns seconds per call.
double TimeOnce(const std::function<void()>& fn, int reps) {
  const auto t0 = Clock::now();
  for (int r = 0; r < reps; ++r) fn();
  return std::chrono::duration<double>(Clock::now() - t0).count() / reps;
}

// Note [Settling before a sample]
// Each sample comes after untimed calls of the same function for g_settle_s, and the order of
// the functions turns by one each round. Without either, the operator's sample always came right
// after PyTorch's, and the repeatable executor's and the roofline's after our own calls. That
// made fresh/repeatable well above 1 for a 16 Mi case where the two calls do the same work, and
// raised op/roofline at 16 Mi for the cases PyTorch ran beside; settled and turning, about 1
// (docs/perf.md). The likely cause: PyTorch leaves the
// last-level cache full of dirty lines from its temporaries, and the first call after it pays
// for writing them back, where our calls' non-temporal stores leave it clean.
double g_settle_s = 0.02;

void Settle(const std::function<void()>& fn) {
  const auto until = Clock::now() + std::chrono::duration<double>(g_settle_s);
  do {
    fn();
  } while (Clock::now() < until);
}

int RepsFor(const std::function<void()>& fn, double target_s) {
  fn();  // warm up
  int reps = 1;
  for (;;) {
    const double t = TimeOnce(fn, reps) * reps;
    if (t >= target_s || reps >= (1 << 20)) return reps;
    reps *= 2;
  }
}

Measurement Measure(Bench& b, int rounds) {
  std::vector<double> op, roof, torch_t;
  const std::function<void()> op_fn = [&] { b.RunOp(); };
  const std::function<void()> roof_fn = [&] { b.RunRoofline(); };
  const int op_reps = RepsFor(op_fn, 0.01);
  const int roof_reps = RepsFor(roof_fn, 0.01);
#ifdef ACLNN_BCE_BENCH_WITH_TORCH
  const bool torch_ok = b.TorchSupported();
  const std::function<void()> torch_fn = [&] { b.RunTorch(); };
  const int torch_reps = torch_ok ? RepsFor(torch_fn, 0.01) : 0;
#endif
  std::vector<double> separate;
  const bool fused = b.fused();
  const std::function<void()> separate_fn = [&] { b.RunSeparate(); };
  const int separate_reps = fused ? RepsFor(separate_fn, 0.01) : 0;
  std::vector<double> repeatable;
  const std::function<void()> repeatable_fn = [&] { b.RunRepeatable(); };
  const int repeatable_reps = RepsFor(repeatable_fn, 0.01);
  struct Contender {
    const std::function<void()>* fn;
    int reps;
    std::vector<double>* samples;
  };
  std::vector<Contender> contenders = {{&op_fn, op_reps, &op}, {&roof_fn, roof_reps, &roof},
                                       {&repeatable_fn, repeatable_reps, &repeatable}};
  if (fused) contenders.push_back({&separate_fn, separate_reps, &separate});
#ifdef ACLNN_BCE_BENCH_WITH_TORCH
  if (torch_ok) contenders.push_back({&torch_fn, torch_reps, &torch_t});
#endif
  for (int r = 0; r < rounds; ++r) {  // Note [Settling before a sample]
    for (size_t i = 0; i < contenders.size(); ++i) {
      const Contender& c = contenders[(i + static_cast<size_t>(r)) % contenders.size()];
      if (g_settle_s > 0) Settle(*c.fn);
      c.samples->push_back(TimeOnce(*c.fn, c.reps));
    }
  }
  Measurement m;
  m.op_s = Median(op);
  m.roofline_s = Median(roof);
  m.torch_s = torch_t.empty() ? 0 : Median(torch_t);
  m.separate_s = separate.empty() ? 0 : Median(separate);
  m.bytes = b.bytes();
  std::vector<double> ratio;
  for (int r = 0; r < rounds; ++r) ratio.push_back(op[r] / roof[r]);
  m.op_over_roofline = Median(ratio);
  m.repeatable_s = Median(repeatable);
  ratio.clear();
  for (int r = 0; r < rounds; ++r) ratio.push_back(op[r] / repeatable[r]);
  m.fresh_over_repeatable = Median(ratio);
  if (fused) {
    ratio.clear();
    for (int r = 0; r < rounds; ++r) ratio.push_back(separate[r] / op[r]);
    m.separate_over_op = Median(ratio);
  }
  return m;
}

/// A launch whose blocks wait until every thread of the pool holds one: its duration is the time
/// to get all workers running (the part of a launch the pool adds).
struct Rendezvous {
  std::atomic<int64_t> arrived{0};
  int64_t blocks = 0;
  static void Block(const void* ctx, int64_t) {
    auto* r = static_cast<Rendezvous*>(const_cast<void*>(ctx));
    r->arrived.fetch_add(1, std::memory_order_acq_rel);
    const auto give_up = Clock::now() + std::chrono::milliseconds(50);  // never deadlock a busy pool
    while (r->arrived.load(std::memory_order_acquire) < r->blocks && Clock::now() < give_up) {
    }
  }
};

/// Median time for every worker to join a launch, after the workers went to sleep (idle_ms > 0)
/// or right after another launch (idle_ms = 0, workers still spinning).
double PoolJoinSeconds(int idle_ms) {
  auto& pool = aclnn_cpu::ThreadPool::Instance();
  std::vector<double> samples;
  for (int round = 0; round < 21; ++round) {
    if (idle_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(idle_ms));
    Rendezvous r;
    r.blocks = pool.NumThreads();
    const auto t0 = Clock::now();
    pool.Run(r.blocks, &Rendezvous::Block, &r);
    samples.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return Median(samples);
}

std::string Human(int64_t n) {
  if (n % (1 << 20) == 0) return std::to_string(n >> 20) + " Mi";
  if (n % (1 << 10) == 0) return std::to_string(n >> 10) + " Ki";
  return std::to_string(n);
}

}  // namespace

int main(int argc, char** argv) {
#ifdef ACLNN_BCE_BENCH_WITH_TORCH
  // libtorch's OpenMP workers spin for milliseconds after each parallel region by default and
  // would steal the cores from whatever is measured next. Make them sleep instead; libgomp reads
  // this at load time, so re-run ourselves with it set.
  if (std::getenv("OMP_WAIT_POLICY") == nullptr) {
    setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    execv("/proc/self/exe", argv);
    std::perror("execv");  // fall through and measure anyway
  }
#endif
  bool check = false;
  int rounds = 11;
  int64_t max_numel = int64_t{16} << 20;
  std::string filter;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--check") == 0) check = true;
    else if (std::strncmp(argv[i], "--filter=", 9) == 0) filter = argv[i] + 9;
    else if (std::strcmp(argv[i], "--quick") == 0) { rounds = 5; max_numel = int64_t{1} << 20; }
    else if (std::strncmp(argv[i], "--rounds=", 9) == 0) rounds = std::atoi(argv[i] + 9);
    else if (std::strncmp(argv[i], "--settle-ms=", 12) == 0) g_settle_s = std::atof(argv[i] + 12) / 1000;
    else {
      std::printf("usage: %s [--check] [--quick] [--rounds=N] [--filter=TEXT] [--settle-ms=N]\n"
                  "  --filter: only cases whose \"dtype layout numel\" line contains TEXT\n"
                  "  --settle-ms: untimed calls of a function for this long before each of its samples\n"
                  "               (default 20; 0: none)\n", argv[0]);
      return 2;
    }
  }
  aclInit(nullptr);
  aclrtSetDevice(0);
  aclrtStream stream = nullptr;
  aclrtCreateStream(&stream);
#ifdef ACLNN_BCE_BENCH_WITH_TORCH
  torch::set_num_threads(aclnnCpuGetNumThreads());
  const bool with_torch = true;
#else
  const bool with_torch = false;
#endif
  std::printf("SIMD target: %s   threads: %d   rounds: %d (medians, each sample after %.0f ms of untimed calls)   "
              "PyTorch: %s\n",
              aclnnCpuSimdTargetName(), aclnnCpuGetNumThreads(), rounds, g_settle_s * 1e3, kTorchVersion);
  std::printf("worker pool (%d threads): all workers running a launch after %.2f us from sleep, %.2f us back to back\n",
              aclnnCpuGetNumThreads(), PoolJoinSeconds(5) * 1e6, PoolJoinSeconds(0) * 1e6);
  // torch/roof: how much faster than PyTorch the roofline loop itself is, the most any kernel
  // that moves these bytes no faster than it can be.
  std::printf("%-5s %-18s %7s %11s %9s %11s %9s %9s %10s\n", "dtype", "layout", "numel", "op us", "op GB/s",
              "roofline us", "op/roof", "torch/op", "torch/roof");

  std::vector<Case> cases;
  for (aclDataType dt : {ACL_FLOAT, ACL_BF16, ACL_FLOAT16}) {
    for (int64_t n : {int64_t{1} << 10, int64_t{64} << 10, int64_t{1} << 20, int64_t{16} << 20}) {
      if (n > max_numel) continue;
      cases.push_back({dt, n, Layout::kSameShape});
    }
  }
  for (int64_t n : {int64_t{64} << 10, int64_t{1} << 20, int64_t{16} << 20}) {
    if (n > max_numel) continue;
    cases.push_back({ACL_FLOAT, n, Layout::kScalarDoutRowPosWeight});
    cases.push_back({ACL_FLOAT, n, Layout::kTransposedInput});
    cases.push_back({ACL_FLOAT, n, Layout::kAllTransposed});
  }
  cases.push_back({ACL_BF16, std::min<int64_t>(max_numel, int64_t{16} << 20), Layout::kScalarDoutRowPosWeight});
  for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
    for (int64_t n : {int64_t{64} << 10, int64_t{1} << 20, int64_t{16} << 20}) {
      if (n > max_numel) continue;
      cases.push_back({dt, n, Layout::kForwardNone});
      cases.push_back({dt, n, Layout::kForwardMean});
      cases.push_back({dt, n, Layout::kFusedMean});
    }
  }
  for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
    for (int64_t n : {int64_t{64} << 10, int64_t{1} << 20, int64_t{16} << 20}) {
      if (n > max_numel) continue;
      cases.push_back({dt, n, Layout::kProbNone});
      cases.push_back({dt, n, Layout::kProbMean});
      cases.push_back({dt, n, Layout::kProbBackward});
    }
  }

  int failures = 0;
  auto target = [&](bool ok, const char* what) {
    std::printf("  target %-58s %s\n", what, ok ? "PASS" : "MISS");
    if (!ok) ++failures;
  };
  for (const Case& c : cases) {
    const std::string label = std::string(DTypeShortName(c.dtype)) + " " + LayoutName(c.layout) + " " + Human(c.numel);
    if (!filter.empty() && label.find(filter) == std::string::npos) continue;
    Bench b(c, stream);
    const Measurement m = Measure(b, rounds);
    const double ratio = m.op_over_roofline;
    const double torch_ratio = m.torch_s > 0 ? m.torch_s / m.op_s : 0;
    const double torch_roof = m.torch_s > 0 ? m.torch_s / m.roofline_s : 0;
    char torch_col[32] = "n/a", torch_roof_col[32] = "n/a";
    if (torch_ratio > 0) std::snprintf(torch_col, sizeof(torch_col), "%.2f", torch_ratio);
    if (torch_roof > 0) std::snprintf(torch_roof_col, sizeof(torch_roof_col), "%.2f", torch_roof);
    std::printf("%-5s %-18s %7s %11.2f %9.2f %11.2f %9.3f %9s %10s\n", DTypeShortName(c.dtype), LayoutName(c.layout),
                Human(c.numel).c_str(), m.op_s * 1e6, m.bytes / m.op_s / 1e9, m.roofline_s * 1e6, ratio, torch_col,
                torch_roof_col);
    std::printf("      repeatable executor (second phase alone) %.2f us, fresh/repeatable %.3f\n", m.repeatable_s * 1e6,
                m.fresh_over_repeatable);
    if (m.separate_s > 0) {
      std::printf("      fused: forward call + backward call %.2f us, fwd+bwd/fused %.3f\n", m.separate_s * 1e6,
                  m.separate_over_op);
    }
    std::fflush(stdout);
    const bool big = c.numel == (int64_t{16} << 20);
    if (check && c.layout == Layout::kFusedMean && big && c.dtype == ACL_FLOAT) {
      target(m.separate_over_op >= 1.6, "fused fp32 16Mi >= 1.6x faster than forward + backward");
      target(ratio <= 1.15, "fused fp32 16Mi <= 1.15x roofline");
    }
    if (check) {
      if (c.layout == Layout::kSameShape && big && c.dtype == ACL_FLOAT) target(ratio <= 1.15, "fp32 16Mi same-shape <= 1.15x roofline");
      if (c.layout == Layout::kSameShape && big && c.dtype == ACL_BF16) target(ratio <= 1.3, "bf16 16Mi same-shape <= 1.3x roofline");
      if (c.layout == Layout::kScalarDoutRowPosWeight && big && c.dtype == ACL_FLOAT) target(ratio <= 1.2, "scalar-dout broadcast <= 1.2x roofline");
      if (c.layout == Layout::kSameShape && c.numel == 1024 && c.dtype == ACL_FLOAT) target(m.op_s < 2e-6, "whole two-phase call, 1Ki fp32 < 2 us");
      if (with_torch && c.dtype == ACL_FLOAT && c.layout == Layout::kSameShape && c.numel >= (int64_t{1} << 20)) {
        target(torch_ratio >= 10, "fp32 >= 10x faster than PyTorch at 1Mi/16Mi");
      }
      if (torch_ratio > 0) target(torch_ratio > 1, "faster than PyTorch");
    }
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  if (check && failures) {
    std::printf("%d performance target(s) missed\n", failures);
    return 1;
  }
  return 0;
}
