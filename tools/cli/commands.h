// The subcommands of aclnn_bce_cli. Each adds itself to the app; its callback runs after parsing
// and stores the process exit code in @p exit_code, or throws one of the errors below.
#pragma once

#include <stdexcept>

namespace CLI {
class App;
}

namespace aclnn_bce_cli {

// Note [Exit codes]
// Documented in --help (kExitCodesHelp) and in README.md; scripts tell the cases apart by them.
inline constexpr int kExitSuccess = 0;      ///< done; demo printed PASS, run --check found no mismatch
inline constexpr int kExitCheckFailed = 1;  ///< demo printed FAIL, or run --check found a mismatch
inline constexpr int kExitUsage = 2;        ///< unknown option or subcommand, or a value an option refuses
inline constexpr int kExitResource = 3;     ///< not enough memory, or an ACL / ACLNN call failed

inline constexpr const char* kExitCodesHelp =
    "Exit codes:\n"
    "  0  success (demo PASS; run --check found no mismatch)\n"
    "  1  a check failed (demo FAIL; run --check found a mismatch)\n"
    "  2  usage error: an unknown option or subcommand, or a value an option does not accept\n"
    "  3  the machine cannot run it: not enough memory for the problem (run says how much it\n"
    "     needs before it allocates anything), or an ACL / ACLNN call failed";

/// A problem this machine cannot run (too large for its memory): exit kExitResource.
class ResourceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// `demo`: the seed scenario of the CANN sample through the public API; PASS or FAIL.
void AddDemoCommand(CLI::App& app, int& exit_code);
/// `info`: SIMD target, threads, L2, and the tiling of a problem on the CPU and on Atlas A2.
void AddInfoCommand(CLI::App& app, int& exit_code);
/// `run`: the operator on random data of a given shape, dtype, reduction and broadcasts.
void AddRunCommand(CLI::App& app, int& exit_code);

}  // namespace aclnn_bce_cli
