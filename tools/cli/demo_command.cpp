// `demo`: the CANN sample's scenario (seed document, section 5.3) through the public API.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "acl_session.h"
#include "aclnn/aclnn_cpu.h"
#include "commands.h"

namespace aclnn_bce_cli {

namespace {

// predict = 1, target = 0.5, gradOutput = 1, weight = 1, posWeight = 2, 32 x 32 fp32, mean:
// every output is (1.5 * sigmoid(1) - 1) / 1024.
constexpr int64_t kSide = 32;
constexpr double kPredict = 1.0;
constexpr double kTarget = 0.5;
constexpr double kGradOutput = 1.0;
constexpr double kWeight = 1.0;
constexpr double kPosWeight = 2.0;
constexpr int64_t kReductionMean = 1;
/// The seed's value, to 8 significant digits.
constexpr double kExpected = 9.4324090e-05;
/// fp32 gives the value within a few ulp, times ~11 for the cancellation in (1.5 p - 1).
constexpr double kRelativeTolerance = 1e-5;
constexpr int64_t kPrinted = 8;

void Fill(DeviceTensor& tensor, double value) {
  for (int64_t i = 0; i < tensor.numel(); ++i) tensor.Set(i, value);
  tensor.Upload();
}

int RunDemo() {
  AclSession session;
  const std::vector<int64_t> shape = {kSide, kSide};
  DeviceTensor predict(shape, ACL_FLOAT), target(shape, ACL_FLOAT), grad_output(shape, ACL_FLOAT),
      weight(shape, ACL_FLOAT), pos_weight(shape, ACL_FLOAT), out(shape, ACL_FLOAT);
  Fill(predict, kPredict);
  Fill(target, kTarget);
  Fill(grad_output, kGradOutput);
  Fill(weight, kWeight);
  Fill(pos_weight, kPosWeight);

  std::printf("aclnnBinaryCrossEntropyWithLogitsBackward on the CPU device (SIMD target %s, %d threads)\n",
              aclnnCpuSimdTargetName(), aclnnCpuGetNumThreads());
  std::printf("inputs: predict=%g target=%g gradOutput=%g weight=%g posWeight=%g, [%lld,%lld] fp32, reduction mean\n",
              kPredict, kTarget, kGradOutput, kWeight, kPosWeight, static_cast<long long>(kSide),
              static_cast<long long>(kSide));
  namespace apis = aclnn_cpu::apis;
  apis::Operands operands;
  operands.Set("grad_output", grad_output.get()).Set("self", predict.get()).Set("target", target.get());
  operands.Set("weight", weight.get()).Set("pos_weight", pos_weight.get()).Set("out", out.get());
  operands.SetInt("reduction", kReductionMean);
  const CallTiming timing =
      RunApi(apis::Get(apis::ApiId::kBinaryCrossEntropyWithLogitsBackward), operands, session.stream());
  out.Download();

  std::printf("out[0..%lld]:", static_cast<long long>(kPrinted - 1));
  for (int64_t i = 0; i < kPrinted; ++i) std::printf(" %.7e", out.Get(i));
  std::printf("\nexpected:    %.7e = (1.5 * sigmoid(1) - 1) / %lld\n", kExpected,
              static_cast<long long>(kSide * kSide));

  double max_relative_error = 0;
  int64_t mismatches = 0;
  for (int64_t i = 0; i < out.numel(); ++i) {
    const double relative_error = std::fabs(out.Get(i) - kExpected) / kExpected;
    if (!(relative_error <= kRelativeTolerance)) ++mismatches;
    if (!std::isnan(relative_error)) max_relative_error = std::max(max_relative_error, relative_error);
  }
  std::printf("max relative error over %lld outputs: %.2e (tolerance %.0e), workspace %llu bytes\n",
              static_cast<long long>(out.numel()), max_relative_error, kRelativeTolerance,
              static_cast<unsigned long long>(timing.workspace_bytes));
  if (mismatches != 0) {
    std::printf("FAIL: %lld outputs differ from the expected value\n", static_cast<long long>(mismatches));
    return kExitCheckFailed;
  }
  std::printf("PASS\n");
  return kExitSuccess;
}

}  // namespace

void AddDemoCommand(CLI::App& app, int& exit_code) {
  CLI::App* demo = app.add_subcommand(
      "demo", "Run the CANN sample's scenario (32x32 fp32, mean) and check it against the seed's value");
  demo->callback([&exit_code] { exit_code = RunDemo(); });
}

}  // namespace aclnn_bce_cli
