// Runs the AscendC loss kernel on the twin with exact-size GM buffers and judges every loss (none)
// or the one reduced value (mean, sum) against the library's float64 reference and its error
// bound. Shared by the seed-style kernel UT (tests/ut/op_kernel) and the sweep.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ascendc_kernel_test_support.h"
#include "gtest/gtest.h"
#include "loss_reference_bound.h"
#include "op_host/a2/sigmoid_cross_entropy_with_logits_v2_a2_tiling.h"
#include "op_kernel/ascendc/sigmoid_cross_entropy_with_logits_v2_ascendc_tiling_data.h"
#include "tikicpulib.h"

namespace bce_loss_ascendc_test {

using bce_ascendc_test::Digits;
using bce_ascendc_test::DTypeName;
using bce_ascendc_test::ErrorStats;
using bce_ascendc_test::GmBuffer;
using TilingData = SigmoidCrossEntropyWithLogitsV2TilingData;

template <typename T>
struct OutOf;
template <>
struct OutOf<float> {
    static constexpr OutType kOut = OutType::kFloat;
    static constexpr double kMax = 3.4028234663852886e38;
};
template <>
struct OutOf<half> {
    static constexpr OutType kOut = OutType::kHalf;
    static constexpr double kMax = 65504.0;
};
template <>
struct OutOf<bfloat16_t> {
    static constexpr OutType kOut = OutType::kBFloat16;
    static constexpr double kMax = 3.3895313892515355e38;
};

using KernelEntry = void (*)(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);

/// The problem: element counts of self and of each operand (0: absent), and the reduction.
struct Problem {
    uint64_t total = 0;
    uint64_t weight_count = 0;
    uint64_t pos_weight_count = 0;
    uint32_t reduction = BCE_LOSS_REDUCTION_NONE;
};

inline const char* ReductionName(uint32_t reduction)
{
    return reduction == BCE_LOSS_REDUCTION_NONE ? "none" : reduction == BCE_LOSS_REDUCTION_MEAN ? "mean" : "sum";
}

inline std::string Describe(const Problem& p)
{
    return "total " + std::to_string(p.total) + ", weight " + std::to_string(p.weight_count) + ", pos_weight " +
           std::to_string(p.pos_weight_count) + ", reduction " + ReductionName(p.reduction);
}

/// The largest errors per reduction (none, mean, sum).
struct ReductionStats {
    ErrorStats of[3];
    void Merge(const ReductionStats& o)
    {
        for (int r = 0; r < 3; ++r) of[r].Merge(o.of[r]);
    }
};

// Note [Bound of the fp32 sum]
// The kernel adds the fp32 losses l'_i (each within b_i of the exact loss l_i, b_i the library's
// per-element bound for an fp32 result) in a tree where each passes through D = 7 K + 3
// additions (Note [Deterministic sum across cores]), so its sum S' is within
// gamma_D (sum |l'_i|) <= gamma_D (sum |l_i| + sum b_i) of sum l'_i (gamma_D = D u / (1 - D u),
// u = 2^-24), which is within sum b_i of S = sum l_i:
//   |S' - S| <= E = sum b_i + gamma_D (sum |l_i| + sum b_i).
// mean multiplies by fl(1/N) (one rounding) and rounds the product: within 3 u |S'| / N more.
// The result is then rounded once to the output type (eps_o, its unit roundoff, and its
// smallest subnormal step); fp16 saturates at 65504 as A2's Cast does, and so does the reference.

/// The number of fold levels of the sum of @p total values (Note [Deterministic sum across cores]).
inline uint64_t FoldLevels(uint64_t total)
{
    using namespace aclnn_cpu::bce_loss::a2;
    uint64_t level = (total + kA2LossReduceChunkElems - 1) / kA2LossReduceChunkElems * kA2LossPartialElems;
    uint64_t levels = 1;
    while (level > kA2LossPartialElems) {
        level = (level + kA2LossReduceChunkElems - 1) / kA2LossReduceChunkElems * kA2LossPartialElems;
        ++levels;
    }
    return levels;
}

/// Runs @p kernel on @p block_dim cores with @p tiling and a workspace of exactly
/// @p workspace_bytes over random inputs of @p problem and checks the result against the
/// reference; returns false with a message on the first failure (a finding of the twin, or a
/// value outside the bound). @p out, when given, receives the output widened to float.
template <typename T>
bool RunAndCheck(KernelEntry kernel, const Problem& problem, const TilingData& tiling, uint32_t block_dim,
                 uint64_t workspace_bytes, uint64_t seed, ReductionStats* stats, std::string* message,
                 std::vector<float>* out = nullptr)
{
    const uint64_t n = problem.total;
    const bool reducing = problem.reduction != BCE_LOSS_REDUCTION_NONE;
    GmBuffer<T> predict(n), target(n), loss(reducing ? 1 : n);
    GmBuffer<T> weight(problem.weight_count), pos_weight(problem.pos_weight_count);
    GmBuffer<uint8_t> workspace(workspace_bytes);
    GmBuffer<TilingData> tiling_gm(1);
    std::memcpy(tiling_gm.gm(), &tiling, sizeof(tiling));

    std::mt19937_64 rng(seed);
    bce_ascendc_test::BceDraws draws;
    bce_ascendc_test::Fill(predict, n, rng, draws.logits);
    bce_ascendc_test::Fill(target, n, rng, [&](std::mt19937_64& r) { return draws.Label(r); });
    bce_ascendc_test::Fill(weight, problem.weight_count, rng, draws.weights);
    bce_ascendc_test::Fill(pos_weight, problem.pos_weight_count, rng, draws.pos_weights);

    uint8_t* tl = tiling_gm.gm();
    ICPU_RUN_KF(kernel, block_dim, predict.gm(), target.gm(), weight.gm(), pos_weight.gm(), loss.gm(),
                workspace.gm(), tl);
    const auto& findings = ascendc_cpu::LastRunFindings();
    if (!findings.empty()) {
        *message = Describe(problem) + ": " + std::to_string(findings.size()) + " finding(s), first: " +
                   ascendc_cpu::FormatFinding(findings.front());
        return false;
    }
    const OutType out_type = OutOf<T>::kOut;
    const OutType element_out = reducing ? OutType::kFloat : out_type;  // the sums add fp32 losses
    ErrorStats local;
    long double sum = 0, sum_abs = 0, sum_bound = 0;
    for (uint64_t i = 0; i < n; ++i) {
        const double x = static_cast<float>(predict[i]);
        const double y = static_cast<float>(target[i]);
        double w = 0, pw = 0;
        if (problem.weight_count != 0) w = static_cast<float>(weight[i % problem.weight_count]);
        if (problem.pos_weight_count != 0) pw = static_cast<float>(pos_weight[i % problem.pos_weight_count]);
        const LossReferenceValue ref = LossReference(x, y, problem.weight_count != 0 ? &w : nullptr,
                                                     problem.pos_weight_count != 0 ? &pw : nullptr, element_out);
        if (reducing) {
            sum += ref.loss;
            sum_abs += std::fabs(ref.loss);
            sum_bound += ref.bound;
            continue;
        }
        const double got = static_cast<float>(loss[i]);
        if (out != nullptr) out->push_back(static_cast<float>(got));
        const double error = std::fabs(got - ref.loss);
        if (!(error <= ref.bound)) {
            *message = Describe(problem) + ", " + DTypeName<T>::kName + ": element " + std::to_string(i) + " is " +
                       Digits(got) + ", reference " + Digits(ref.loss) + " (error " + Digits(error) + ", bound " +
                       Digits(ref.bound) + "; x " + Digits(x) + ", y " + Digits(y) + ")";
            return false;
        }
        local.max_error_over_bound = std::max(local.max_error_over_bound, error / ref.bound);
        if (std::fabs(ref.loss) >= DTypeName<T>::kRelativeFloor) {
            local.max_relative_error = std::max(local.max_relative_error, error / std::fabs(ref.loss));
        }
    }
    if (reducing) {
        // Note [Bound of the fp32 sum].
        const long double u = 0x1p-24L;
        const long double depth = 7.0L * FoldLevels(n) + 3.0L;
        const long double gamma = depth * u / (1 - depth * u);
        const long double sum_error = sum_bound + gamma * (sum_abs + sum_bound);
        const bool mean = problem.reduction == BCE_LOSS_REDUCTION_MEAN;
        const long double scale = mean ? 1.0L / static_cast<long double>(n) : 1.0L;
        const long double scaled_error =
            scale * sum_error + (mean ? 3 * u * scale * (std::fabs(sum) + sum_error) : 0.0L);
        const long double exact = scale * sum;
        const double eps_o = UnitRoundoff(out_type);
        const double bound = static_cast<double>(scaled_error * (1 + eps_o) + eps_o * std::fabs(exact)) +
                             SmallestSubnormal(out_type);
        const double reference = std::fmax(-OutOf<T>::kMax, std::fmin(OutOf<T>::kMax, static_cast<double>(exact)));
        const double got = static_cast<float>(loss[0]);
        if (out != nullptr) out->push_back(static_cast<float>(got));
        const double error = std::fabs(got - reference);
        if (!(error <= bound)) {
            *message = Describe(problem) + ", " + DTypeName<T>::kName + ": " + ReductionName(problem.reduction) +
                       " is " + Digits(got) + ", reference " + Digits(reference) + " (error " + Digits(error) +
                       ", bound " + Digits(bound) + ")";
            return false;
        }
        local.max_error_over_bound = error / bound;
        if (std::fabs(reference) >= DTypeName<T>::kRelativeFloor) local.max_relative_error = error / std::fabs(reference);
    }
    local.elements = n;
    stats->of[problem.reduction].Merge(local);
    return true;
}

}  // namespace bce_loss_ascendc_test
