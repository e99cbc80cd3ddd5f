#include "absl/strings/str_cat.h"
#include "rtrmgr/cli/command.h"

namespace sluice::rtrmgr::cli {

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      {"show",
       "operational views: tables for people, --json for scripts",
       {
           {"show bgp peers [ --json ]", "BGP peers: state, uptime, messages, prefixes"},
           {"show bgp summary [ --json ]",
            "one line per peer: AS, messages, up/down time, state or prefixes"},
           {"show bgp neighbor ADDR [ received-routes | advertised-routes ] [ --json ]",
            "one peer in detail: timers, families, capabilities, counters, graceful restart; or "
            "its Adj-RIB-In / Adj-RIB-Out"},
           {"show bgp neighbor ADDR received-routes rpki { valid | invalid | not-found } "
            "[ --json ]",
            "the peer's Adj-RIB-In routes in that RPKI origin validation state"},
           {"show bgp routes [ PREFIX ] [ peer ADDR ] [ in | out ] [ ipv4 | ipv6 ] [ --json ]",
            "the Loc-RIB, or a peer's Adj-RIB-In (in) or Adj-RIB-Out (out)"},
           {"show bgp routes rpki { valid | invalid | not-found } [ peer ADDR ] [ ipv4 | ipv6 ] "
            "[ --json ]",
            "every peer's (or one peer's) received routes in that RPKI origin validation state "
            "(RFC 6811)"},
           {"show bgp routes count [ --json ]",
            "routes in the Loc-RIB and in each peer's Adj-RIB-In and Adj-RIB-Out"},
           {"show bgp damping [ peer ADDR ] [ suppressed ] [ --json ]",
            "route flap damping: prefixes with a figure of merit, suppressed ones with reuse "
            "time"},
           {"show bgp bmp [ --json ]",
            "BMP monitoring stations: state, the Route Monitoring each is sent, octets sent and "
            "queued, connections and buffer overflows"},
           {"show route [ ipv4 | ipv6 ] [ PREFIX ] [ --json ]",
            "RIB winners with protocol and admin distance"},
           {"show route for ADDRESS [ --json ]",
            "the longest match for ADDRESS in the RIB and in the FEA's FIB"},
           {"show route summary [ --json ]", "routes per protocol and family, and how many won"},
           {"show fib [ fea NAME ] [ --json ]",
            "an FEA's forwarding table (the first FEA's, or the instance NAME's)"},
           {"show rpki [ --json ]",
            "RPKI caches: session state, serial, errors; VRP counts per family; subscribers"},
           {"show rpki vrps [ PREFIX ] [ --json ]",
            "the VRPs (prefix, max length, origin AS), or those covering PREFIX"},
           {"show interfaces [ --json ]", "the FEA's interfaces and addresses"},
           {"show plumbing { bgp | rib | fea } [ --json ]", "a process's stage network"},
           {"show processes [ --json ]",
            "what the router manager runs: pid, restarts, memory; the FEAs the RIB feeds: state, "
            "routes, backlog"},
           {"show configuration [ --json ]", "the running configuration"},
           {"show configuration diff N [ --json ]",
            "the running configuration against the one committed N loads ago"},
       },
       RunShow},
      {"clear",
       "reset a BGP session, or refresh its routes without a reset",
       {
           {"clear bgp neighbor ADDR",
            "restart the session (Cease / Administrative Reset, RFC 4486)"},
           {"clear bgp neighbor ADDR soft [ in | out ]",
            "in: ask the peer for its routes again (route refresh, RFC 2918); out: send it ours "
            "again; both without a word"},
       },
       RunClear},
      {"enable",
       "start a BGP peer an operator or the configuration disabled",
       {{"enable bgp neighbor ADDR", "start the session"}},
       RunEnable},
      {"disable",
       "stop a BGP peer until `enable`, or a reload that changes the peer",
       {{"disable bgp neighbor ADDR",
         "Cease / Administrative Shutdown; shown as administratively down (CLI)"}},
       RunDisable},
      {"set",
       "change a running process's settings until it restarts",
       {{"set log level { debug | info | warning | error } [ PROCESS ]",
         "log threshold of PROCESS (rtrmgr, fea, rib, static, rpki, bgp) or of all"}},
       RunSet},
      {"dump",
       "write a BGP table to a file as MRT (RFC 6396), for bgpdump and other MRT tools",
       {{"dump bgp table FILE [ peer ADDR ]",
         "the Loc-RIB (or ADDR's Adj-RIB-In, as received) as TABLE_DUMP_V2, written by "
         "sluice-bgp as its user; FILE.gz: gzip-compressed"}},
       RunDump},
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
