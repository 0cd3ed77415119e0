// aclnn_bce_cli as a script sees it (README "Command line"): every value an option does not accept
// is refused with a message and exit code 2, a problem too large for the machine with exit code 3
// before anything is allocated, and --help documents the exit codes. See Note [Exit codes].
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace {

constexpr int kExitSuccess = 0;
constexpr int kExitUsage = 2;
constexpr int kExitResource = 3;

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

/// Runs aclnn_bce_cli with @p args (no shell: each argument reaches the program as written) and
/// collects its exit code and output. @p env: "NAME=value" entries that replace or add to this
/// process's environment.
CliResult RunCli(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/aclnn_bce_cli_test.XXXXXX";
  CliResult result;
  if (mkdtemp(dir.data()) == nullptr) {
    ADD_FAILURE() << "mkdtemp " << dir;
    return result;
  }
  const std::string out_path = dir + "/stdout";
  const std::string err_path = dir + "/stderr";
  std::vector<std::string> argv_text = {ACLNN_BCE_CLI_PATH};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& arg : argv_text) argv.push_back(arg.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<std::string> env_text = env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const std::string name = text.substr(0, text.find('='));
    const bool replaced = std::any_of(env.begin(), env.end(), [&](const std::string& e) {
      return e.compare(0, name.size() + 1, name + "=") == 0;
    });
    if (!replaced) env_text.push_back(text);
  }
  std::vector<char*> envp;
  for (std::string& entry : env_text) envp.push_back(entry.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    ADD_FAILURE() << "posix_spawn " << argv[0] << ": error " << spawned;
  } else {
    int status = 0;
    if (waitpid(pid, &status, 0) == pid && WIFEXITED(status)) {
      result.exit_code = WEXITSTATUS(status);
    } else {
      ADD_FAILURE() << "aclnn_bce_cli did not exit normally (status " << status << ")";
    }
    result.out = ReadFile(out_path);
    result.err = ReadFile(err_path);
  }
  std::remove(out_path.c_str());
  std::remove(err_path.c_str());
  rmdir(dir.c_str());
  return result;
}

/// For failure messages: what the program printed.
std::string Printed(const CliResult& r) { return "stdout:\n" + r.out + "\nstderr:\n" + r.err; }

void ExpectUsageError(const std::vector<std::string>& args, const std::string& message) {
  const CliResult r = RunCli(args);
  std::string command;
  for (const std::string& arg : args) command += " '" + arg + "'";
  EXPECT_EQ(r.exit_code, kExitUsage) << command << "\n" << Printed(r);
  EXPECT_NE(r.err.find(message), std::string::npos) << command << ": expected '" << message << "'\n" << Printed(r);
}

// A small problem that runs in milliseconds, to which each test adds the value under test.
std::vector<std::string> SmallRun(std::vector<std::string> extra) {
  std::vector<std::string> args = {"run", "--threads", "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  if (std::find(extra.begin(), extra.end(), "--shape") == extra.end()) {
    args.insert(args.end(), {"--shape", "4x4"});
  }
  return args;
}

// Note [Shape spellings]: the spellings of the Python golden tool's --shape.
TEST(CliShape, DimsSeparatedByXOrByCommaAreTheSameShape) {
  for (const char* shape : {"3x4x5", "3,4,5"}) {
    const CliResult r = RunCli(SmallRun({"--shape", shape}));
    EXPECT_EQ(r.exit_code, kExitSuccess) << shape << "\n" << Printed(r);
    EXPECT_NE(r.out.find("self [3,4,5] fp32"), std::string::npos) << shape << "\n" << Printed(r);
  }
}

TEST(CliShape, EmptyScalarAndParenthesesAreTheZeroDimShape) {
  for (const char* shape : {"", "scalar", "()"}) {
    const CliResult r = RunCli(SmallRun({"--shape", shape, "--check"}));
    EXPECT_EQ(r.exit_code, kExitSuccess) << "'" << shape << "'\n" << Printed(r);
    EXPECT_NE(r.out.find("self [] fp32"), std::string::npos) << "'" << shape << "'\n" << Printed(r);
  }
}

TEST(CliShape, OneDimAloneIsAOneDimShape) {
  const CliResult r = RunCli(SmallRun({"--shape", "7"}));
  EXPECT_EQ(r.exit_code, kExitSuccess) << Printed(r);
  EXPECT_NE(r.out.find("self [7] fp32"), std::string::npos) << Printed(r);
}

TEST(CliShape, MixedSeparatorsAreRefused) {
  ExpectUsageError(SmallRun({"--shape", "4x4,4"}), "'4x4' is not a dim");
  ExpectUsageError(SmallRun({"--shape", "4,4x4"}), "'4x4' is not a dim");
}

TEST(CliShape, SpacesAreRefused) {
  ExpectUsageError(SmallRun({"--shape", " 4"}), "' 4' is not a dim");
  ExpectUsageError(SmallRun({"--shape", "4x 4"}), "' 4' is not a dim");
  ExpectUsageError(SmallRun({"--shape", "4 "}), "'4 ' is not a dim");
}

TEST(CliShape, SignsAreRefused) {
  ExpectUsageError(SmallRun({"--shape", "+4"}), "'+4' is not a dim");
  ExpectUsageError(SmallRun({"--shape", "4x+4"}), "'+4' is not a dim");
  ExpectUsageError(SmallRun({"--shape", "4x-4"}), "'-4' is not a dim");
}

TEST(CliShape, EmptyDimsNameTheRule) {
  for (const char* shape : {"4x", "x4", "4xx4", "x", "4,", ",4", "4,,4", ",", "(4)", "[]"}) {
    ExpectUsageError(SmallRun({"--shape", shape}), "dims are separated by 'x' or by ','");
  }
}

TEST(CliShape, DimBeyondInt64IsRefused) {
  ExpectUsageError(SmallRun({"--shape", "99999999999999999999"}), "at most 9223372036854775807");
  ExpectUsageError(SmallRun({"--shape", "9223372036854775808"}), "at most 9223372036854775807");
}

TEST(CliShape, ElementCountBeyondInt64IsRefused) {
  ExpectUsageError(SmallRun({"--shape", "4294967296x4294967296"}), "more than 9223372036854775807 elements");
}

TEST(CliMemory, ShapeNoMachineCanHoldIsRefusedBeforeAllocating) {
  // 10^12 fp32 elements: 4 TB per tensor. The refusal names the size; an attempt to allocate
  // would end in std::bad_alloc (or the OOM killer) instead.
  const CliResult r = RunCli(SmallRun({"--shape", "1000000x1000000"}));
  EXPECT_EQ(r.exit_code, kExitResource) << Printed(r);
  EXPECT_NE(r.err.find("not enough memory"), std::string::npos) << Printed(r);
  EXPECT_NE(r.err.find("[1000000,1000000] fp32 (FLOAT) needs "), std::string::npos) << Printed(r);
  EXPECT_NE(r.err.find(" GiB)"), std::string::npos) << Printed(r);
  EXPECT_EQ(r.err.find("bad_alloc"), std::string::npos) << Printed(r);
  EXPECT_EQ(r.out.find("first phase"), std::string::npos) << "it must not run\n" << Printed(r);
}

TEST(CliMemory, ShapeWhoseBytesOverflow64BitsIsRefusedAsTooLarge) {
  // 2^62 fp64 elements: numel fits int64, the bytes do not fit 64 bits.
  const CliResult r = RunCli(SmallRun({"--shape", "4611686018427387904", "--dtype", "fp64"}));
  EXPECT_EQ(r.exit_code, kExitResource) << Printed(r);
  EXPECT_NE(r.err.find("(DOUBLE) needs 16 EiB (2^64 bytes) or more"), std::string::npos) << Printed(r);
}

TEST(CliSeed, NegativeSeedIsRefused) { ExpectUsageError(SmallRun({"--seed", "-1"}), "'-1' is not a whole number"); }

TEST(CliSeed, SeedBeyond64BitsIsRefused) {
  ExpectUsageError(SmallRun({"--seed", "18446744073709551616"}), "'18446744073709551616' is not a whole number");
  ExpectUsageError(SmallRun({"--seed", "99999999999999999999"}), "is not a whole number in [0, 18446744073709551615]");
}

TEST(CliSeed, SignsSpacesAndTrailingTextAreRefused) {
  for (const char* seed : {"+4", " 4", "4 ", "4x", "0x10"}) {
    ExpectUsageError(SmallRun({"--seed", seed}), std::string("'") + seed + "' is not a whole number");
  }
}

TEST(CliNumel, NegativeNumelIsRefused) {
  ExpectUsageError({"info", "--numel", "-5"}, "'-5' is not a whole number");
}

TEST(CliNumel, NumelBeyondInt64IsRefused) {
  ExpectUsageError({"info", "--numel", "99999999999999999999"}, "in [0, 9223372036854775807]");
  ExpectUsageError({"info", "--numel", "9223372036854775808"}, "in [0, 9223372036854775807]");
}

TEST(CliNumel, SignsSpacesAndTrailingTextAreRefused) {
  for (const char* numel : {"+5", " 5", "5abc"}) {
    ExpectUsageError({"info", "--numel", numel}, std::string("'") + numel + "' is not a whole number");
  }
}

TEST(CliThreads, SignsSpacesAndValuesOutOfRangeAreRefused) {
  for (const char* threads : {"+2", " 2", "-1", "1025"}) {
    ExpectUsageError({"run", "--shape", "4", "--threads", threads},
                     std::string("'") + threads + "' is not a whole number in [0, 1024]");
    ExpectUsageError({"info", "--threads", threads},
                     std::string("'") + threads + "' is not a whole number in [0, 1024]");
  }
}

TEST(CliExitCodes, UnknownSubcommandIsNamedWithTheSubcommands) {
  ExpectUsageError({"bogus"}, "unknown subcommand 'bogus': the subcommands are demo, info, run");
  ExpectUsageError({"bogus", "--shape", "4"}, "unknown subcommand 'bogus': the subcommands are demo, info, run");
}

TEST(CliExitCodes, MissingSubcommandListsTheSubcommands) {
  ExpectUsageError({}, "a subcommand is required: demo, info, run");
}

TEST(CliExitCodes, ValueNotAmongTheChoicesIsAUsageError) {
  const CliResult r = RunCli(SmallRun({"--dtype", "int8"}));
  EXPECT_EQ(r.exit_code, kExitUsage) << Printed(r);
  EXPECT_NE(r.err.find("int8"), std::string::npos) << Printed(r);
}

TEST(CliExitCodes, HelpDocumentsThem) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--help"}, {"run", "--help"}}) {
    const CliResult r = RunCli(args);
    EXPECT_EQ(r.exit_code, kExitSuccess) << Printed(r);
    for (const char* line : {"Exit codes:", "  0  success", "  1  a check failed", "  2  usage error",
                             "  3  the machine cannot run it"}) {
      EXPECT_NE(r.out.find(line), std::string::npos) << args.back() << ": no '" << line << "'\n" << Printed(r);
    }
  }
}

TEST(CliRun, AcceptedValuesRunAndPrintDTypeAndFormatNames) {
  const CliResult r = RunCli({"run", "--shape", "3x0004x5", "--seed", "18446744073709551615", "--threads", "2",
                              "--dtype", "bf16", "--pos-weight", "row", "--check"});
  EXPECT_EQ(r.exit_code, kExitSuccess) << Printed(r);
  EXPECT_NE(r.out.find("self [3,4,5] bf16 (BF16, format ND)"), std::string::npos) << Printed(r);
  EXPECT_NE(r.out.find("seed 18446744073709551615"), std::string::npos) << Printed(r);
}

TEST(CliRun, TheLossRunsWithEveryReductionAndPassesItsCheck) {
  for (const char* reduction : {"none", "mean", "sum"}) {
    const CliResult r = RunCli({"run", "--op", "forward", "--shape", "7x300", "--reduction", reduction, "--weight", "row",
                                "--pos-weight", "full", "--dtype", "fp16", "--check"});
    EXPECT_EQ(r.exit_code, kExitSuccess) << Printed(r);
    EXPECT_NE(r.out.find("aclnnBinaryCrossEntropyWithLogits: self [7,300] fp16"), std::string::npos) << Printed(r);
    EXPECT_NE(r.out.find("check loss: 0 "), std::string::npos) << Printed(r);
  }
}

// An fp16 sum of 300,000 losses of about 2.4 lies beyond fp16's range: the CPU kernels round it to
// Inf, the AscendC kernel's Cast saturates it to 65504 (A2's), and --check accepts each where it
// happens (and the largest finite value only in the ascendc mode).
TEST(CliRun, TheCheckAcceptsALossThatOverflowsItsDtype) {
  const std::vector<std::string> args = {"run",     "--op",    "forward", "--shape",  "300x1000", "--reduction",
                                         "sum",     "--dtype", "fp16",    "--weight", "scalar",   "--check"};
  const CliResult cpu = RunCli(args);
  EXPECT_EQ(cpu.exit_code, kExitSuccess) << Printed(cpu);
  EXPECT_NE(cpu.out.find("checksum: sum inf"), std::string::npos) << Printed(cpu);
  EXPECT_NE(cpu.out.find("check loss: 0 mismatches"), std::string::npos) << Printed(cpu);
#ifdef ACLNN_BCE_CLI_WITH_TWIN
  const CliResult twin = RunCli(args, {"ACLNN_BCE_KERNELS=ascendc", "ASCENDC_CPU_FATAL=1"});
  EXPECT_EQ(twin.exit_code, kExitSuccess) << Printed(twin);
  EXPECT_NE(twin.out.find("checksum: sum 65504,"), std::string::npos) << Printed(twin);
  EXPECT_NE(twin.out.find("check loss: 0 mismatches"), std::string::npos) << Printed(twin);
#endif
}

TEST(CliRun, TheTargetGradientAndTheFusedCallRunAndPassTheirChecks) {
  for (const char* reduction : {"none", "mean"}) {
    const CliResult target = RunCli({"run", "--op", "target-backward", "--shape", "7x300", "--reduction", reduction,
                                     "--pos-weight", "row", "--grad-output", "full", "--check"});
    EXPECT_EQ(target.exit_code, kExitSuccess) << Printed(target);
    EXPECT_NE(target.out.find("aclnnBinaryCrossEntropyWithLogitsTargetBackward: self [7,300]"), std::string::npos)
        << Printed(target);
    EXPECT_NE(target.out.find("check target gradient: 0 of 2100 elements"), std::string::npos) << Printed(target);
    const CliResult fused = RunCli({"run", "--op", "fused", "--shape", "7x300", "--reduction", reduction, "--weight",
                                    "full", "--grad-output", "scalar", "--dtype", "bf16", "--check"});
    EXPECT_EQ(fused.exit_code, kExitSuccess) << Printed(fused);
    EXPECT_NE(fused.out.find("aclnnBinaryCrossEntropyWithLogitsFused: self [7,300] bf16"), std::string::npos)
        << Printed(fused);
    EXPECT_NE(fused.out.find("check loss: 0 "), std::string::npos) << Printed(fused);
    EXPECT_NE(fused.out.find("check gradient: 0 of 2100 elements"), std::string::npos) << Printed(fused);
    EXPECT_NE(fused.out.find("checksum (gradInput)"), std::string::npos) << Printed(fused);
  }
}

TEST(CliInfo, ShowsTheTilingOfEveryOperator) {
  for (const char* op : {"backward", "target-backward", "forward", "fused"}) {
    const CliResult r = RunCli({"info", "--op", op, "--numel", "1000000", "--reduction", "mean"});
    EXPECT_EQ(r.exit_code, kExitSuccess) << Printed(r);
    EXPECT_NE(r.out.find(std::string("operator         ") + op), std::string::npos) << Printed(r);
    EXPECT_NE(r.out.find("tiling on Atlas A2"), std::string::npos) << Printed(r);
  }
}

// Note [Blocks and threads in info]: the tiling's cores are blocks, the threads run them.
TEST(CliInfo, SaysTheCpuTilingsCoresAreBlocksRunByTheThreads) {
  const CliResult two = RunCli({"info", "--threads", "2"});
  EXPECT_EQ(two.exit_code, kExitSuccess) << Printed(two);
  EXPECT_NE(two.out.find("threads          2 "), std::string::npos) << Printed(two);
  EXPECT_NE(two.out.find("the worker pool that runs a launch's blocks"), std::string::npos) << Printed(two);
  EXPECT_NE(two.out.find("tiling on cpu: cores 8 (blocks of a launch: 4 per thread, taken by the 2 threads in turn)"),
            std::string::npos)
      << Printed(two);
  EXPECT_NE(two.out.find("tiling on Atlas A2: cores 48 (AI cores, one block of a launch each)"), std::string::npos)
      << Printed(two);
  EXPECT_NE(two.out.find("(blocks this problem uses, at most the cores)"), std::string::npos) << Printed(two);

  const CliResult one = RunCli({"info", "--threads", "1"});
  EXPECT_EQ(one.exit_code, kExitSuccess) << Printed(one);
  EXPECT_NE(one.out.find("tiling on cpu: cores 1 (blocks of a launch: one, run by the one thread)"), std::string::npos)
      << Printed(one);
}

TEST(CliInfo, ShowsTheCachesTheTilingUses) {
  const CliResult r = RunCli({"info", "--threads", "2"}, {"ACLNN_CPU_CACHES=1M,32M"});
  EXPECT_EQ(r.exit_code, kExitSuccess) << Printed(r);
  EXPECT_NE(r.out.find("L2 per core      1024 KiB (from ACLNN_CPU_CACHES; the CPU tiling's UB budget is half of it)"),
            std::string::npos)
      << Printed(r);
  EXPECT_NE(r.out.find("last-level cache 32768 KiB (from ACLNN_CPU_CACHES;"), std::string::npos) << Printed(r);
  EXPECT_NE(r.out.find("UB 524288 bytes"), std::string::npos) << Printed(r);
}

// Note [Thread count from the environment], as a user of the program meets it.
TEST(CliThreadsEnv, AnInvalidValueIsReportedOnceAndTheProgramRuns) {
  for (const char* value : {"abc", "0", "-1", "1025", "4x"}) {
    const CliResult r = RunCli({"run", "--shape", "4x4", "--check"}, {std::string("ACLNN_CPU_NUM_THREADS=") + value});
    EXPECT_EQ(r.exit_code, kExitSuccess) << value << "\n" << Printed(r);
    const std::string warning = std::string("aclnn_bce: warning: ACLNN_CPU_NUM_THREADS='") + value +
                                "' is ignored: it must be a whole number from 1 to 1024, digits only; using the "
                                "usable cores, ";
    const size_t at = r.err.find(warning);
    EXPECT_NE(at, std::string::npos) << value << "\n" << Printed(r);
    EXPECT_EQ(r.err.find(warning, at + 1), std::string::npos) << "reported twice\n" << Printed(r);
  }
}

TEST(CliThreadsEnv, AValidValueIsTheThreadCount) {
  const CliResult r = RunCli({"info"}, {"ACLNN_CPU_NUM_THREADS=3"});
  EXPECT_EQ(r.exit_code, kExitSuccess) << Printed(r);
  EXPECT_NE(r.out.find("threads          3 (ACLNN_CPU_NUM_THREADS=3)"), std::string::npos) << Printed(r);
  EXPECT_EQ(r.err, "") << Printed(r);
}

TEST(CliRun, AnUnknownOperatorIsAUsageError) {
  ExpectUsageError(SmallRun({"--op", "sideways"}), "sideways");
}

}  // namespace
