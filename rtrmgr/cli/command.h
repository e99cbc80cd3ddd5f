#pragma once
// The `sluice` CLI's subcommands. Each is a function over its arguments and a context; main.cc
// dispatches on the first word. To add one (e.g. `sluice show bgp peers`), write a Run function
// in its own file and add a row to Commands() in commands.cc.

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

struct Command {
  const char* name;     // "call"
  const char* usage;    // "call [-f FILE | 'XRL'...]"
  const char* summary;  // one line for `sluice help`
  int (*run)(const std::vector<std::string>& args, Context& context);
};

const std::vector<Command>& Commands();

// The subcommands.
int RunCall(const std::vector<std::string>& args, Context& context);
int RunTargets(const std::vector<std::string>& args, Context& context);
int RunShow(const std::vector<std::string>& args, Context& context);
int RunProfile(const std::vector<std::string>& args, Context& context);
int RunConfigure(const std::vector<std::string>& args, Context& context);

}  // namespace sluice::rtrmgr::cli
