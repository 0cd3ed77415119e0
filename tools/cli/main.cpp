// aclnn_bce_cli: aclnnBinaryCrossEntropyWithLogitsBackward (CANN SigmoidCrossEntropyWithLogitsGradV2)
// on the CPU from the command line.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <new>

#include "commands.h"

int main(int argc, char** argv) {
  using namespace aclnn_bce_cli;
  // See Note [Exit codes]: no exception leaves main, each ends in a message and its exit code.
  try {
    CLI::App app{
        "aclnnBinaryCrossEntropyWithLogitsBackward (CANN SigmoidCrossEntropyWithLogitsGradV2) on the CPU.\n"
        "Threads default to $ACLNN_CPU_NUM_THREADS, else the usable cores.",
        "aclnn_bce_cli"};
    app.require_subcommand(1);
    app.option_defaults()->always_capture_default();

    int exit_code = kExitSuccess;
    AddDemoCommand(app, exit_code);
    AddInfoCommand(app, exit_code);
    AddRunCommand(app, exit_code);
    app.footer(kExitCodesHelp);
    for (CLI::App* subcommand : app.get_subcommands({})) subcommand->footer(kExitCodesHelp);

    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      // CLI11's own codes (105 for a refused value, 106 for a missing subcommand, ...) become one.
      return app.exit(e) == kExitSuccess ? kExitSuccess : kExitUsage;
    }
    return exit_code;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "aclnn_bce_cli: out of memory: an allocation failed (try a smaller --shape)\n");
  } catch (const std::exception& e) {  // ResourceError, AclFailure, ...
    std::fprintf(stderr, "aclnn_bce_cli: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "aclnn_bce_cli: an unknown exception\n");
  }
  return kExitResource;
}
