// The AscendC loss kernel through the twin, tiled by the A2 tiling: every loss (none) and every
// reduced value (mean, sum) within the library's error bound of the float64 reference (Note
// [Bound of the fp32 sum] for the sums), no finding of the twin (ASCENDC_CPU_FATAL=1: a finding
// ends the program), exact-size GM buffers and workspace, every dtype, weight/pos_weight
// combination, broadcast form and reduction; the sums the same bits in every run order and for
// every core count. The quick part runs in ctest; BCE_ASCENDC_FULL_SWEEP=1 runs every count from
// 1 to 4096 and random sizes up to 64 Mi (docs/npu_kernels.md).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ascendc_loss_harness.h"
#include "op_host/a2/sigmoid_cross_entropy_with_logits_v2_a2_tiling.h"
#include "op_kernel/ascendc/sigmoid_cross_entropy_with_logits_v2_ascendc.h"

namespace bce_loss_ascendc_test {
namespace {

using aclnn_cpu::AtlasA2Platform;
using aclnn_cpu::PlatformInfo;
using aclnn_cpu::bce_loss::a2::A2LossDType;
using aclnn_cpu::bce_loss::a2::A2LossProblem;
using aclnn_cpu::bce_loss::a2::A2LossTiling;
using aclnn_cpu::bce_loss::a2::TileLossForAtlasA2;
using bce_ascendc_test::FullSweep;
using bce_ascendc_test::RandomRowLengthOf;
using bce_ascendc_test::RowLengthOf;
using bce_ascendc_test::SweepCounts;

// A twin finding ends the program, as in a CI run of CANN's CPU mode.
const bool kFatalChecks = (setenv("ASCENDC_CPU_FATAL", "1", 0), true);

template <typename T>
constexpr A2LossDType DTypeOf()
{
    return std::is_same<T, float>::value ? A2LossDType::kFloat
                                         : (std::is_same<T, half>::value ? A2LossDType::kHalf : A2LossDType::kBFloat16);
}

/// Tiles @p problem for @p platform and runs it; false with a message on any failure.
template <typename T>
bool TileRunAndCheck(const Problem& problem, uint64_t seed, ReductionStats* stats, std::string* message,
                     std::vector<float>* out = nullptr, const PlatformInfo& platform = AtlasA2Platform())
{
    const A2LossProblem a2{problem.total, DTypeOf<T>(), problem.weight_count, problem.pos_weight_count,
                           problem.reduction};
    A2LossTiling tiling;
    std::string error;
    if (!TileLossForAtlasA2(platform, a2, &tiling, &error)) {
        *message = Describe(problem) + ": tiling failed: " + error;
        return false;
    }
    return RunAndCheck<T>(&sigmoid_cross_entropy_with_logits_v2_typed<T>, problem, tiling.data, tiling.block_dim,
                          tiling.workspace_bytes, seed, stats, message, out);
}

template <typename T>
void Report(const char* what, const ReductionStats& stats)
{
    for (uint32_t r = 0; r < 3; ++r) {
        const ErrorStats& s = stats.of[r];
        if (s.elements == 0) continue;
        std::printf("[ stats    ] %s %s %s: %llu elements, max |err|/bound %.3g, max relative error %.3g\n", what,
                    DTypeName<T>::kName, ReductionName(r), static_cast<unsigned long long>(s.elements),
                    s.max_error_over_bound, s.max_relative_error);
    }
}

template <typename T>
class AscendcLossSweep : public testing::Test {};
using DataTypes = testing::Types<float, half, bfloat16_t>;
TYPED_TEST_SUITE(AscendcLossSweep, DataTypes);

/// Same-shape operands, each weight/pos_weight combination and each reduction, every count up to
/// the limit (4096 in the full sweep; the quick part takes 1-200 and the counts around tile,
/// chunk and core boundaries).
TYPED_TEST(AscendcLossSweep, EveryCountWithinTheBoundWithoutFindings)
{
    ReductionStats stats;
    for (uint64_t n : SweepCounts(200, {511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 3071, 3072, 3073, 4095,
                                        4096})) {
        for (int combo = 0; combo < 4; ++combo) {
            for (uint32_t reduction : {0u, 1u, 2u}) {
                const Problem p{n, (combo & 1) != 0 ? n : 0, (combo & 2) != 0 ? n : 0, reduction};
                std::string message;
                ASSERT_TRUE(TileRunAndCheck<TypeParam>(p, n * 12 + combo * 3 + reduction, &stats, &message))
                    << message;
            }
        }
    }
    Report<TypeParam>("every count", stats);
}

/// Every count as [n / C, C] for a divisor C of n (1 and n included), cycling through the 48
/// forms (weight, pos_weight absent / [1] / [C] / [n]; reduction none / mean / sum).
TYPED_TEST(AscendcLossSweep, EveryCountAsRowsWithEachBroadcastForm)
{
    const uint64_t limit = FullSweep() ? 4096 : 300;
    ReductionStats stats;
    for (uint64_t n = 1; n <= limit; ++n) {
        const uint64_t c = RowLengthOf(n);
        const uint64_t form = n % 48;
        const uint64_t weights[] = {0, 1, c, n};
        const Problem p{n, weights[form % 4], weights[(form / 4) % 4], static_cast<uint32_t>(form / 16)};
        std::string message;
        ASSERT_TRUE(TileRunAndCheck<TypeParam>(p, n * 31 + 5, &stats, &message)) << message;
    }
    Report<TypeParam>("every count as rows", stats);
}

/// [N, C] with weight and pos_weight absent / [1] / [C] / [N, C], each reduction: every
/// combination, with C below and above a tile (one period resident in UB, or a tile that wraps).
TYPED_TEST(AscendcLossSweep, BroadcastFormsWithinTheBoundWithoutFindings)
{
    const struct {
        uint64_t rows, cols;
    } shapes[] = {{1, 1},  {3, 1},    {1, 7},    {3, 5},     {7, 33},   {64, 100}, {300, 7},  {5, 1000},
                  {2, 3000}, {3, 4097}, {17, 2500}, {40, 1024}, {9, 2049}, {1000, 48}, {2, 70001}};
    ReductionStats stats;
    for (const auto& shape : shapes) {
        const uint64_t n = shape.rows * shape.cols;
        const uint64_t c = shape.cols;
        for (uint64_t weight : {uint64_t{0}, uint64_t{1}, c, n}) {
            for (uint64_t pos_weight : {uint64_t{0}, uint64_t{1}, c, n}) {
                for (uint32_t reduction : {0u, 1u, 2u}) {
                    const Problem p{n, weight, pos_weight, reduction};
                    std::string message;
                    ASSERT_TRUE(TileRunAndCheck<TypeParam>(p, n + weight * 13 + pos_weight * 17 + reduction, &stats,
                                                           &message))
                        << message;
                }
            }
        }
    }
    Report<TypeParam>("broadcast forms", stats);
}

/// Every order the twin runs the cores in gives the same bits: the losses, and the sums, whose
/// partials meet on core 0 after SyncAll.
TYPED_TEST(AscendcLossSweep, EveryRunOrderGivesTheSameBits)
{
    ReductionStats stats;
    for (uint32_t reduction : {0u, 1u, 2u}) {
        const Problem p{37 * 3000, 3000, 1, reduction};
        std::string message;
        std::vector<float> first;
        ASSERT_TRUE(TileRunAndCheck<TypeParam>(p, 99, &stats, &message, &first)) << message;
        for (const char* order : {"reverse", "shuffle:3", "threads"}) {
            setenv("ASCENDC_CPU_ORDER", order, 1);
            std::vector<float> again;
            const bool ok = TileRunAndCheck<TypeParam>(p, 99, &stats, &message, &again);
            unsetenv("ASCENDC_CPU_ORDER");
            ASSERT_TRUE(ok) << order << ": " << message;
            ASSERT_EQ(first.size(), again.size());
            ASSERT_EQ(std::memcmp(first.data(), again.data(), first.size() * sizeof(float)), 0)
                << order << ", " << ReductionName(reduction);
        }
    }
}

/// mean and sum are the same bits whatever the core count the platform offers (Note
/// [Deterministic sum across cores]): 1, 2, 7, 20 and 48 cores.
TYPED_TEST(AscendcLossSweep, TheSumIsTheSameForEveryCoreCount)
{
    ReductionStats stats;
    for (uint64_t n : {uint64_t{70007}, uint64_t{300006}}) {  // multiples of 7
        for (uint32_t reduction : {1u, 2u}) {
            const Problem p{n, n, 7, reduction};
            std::vector<float> first;
            std::string message;
            for (uint64_t cores : {1, 2, 7, 20, 48}) {
                PlatformInfo platform = AtlasA2Platform();
                platform.core_num = cores;
                platform.min_bytes_per_core = 1;
                std::vector<float> again;
                ASSERT_TRUE(TileRunAndCheck<TypeParam>(p, n, &stats, &message, &again, platform)) << message;
                if (first.empty()) first = again;
                ASSERT_EQ(std::memcmp(first.data(), again.data(), sizeof(float)), 0)
                    << cores << " cores, " << ReductionName(reduction) << ": " << again[0] << " vs " << first[0];
            }
        }
    }
    Report<TypeParam>("core counts", stats);
}

/// Seeded random sizes (up to 64 Mi elements in the full sweep, 1 Mi in the quick part), each
/// with a random broadcast form of a random last dimension (a divisor of the size) and reduction.
TYPED_TEST(AscendcLossSweep, RandomLargeSizesWithinTheBoundWithoutFindings)
{
    std::mt19937_64 rng(20261207);
    const int runs = FullSweep() ? 12 : 3;
    const uint64_t largest = FullSweep() ? uint64_t{64} << 20 : uint64_t{1} << 20;
    ReductionStats stats;
    for (int run = 0; run < runs; ++run) {
        const uint64_t n = std::uniform_int_distribution<uint64_t>(1, largest)(rng);
        const uint64_t c = RandomRowLengthOf(n, rng);
        const uint64_t forms[] = {0, 1, c, n};
        Problem p;
        p.total = n;
        p.weight_count = forms[rng() % 4];
        p.pos_weight_count = forms[rng() % 4];
        p.reduction = static_cast<uint32_t>(run % 3);
        std::string message;
        ASSERT_TRUE(TileRunAndCheck<TypeParam>(p, rng(), &stats, &message)) << message;
    }
    Report<TypeParam>("random sizes", stats);
}

}  // namespace
}  // namespace bce_loss_ascendc_test
