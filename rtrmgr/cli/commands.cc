#include "rtrmgr/cli/command.h"

namespace sluice::rtrmgr::cli {

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      {"call", "call 'XRL'...  |  call -f FILE",
       "call methods: finder://TARGET/INTERFACE/VERSION/METHOD?name:type=value&...; prints "
       "each reply in the same form (-f: one XRL per line, '#' comments)",
       RunCall},
      {"targets", "targets", "list registered components, their endpoints and methods", RunTargets},
      {"show",
       "show bgp peers | bgp routes [PREFIX] [peer ADDR] [in|out] | route [ipv4|ipv6] [PREFIX] "
       "| fib | interfaces | plumbing PROCESS | processes | configuration  [--json]",
       "operational views: tables for people, --json for scripts", RunShow},
      {"profile", "profile list | enable|disable|get|clear POINT [on PROCESS] [--json]",
       "profiling points (route entering BGP, sent to the RIB, arriving at the FEA, ...)",
       RunProfile},
      {"configure", "configure load FILE [--check | --confirm MINUTES] | confirm | rollback [N]",
       "apply a configuration file to the running router as a delta, all or nothing (--check: "
       "show the delta only; --confirm: roll back unless `configure confirm` follows); "
       "rollback N: the configuration committed N loads ago",
       RunConfigure},
  };
  return commands;
}

}  // namespace sluice::rtrmgr::cli
