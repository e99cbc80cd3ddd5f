// sluice: the operator and scripting CLI (DESIGN.md § Processes). Wiring only: the subcommands
// are in rtrmgr/cli/command.h.
//
//   sluice [--finder ADDRESS] [--timeout MS] COMMAND [ARGS...]
//   sluice call 'finder://rib/common/1.0/get_status'
//   sluice call -f calls.txt
//   sluice targets
//   sluice show --help
//   sluice                     on a terminal: the interactive shell (rtrmgr/cli/shell.h)
//   sluice shell < commands    one command per line, without a terminal
//
// Exit status: 0 success (and --help, --version), 1 a call failed (the error is printed), 2 bad
// command line.

#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/version.h"
#include "ipc/rundir.h"
#include "rtrmgr/cli/command.h"
#include "rtrmgr/cli/shell.h"

namespace {

namespace cli = sluice::rtrmgr::cli;

std::string CommandList() {
  std::string out = "Commands:\n";
  for (const cli::Command& command : cli::Commands()) {
    absl::StrAppend(&out, "  ", command.name, "  ", command.summary, "\n");
    for (const cli::Form& form : command.forms) {
      absl::StrAppend(&out, "      sluice ", form.syntax, "\n");
    }
  }
  absl::StrAppend(
      &out,
      "\n`sluice` with no command on a terminal, or `sluice shell`, opens a shell: TAB completes,\n"
      "? lists what may come next, history is kept in $XDG_STATE_HOME/sluice/history\n"
      "($XDG_STATE_HOME defaults to ~/.local/state). Without a terminal, `sluice shell` runs one\n"
      "command per line of its input and exits 1 if any failed.\n"
      "\nThe Finder defaults to $SLUICE_FINDER or unix:$SLUICE_RUNDIR/finder.sock "
      "($SLUICE_RUNDIR defaults to /run/sluice for root, $XDG_RUNTIME_DIR/sluice otherwise).\n"
      "Your rights come from your Unix groups: sluice-ops may read, sluice-admin may change.\n"
      "`sluice COMMAND --help` shows one command's forms.");
  return out;
}

bool AsksForHelp(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

// Runs COMMAND ARGS...; `help` and `COMMAND --help` print usage and succeed.
int Dispatch(const std::vector<std::string>& words, cli::Context& context, CLI::App& app) {
  if (words.empty() || words[0] == "help") {
    (words.empty() ? std::cerr : std::cout) << app.help();
    return words.empty() ? cli::kUsage : cli::kOk;
  }
  const cli::Command* command = cli::FindCommand(words[0]);
  if (command == nullptr) {
    std::cerr << "sluice: unknown " << (words[0][0] == '-' ? "option " : "command ") << words[0]
              << "\n"
              << app.help();
    return cli::kUsage;
  }
  const std::vector<std::string> args(words.begin() + 1, words.end());
  if (AsksForHelp(args)) {
    std::cout << command->summary << "\n" << cli::Usage(*command);
    return cli::kOk;
  }
  return command->run(args, context);
}

// The shell for `sluice` alone on a terminal and for `sluice shell`; Dispatch otherwise.
int Run(const std::vector<std::string>& words, cli::Context& context, CLI::App& app) {
  const bool terminal = isatty(STDIN_FILENO) == 1;
  const bool shell = !words.empty() && words[0] == "shell";
  if (!shell && !(words.empty() && terminal)) return Dispatch(words, context, app);
  if (words.size() > 1) {
    const bool help = AsksForHelp(words);
    (help ? std::cout : std::cerr)
        << "usage: sluice [--finder ADDRESS] [--timeout MS] shell\n"
        << "an interactive shell on a terminal; otherwise one command per line of the input\n";
    return help ? cli::kOk : cli::kUsage;
  }
  const cli::RunWords run = [&](const std::vector<std::string>& line) {
    return Dispatch(line, context, app);
  };
  return terminal ? cli::RunInteractiveShell(run, stdin, stdout)
                  : cli::RunScriptShell(run, std::cin, std::cerr);
}

}  // namespace

int main(int argc, char** argv) {
  sluice::base::SetLogTag("sluice");
  if (std::getenv("SLUICE_LOG_LEVEL") == nullptr) {
    sluice::base::SetLogLevel(sluice::base::LogLevel::kError);  // the CLI prints its own errors
  }
  cli::Context context{sluice::ipc::ClientFinderAddress(), 5000, &std::cout, &std::cerr};
  CLI::App app{"sluice: the Sluice router's operator and scripting CLI", "sluice"};
  app.prefix_command();
  app.footer(CommandList());
  app.add_option("--finder", context.finder_address,
                 "the Finder: unix:/PATH or tcp:127.0.0.1:PORT");
  app.add_option("--timeout", context.timeout_ms, "milliseconds for each call")
      ->check(CLI::Range(1, 3600 * 1000));
  bool version = false;
  app.add_flag("--version", version, "print the version and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? cli::kOk : cli::kUsage;
  }
  if (version) {
    sluice::base::PrintVersion("sluice");
    return cli::kOk;
  }
  return Run(app.remaining(), context, app);
}
