// bce_kernel_floor (roofline_lib.h): one kernel variant's arithmetic floor, measured on this CPU.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "common/dtype.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_kernel/sigmoid_cross_entropy_with_logits_grad_v2.h"
#include "ops/sigmoid_cross_entropy_with_logits_v2/op_kernel/sigmoid_cross_entropy_with_logits_v2.h"
#include "roofline_lib.h"
#include "simd/simd_target_scope.h"

namespace {

using aclnn_cpu::KernelDType;
using aclnn_cpu::TileArgs;
using aclnn_cpu::TileFn;
using Clock = std::chrono::steady_clock;

// Note [Arithmetic floor]
// A kernel's arithmetic floor is what its operations cost when no load waits on memory: its own
// tile function (the library's, of this CPU's SIMD target, the one a call runs) timed on one thread
// over one tile whose operands all sit in L1 (kFloorTile elements: six fp32 streams are 24 KiB),
// per element. The count and the mix of its vector operations are the kernel's own, and so is
// their throughput on this core: the timing measures the two together, where a hand-kept count
// of operations times a table of instruction throughputs would drift from the code and miss the
// port conflicts (this KVM guest has no performance counters to count instructions with). A call
// on n elements and t threads cannot beat n * floor / t; a case whose floor lies above its
// roofline loop is bound by arithmetic, not by memory.
constexpr size_t kFloorTile = 1024;

/// The tile function of @p kernel (BceFloorKernel) for @p dtype and @p flags, or null.
TileFn FloorTileFn(int kernel, KernelDType dtype, int flags) {
  const bool weight = (flags & BCE_FLOOR_WEIGHT) != 0, pos_weight = (flags & BCE_FLOOR_POS_WEIGHT) != 0;
  namespace grad = aclnn_cpu::bce_grad;
  namespace loss = aclnn_cpu::bce_loss;
  switch (kernel) {
    case BCE_FLOOR_BACKWARD:
    case BCE_FLOOR_TARGET_BACKWARD: {
      const uint32_t key = grad::KernelVariantKey(grad::MakeTilingKey(dtype, weight, pos_weight),
                                                  kernel == BCE_FLOOR_TARGET_BACKWARD);
      return grad::ChosenKernelTable().fn[key];
    }
    case BCE_FLOOR_LOSS:
    case BCE_FLOOR_LOSS_SUM:
    case BCE_FLOOR_FUSED_SUM:
      return loss::ChosenKernelTable().fn[loss::MakeLossKernelKey(dtype, weight, pos_weight, kernel != BCE_FLOOR_LOSS,
                                                                  kernel == BCE_FLOOR_FUSED_SUM)];
    default: return nullptr;
  }
}

/// @p count values of a distribution, stored as T.
template <class T, class Dist>
std::vector<T> Stream(size_t count, Dist dist, std::mt19937& rng) {
  std::vector<T> v(count);
  for (auto& e : v) {
    const double value = dist(rng);
    if constexpr (std::is_same_v<T, aclnn_cpu::Half>) {
      e = aclnn_cpu::FloatToHalf(static_cast<float>(value));
    } else if constexpr (std::is_same_v<T, aclnn_cpu::BFloat16>) {
      e = aclnn_cpu::FloatToBFloat16(static_cast<float>(value));
    } else {
      e = static_cast<T>(value);
    }
  }
  return v;
}

/// The floor's operands and timing for element type T (every operand but the loss of the sums,
/// which is in the compute type, is T).
template <class T>
double MeasureFloor(int kernel, TileFn fn, int flags, int samples) {
  using Compute = std::conditional_t<std::is_same_v<T, double>, double, float>;
  std::mt19937 rng(20261207);
  // Logits of a trained classifier's spread, labels in [0, 1], positive weights: no operand
  // takes an exceptional path (a NaN or infinite loss), as in the benchmark's own data.
  const auto x = Stream<T>(kFloorTile, std::normal_distribution<double>(0.0, 3.0), rng);
  const auto y = Stream<T>(kFloorTile, std::uniform_real_distribution<double>(0.0, 1.0), rng);
  const auto w = Stream<T>(kFloorTile, std::uniform_real_distribution<double>(0.5, 1.5), rng);
  const auto pw = Stream<T>(kFloorTile, std::uniform_real_distribution<double>(0.5, 2.0), rng);
  const auto dout = Stream<T>(kFloorTile, std::uniform_real_distribution<double>(-1.0, 1.0), rng);
  std::vector<T> out(kFloorTile), gradient(kFloorTile);
  std::vector<Compute> losses(kFloorTile);
  TileArgs args;
  const bool weight = (flags & BCE_FLOOR_WEIGHT) != 0, pos_weight = (flags & BCE_FLOOR_POS_WEIGHT) != 0;
  if (kernel == BCE_FLOOR_BACKWARD || kernel == BCE_FLOOR_TARGET_BACKWARD) {
    namespace grad = aclnn_cpu::bce_grad;
    args.at[grad::kPredict] = x.data();
    args.at[grad::kTarget] = y.data();
    args.at[grad::kDout] = dout.data();
    args.at[grad::kWeight] = weight ? w.data() : nullptr;
    args.at[grad::kPosWeight] = pos_weight ? pw.data() : nullptr;
    args.at[grad::kGradient] = out.data();
    if (flags & BCE_FLOOR_UNIFORM_DOUT) args.read_once = 1u << grad::kDout;
  } else {
    namespace loss = aclnn_cpu::bce_loss;
    args.at[loss::kPredict] = x.data();
    args.at[loss::kTarget] = y.data();
    args.at[loss::kWeight] = weight ? w.data() : nullptr;
    args.at[loss::kPosWeight] = pos_weight ? pw.data() : nullptr;
    args.at[loss::kLoss] = kernel == BCE_FLOOR_LOSS ? static_cast<const void*>(out.data()) : losses.data();
    if (kernel == BCE_FLOOR_FUSED_SUM) {
      args.at[loss::kGradient] = gradient.data();
      args.scale = 1.0 / (1 << 20);
    }
  }
  // Each sample repeats the tile for about 100 us (warm-up first); the floor is the fastest
  // sample: the machine's noise only ever adds time.
  for (int r = 0; r < 64; ++r) fn(args, kFloorTile);
  const auto start = Clock::now();
  int reps = 0;
  while (Clock::now() - start < std::chrono::microseconds(100)) {
    fn(args, kFloorTile);
    ++reps;
  }
  double best = INFINITY;
  for (int s = 0; s < samples; ++s) {
    const auto t0 = Clock::now();
    for (int r = 0; r < reps; ++r) fn(args, kFloorTile);
    const std::chrono::duration<double, std::nano> took = Clock::now() - t0;
    best = std::min(best, took.count() / (static_cast<double>(reps) * kFloorTile));
  }
  return best;
}

}  // namespace

extern "C" int bce_kernel_floor(int kernel, int dtype, int flags, const char* target, int samples,
                                double* ns_per_element) {
  if (ns_per_element == nullptr || samples < 1) return BCE_ROOFLINE_NULL_INPUT;
  if (dtype < 0 || dtype >= static_cast<int>(aclnn_cpu::kKernelDTypeCount)) return BCE_ROOFLINE_BAD_ELEM_BYTES;
  const auto kernel_dtype = static_cast<KernelDType>(dtype);
  // The named target is chosen while the floor is measured (null: the CPU's best, as a call runs).
  std::optional<aclnn_cpu::SimdTargetScope> scope;
  if (target != nullptr) {
    const int64_t chosen = aclnn_cpu::FindSimdTarget(target);
    if (chosen == 0) return BCE_ROOFLINE_BAD_TARGET;
    scope.emplace(chosen);
  }
  const TileFn fn = FloorTileFn(kernel, kernel_dtype, flags);
  if (fn == nullptr) return BCE_ROOFLINE_BAD_NUM_INPUTS;
  try {
    *ns_per_element = aclnn_cpu::VisitKernelDType(
        kernel_dtype, [&]<class T>() { return MeasureFloor<T>(kernel, fn, flags, samples); });
  } catch (...) {
    return BCE_ROOFLINE_POOL_FAILED;
  }
  return BCE_ROOFLINE_OK;
}
