// `info`: what the CPU device is (SIMD target, threads, L2) and how the host tiling of an operator
// (--op) splits a problem on it and on the NPU original's Atlas A2.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <span>
#include <string>

#include "acl_session.h"
#include "aclnn/aclnn_cpu.h"
#include "cli_options.h"
#include "commands.h"
#include "platform/platform_info.h"
#include "ops/sigmoid_cross_entropy_with_logits_grad_v2/op_host/sigmoid_cross_entropy_with_logits_grad_v2_tiling.h"
#include "ops/sigmoid_cross_entropy_with_logits_v2/op_host/sigmoid_cross_entropy_with_logits_v2_tiling.h"
#include "ops/sigmoid_cross_entropy_with_logits_v2/op_kernel/sigmoid_cross_entropy_with_logits_v2.h"

namespace aclnn_bce_cli {

namespace {

using aclnn_cpu::FromAclnnReduction;
using aclnn_cpu::PlatformInfo;
using aclnn_cpu::ReductionType;
using namespace aclnn_cpu::bce_grad;

void PrintSplit(const aclnn_cpu::ElementwiseTilingData& d);

// Note [Blocks and threads in info]
// CANN's tiling splits a problem over "cores", the NPU's AI cores, and each core runs one block
// of the launch. On the CPU device the tiling's cores are blocks too, but more of them than
// threads: with several threads a launch has kCpuBlocksPerThread blocks per thread (Note [Blocks
// per thread]), which the worker pool's threads take in turn. So `info` prints "threads 2" and
// "cores 8" for one machine, and says which is which: the tiling's blockDim is the blocks a
// problem uses (at most the cores), the threads are what runs them.

/// The platform line of a tiling; @p cores_are says what its cores are on that platform.
void PrintPlatform(const PlatformInfo& platform, const std::string& cores_are) {
  std::printf("\ntiling on %s: cores %llu (%s), UB %llu bytes, block %llu bytes\n", platform.name.c_str(),
              static_cast<unsigned long long>(platform.core_num), cores_are.c_str(),
              static_cast<unsigned long long>(platform.ub_size), static_cast<unsigned long long>(platform.block_size));
}

/// What the CPU tiling's cores are for @p threads threads (Note [Blocks and threads in info]).
std::string CpuCoresAre(int threads) {
  if (threads == 1) return "blocks of a launch: one, run by the one thread";
  return "blocks of a launch: " + std::to_string(aclnn_cpu::kCpuBlocksPerThread) + " per thread, taken by the " +
         std::to_string(threads) + " threads in turn";
}

constexpr const char* kAtlasCoresAre = "AI cores, one block of a launch each";

constexpr uint64_t kDefaultNumel = 4096 * 1024;
constexpr uint64_t kKiB = 1024;

struct InfoOptions {
  std::string op = "backward";
  uint64_t numel = kDefaultNumel;
  std::string dtype = "fp32";
  std::string reduction = "mean";
  bool weight = false;
  bool pos_weight = false;
  int threads = 0;
};

/// The kernel dtype of a problem whose operands all have the --dtype of this name.
const std::map<std::string, KernelDType>& KernelDTypeChoices() {
  static const std::map<std::string, KernelDType> choices = {{"fp32", KernelDType::kFloat},
                                                             {"fp16", KernelDType::kFloat16},
                                                             {"bf16", KernelDType::kBFloat16},
                                                             {"fp64", KernelDType::kDouble}};
  return choices;
}

void PrintTiling(const PlatformInfo& platform, const std::string& cores_are, const TilingProblem& problem,
                 const std::string& dtype_name) {
  PrintPlatform(platform, cores_are);
  const auto tiling = ComputeTiling(platform, problem);
  if (!tiling) {
    std::printf("  no tiling (an empty problem runs no blocks)\n");
    return;
  }
  const auto& d = tiling->data;
  const auto row = [](const char* name, uint64_t value) {
    std::printf("  %-18s %llu\n", name, static_cast<unsigned long long>(value));
  };
  std::printf("  %-18s %u (%s, weight %d, pos_weight %d)\n", "tiling key", tiling->tiling_key, dtype_name.c_str(),
              TilingKeyHasWeight(tiling->tiling_key) ? 1 : 0, TilingKeyHasPosWeight(tiling->tiling_key) ? 1 : 0);
  PrintSplit(d);
  std::printf("  %-18s %.9g\n", "globalScale", static_cast<double>(d.globalScale));
  row("has_weight", d.has_weight);
  row("has_pos_weight", d.has_pos_weight);
}

/// The loss's tiling (the forward, or the fused call that also writes the gradient): the shared
/// split, with blocks of whole sum chunks for mean and sum.
void PrintLossTiling(const PlatformInfo& platform, const std::string& cores_are, const InfoOptions& options,
                     KernelDType dtype, ReductionType reduction) {
  PrintPlatform(platform, cores_are);
  // Dense operands: self, target, weight, pos_weight, the loss for none, the fused gradient.
  const int operands = 2 + (options.weight ? 1 : 0) + (options.pos_weight ? 1 : 0) +
                       (reduction == ReductionType::kNone ? 1 : 0) +
                       (ApiOfOp(options.op).Has("grad_input") ? 1 : 0);
  aclnn_cpu::OperandTraffic traffic[6];
  for (int i = 0; i < operands; ++i) traffic[i].dtype_bytes = KernelDTypeSize(dtype);
  const auto tiling = aclnn_cpu::bce_loss::ComputeLossTiling(
      platform, options.numel, dtype, reduction,
      std::span<const aclnn_cpu::OperandTraffic>(traffic, static_cast<size_t>(operands)));
  if (!tiling) {
    std::printf("  no tiling (an empty problem runs no blocks)\n");
    return;
  }
  PrintSplit(tiling->data);
  if (reduction != ReductionType::kNone) {
    std::printf("  %-18s %llu elements (blocks and tiles hold whole chunks)\n", "sum chunk",
                static_cast<unsigned long long>(aclnn_cpu::bce_loss::kSumChunkElems));
  }
}

/// The shared elementwise split of a tiling.
void PrintSplit(const aclnn_cpu::ElementwiseTilingData& d) {
  const auto row = [](const char* name, uint64_t value) {
    std::printf("  %-18s %llu\n", name, static_cast<unsigned long long>(value));
  };
  row("totalDataNum", d.totalDataNum);
  std::printf("  %-18s %llu (blocks this problem uses, at most the cores)\n", "blockDim",
              static_cast<unsigned long long>(d.blockDim));
  row("tailBlockNum", d.tailBlockNum);
  row("bigCoreDataNum", d.bigCoreDataNum);
  row("smallCoreDataNum", d.smallCoreDataNum);
  row("tileDataNum", d.tileDataNum);
  row("finalBigTileNum", d.finalBigTileNum);
  row("finalSmallTileNum", d.finalSmallTileNum);
  row("bigTailDataNum", d.bigTailDataNum);
  row("smallTailDataNum", d.smallTailDataNum);
  row("nonTemporalOut", d.nonTemporalOut);
}

int RunInfo(const InfoOptions& options) {
  if (options.threads > 0 && aclnnCpuSetNumThreads(options.threads) != ACL_SUCCESS) {
    throw AclFailure("aclnnCpuSetNumThreads", ACL_ERROR_INVALID_PARAM);
  }
  const char* env_threads = std::getenv("ACLNN_CPU_NUM_THREADS");
  const int threads = aclnnCpuGetNumThreads();
  // The caches the CPU tiling below uses: ACLNN_CPU_CACHES's when it is set and valid (Note
  // [Caches from the environment]), else this CPU's.
  const aclnn_cpu::CpuCaches caches = aclnn_cpu::ProbeCpuCaches();
  const char* env_caches = std::getenv("ACLNN_CPU_CACHES");
  std::string caches_error;
  const char* caches_from = env_caches != nullptr && aclnn_cpu::ParseCpuCaches(env_caches, &caches_error)
                                ? "from ACLNN_CPU_CACHES"
                                : "this CPU's";
  std::printf("%-16s %s (the best instruction set of this CPU, chosen at run time)\n", "SIMD target",
              aclnnCpuSimdTargetName());
  std::printf("%-16s %d (ACLNN_CPU_NUM_THREADS=%s): the worker pool that runs a launch's blocks\n", "threads",
              threads, env_threads != nullptr ? env_threads : "unset");
  std::printf("%-16s %llu KiB (%s; the CPU tiling's UB budget is half of it)\n", "L2 per core",
              static_cast<unsigned long long>(caches.l2_bytes_per_core / kKiB), caches_from);
  std::printf("%-16s %llu KiB (%s; problems moving more stream their output past it)\n", "last-level cache",
              static_cast<unsigned long long>(caches.llc_bytes / kKiB), caches_from);

  const KernelDType dtype = KernelDTypeChoices().at(options.dtype);
  const ReductionType reduction = *FromAclnnReduction(ReductionChoices().at(options.reduction));
  std::printf("\n%-16s %s\n", "operator", options.op.c_str());
  // The tiling each operator folder computes (the backward and the target gradient share one).
  namespace apis = aclnn_cpu::apis;
  const apis::ApiId op = ApiOfOp(options.op).id;
  if (op == apis::ApiId::kBinaryCrossEntropyWithLogits || op == apis::ApiId::kBinaryCrossEntropyWithLogitsFused) {
    std::printf("%-16s numel %llu, %s, weight %s, pos_weight %s, reduction %s, every operand dense\n", "problem",
                static_cast<unsigned long long>(options.numel), options.dtype.c_str(), options.weight ? "yes" : "no",
                options.pos_weight ? "yes" : "no", options.reduction.c_str());
    PrintLossTiling(aclnn_cpu::CpuPlatform(static_cast<uint64_t>(threads)), CpuCoresAre(threads), options, dtype,
                    reduction);
    PrintLossTiling(aclnn_cpu::AtlasA2Platform(), kAtlasCoresAre, options, dtype, reduction);
    return kExitSuccess;
  }
  if (op != apis::ApiId::kBinaryCrossEntropyWithLogitsBackward &&
      op != apis::ApiId::kBinaryCrossEntropyWithLogitsTargetBackward) {
    std::printf("%-16s the command line does not describe this operator's tiling\n", "tiling");
    return kExitSuccess;
  }
  // The backward and the target gradient share one plan and tiling (the latter reads no target).
  const TilingProblem problem = DenseTilingProblem(options.numel, dtype, options.weight, options.pos_weight, reduction);

  std::printf("%-16s numel %llu, %s, weight %s, pos_weight %s, reduction %s\n", "problem",
              static_cast<unsigned long long>(options.numel), options.dtype.c_str(), options.weight ? "yes" : "no",
              options.pos_weight ? "yes" : "no", options.reduction.c_str());
  std::printf("%-16s every operand dense in %s: %llu bytes moved and %llu bytes of tile per element\n", "",
              options.dtype.c_str(), static_cast<unsigned long long>(problem.bytes_per_element),
              static_cast<unsigned long long>(problem.ub_bytes_per_element));
  PrintTiling(aclnn_cpu::CpuPlatform(static_cast<uint64_t>(threads)), CpuCoresAre(threads), problem, options.dtype);
  PrintTiling(aclnn_cpu::AtlasA2Platform(), kAtlasCoresAre, problem, options.dtype);
  return kExitSuccess;
}

}  // namespace

void AddInfoCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* info = app.add_subcommand("info", "Show the SIMD target, threads, L2 per core and the tiling of a problem");
  // A tensor's element count is an int64 (aclTensor).
  info->add_option("--op", options->op,
                   "Operator, from the library's API list: backward, target-backward, forward or fused")
      ->check(CLI::IsMember(OpChoices()))
      ->capture_default_str();
  info->add_option("--numel", options->numel, "Elements of predict")->check(PlainDecimal(INT64_MAX));
  info->add_option("--dtype", options->dtype, "Element type of every operand")
      ->transform(CLI::IsMember(KernelDTypeChoices(), CLI::ignore_case));
  info->add_option("--reduction", options->reduction, "Reduction")
      ->transform(CLI::IsMember(ReductionChoices(), CLI::ignore_case));
  info->add_flag("--weight", options->weight, "The problem has a weight");
  info->add_flag("--pos-weight", options->pos_weight, "The problem has a pos_weight");
  info->add_option("--threads", options->threads, "Threads of the CPU device (0: the default)")
      ->check(PlainDecimal(kMaxThreads));
  info->callback([options, &exit_code] { exit_code = RunInfo(*options); });
}

}  // namespace aclnn_bce_cli
