#include "absl/strings/str_cat.h"
#include "rtrmgr/cli/command.h"

namespace sluice::rtrmgr::cli {

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      {"show",
       "operational views: tables for people, --json for scripts",
       {
           {"show bgp peers [ --json ]", "BGP peers: state, uptime, messages, prefixes"},
           {"show bgp routes [ PREFIX ] [ peer ADDR ] [ in | out ] [ ipv4 | ipv6 ] [ --json ]",
            "the Loc-RIB, or a peer's Adj-RIB-In (in) or Adj-RIB-Out (out)"},
           {"show bgp damping [ peer ADDR ] [ suppressed ] [ --json ]",
            "route flap damping: prefixes with a figure of merit, suppressed ones with reuse "
            "time"},
           {"show route [ ipv4 | ipv6 ] [ PREFIX ] [ --json ]",
            "RIB winners with protocol and admin distance"},
           {"show fib [ --json ]", "the FEA's forwarding table"},
           {"show interfaces [ --json ]", "the FEA's interfaces and addresses"},
           {"show plumbing { bgp | rib | fea } [ --json ]", "a process's stage network"},
           {"show processes [ --json ]", "what the router manager runs: pid, restarts, memory"},
           {"show configuration [ --json ]", "the running configuration"},
       },
       RunShow},
      {"configure",
       "change the running configuration, all or nothing",
       {
           {"configure load FILE [ --check | --confirm MINUTES ]",
            "apply FILE as a delta (--check: show the delta only; --confirm: roll back unless "
            "`configure confirm` follows)"},
           {"configure confirm", "keep a load made with --confirm"},
           {"configure rollback [ N ]", "go back to the configuration committed N loads ago"},
       },
       RunConfigure},
      {"profile",
       "profiling points (route entering BGP, sent to the RIB, arriving at the FEA, ...)",
       {
           {"profile list [ on PROCESS ] [ --json ]", "the points and whether they record"},
           {"profile { enable | disable | get | clear } POINT [ on PROCESS ] [ --json ]",
            "switch a point, read or clear what it recorded"},
       },
       RunProfile},
      {"call",
       "call any method by its XRL and print the reply in the same form",
       {
           {"call XRL", "finder://TARGET/INTERFACE/VERSION/METHOD?name:type=value&..."},
           {"call -f FILE", "one XRL per line, '#' comments"},
       },
       RunCall},
      {"targets",
       "list registered components, their endpoints and methods",
       {{"targets", "every target the Finder knows"}},
       RunTargets},
  };
  return commands;
}

std::string Usage(const Command& command) {
  std::string out;
  for (const Form& form : command.forms) {
    absl::StrAppend(&out, out.empty() ? "usage: " : "       ", "sluice ", form.syntax, "\n");
  }
  return out;
}

const Command* FindCommand(const std::string& name) {
  for (const Command& command : Commands()) {
    if (name == command.name) return &command;
  }
  return nullptr;
}

}  // namespace sluice::rtrmgr::cli
