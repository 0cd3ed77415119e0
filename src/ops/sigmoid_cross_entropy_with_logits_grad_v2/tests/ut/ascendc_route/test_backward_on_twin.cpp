// aclnnBinaryCrossEntropyWithLogitsBackward through the AscendC route (Note [AscendC route]): run
// with ACLNN_BCE_KERNELS=ascendc (and, for the refusal, with a value that is not a mode), each test
// skipping where the process runs another mode; registered under ctest with each environment
// (label aclnn_ascendc). ASCENDC_CPU_FATAL is left unset here: a finding must come back as a status.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "ascendc_route/kernels_mode.h"
#include "ascendc_route/twin_plan.h"
#include "common/bce_test_util.h"
#include "op_kernel/ascendc/sigmoid_cross_entropy_with_logits_grad_v2_ascendc_tiling_data.h"

namespace bce_test {
namespace {

using aclnn_cpu::ascendc_route::AscendcKernel;
using aclnn_cpu::ascendc_route::KernelsMode;
using aclnn_cpu::ascendc_route::ProcessKernelsSetting;
using aclnn_cpu::ascendc_route::SetTilingHookForTesting;

constexpr const char* kSecondPhase = "aclnnBinaryCrossEntropyWithLogitsBackward";
constexpr const char* kFirstPhase = "aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize";

#define SKIP_UNLESS_MODE(wanted)                                                             \
  if (ProcessKernelsSetting().mode != (wanted)) GTEST_SKIP() << "needs ACLNN_BCE_KERNELS for " #wanted

// Note [Faults on purpose]
// A kernel the twin finds at fault is made by a tiling hook (SetTilingHookForTesting): the test
// edits the TilingData of the launch as it lands in GM, here to make the last core read and write
// past the end of every tensor. The hook also counts the launches, which tells which kernels ran.
std::atomic<int> g_launches{0};
std::atomic<bool> g_overrun{false};

void CountAndMaybeOverrun(AscendcKernel kernel, void* tiling, size_t bytes) {
  ++g_launches;
  if (!g_overrun.load() || kernel != AscendcKernel::kSigmoidCrossEntropyWithLogitsGradV2) return;
  SigmoidCrossEntropyWithLogitsGradV2TilingData data;
  ASSERT_EQ(bytes, sizeof(data));
  std::memcpy(&data, tiling, sizeof(data));
  // 256 more elements on the last core's last tile: 1 KiB of fp32 past the end, an error (past
  // the 32 bytes of slack the twin tolerates as a warning).
  constexpr uint64_t kOverrun = 256;
  data.smallCoreDataNum += kOverrun;
  data.smallTailDataNum += kOverrun;
  data.tileDataNum += kOverrun;
  data.bigTailDataNum += kOverrun;
  std::memcpy(tiling, &data, sizeof(data));
}

class BackwardOnTwin : public ::testing::Test {
 protected:
  void SetUp() override {
    g_launches = 0;
    g_overrun = false;
    SetTilingHookForTesting(&CountAndMaybeOverrun);
  }
  void TearDown() override { SetTilingHookForTesting(nullptr); }
};

/// A random problem over @p dims with optional broadcast operands.
struct RandomProblem {
  TestTensor dout, x, y, out;
  std::unique_ptr<TestTensor> weight, pos_weight;
  RandomProblem(const std::vector<int64_t>& dims, aclDataType dtype, const std::vector<int64_t>& dout_dims,
                const std::vector<int64_t>* weight_dims, const std::vector<int64_t>* pos_weight_dims, uint64_t seed)
      : dout(dout_dims, dtype), x(dims, dtype), y(dims, dtype), out(dims, dtype) {
    FillRandom(dout, seed, -2, 2);
    FillRandom(x, seed + 1, -20, 20);
    FillRandom(y, seed + 2, 0, 1);
    if (weight_dims != nullptr) {
      weight = std::make_unique<TestTensor>(*weight_dims, dtype);
      FillRandom(*weight, seed + 3, 0, 2);
    }
    if (pos_weight_dims != nullptr) {
      pos_weight = std::make_unique<TestTensor>(*pos_weight_dims, dtype);
      FillRandom(*pos_weight, seed + 4, 0.25, 4);
    }
  }
  Problem Get(int64_t reduction) { return {&dout, &x, &y, weight.get(), pos_weight.get(), reduction, &out}; }
};

/// Runs @p p, expecting @p launches kernel launches on the twin and every element within the
/// reference's bound.
void ExpectLaunchesAndTheReference(const Problem& p, int launches) {
  g_launches = 0;
  ASSERT_EQ(RunOperator(p), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(g_launches.load(), launches);
  EXPECT_EQ(CheckAgainstReference(p).mismatches, 0);
}

TEST_F(BackwardOnTwin, EveryDTypeRunsTheKernelOnceAndMatchesTheReference) {
  SKIP_UNLESS_MODE(KernelsMode::kAscendc);
  for (const aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    const std::vector<int64_t> dims{37, 129}, row{129};
    RandomProblem r(dims, dtype, dims, &dims, &row, 11);
    ExpectLaunchesAndTheReference(r.Get(1), 1);
  }
}

TEST_F(BackwardOnTwin, PeriodicAndExpandedBroadcastsMatchTheReference) {
  SKIP_UNLESS_MODE(KernelsMode::kAscendc);
  // A 0-dim dout (period 1), a [N, 1] weight (expanded on the host), a [W] pos_weight over
  // [N, H, W] (its period), and a [H, W] weight with a [W] pos_weight (one shared period).
  const std::vector<int64_t> dims{6, 7, 50}, scalar{}, column{6, 1, 1}, row{50}, plane{7, 50};
  RandomProblem expanded(dims, ACL_FLOAT, scalar, &column, &row, 21);
  ExpectLaunchesAndTheReference(expanded.Get(0), 1);
  RandomProblem shared(dims, ACL_FLOAT16, row, &plane, &row, 22);
  ExpectLaunchesAndTheReference(shared.Get(2), 1);
}

TEST_F(BackwardOnTwin, MixedDTypesAreCastToThePromotedDType) {
  SKIP_UNLESS_MODE(KernelsMode::kAscendc);
  const std::vector<int64_t> dims{33, 65};
  TestTensor dout(dims, ACL_BF16), x(dims, ACL_FLOAT16), y(dims, ACL_FLOAT16), out(dims, ACL_FLOAT16);
  FillRandom(dout, 1, -2, 2);
  FillRandom(x, 2, -10, 10);
  FillRandom(y, 3, 0, 1);
  ExpectLaunchesAndTheReference({&dout, &x, &y, nullptr, nullptr, 0, &out}, 1);  // fp16 with bf16: fp32
}

TEST_F(BackwardOnTwin, StridedInputsATransposedOutAndAnInPlaceCallMatchTheReference) {
  SKIP_UNLESS_MODE(KernelsMode::kAscendc);
  const std::vector<int64_t> dims{24, 70};
  // self read with a step of 2 and an offset; out (of target's dtype, bf16: the fp32 result is
  // cast on the host) transposed in a padded storage.
  TestTensor x(dims, {150, 2}, 3, 24 * 150, ACL_FLOAT), y(dims, ACL_BF16), dout(dims, ACL_FLOAT);
  TestTensor out(dims, {1, 30}, 0, 30 * 70, ACL_BF16);
  FillRandom(x, 81, -8, 8);
  FillRandom(y, 82, 0, 1);
  FillRandom(dout, 83, -2, 2);
  ExpectLaunchesAndTheReference({&dout, &x, &y, nullptr, nullptr, 0, &out}, 1);
  // In place: out is gradOutput's very view; every input was copied into GM before the launch.
  TestTensor dout16(dims, ACL_BF16), dout16_copy(dims, ACL_BF16);
  for (int64_t i = 0; i < dout.numel(); ++i) {
    dout16.Set(i, dout.Get(i));
    dout16_copy.Set(i, dout.Get(i));
  }
  const Problem in_place{&dout16, &x, &y, nullptr, nullptr, 2, &dout16};
  ASSERT_EQ(RunOperator(in_place), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  TestTensor expected(dims, ACL_BF16);
  const Problem out_of_place{&dout16_copy, &x, &y, nullptr, nullptr, 2, &expected};
  ASSERT_EQ(RunOperator(out_of_place), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(SameViewBits(dout16, expected));
  EXPECT_EQ(g_launches.load(), 3);  // this test's three calls
}

TEST_F(BackwardOnTwin, Fp64RunsTheCpuKernels) {
  SKIP_UNLESS_MODE(KernelsMode::kAscendc);
  const std::vector<int64_t> dims{16, 40};
  RandomProblem r(dims, ACL_DOUBLE, dims, nullptr, nullptr, 31);
  ExpectLaunchesAndTheReference(r.Get(0), 0);
}

TEST_F(BackwardOnTwin, AnEmptySelfLaunchesNothing) {
  SKIP_UNLESS_MODE(KernelsMode::kAscendc);
  const std::vector<int64_t> dims{0, 5};
  RandomProblem r(dims, ACL_FLOAT, dims, nullptr, nullptr, 41);
  ASSERT_EQ(RunOperator(r.Get(0)), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(g_launches.load(), 0);
}

TEST_F(BackwardOnTwin, TheSecondPhaseReturnsAfterTheKernelHasRun) {
  SKIP_UNLESS_MODE(KernelsMode::kAscendc);
  const std::vector<int64_t> dims{8, 64};
  RandomProblem r(dims, ACL_FLOAT, dims, nullptr, nullptr, 51);
  const Problem p = r.Get(0);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  uint64_t workspace_size = 1;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(GradientCall(aclnn_cpu::apis::ApiId::kBinaryCrossEntropyWithLogitsBackward, p)
                .FirstPhase(&workspace_size, &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(workspace_size, 0u);  // GM is the twin's
  ASSERT_EQ(aclnnBinaryCrossEntropyWithLogitsBackward(nullptr, 0, executor, stream), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(CheckAgainstReference(p).mismatches, 0);  // read before any synchronize
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(BackwardOnTwin, AnErrorFindingFailsTheSecondPhaseAndLeavesOutUnwritten) {
  SKIP_UNLESS_MODE(KernelsMode::kAscendc);
  const std::vector<int64_t> dims{3, 100};
  RandomProblem r(dims, ACL_FLOAT, dims, nullptr, nullptr, 61);
  r.out.Poison();
  const std::vector<uint8_t> before = r.out.StorageBytes();
  g_overrun = true;
  PrimeRecentErrMsg();
  EXPECT_EQ(RunOperator(r.Get(0)), ACLNN_ERR_RUNTIME_ERROR);
  const std::string message = aclGetRecentErrMsg();
  const std::string start =
      std::string(kSecondPhase) + ": the AscendC kernel sigmoid_cross_entropy_with_logits_grad_v2 had ";
  EXPECT_EQ(message.rfind(start, 0), 0u) << message;
  EXPECT_NE(message.find("ascendc-cpu: error: gm-out-of-bounds"), std::string::npos) << message;
  EXPECT_EQ(FirstDifference(before, r.out.StorageBytes()), -1);
  // The next call, without the fault, succeeds.
  g_overrun = false;
  ExpectLaunchesAndTheReference(r.Get(0), 1);
}

/// In a death test's child: a faulty launch with ASCENDC_CPU_FATAL=1, after a launch queued on a
/// stream (fp64: the CPU kernels, long enough not to run inline) has installed the runtime's exit
/// handler, which waits for running launches: the twin's exit() must not come from inside one
/// (Note [Launches run by the caller]).
[[noreturn]] void FaultUnderFatal() {
  setenv("ASCENDC_CPU_FATAL", "1", 1);  // the twin reads it at each launch
  const std::vector<int64_t> big{1024, 1024};
  RandomProblem cpu(big, ACL_DOUBLE, big, nullptr, nullptr, 91);
  aclrtStream stream = nullptr;
  if (aclrtCreateStream(&stream) != ACL_SUCCESS || RunOperator(cpu.Get(0), stream) != ACLNN_SUCCESS) std::_Exit(3);
  const std::vector<int64_t> dims{3, 100};
  RandomProblem r(dims, ACL_FLOAT, dims, nullptr, nullptr, 92);
  g_overrun = true;
  (void)RunOperator(r.Get(0), stream);
  std::_Exit(0);  // not reached: the twin exits
}

TEST_F(BackwardOnTwin, UnderAscendcCpuFatalAnErrorFindingEndsTheProcessWithStatus1) {
  SKIP_UNLESS_MODE(KernelsMode::kAscendc);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(FaultUnderFatal(), ::testing::ExitedWithCode(1), "error: gm-out-of-bounds");
}

TEST_F(BackwardOnTwin, CallsFromSeveralThreadsEachGetTheirOwnResult) {
  SKIP_UNLESS_MODE(KernelsMode::kAscendc);
  constexpr int kThreads = 4;
  constexpr int kCallsPerThread = 3;
  std::vector<std::unique_ptr<RandomProblem>> problems;
  for (int t = 0; t < kThreads; ++t) {
    const std::vector<int64_t> dims{5 + t, 300 + 7 * t};
    problems.push_back(std::make_unique<RandomProblem>(dims, ACL_FLOAT, dims, nullptr, nullptr, 100 + t));
  }
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int c = 0; c < kCallsPerThread; ++c) {
        if (RunOperator(problems[t]->Get(0)) != ACLNN_SUCCESS) ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(g_launches.load(), kThreads * kCallsPerThread);
  for (auto& problem : problems) EXPECT_EQ(CheckAgainstReference(problem->Get(0)).mismatches, 0);
}

TEST(BackwardKernelsMode, AValueThatIsNoModeFailsTheFirstPhase) {
  SKIP_UNLESS_MODE(KernelsMode::kInvalid);
  const std::vector<int64_t> dims{4, 4};
  RandomProblem r(dims, ACL_FLOAT, dims, nullptr, nullptr, 71);
  PrimeRecentErrMsg();
  EXPECT_EQ(RunOperator(r.Get(0)), ACLNN_ERR_RUNTIME_ERROR);
  const std::string message = aclGetRecentErrMsg();
  EXPECT_EQ(message.rfind(std::string(kFirstPhase) + ": ACLNN_BCE_KERNELS='" + ProcessKernelsSetting().value +
                              "' is not a kernels mode: the allowed values are 'cpu'",
                          0),
            0u)
      << message;
}

TEST(BackwardKernelsMode, TheChecksComeBeforeTheModeIsRefused) {
  SKIP_UNLESS_MODE(KernelsMode::kInvalid);
  const std::vector<int64_t> dims{4, 4};
  RandomProblem r(dims, ACL_FLOAT, dims, nullptr, nullptr, 72);
  Problem p = r.Get(0);
  p.reduction = 7;
  EXPECT_EQ(RunOperator(p), ACLNN_ERR_PARAM_INVALID);
}

}  // namespace
}  // namespace bce_test
