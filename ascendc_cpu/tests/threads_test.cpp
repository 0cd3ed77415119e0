// The threaded run order: all cores of a launch at once, one thread each. Run under
// ThreadSanitizer by the tsan preset (ctest label concurrency): a correct kernel shares nothing
// between cores but GM it only reads, and SyncAll orders what one core writes and another reads.
#include <cstring>
#include <vector>

#include "kernels/bce_grad_kernel.h"
#include "kernels/fault_kernels.h"
#include "twin_test_util.h"

namespace {

using twin_test::Describe;
using twin_test::Findings;
using twin_test::GmArray;
using twin_test::ScopedEnv;

template <typename T, typename Entry>
std::vector<float> RunBce(Entry entry, uint64_t elements, uint64_t cores)
{
    GmArray<T> predict(elements);
    GmArray<T> target(elements);
    GmArray<T> dout(elements);
    GmArray<T> gradient(elements);
    GmArray<BceGradTiling> tiling(1);
    tiling[0] = MakeBceGradTiling(elements, cores, 512, 1.0f);
    for (uint64_t i = 0; i < elements; ++i) {
        predict[i] = static_cast<T>(static_cast<float>(i % 23) - 11.0f);
        target[i] = static_cast<T>(static_cast<float>(i % 2));
        dout[i] = static_cast<T>(0.5f);
    }
    uint8_t* tl = tiling.gm();
    ICPU_RUN_KF(entry, cores, predict.gm(), target.gm(), dout.gm(), gradient.gm(), tl);
    std::vector<float> out(elements);
    for (uint64_t i = 0; i < elements; ++i) {
        out[i] = static_cast<float>(gradient[i]);
    }
    return out;
}

template <typename T, typename Entry>
void ExpectThreadsMatchInOrder(Entry entry)
{
    const std::vector<float> in_order = RunBce<T>(entry, 30001, 24);
    ASSERT_TRUE(Findings().empty()) << Describe(Findings());
    ScopedEnv env("ASCENDC_CPU_ORDER", "threads");
    for (int repeat = 0; repeat < 3; ++repeat) {
        const std::vector<float> threaded = RunBce<T>(entry, 30001, 24);
        ASSERT_TRUE(Findings().empty()) << Describe(Findings());
        ASSERT_EQ(std::memcmp(in_order.data(), threaded.data(), in_order.size() * sizeof(float)), 0);
    }
}

TEST(Threads, CorrectFloatKernelGivesTheInOrderBits)
{
    ExpectThreadsMatchInOrder<float>(&bce_grad_float);
}

TEST(Threads, CorrectHalfKernelGivesTheInOrderBits)
{
    ExpectThreadsMatchInOrder<half>(&bce_grad_half);
}

TEST(Threads, CorrectBfloat16KernelGivesTheInOrderBits)
{
    ExpectThreadsMatchInOrder<bfloat16_t>(&bce_grad_bfloat16);
}

TEST(Threads, SyncAllIsABarrierOfRunningCores)
{
    ScopedEnv env("ASCENDC_CPU_ORDER", "threads");
    const int cores = 8;
    GmArray<float> buf(cores * 8);
    GmArray<float> out(cores * 8);
    GmArray<FaultTiling> tiling(1);
    tiling[0] = FaultTiling{0, 8, 0, 1};
    uint8_t* tl = tiling.gm();
    for (int repeat = 0; repeat < 5; ++repeat) {
        ICPU_RUN_KF(neighbour_exchange, cores, buf.gm(), out.gm(), tl);
        ASSERT_TRUE(Findings().empty()) << Describe(Findings());
        for (int core = 0; core < cores; ++core) {
            ASSERT_EQ(out[core * 8 + 7], static_cast<float>((core + 1) % cores + 1));
        }
    }
}

TEST(Threads, AtomicAddsOfRunningCoresAllLand)
{
    ScopedEnv env("ASCENDC_CPU_ORDER", "threads");
    GmArray<float> out(8);
    GmArray<FaultTiling> tiling(1);
    tiling[0] = FaultTiling{0, 0, 0, 1};
    uint8_t* tl = tiling.gm();
    ICPU_RUN_KF(atomic_sum, 16, out.gm(), tl);
    ASSERT_TRUE(Findings().empty()) << Describe(Findings());
    EXPECT_EQ(out[0], 136.0f);  // 1 + 2 + ... + 16
}

TEST(Threads, FindingsOfManyCoresAreCountedOncePerCore)
{
    ScopedEnv env("ASCENDC_CPU_ORDER", "threads");
    GmArray<float> out(8);
    GmArray<FaultTiling> tiling(1);
    tiling[0] = FaultTiling{0, 0, 0, 0};
    uint8_t* tl = tiling.gm();
    ICPU_RUN_KF(use_after_free, 16, out.gm(), tl);
    EXPECT_EQ(Findings().size(), 16u) << Describe(Findings());
}

}  // namespace
