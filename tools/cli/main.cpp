// aclnn_bce_cli: aclnnBinaryCrossEntropyWithLogitsBackward (CANN SigmoidCrossEntropyWithLogitsGradV2)
// on the CPU from the command line.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app{
      "aclnnBinaryCrossEntropyWithLogitsBackward (CANN SigmoidCrossEntropyWithLogitsGradV2) on the CPU.\n"
      "Threads default to $ACLNN_CPU_NUM_THREADS, else the usable cores.",
      "aclnn_bce_cli"};
  app.require_subcommand(1);
  app.option_defaults()->always_capture_default();

  int exit_code = aclnn_bce_cli::kExitSuccess;
  aclnn_bce_cli::AddDemoCommand(app, exit_code);
  aclnn_bce_cli::AddInfoCommand(app, exit_code);
  aclnn_bce_cli::AddRunCommand(app, exit_code);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "aclnn_bce_cli: %s\n", e.what());
    return aclnn_bce_cli::kExitError;
  }
  return exit_code;
}
