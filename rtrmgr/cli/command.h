#pragma once
// The `sluice` CLI's subcommands. Each is a function over its arguments and a context; main.cc
// dispatches on the first word. To add one (e.g. `sluice show bgp peers`), write a Run function
// in its own file and add a row to Commands() in commands.cc, with its forms.
//
// A form is one line of syntax, the grammar that `sluice help`, the interactive shell's tab
// completion and `?` help are all generated from:
//   word          a keyword, typed as is ("show", "bgp", "peers", "--json")
//   WORD          a value the user supplies (ADDR, PREFIX, FILE, N, ...)
//   [ ... ]       optional
//   { a | b }     exactly one of the alternatives; inside [ ], [ a | b ] is at most one
// Tokens are separated by spaces, brackets and braces included: "show route [ ipv4 | ipv6 ]".

#include <iosfwd>
#include <string>
#include <vector>

namespace sluice::rtrmgr::cli {

// What every subcommand may use; tests substitute the streams.
struct Context {
  std::string finder_address;  // --finder, $SLUICE_FINDER, or unix:$SLUICE_RUNDIR/finder.sock
  int timeout_ms = 5000;       // --timeout: for each call
  std::ostream* out;
  std::ostream* err;
};

// Exit codes.
inline constexpr int kOk = 0;
inline constexpr int kFailed = 1;  // a call or lookup failed
inline constexpr int kUsage = 2;   // bad command line

struct Form {
  const char* syntax;  // "show bgp neighbor ADDR [ received-routes | advertised-routes ]"
  const char* help;    // one line: what it prints or does
};

struct Command {
  const char* name;         // "show": the first word of every form
  const char* summary;      // one line for `sluice help`
  std::vector<Form> forms;  // every way to call it
  int (*run)(const std::vector<std::string>& args, Context& context);
};

const std::vector<Command>& Commands();

// "usage: sluice FORM\n       sluice FORM\n..." for one command, to print on a usage error.
std::string Usage(const Command& command);
// The command named `name`; nullptr if none.
const Command* FindCommand(const std::string& name);

// The subcommands.
int RunCall(const std::vector<std::string>& args, Context& context);
int RunTargets(const std::vector<std::string>& args, Context& context);
int RunShow(const std::vector<std::string>& args, Context& context);
int RunProfile(const std::vector<std::string>& args, Context& context);
int RunConfigure(const std::vector<std::string>& args, Context& context);
int RunClear(const std::vector<std::string>& args, Context& context);
int RunEnable(const std::vector<std::string>& args, Context& context);
int RunDisable(const std::vector<std::string>& args, Context& context);
int RunSet(const std::vector<std::string>& args, Context& context);
int RunDump(const std::vector<std::string>& args, Context& context);

}  // namespace sluice::rtrmgr::cli
