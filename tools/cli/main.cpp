// aclnn_bce_cli: the operators of binary cross entropy with logits (CANN SigmoidCrossEntropyWithLogitsV2,
// SigmoidCrossEntropyWithLogitsGradV2 and their relatives) on the CPU from the command line.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "commands.h"

namespace {

/// For CLI11's "A subcommand is required" (the command line names none): a message that names the
/// word that is not a subcommand (CLI11 leaves it among the remaining arguments) and lists the
/// subcommands. Empty for any other error, whose own message stands.
std::string MissingSubcommandMessage(const CLI::App& app, const CLI::ParseError& error) {
  if (dynamic_cast<const CLI::RequiredError*>(&error) == nullptr || !app.get_subcommands().empty()) return {};
  std::string names;
  for (const CLI::App* subcommand : app.get_subcommands({})) {
    names += (names.empty() ? "" : ", ") + subcommand->get_name();
  }
  for (const std::string& word : app.remaining()) {
    if (!word.empty() && word[0] != '-') {
      return "unknown subcommand '" + word + "': the subcommands are " + names;
    }
  }
  return "a subcommand is required: " + names;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace aclnn_bce_cli;
  // See Note [Exit codes]: no exception leaves main, each ends in a message and its exit code.
  try {
    CLI::App app{
        "CANN's binary cross entropy losses on the CPU: with logits (the loss, its gradient, the target\n"
        "gradient, the fused loss and gradient) and of probabilities (the loss and its gradient).\n"
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
      if (const std::string missing = MissingSubcommandMessage(app, e); !missing.empty()) {
        std::fprintf(stderr, "aclnn_bce_cli: %s\nRun with --help for more information.\n", missing.c_str());
        return kExitUsage;
      }
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
