// The subcommands of aclnn_bce_cli. Each adds itself to the app; its callback runs after parsing
// and stores the process exit code in @p exit_code (0 success, 1 a failed check, 2 an error).
#pragma once

namespace CLI {
class App;
}

namespace aclnn_bce_cli {

inline constexpr int kExitSuccess = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitError = 2;

/// `demo`: the seed scenario of the CANN sample through the public API; PASS or FAIL.
void AddDemoCommand(CLI::App& app, int& exit_code);
/// `info`: SIMD target, threads, L2, and the tiling of a problem on the CPU and on Atlas A2.
void AddInfoCommand(CLI::App& app, int& exit_code);
/// `run`: the operator on random data of a given shape, dtype, reduction and broadcasts.
void AddRunCommand(CLI::App& app, int& exit_code);

}  // namespace aclnn_bce_cli
