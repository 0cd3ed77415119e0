// The AscendC gradient kernels (of self, and of the target) through the twin, tiled by the A2
// tiling: every element within the library's error bound of the float64 reference, no finding of
// the twin (ASCENDC_CPU_FATAL=1: a finding ends the program), exact-size GM buffers, every dtype
// and optional-input combination, each broadcast form. The quick part runs in ctest;
// BCE_ASCENDC_FULL_SWEEP=1 runs every count from 1 to 4096 and random sizes up to 64 Mi
// (docs/npu_kernels.md).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ascendc_grad_harness.h"
#include "op_host/a2/sigmoid_cross_entropy_with_logits_grad_v2_a2_tiling.h"
#include "op_kernel/ascendc/sigmoid_cross_entropy_with_logits_grad_v2_ascendc.h"

namespace bce_grad_ascendc_test {
namespace {

using aclnn_cpu::AtlasA2Platform;
using aclnn_cpu::bce_grad::a2::A2GradProblem;
using aclnn_cpu::bce_grad::a2::A2GradTiling;
using aclnn_cpu::bce_grad::a2::TileGradForAtlasA2;

// A twin finding ends the program, as in a CI run of CANN's CPU mode.
const bool kFatalChecks = (setenv("ASCENDC_CPU_FATAL", "1", 0), true);

using bce_ascendc_test::FullSweep;
using bce_ascendc_test::RandomRowLengthOf;
using bce_ascendc_test::RowLengthOf;
using bce_ascendc_test::SweepCounts;

/// The kernel of a test case: data type T, the gradient of self or (OF_TARGET) of the target.
template <typename T, bool OF_TARGET>
struct Kernel {
    using DataType = T;
    static constexpr bool kOfTarget = OF_TARGET;
    static constexpr const char* kName = OF_TARGET ? "of target" : "of self";
    static constexpr KernelEntry kEntry = OF_TARGET ? &sigmoid_cross_entropy_with_logits_grad_v2_of_target_typed<T>
                                                    : &sigmoid_cross_entropy_with_logits_grad_v2_typed<T>;
};

/// Tiles @p problem for Atlas A2 and runs K's kernel on it; false with a message on any failure.
template <typename K>
bool TileRunAndCheck(Problem problem, uint64_t seed, ErrorStats* stats, std::string* message,
                     std::vector<float>* gradient_out = nullptr)
{
    using T = typename K::DataType;
    problem.of_target = K::kOfTarget;
    A2GradProblem a2;
    a2.total = problem.total;
    a2.dtype_bytes = sizeof(T);
    a2.dout_count = problem.dout_count;
    a2.weight_count = problem.weight_count;
    a2.pos_weight_count = problem.pos_weight_count;
    a2.scale = problem.scale;
    a2.of_target = problem.of_target;
    A2GradTiling tiling;
    std::string error;
    if (!TileGradForAtlasA2(AtlasA2Platform(), a2, &tiling, &error)) {
        *message = Describe(problem) + ": tiling failed: " + error;
        return false;
    }
    return RunAndCheck<T>(K::kEntry, problem, tiling.data, tiling.block_dim, seed, stats, message, gradient_out);
}

template <typename K>
void Report(const char* what, const ErrorStats& stats)
{
    std::printf("[ stats    ] %s %s %s: %llu elements, max |err|/bound %.3g, max relative error %.3g\n", K::kName,
                what, TypeInfo<typename K::DataType>::kName, static_cast<unsigned long long>(stats.elements),
                stats.max_error_over_bound, stats.max_relative_error);
}


/// Same-shape operands, each weight/pos_weight combination, every count up to the limit (4096
/// in the full sweep; the quick part takes 1-300 and the counts around tile and core boundaries).
template <typename K>
void EveryCountWithinTheBoundWithoutFindings()
{
    ErrorStats stats;
    for (uint64_t n : SweepCounts(300, {511, 512, 513, 1023, 1024, 1025, 1919, 1920, 1921, 2047, 2048, 2049, 2559,
                                        2560, 2561, 3071, 3072, 3073, 4095, 4096})) {
        for (int combo = 0; combo < 4; ++combo) {
            Problem p;
            p.total = n;
            p.dout_count = n;
            p.weight_count = (combo & 1) != 0 ? n : 0;
            p.pos_weight_count = (combo & 2) != 0 ? n : 0;
            p.scale = n % 2 == 0 ? 1.0f : 1.0f / static_cast<float>(n);
            std::string message;
            ASSERT_TRUE(TileRunAndCheck<K>(p, n * 4 + combo, &stats, &message)) << message;
        }
    }
    Report<K>("every count", stats);
}

/// Every count as [n / C, C] for a divisor C of n (1 and n included), cycling through the 48
/// broadcast forms (gradOutput [n] / [1] / [C]; weight, pos_weight absent / [1] / [C] / [n]).
template <typename K>
void EveryCountAsRowsWithEachBroadcastForm()
{
    const uint64_t limit = FullSweep() ? 4096 : 300;
    ErrorStats stats;
    for (uint64_t n = 1; n <= limit; ++n) {
        const uint64_t c = RowLengthOf(n);
        const uint64_t form = n % 48;
        const uint64_t douts[] = {n, 1, c};
        const uint64_t weights[] = {0, 1, c, n};
        Problem p{n, douts[form % 3], weights[(form / 3) % 4], weights[(form / 12) % 4],
                  n % 2 == 0 ? 1.0f : 1.0f / static_cast<float>(n)};
        std::string message;
        ASSERT_TRUE(TileRunAndCheck<K>(p, n * 31 + 5, &stats, &message)) << message;
    }
    Report<K>("every count as rows", stats);
}

/// The cores are independent: every order the twin runs them in gives the same bits.
template <typename K>
void EveryRunOrderGivesTheSameBits()
{
    const Problem p{37 * 3000, 1, 3000, 37 * 3000, 1.0f};
    ErrorStats stats;
    std::string message;
    std::vector<float> first;
    ASSERT_TRUE(TileRunAndCheck<K>(p, 99, &stats, &message, &first)) << message;
    for (const char* order : {"reverse", "shuffle:3", "threads"}) {
        setenv("ASCENDC_CPU_ORDER", order, 1);
        std::vector<float> again;
        const bool ok = TileRunAndCheck<K>(p, 99, &stats, &message, &again);
        unsetenv("ASCENDC_CPU_ORDER");
        ASSERT_TRUE(ok) << order << ": " << message;
        ASSERT_EQ(std::memcmp(first.data(), again.data(), first.size() * sizeof(float)), 0) << order;
    }
}

/// [N, C] with gradOutput [N, C] / [1] / [C] and weight, pos_weight absent / [1] / [C] / [N, C]:
/// every combination, with C below and above a tile (one period resident in UB, or a tile that
/// wraps once).
template <typename K>
void BroadcastFormsWithinTheBoundWithoutFindings()
{
    const struct {
        uint64_t rows, cols;
    } shapes[] = {{1, 1},  {3, 1},   {1, 7},    {3, 5},    {7, 33},   {64, 100}, {300, 7},  {5, 1000},
                  {2, 3000}, {3, 4097}, {17, 2500}, {40, 1024}, {9, 2049}, {1000, 48}, {2, 70001}};
    ErrorStats stats;
    for (const auto& shape : shapes) {
        const uint64_t n = shape.rows * shape.cols;
        const uint64_t c = shape.cols;
        for (uint64_t dout : {n, uint64_t{1}, c}) {
            for (uint64_t weight : {uint64_t{0}, uint64_t{1}, c, n}) {
                for (uint64_t pos_weight : {uint64_t{0}, uint64_t{1}, c, n}) {
                    Problem p{n, dout, weight, pos_weight, 1.0f / static_cast<float>(n)};
                    std::string message;
                    ASSERT_TRUE(TileRunAndCheck<K>(p, n + dout * 7 + weight * 13 + pos_weight * 17, &stats,
                                                           &message))
                        << message;
                }
            }
        }
    }
    Report<K>("broadcast forms", stats);
}

/// Seeded random sizes up to 4 Mi elements (and, in the full sweep, from 4 Mi to 64 Mi), each with
/// a random broadcast form of a random last dimension (a divisor of the size). A 64 Mi fp32 run
/// holds six tensors of 256 MiB: 1.5 GiB.
template <typename K>
void RandomLargeSizesWithinTheBoundWithoutFindings()
{
    std::mt19937_64 rng(20261207);
    constexpr uint64_t kMi = uint64_t{1} << 20;
    const int runs = FullSweep() ? 12 : 3;
    const int huge_runs = FullSweep() ? 6 : 0;
    ErrorStats stats, huge_stats;
    for (int run = 0; run < runs + huge_runs; ++run) {
        const bool huge = run >= runs;
        const uint64_t n = huge ? std::uniform_int_distribution<uint64_t>(4 * kMi + 1, 64 * kMi)(rng)
                                : std::uniform_int_distribution<uint64_t>(1, 4 * kMi)(rng);
        const uint64_t c = RandomRowLengthOf(n, rng);
        const uint64_t forms[] = {0, 1, c, n};
        Problem p;
        p.total = n;
        p.dout_count = rng() % 2 == 0 ? n : (rng() % 2 == 0 ? 1 : c);
        p.weight_count = forms[rng() % 4];
        p.pos_weight_count = forms[rng() % 4];
        p.scale = rng() % 2 == 0 ? 1.0f : 1.0f / static_cast<float>(n);
        std::string message;
        ASSERT_TRUE(TileRunAndCheck<K>(p, rng(), huge ? &huge_stats : &stats, &message)) << message;
    }
    Report<K>("random sizes", stats);
    if (huge_runs != 0) Report<K>("random sizes 4-64 Mi", huge_stats);
}

// Each check runs for both kernels and every data type: AscendcGradSweep (the gradient of self)
// and AscendcTargetGradSweep (of the target).
template <typename T>
class AscendcGradSweep : public testing::Test {};
template <typename T>
class AscendcTargetGradSweep : public testing::Test {};
using DataTypes = testing::Types<float, half, bfloat16_t>;
TYPED_TEST_SUITE(AscendcGradSweep, DataTypes);
TYPED_TEST_SUITE(AscendcTargetGradSweep, DataTypes);

#define BCE_GRAD_SWEEP_TEST(Name)                                          \
    TYPED_TEST(AscendcGradSweep, Name) { Name<Kernel<TypeParam, false>>(); } \
    TYPED_TEST(AscendcTargetGradSweep, Name) { Name<Kernel<TypeParam, true>>(); }

BCE_GRAD_SWEEP_TEST(EveryCountWithinTheBoundWithoutFindings)
BCE_GRAD_SWEEP_TEST(EveryCountAsRowsWithEachBroadcastForm)
BCE_GRAD_SWEEP_TEST(EveryRunOrderGivesTheSameBits)
BCE_GRAD_SWEEP_TEST(BroadcastFormsWithinTheBoundWithoutFindings)
BCE_GRAD_SWEEP_TEST(RandomLargeSizesWithinTheBoundWithoutFindings)

}  // namespace
}  // namespace bce_grad_ascendc_test
