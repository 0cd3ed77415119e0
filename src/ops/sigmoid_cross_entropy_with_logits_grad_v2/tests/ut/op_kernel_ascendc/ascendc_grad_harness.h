// Runs an AscendC gradient kernel (of self, or of the target) on the twin with exact-size GM
// buffers and judges every element against the library's float64 reference and its error bound.
// Shared by the seed-style kernel UTs and the sweep.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ascendc_kernel_test_support.h"
#include "gtest/gtest.h"
#include "tikicpulib.h"
#include "op_kernel/ascendc/sigmoid_cross_entropy_with_logits_grad_v2_ascendc_tiling_data.h"
#include "reference_bound.h"

namespace bce_grad_ascendc_test {

using bce_ascendc_test::Digits;
using bce_ascendc_test::ErrorStats;
using bce_ascendc_test::GmBuffer;

/// The dtype's name and relative-error floor (the shared test support) and its output rounding.
template <typename T>
struct TypeInfo;
template <>
struct TypeInfo<float> : bce_ascendc_test::DTypeName<float> {
    static constexpr OutType kOut = OutType::kFloat;
};
template <>
struct TypeInfo<half> : bce_ascendc_test::DTypeName<half> {
    static constexpr OutType kOut = OutType::kHalf;
};
template <>
struct TypeInfo<bfloat16_t> : bce_ascendc_test::DTypeName<bfloat16_t> {
    static constexpr OutType kOut = OutType::kBFloat16;
};

using KernelEntry = void (*)(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);

/// The problem: element counts of self and of each operand (0: absent), the scale, and which
/// gradient (of_target: the kernel reads no target, and its GM buffer is null).
struct Problem {
    uint64_t total = 0;
    uint64_t dout_count = 0;
    uint64_t weight_count = 0;
    uint64_t pos_weight_count = 0;
    float scale = 1.0f;
    bool of_target = false;
    double pos_weight_value = -1;  ///< >= 0: every pos_weight element is this value, else drawn
};

inline std::string Describe(const Problem& p)
{
    return std::string(p.of_target ? "of target, " : "") + "total " + std::to_string(p.total) + ", dout " + std::to_string(p.dout_count) + ", weight " +
           std::to_string(p.weight_count) + ", pos_weight " + std::to_string(p.pos_weight_count) + ", scale " +
           Digits(p.scale);
}

/// Runs @p kernel on @p block_dim cores with @p tiling over random inputs of @p problem and checks
/// every element against the reference; returns false with a message on the first failure
/// (a finding of the twin, or an element outside the bound). @p gradient_out, when given, receives
/// the gradient widened to float.
template <typename T>
bool RunAndCheck(KernelEntry kernel, const Problem& problem, const SigmoidCrossEntropyWithLogitsGradV2TilingData& tiling,
                 uint32_t block_dim, uint64_t seed, ErrorStats* stats, std::string* message,
                 std::vector<float>* gradient_out = nullptr)
{
    const uint64_t n = problem.total;
    GmBuffer<T> predict(n), target(problem.of_target ? 0 : n), gradient(n);
    GmBuffer<T> dout(problem.dout_count), weight(problem.weight_count), pos_weight(problem.pos_weight_count);
    GmBuffer<uint8_t> workspace(32);
    GmBuffer<SigmoidCrossEntropyWithLogitsGradV2TilingData> tiling_gm(1);
    std::memcpy(tiling_gm.gm(), &tiling, sizeof(tiling));

    std::mt19937_64 rng(seed);
    bce_ascendc_test::BceDraws draws;  // labels: a third hard 0, a third hard 1 (where p - y would cancel)
    std::uniform_real_distribution<double> grads(-2.0, 2.0);
    using bce_ascendc_test::Fill;
    Fill(predict, n, rng, draws.logits);
    if (!problem.of_target) Fill(target, n, rng, [&](std::mt19937_64& r) { return draws.Label(r); });
    Fill(dout, problem.dout_count, rng, grads);
    Fill(weight, problem.weight_count, rng, draws.weights);
    if (problem.pos_weight_value >= 0) {
        Fill(pos_weight, problem.pos_weight_count, rng, [&](std::mt19937_64&) { return problem.pos_weight_value; });
    } else {
        Fill(pos_weight, problem.pos_weight_count, rng, draws.pos_weights);
    }

    uint8_t* tl = tiling_gm.gm();
    ICPU_RUN_KF(kernel, block_dim, predict.gm(), target.gm(), dout.gm(), weight.gm(), pos_weight.gm(), gradient.gm(),
                workspace.gm(), tl);
    const auto& findings = ascendc_cpu::LastRunFindings();
    if (!findings.empty()) {
        *message = Describe(problem) + ": " + std::to_string(findings.size()) + " finding(s), first: " +
                   ascendc_cpu::FormatFinding(findings.front());
        return false;
    }
    ErrorStats local;
    for (uint64_t i = 0; i < n; ++i) {
        const double x = static_cast<float>(predict[i]);
        const double y = problem.of_target ? 0.0 : static_cast<float>(target[i]);
        const double d = static_cast<float>(dout[i % problem.dout_count]);
        double w = 0, pw = 0;
        if (problem.weight_count != 0) w = static_cast<float>(weight[i % problem.weight_count]);
        if (problem.pos_weight_count != 0) pw = static_cast<float>(pos_weight[i % problem.pos_weight_count]);
        const double* weight_or_null = problem.weight_count != 0 ? &w : nullptr;
        const double* pos_weight_or_null = problem.pos_weight_count != 0 ? &pw : nullptr;
        const ReferenceValue ref =
            problem.of_target
                ? TargetGradReference(x, d, weight_or_null, pos_weight_or_null, problem.scale, TypeInfo<T>::kOut)
                : GradReference(x, y, d, weight_or_null, pos_weight_or_null, problem.scale, TypeInfo<T>::kOut);
        const double got = static_cast<float>(gradient[i]);
        if (gradient_out != nullptr) gradient_out->push_back(static_cast<float>(got));
        const double error = std::fabs(got - ref.gradient);
        if (!(error <= ref.bound)) {
            *message = Describe(problem) + ", " + TypeInfo<T>::kName + ": element " + std::to_string(i) + " is " +
                       Digits(got) + ", reference " + Digits(ref.gradient) + " (error " + Digits(error) + ", bound " +
                       Digits(ref.bound) + "; x " + Digits(x) + ", y " + Digits(y) + ", pos_weight " + Digits(pw) + ")";
            return false;
        }
        local.max_error_over_bound = std::max(local.max_error_over_bound, error / ref.bound);
        if (std::fabs(ref.gradient) >= TypeInfo<T>::kRelativeFloor) {
            local.max_relative_error = std::max(local.max_relative_error, error / std::fabs(ref.gradient));
        }
    }
    local.elements = n;
    stats->Merge(local);
    return true;
}

/// Hand-built TilingData of the kernel UTs (the NPU original's style): one core, one tile of
/// @p elements (a multiple of 32 bytes), every operand present of the same shape.
template <typename T>
SigmoidCrossEntropyWithLogitsGradV2TilingData OneTileTiling(uint64_t elements, bool weight, bool pos_weight,
                                                            float scale)
{
    SigmoidCrossEntropyWithLogitsGradV2TilingData t{};
    t.smallCoreDataNum = elements;
    t.bigCoreDataNum = elements;
    t.finalBigTileNum = 1;
    t.finalSmallTileNum = 1;
    t.tileDataNum = elements;
    t.smallTailDataNum = elements;
    t.bigTailDataNum = elements;
    t.tailBlockNum = 0;
    t.globalScale = scale;
    t.has_weight = weight ? 1 : 0;
    t.has_pos_weight = pos_weight ? 1 : 0;
    t.fp32_lite_mode = sizeof(T) == 4 ? 1 : 0;
    t.doutDataNum = elements;
    t.weightDataNum = weight ? elements : 0;
    t.posWeightDataNum = pos_weight ? elements : 0;
    return t;
}

/// Two big cores of 256 (tiles of 128) and a small core of 77: 589 elements, a ragged tail through
/// DataCopyPad; the operands present are of the same shape.
template <typename T>
SigmoidCrossEntropyWithLogitsGradV2TilingData BigAndSmallCores589Tiling(bool weight, bool pos_weight)
{
    SigmoidCrossEntropyWithLogitsGradV2TilingData t = OneTileTiling<T>(128, weight, pos_weight, 1.0f);
    t.bigCoreDataNum = 256;
    t.finalBigTileNum = 2;
    t.bigTailDataNum = 128;
    t.smallCoreDataNum = 77;
    t.finalSmallTileNum = 1;
    t.smallTailDataNum = 77;
    t.tailBlockNum = 2;
    t.doutDataNum = 589;
    t.weightDataNum = weight ? 589 : 0;
    t.posWeightDataNum = pos_weight ? 589 : 0;
    return t;
}

}  // namespace bce_grad_ascendc_test
