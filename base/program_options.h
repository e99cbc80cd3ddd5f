#pragma once
// The command line of every Sluice program, on CLI11 (https://cliutils.github.io/CLI11/book/),
// with one set of conventions:
//   --help, -h     the program's options on stdout, exit 0
//   --version      "PROGRAM VERSION" (base/version.h) on stdout, exit 0
//   a bad command line (an unknown option, a missing or malformed value, a value out of range)
//                  "PROGRAM: what is wrong, naming the option", the usage line and a
//                  pointer to --help on stderr, exit 2 (kExitUsage)
// An option given twice keeps its last value; a repeatable option (a std::vector) takes one
// value per occurrence (`--listen A --listen B`).
//
//   base::ProgramOptions options("sluice-rib", "the RIB process");
//   options.app().add_option("--finder", finder, "the Finder");
//   if (std::optional<int> exit = options.Parse(argc, argv)) return *exit;

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"

namespace sluice::base {

// The exit status of a bad command line (as BSD's EX_USAGE is for sysexits, 2 is what getopt
// programs and CLI11 users exit with).
inline constexpr int kExitUsage = 2;

class ProgramOptions {
 public:
  // `program` is the name printed by --help, --version and in errors ("sluice-rib");
  // `description` the first line of --help.
  ProgramOptions(std::string program, std::string description);

  CLI::App& app() { return app_; }
  const std::string& program() const { return program_; }

  // Parses argv. Returns std::nullopt when the program should go on, otherwise the status to exit
  // with after it printed what it had to: 0 for --help and --version, kExitUsage for a bad
  // command line.
  std::optional<int> Parse(int argc, char** argv);

  // Adds the logging options of a daemon (base/log.h), which Parse() applies:
  //   --log-level debug|info|warning|error     the threshold (default: SLUICE_LOG_LEVEL or info)
  //   --log-destination stderr|syslog|journal  where lines go (default stderr)
  //   --log-syslog-socket PATH                 syslog's Unix datagram socket (default /dev/log)
  void AddLogOptions();

  // For a check across options after Parse(): prints "PROGRAM: message", the usage line and the
  // pointer to --help on stderr and returns kExitUsage.
  int Fail(std::string_view message) const;

 private:
  std::string program_;
  std::optional<int> ApplyLogOptions() const;

  std::shared_ptr<CLI::Formatter> formatter_;
  bool log_options_ = false;
  std::string log_level_, log_destination_, log_syslog_socket_;
  CLI::App app_;
};

// Adds an option whose value `parse` checks and stores; a value it refuses (a status not ok) is a
// bad command line: "OPTION: MESSAGE". Repeatable (one call per occurrence, in order) when
// `repeatable`, else the last value wins.
CLI::Option* AddParsedOption(CLI::App& app, const std::string& name,
                             std::function<absl::Status(const std::string&)> parse,
                             const std::string& description, bool repeatable = false);

// Adds a repeatable option: each occurrence appends one value to `out` (`--listen A --listen B`;
// `--listen A B` leaves B to the positional arguments).
template <typename T>
CLI::Option* AddRepeatedOption(CLI::App& app, const std::string& name, std::vector<T>& out,
                               const std::string& description) {
  return app.add_option(name, out, description)
      ->expected(1)
      ->allow_extra_args(false)
      ->take_all()
      ->default_str("");
}

}  // namespace sluice::base
