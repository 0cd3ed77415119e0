// Each check, by a kernel that commits exactly that fault: the finding names the check, the core
// and the tensor (the ICPU_RUN_KF argument of the GM buffer, or the UB buffer).
#include <cmath>
#include <string>

#include "kernels/fault_kernels.h"
#include "twin_test_util.h"

namespace {

using ascendc_cpu::Severity;
using twin_test::Describe;
using twin_test::Findings;
using twin_test::GmArray;
using twin_test::HasFinding;
using twin_test::OnlyCheck;

GmArray<FaultTiling>* NewTiling(uint32_t mode, uint32_t count = 0, uint32_t stride = 0, uint32_t flag = 0)
{
    auto* tiling = new GmArray<FaultTiling>(1);
    (*tiling)[0] = FaultTiling{mode, count, stride, flag};
    return tiling;
}

TEST(Checks, GmReadPastTheEndIsAnErrorOnTheCoreThatReads)
{
    GmArray<float> x(100);  // core 1 reads floats [64, 128)
    GmArray<float> out(128);
    std::unique_ptr<GmArray<FaultTiling>> tiling(NewTiling(0, 64, 64));
    uint8_t* tl = tiling->gm();
    ICPU_RUN_KF(copy_tiles, 2, x.gm(), out.gm(), tl);
    EXPECT_TRUE(OnlyCheck("gm-out-of-bounds")) << Describe(Findings());
    EXPECT_TRUE(HasFinding("gm-out-of-bounds", 1, "x.gm()")) << Describe(Findings());
    EXPECT_EQ(Findings().size(), 1u) << Describe(Findings());
}

TEST(Checks, GmOverrunInsideAclrtMallocSlackIsAWarning)
{
    GmArray<float> x(120);  // 480 bytes, tolerated up to 512
    GmArray<float> out(128);
    std::unique_ptr<GmArray<FaultTiling>> tiling(NewTiling(0, 64, 64));
    uint8_t* tl = tiling->gm();
    ICPU_RUN_KF(copy_tiles, 2, x.gm(), out.gm(), tl);
    EXPECT_TRUE(HasFinding("gm-out-of-bounds", 1, "x.gm()", Severity::kWarning)) << Describe(Findings());
    EXPECT_EQ(Findings().size(), 1u) << Describe(Findings());
}

TEST(Checks, TwoCoresWritingTheSameGmBytesRace)
{
    GmArray<float> x(64);
    GmArray<float> out(64);
    std::unique_ptr<GmArray<FaultTiling>> tiling(NewTiling(0, 64, 0));  // every core the same tile
    uint8_t* tl = tiling->gm();
    ICPU_RUN_KF(copy_tiles, 2, x.gm(), out.gm(), tl);
    EXPECT_TRUE(HasFinding("gm-race", 1, "out.gm()")) << Describe(Findings());
    EXPECT_EQ(Findings().size(), 1u) << Describe(Findings());
}

TEST(Checks, ReadingAnotherCoresGmWritesWithoutSyncAllRaces)
{
    GmArray<float> buf(4 * 8);
    GmArray<float> out(4 * 8);
    std::unique_ptr<GmArray<FaultTiling>> tiling(NewTiling(0, 8, 0, 0));
    uint8_t* tl = tiling->gm();
    ICPU_RUN_KF(neighbour_exchange, 4, buf.gm(), out.gm(), tl);
    EXPECT_TRUE(OnlyCheck("gm-race")) << Describe(Findings());
    // Core 3 reads floats [0, 8), which core 0 writes.
    EXPECT_TRUE(HasFinding("gm-race", 3, "buf.gm()")) << Describe(Findings());
}

TEST(Checks, SyncAllOrdersOneCoresWritesBeforeAnothersReads)
{
    GmArray<float> buf(4 * 8);
    GmArray<float> out(4 * 8);
    std::unique_ptr<GmArray<FaultTiling>> tiling(NewTiling(0, 8, 0, 1));
    uint8_t* tl = tiling->gm();
    for (const char* order : {"in-order", "reverse", "shuffle:3"}) {
        twin_test::ScopedEnv env("ASCENDC_CPU_ORDER", order);
        ICPU_RUN_KF(neighbour_exchange, 4, buf.gm(), out.gm(), tl);
        EXPECT_TRUE(Findings().empty()) << order << "\n" << Describe(Findings());
        for (int core = 0; core < 4; ++core) {
            EXPECT_EQ(out[core * 8], static_cast<float>((core + 1) % 4 + 1)) << order << " core " << core;
        }
    }
}

TEST(Checks, AtomicAddsToTheSameGmBytesDoNotRace)
{
    GmArray<float> out(8);
    std::unique_ptr<GmArray<FaultTiling>> tiling(NewTiling(0, 0, 0, 1));
    uint8_t* tl = tiling->gm();
    ICPU_RUN_KF(atomic_sum, 4, out.gm(), tl);
    EXPECT_TRUE(Findings().empty()) << Describe(Findings());
    for (int i = 0; i < 8; ++i) {
        EXPECT_EQ(out[i], 1.0f + 2.0f + 3.0f + 4.0f);
    }
}

TEST(Checks, PlainWritesToTheSameGmBytesRace)
{
    GmArray<float> out(8);
    std::unique_ptr<GmArray<FaultTiling>> tiling(NewTiling(0, 0, 0, 0));
    uint8_t* tl = tiling->gm();
    ICPU_RUN_KF(atomic_sum, 4, out.gm(), tl);
    EXPECT_TRUE(OnlyCheck("gm-race")) << Describe(Findings());
    EXPECT_TRUE(HasFinding("gm-race", 1, "out.gm()")) << Describe(Findings());
}

TEST(Checks, BuffersPastUbOverflow)
{
    GmArray<float> x(8);
    std::unique_ptr<GmArray<FaultTiling>> tiling(NewTiling(0));
    uint8_t* tl = tiling->gm();
    ICPU_RUN_KF(ub_overflow, 1, x.gm(), tl);
    EXPECT_TRUE(OnlyCheck("ub-overflow")) << Describe(Findings());
    EXPECT_TRUE(HasFinding("ub-overflow", 0, "")) << Describe(Findings());
}

TEST(Checks, MoreThanSixtyFourBuffersOverflow)
{
    GmArray<float> x(8);
    std::unique_ptr<GmArray<FaultTiling>> tiling(NewTiling(1));
    uint8_t* tl = tiling->gm();
    ICPU_RUN_KF(ub_overflow, 1, x.gm(), tl);
    EXPECT_TRUE(HasFinding("ub-overflow", 0, "")) << Describe(Findings());
    EXPECT_EQ(Findings().size(), 1u) << Describe(Findings());
}

TEST(Checks, BuffersInTheReservedTopOfUbAreAWarning)
{
    GmArray<float> x(8);
    std::unique_ptr<GmArray<FaultTiling>> tiling(NewTiling(2));
    uint8_t* tl = tiling->gm();
    ICPU_RUN_KF(ub_overflow, 1, x.gm(), tl);
    EXPECT_TRUE(HasFinding("ub-overflow", 0, "", Severity::kWarning)) << Describe(Findings());
    EXPECT_EQ(Findings().size(), 1u) << Describe(Findings());
}

TEST(Checks, VectorOperandOffTheThirtyTwoByteGridIsMisaligned)
{
    GmArray<float> out(8);
    std::unique_ptr<GmArray<FaultTiling>> tiling(NewTiling(0));
    uint8_t* tl = tiling->gm();
    ICPU_RUN_KF(ub_misaligned, 1, out.gm(), tl);
    EXPECT_TRUE(OnlyCheck("ub-misaligned")) << Describe(Findings());
    EXPECT_TRUE(HasFinding("ub-misaligned", 0, "ub:VECCALC#0")) << Describe(Findings());
}

TEST(Checks, DataCopyOfAnUnalignedLengthIsRoundedDownAndReported)
{
    GmArray<float> x(64);
    GmArray<float> out(64);
    for (int i = 0; i < 64; ++i) {
        x[i] = static_cast<float>(i + 1);
    }
    std::unique_ptr<GmArray<FaultTiling>> tiling(NewTiling(0, 10));  // 40 bytes
    uint8_t* tl = tiling->gm();
    ICPU_RUN_KF(datacopy_unaligned, 1, x.gm(), out.gm(), tl);
    EXPECT_TRUE(OnlyCheck("datacopy-unaligned")) << Describe(Findings());
    EXPECT_TRUE(HasFinding("datacopy-unaligned", 0, "x.gm()")) << Describe(Findings());
    for (int i = 0; i < 8; ++i) {
        EXPECT_EQ(out[i], static_cast<float>(i + 1));
    }
    EXPECT_EQ(out[8], 0.0f);  // the NPU moves 32 of the 40 bytes
    EXPECT_EQ(out[9], 0.0f);
}

class QueueMisuse : public testing::TestWithParam<uint32_t> {};

TEST_P(QueueMisuse, IsReportedOnTheQueuesBuffer)
{
    GmArray<float> x(64);
    std::unique_ptr<GmArray<FaultTiling>> tiling(NewTiling(GetParam()));
    uint8_t* tl = tiling->gm();
    ICPU_RUN_KF(queue_misuse, 1, x.gm(), tl);
    EXPECT_TRUE(OnlyCheck("queue-misuse")) << Describe(Findings());
    EXPECT_EQ(Findings().front().core, 0);
    EXPECT_EQ(Findings().front().tensor.rfind("ub:VECIN#", 0), 0u) << Describe(Findings());
}

INSTANTIATE_TEST_SUITE_P(Checks, QueueMisuse, testing::Values(0u, 1u, 2u, 3u, 4u));

TEST(Checks, TensorUsedAfterFreeTensor)
{
    GmArray<float> out(8);
    std::unique_ptr<GmArray<FaultTiling>> tiling(NewTiling(0));
    uint8_t* tl = tiling->gm();
    ICPU_RUN_KF(use_after_free, 1, out.gm(), tl);
    EXPECT_TRUE(OnlyCheck("use-after-free")) << Describe(Findings());
    EXPECT_TRUE(HasFinding("use-after-free", 0, "ub:VECOUT#0")) << Describe(Findings());
}

TEST(Checks, CountPastTheBufferIsOutOfBoundsAndNotExecuted)
{
    GmArray<float> out(8);
    std::unique_ptr<GmArray<FaultTiling>> tiling(NewTiling(0, 128));
    uint8_t* tl = tiling->gm();
    ICPU_RUN_KF(ub_out_of_bounds, 1, out.gm(), tl);
    EXPECT_TRUE(OnlyCheck("ub-out-of-bounds")) << Describe(Findings());
    EXPECT_TRUE(HasFinding("ub-out-of-bounds", 0, "ub:VECCALC#0")) << Describe(Findings());
}

TEST(Checks, UbBytesNeverWrittenReachingGmAreUninitialized)
{
    GmArray<float> out(64);
    std::unique_ptr<GmArray<FaultTiling>> tiling(NewTiling(0, 56));  // 8 floats never written
    uint8_t* tl = tiling->gm();
    ICPU_RUN_KF(uninitialized, 1, out.gm(), tl);
    EXPECT_TRUE(OnlyCheck("uninitialized")) << Describe(Findings());
    EXPECT_TRUE(HasFinding("uninitialized", 0, "out.gm()")) << Describe(Findings());
    EXPECT_NE(Findings().front().detail.find("32 byte(s)"), std::string::npos) << Describe(Findings());
}

TEST(Checks, VectorReadBeforeItsDmaLandsSeesStaleDataAndIsReported)
{
    GmArray<float> x(64);
    GmArray<float> out(64);
    for (int i = 0; i < 64; ++i) {
        x[i] = static_cast<float>(i);
    }
    std::unique_ptr<GmArray<FaultTiling>> tiling(NewTiling(0, 0, 0, 0));
    uint8_t* tl = tiling->gm();
    ICPU_RUN_KF(missing_sync, 1, x.gm(), out.gm(), tl);
    EXPECT_TRUE(OnlyCheck("missing-sync")) << Describe(Findings());
    EXPECT_TRUE(HasFinding("missing-sync", 0, "x.gm()")) << Describe(Findings());
    EXPECT_EQ(Findings().front().api, "Muls");
    EXPECT_NE(out[5], 10.0f);  // the multiplication worked on stale UB
}

TEST(Checks, WaitFlagMakesTheSameKernelCorrect)
{
    GmArray<float> x(64);
    GmArray<float> out(64);
    for (int i = 0; i < 64; ++i) {
        x[i] = static_cast<float>(i);
    }
    std::unique_ptr<GmArray<FaultTiling>> tiling(NewTiling(0, 0, 0, 1));
    uint8_t* tl = tiling->gm();
    ICPU_RUN_KF(missing_sync, 1, x.gm(), out.gm(), tl);
    EXPECT_TRUE(Findings().empty()) << Describe(Findings());
    for (int i = 0; i < 64; ++i) {
        EXPECT_EQ(out[i], 2.0f * i);
    }
}

TEST(Checks, CastA2DoesNotHaveIsUnsupported)
{
    GmArray<float> out(8);
    std::unique_ptr<GmArray<FaultTiling>> tiling(NewTiling(0));
    uint8_t* tl = tiling->gm();
    ICPU_RUN_KF(unsupported, 1, out.gm(), tl);
    EXPECT_TRUE(OnlyCheck("unsupported")) << Describe(Findings());
    EXPECT_TRUE(HasFinding("unsupported", 0, "")) << Describe(Findings());
    EXPECT_NE(Findings().front().detail.find("half to float in CAST_RINT"), std::string::npos)
        << Describe(Findings());
}

TEST(Checks, ArithmeticOnBfloat16IsUnsupportedOnA2)
{
    GmArray<float> out(8);
    std::unique_ptr<GmArray<FaultTiling>> tiling(NewTiling(1));
    uint8_t* tl = tiling->gm();
    ICPU_RUN_KF(unsupported, 1, out.gm(), tl);
    EXPECT_TRUE(OnlyCheck("unsupported")) << Describe(Findings());
    EXPECT_EQ(Findings().front().api, "Add");
}

TEST(Checks, BlockLenNotAMultipleOfTheElementIsAnInvalidArgument)
{
    GmArray<float> x(64);
    std::unique_ptr<GmArray<FaultTiling>> tiling(NewTiling(0));
    uint8_t* tl = tiling->gm();
    ICPU_RUN_KF(invalid_argument, 1, x.gm(), tl);
    EXPECT_TRUE(OnlyCheck("invalid-argument")) << Describe(Findings());
    EXPECT_TRUE(HasFinding("invalid-argument", 0, "")) << Describe(Findings());
    EXPECT_EQ(Findings().front().api, "DataCopyPad");
}

TEST(Checks, FindingLineHasTheDocumentedFormat)
{
    ascendc_cpu::Finding f;
    f.severity = Severity::kError;
    f.check = "gm-out-of-bounds";
    f.kernel = "k";
    f.core = 3;
    f.api = "DataCopy";
    f.detail = "reads 4 byte(s) past the end";
    f.tensor = "x";
    EXPECT_EQ(ascendc_cpu::FormatFinding(f),
              "ascendc-cpu: error: gm-out-of-bounds: k core 3: DataCopy: reads 4 byte(s) past the end ('x')");
    f.severity = Severity::kWarning;
    EXPECT_EQ(ascendc_cpu::FormatFinding(f).rfind("ascendc-cpu: warning: gm-out-of-bounds: ", 0), 0u);
}

TEST(Checks, FatalExitsNonZeroAfterARunWithAnError)
{
    GmArray<float> out(8);
    std::unique_ptr<GmArray<FaultTiling>> tiling(NewTiling(0));
    uint8_t* tl = tiling->gm();
    EXPECT_EXIT(
        {
            setenv("ASCENDC_CPU_FATAL", "1", 1);
            ICPU_RUN_KF(use_after_free, 1, out.gm(), tl);
            std::exit(0);
        },
        testing::ExitedWithCode(1), "use_after_free: 1 cores, 1 errors, 0 warnings");
}

}  // namespace
