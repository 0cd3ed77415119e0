// ACLNN_CPU_NUM_THREADS (Note [Thread count from the environment]): what it accepts, and a value
// it does not accept reported once on stderr with the variable, the value and the rule.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "runtime/thread_pool.h"

namespace aclnn_cpu {
namespace {

std::optional<int> Parse(const char* text) {
  std::string error;
  return ThreadPool::ParseNumThreads(text, &error);
}

TEST(NumThreadsEnv, AcceptsWholeNumbersFromOneToTheMaximum) {
  EXPECT_EQ(Parse("1"), 1);
  EXPECT_EQ(Parse("2"), 2);
  EXPECT_EQ(Parse("0004"), 4);
  EXPECT_EQ(Parse("1024"), ThreadPool::kMaxThreads);
}

TEST(NumThreadsEnv, RefusesZeroNegativeTooLargeAndNonDigits) {
  for (const char* text : {"0", "-1", "1025", "99999999999999999999", "abc", "4x", "4 ", " 4", "+4", "0x10", "",
                           "2.5"}) {
    std::string error;
    EXPECT_EQ(ThreadPool::ParseNumThreads(text, &error), std::nullopt) << "'" << text << "'";
    EXPECT_EQ(error, "it must be a whole number from 1 to 1024, digits only") << "'" << text << "'";
  }
}

/// Runs @p body with stderr going to a file, and returns what it wrote there.
template <typename Body>
std::string StderrOf(Body body) {
  char path[] = "/tmp/num_threads_env_stderr.XXXXXX";
  const int fd = mkstemp(path);
  const int saved = dup(STDERR_FILENO);
  if (fd < 0 || saved < 0 || dup2(fd, STDERR_FILENO) < 0) std::_Exit(99);
  body();
  std::fflush(stderr);
  dup2(saved, STDERR_FILENO);
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  unlink(path);
  close(fd);
  close(saved);
  return text.str();
}

/// In a child process: sets ACLNN_CPU_NUM_THREADS to @p value, asks for the default count twice
/// (the pool does, then aclnnCpuSetNumThreads(0)) and exits with the number of times the expected
/// warning was written; 98 when stderr holds anything else, 100 + the count when the default was
/// not the usable cores.
[[noreturn]] void CountWarnings(const char* value, int usable_cores) {
  setenv("ACLNN_CPU_NUM_THREADS", value, 1);
  int first = 0;
  int second = 0;
  const std::string printed = StderrOf([&] {
    first = ThreadPool::DefaultNumThreads();
    second = ThreadPool::DefaultNumThreads();
  });
  if (first != usable_cores || second != usable_cores) std::_Exit(100 + first);
  const std::string expected = std::string("aclnn_bce: warning: ACLNN_CPU_NUM_THREADS='") + value +
                               "' is ignored: it must be a whole number from 1 to 1024, digits only; using the "
                               "usable cores, " + std::to_string(usable_cores) + "\n";
  int warnings = 0;
  for (size_t at = printed.find(expected); at != std::string::npos; at = printed.find(expected, at + 1)) ++warnings;
  std::_Exit(printed.size() == expected.size() * static_cast<size_t>(warnings) ? warnings : 98);
}

/// In a child process: a valid value is the count, and nothing is written.
[[noreturn]] void ValidValueIsUsedSilently() {
  setenv("ACLNN_CPU_NUM_THREADS", "3", 1);
  int count = 0;
  const std::string printed = StderrOf([&] { count = ThreadPool::DefaultNumThreads(); });
  std::_Exit(count == 3 && printed.empty() ? 0 : 1);
}

/// The default with the variable unset: the cores this process may run on.
int UsableCores() {
  const char* set = std::getenv("ACLNN_CPU_NUM_THREADS");
  const std::string saved = set != nullptr ? set : "";
  unsetenv("ACLNN_CPU_NUM_THREADS");
  const int cores = ThreadPool::DefaultNumThreads();
  if (set != nullptr) setenv("ACLNN_CPU_NUM_THREADS", saved.c_str(), 1);
  return cores;
}

// Each check runs in a fresh process (threadsafe death-test style), where nothing has been
// reported yet and the variable can be set without touching this process's pool.
TEST(NumThreadsEnv, AnInvalidValueIsReportedOnceAndTheUsableCoresAreUsed) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const int cores = UsableCores();
  for (const char* value : {"abc", "0", "-2", "2000", "8threads"}) {
    EXPECT_EXIT(CountWarnings(value, cores), ::testing::ExitedWithCode(1), "") << value;
  }
}

TEST(NumThreadsEnv, AValidValueIsUsedWithoutAWord) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(ValidValueIsUsedSilently(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace aclnn_cpu
