// sluice-mainjob: the README's main job, run by ./run.sh.
//
//   sluice-mainjob [--once] [--config FILE] [--synthetic N] [--timeout S] [--user NAME]
//                  [CAPTURE.mrt[.gz|.bz2]]
//
// Starts the control plane (sluice-rtrmgr with FILE, default rtrmgr/examples/main-job.conf: the
// dummy FEA), a sluice-replay upstream peer feeding CAPTURE (a synthetic full table of N
// prefixes when no capture is given, N default 800,000) and a sluice-replay downstream peer
// that counts what it receives; waits for convergence; prints the summary (prefixes in the
// Adj-RIB-In, the Loc-RIB, the RIB and the FIB, advertised downstream, the time to converge,
// memory per process, and every prefix not accepted with the reason); then keeps running for
// `sluice show ...` (and `curl .../metrics` with the file's metrics block) until SIGINT/SIGTERM,
// or exits with --once (status 0 when the RIB, the FIB and the downstream peer hold exactly the
// accepted prefixes).
//
// --user NAME is handed to sluice-rtrmgr: the user its processes run as when started as root.
//
// The peers come from the configuration: the first peer (in address order) is the upstream, the
// second the downstream; they connect to the first `listen` address of the bgp block.

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ipc/types_convert.h"
#include "net/log.h"
#include "net/program_options.h"
#include "net/progress.h"
#include "rtrmgr/cli/queries.h"
#include "rtrmgr/config/config_loader.h"
#include "rtrmgr/mainjob/expected_table.h"
#include "rtrmgr/mainjob/programs.h"

namespace sluice::rtrmgr::mainjob {
namespace {

using Clock = std::chrono::steady_clock;
using PrefixSet = std::set<net::Prefix>;

volatile sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

struct Options {
  bool once = false;
  std::string config;
  std::string capture;
  uint64_t synthetic = 800000;
  double timeout_s = 900;
  std::string user;  // sluice-rtrmgr --user; empty: its default
};

std::string Count(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

struct Counts {
  uint64_t received = 0, accepted = 0, rib = 0, fib = 0, downstream = 0;
  uint64_t rib_other = 0;  // RIB routes of other protocols (connected, static): also in `fib`
  bool operator==(const Counts&) const = default;
};

// The cheap counters polled while routes flow.
std::optional<Counts> Poll(cli::SyncClient& client, const std::string& upstream,
                           const std::string& downstream) {
  Counts c;
  auto peers = client.Call("bgp", bgp::process::kListPeers, bgp::v1::ListPeersRequest());
  if (!peers.ok()) return std::nullopt;
  for (const bgp::v1::PeerInfo& p : peers->peers()) {
    auto a = ipc::FromProto(p.address());
    if (!a.ok()) continue;
    if (a->ToString() == upstream) {
      c.received = p.prefixes_received();
      c.accepted = p.prefixes_accepted();
    }
    if (a->ToString() == downstream) c.downstream = p.prefixes_advertised();
  }
  auto protocols = client.Call("rib", cli::kRibListProtocols, rib::v1::ListProtocolsRequest());
  if (protocols.ok()) {
    for (const rib::v1::ProtocolInfo& p : protocols->protocols()) {
      if (p.protocol() == "ebgp" || p.protocol() == "ibgp") {
        c.rib += p.routes();
      } else {
        c.rib_other += p.routes();
      }
    }
  }
  // The FEA's count is of every route it holds, whatever the protocol.
  auto plumbing =
      client.Call("fea", cli::kDescribePlumbing, profile::v1::DescribePlumbingRequest());
  if (plumbing.ok()) {
    std::smatch m;
    static const std::regex kFib("Fib: ([0-9]+) routes");
    if (std::regex_search(plumbing->text(), m, kFib)) c.fib = std::stoull(m[1]);
  }
  return c;
}

template <typename Route>
PrefixSet Prefixes(const std::vector<Route>& routes) {
  PrefixSet out;
  for (const Route& r : routes) {
    auto p = ipc::FromProto(r.network());
    if (p.ok()) out.insert(*p);
  }
  return out;
}

// The BGP routes of the RIB winners and of the FIB (protocol ebgp or ibgp), both families.
struct Tables {
  PrefixSet adj_rib_in, loc_rib, rib, fib, adj_rib_out;
  // Winners of other protocols (connected, static) in the RIB and the FIB: prefix -> protocol.
  std::map<net::Prefix, std::string> rib_other, fib_other;
};

absl::StatusOr<Tables> ReadTables(cli::SyncClient& client, const std::string& upstream,
                                  const std::string& downstream) {
  Tables t;
  for (const char* family : {"ipv4", "ipv6"}) {
    auto in = cli::AllBgpRoutes(client, bgp::v1::ADJ_RIB_IN, upstream, family);
    if (!in.ok()) return in.status();
    auto loc = cli::AllBgpRoutes(client, bgp::v1::LOC_RIB, "", family);
    if (!loc.ok()) return loc.status();
    auto out = cli::AllBgpRoutes(client, bgp::v1::ADJ_RIB_OUT, downstream, family);
    if (!out.ok()) return out.status();
    auto rib = cli::AllRibRoutes(client, family);
    if (!rib.ok()) return rib.status();
    for (const PrefixSet& s : {Prefixes(*in)}) t.adj_rib_in.insert(s.begin(), s.end());
    for (const PrefixSet& s : {Prefixes(*loc)}) t.loc_rib.insert(s.begin(), s.end());
    for (const PrefixSet& s : {Prefixes(*out)}) t.adj_rib_out.insert(s.begin(), s.end());
    for (const rib::v1::RibRoute& r : *rib) {
      auto p = ipc::FromProto(r.network());
      if (!p.ok()) continue;
      if (r.protocol() == "ebgp" || r.protocol() == "ibgp") {
        t.rib.insert(*p);
      } else {
        t.rib_other[*p] =
            absl::StrCat(r.protocol(), " route (admin distance ", r.admin_distance(), ")");
      }
    }
  }
  auto fib = cli::AllFibRoutes(client);
  if (!fib.ok()) return fib.status();
  for (const fea_fib::v1::FibRoute& r : *fib) {
    auto p = ipc::FromProto(r.network());
    if (!p.ok()) continue;
    if (r.protocol() == "ebgp" || r.protocol() == "ibgp") {
      t.fib.insert(*p);
    } else {
      t.fib_other[*p] = r.protocol();
    }
  }
  return t;
}

int Run(const Options& o) {
  absl::StatusOr<Config> config = LoadConfigFile(o.config);
  if (!config.ok()) {
    std::cerr << config.status().message() << "\n";
    return 1;
  }
  if (!config->bgp.enabled || config->bgp.peers.size() < 2) {
    std::cerr << "sluice-mainjob: " << o.config
              << ": wants a bgp block with two peers (upstream, downstream)\n";
    return 1;
  }
  auto it = config->bgp.peers.begin();
  const BgpPeer& up = it->second;
  const BgpPeer& down = (++it)->second;
  const std::string upstream = up.session.address.ToString();
  const std::string downstream = down.session.address.ToString();
  std::string connect = "127.0.0.1:179";
  if (!config->bgp.listen.empty()) {
    const BgpListen& l = config->bgp.listen.front();
    connect = absl::StrCat(
        l.address.is_v4() && l.address.v4().value() != 0 ? l.address.ToString() : "127.0.0.1", ":",
        l.port);
  }

  // What the upstream sends, from the same data.
  std::cerr << "main job: reading "
            << (o.capture.empty() ? absl::StrCat("a synthetic table of ", o.synthetic) : o.capture)
            << " for the summary...\n";
  absl::StatusOr<ExpectedTable> expected =
      o.capture.empty() ? ExpectedSynthetic(o.synthetic) : ExpectedFromCapture(o.capture);
  if (!expected.ok()) {
    std::cerr << "sluice-mainjob: " << expected.status().message() << "\n";
    return 1;
  }

  char dir_template[] = "/tmp/sluice-main.XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (dir == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  const std::string rundir = dir;
  const std::string bin = BuildDir();
  const std::string finder = "unix:" + rundir + "/finder.sock";

  // The control plane.
  std::vector<std::string> rtrmgr_argv = {bin + "/rtrmgr/process/sluice-rtrmgr", "--config",
                                          o.config, "--rundir", rundir};
  if (!o.user.empty()) rtrmgr_argv.insert(rtrmgr_argv.end(), {"--user", o.user});
  const pid_t rtrmgr = Spawn(rtrmgr_argv, rundir + "/rtrmgr.out", rundir + "/rtrmgr.log");
  const auto start = Clock::now();
  while (ReadFile(rundir + "/rtrmgr.out").find("ready") == std::string::npos) {
    if (g_stop || !Running(rtrmgr) || Clock::now() - start > std::chrono::seconds(60)) {
      std::cerr << "sluice-mainjob: the router manager did not come up:\n"
                << Tail(rundir + "/rtrmgr.log", 30);
      Stop(rtrmgr, 10);
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::cerr << "main job: control plane up in "
            << absl::StrFormat("%.1f", std::chrono::duration<double>(Clock::now() - start).count())
            << " s (logs in " << rundir << ")\n";

  // The peers: the downstream first, so that it sees the table arrive.
  const pid_t down_pid = Spawn(
      {bin + "/bgp/replay/sluice-replay", "--connect", connect, "--local-address", downstream,
       "--local-as", absl::StrCat(down.session.remote_as), "--receive-only", "--linger", "--quiet"},
      rundir + "/downstream.out", rundir + "/downstream.log");
  std::vector<std::string> up_argv = {bin + "/bgp/replay/sluice-replay",
                                      "--connect",
                                      connect,
                                      "--local-address",
                                      upstream,
                                      "--local-as",
                                      absl::StrCat(up.session.remote_as),
                                      "--prepend-own-as",
                                      "--next-hop-self",
                                      "--linger",
                                      "--quiet",
                                      "--json"};
  if (o.capture.empty()) {
    up_argv.insert(up_argv.end(), {"--synthetic", absl::StrCat(o.synthetic)});
  } else {
    up_argv.insert(up_argv.end(), {"--mrt", o.capture});
  }
  cli::SyncClient client(finder, 30000, "mainjob");
  // Wait for the downstream session before feeding.
  const auto session_wait = Clock::now();
  while (!g_stop && Clock::now() - session_wait < std::chrono::seconds(30)) {
    auto p = client.Call("bgp", bgp::process::kListPeers, bgp::v1::ListPeersRequest());
    bool established = false;
    if (p.ok()) {
      for (const auto& peer : p->peers()) {
        auto a = ipc::FromProto(peer.address());
        if (a.ok() && a->ToString() == downstream && peer.state() == "Established") {
          established = true;
        }
      }
    }
    if (established) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const auto feed_start = Clock::now();
  const pid_t up_pid = Spawn(up_argv, rundir + "/upstream.out", rundir + "/upstream.log");

  // Wait for convergence: the upstream has sent everything, and no counter moved for 3 s.
  Counts last;
  auto last_change = Clock::now();
  auto last_print = Clock::now();
  uint64_t received_at_last_print = 0;
  net::ProgressLine bar(stderr);  // redrawn in place on a terminal; a line every 2 s otherwise
  std::optional<Clock::time_point> first_received;
  bool sent = false;
  while (true) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (!sent) sent = ReadFile(rundir + "/upstream.out").find("\"sent\"") != std::string::npos;
    std::optional<Counts> c = Poll(client, upstream, downstream);
    const auto now = Clock::now();
    if (c) {
      if (c->received > 0 && !first_received) first_received = now;
      if (!(*c == last)) {
        last = *c;
        last_change = now;
      }
    }
    if (now - last_print > (bar.terminal() ? std::chrono::seconds(1) : std::chrono::seconds(2))) {
      const double seconds = std::chrono::duration<double>(now - last_print).count();
      last_print = now;
      const double rate = last.received >= received_at_last_print
                              ? double(last.received - received_at_last_print) / seconds
                              : 0;
      received_at_last_print = last.received;
      const std::string fib = absl::StrCat("FIB ", Count(last.fib), sent ? ", table sent" : "");
      net::Progress p;
      p.label = "main job";
      p.done = last.received;
      p.total = expected->final.size();
      p.rate_per_s = rate;
      p.note = fib;
      bar.Update(net::FormatProgress(p),
                 absl::StrFormat("main job: %s received, %s accepted, RIB %s BGP + %s other, FIB "
                                 "%s, downstream %s%s",
                                 Count(last.received), Count(last.accepted), Count(last.rib),
                                 Count(last.rib_other), Count(last.fib), Count(last.downstream),
                                 sent ? " (upstream has sent its table)" : ""));
    }
    if (sent && last.received > 0 && now - last_change > std::chrono::seconds(3)) {
      bar.Finish();
      break;
    }
    if (!Running(rtrmgr) || (!sent && !Running(up_pid))) {
      bar.Finish();
      std::cerr << "sluice-mainjob: a process ended early:\n"
                << Tail(rundir + "/upstream.log", 10) << Tail(rundir + "/rtrmgr.log", 20);
      Stop(up_pid, 5);
      Stop(down_pid, 5);
      Stop(rtrmgr, 20);
      return 1;
    }
    if (g_stop) {
      bar.Finish();
      std::cerr << "main job: stopped by a signal\n";
      Stop(up_pid, 5);
      Stop(down_pid, 5);
      Stop(rtrmgr, 30);
      return 1;
    }
    if (now - feed_start > std::chrono::duration<double>(o.timeout_s)) {
      bar.Finish();
      std::cerr << "sluice-mainjob: no convergence after " << o.timeout_s << " s\n";
      break;
    }
  }
  const double converge_s = std::chrono::duration<double>(last_change - feed_start).count();
  const double from_first_s =
      first_received ? std::chrono::duration<double>(last_change - *first_received).count() : 0.0;

  absl::StatusOr<Tables> tables = ReadTables(client, upstream, downstream);
  if (!tables.ok()) {
    std::cerr << "sluice-mainjob: reading the tables: " << tables.status().message() << "\n";
  }
  auto status = client.Call("rtrmgr", cli::kRtrmgrStatus, rtrmgr::v1::GetStatusRequest());

  // The summary.
  std::ostream& out = std::cout;
  const ExpectedTable& e = *expected;
  out << "\n=== Sluice main job: " << (o.capture.empty() ? "synthetic table" : o.capture)
      << " ===\n";
  out << "upstream " << upstream << " AS" << up.session.remote_as << " (replaying " << e.peer
      << "), downstream " << downstream << " AS" << down.session.remote_as << ", Sluice AS"
      << config->bgp.local_as << ", " << FeaBackendName(config->fea.backend) << " FEA\n\n";
  PrefixSet accepted;
  if (tables.ok()) {
    const Tables& t = *tables;
    accepted = t.loc_rib;
    // Accepted prefixes another protocol wins in the RIB (a connected 127.0.0.0/8 over BGP's).
    PrefixSet won_elsewhere;
    for (const net::Prefix& p : accepted) {
      if (t.rib_other.count(p)) won_elsewhere.insert(p);
    }
    PrefixSet bgp_winners;
    std::set_difference(accepted.begin(), accepted.end(), won_elsewhere.begin(),
                        won_elsewhere.end(), std::inserter(bgp_winners, bgp_winners.end()));
    auto row = [&](const std::string& what, uint64_t n, const std::string& note) {
      out << absl::StrFormat("  %-44s %9s  %s\n", what, Count(n), note);
    };
    row("received (distinct prefixes announced)", e.announced.size(),
        absl::StrCat(Count(e.updates), " UPDATEs; ", Count(e.announced.size() - e.final.size()),
                     " withdrawn again"));
    row("Adj-RIB-In (upstream, at the end)", t.adj_rib_in.size(),
        absl::StrCat("sluice-bgp counters: ", Count(last.received), " received, ",
                     Count(last.accepted), " accepted"));
    row("Loc-RIB (accepted)", t.loc_rib.size(), "");
    row("RIB (winning BGP routes)", t.rib.size(),
        t.rib == bgp_winners
            ? (won_elsewhere.empty() ? "= Loc-RIB"
                                     : absl::StrCat("= Loc-RIB less ", won_elsewhere.size(),
                                                    " won by another protocol"))
            : "DIFFERS");
    row("FIB (dummy FEA)", t.fib.size(), t.fib == bgp_winners ? "= RIB" : "DIFFERS");
    row("advertised downstream (Adj-RIB-Out)", t.adj_rib_out.size(),
        t.adj_rib_out == accepted ? "= Loc-RIB" : "DIFFERS");
    out << absl::StrFormat(
        "\n  time to converge: %.2f s from the upstream's start (%.2f s from "
        "its first prefix received to the last change)\n",
        converge_s, from_first_s);
    // Every prefix not accepted, with the reason.
    std::vector<std::string> reasons;
    for (const net::Prefix& p : e.announced) {
      if (accepted.count(p)) continue;
      std::string why;
      if (!e.final.count(p)) {
        why = "withdrawn later in the capture";
      } else if (e.as0.count(p)) {
        why = "AS 0 in its AS_PATH: treated as withdrawn (RFC 7607)";
      } else if (!t.adj_rib_in.count(p)) {
        why = "not in the Adj-RIB-In (refused by the UPDATE decoder)";
      } else {
        why = "refused by the import filter or not resolvable";
        const auto path = e.as_paths.find(p);
        if (path != e.as_paths.end() &&
            (" " + path->second + " ").find(absl::StrCat(" ", config->bgp.local_as, " ")) !=
                std::string::npos) {
          why = absl::StrCat("AS_PATH loop: holds our AS ", config->bgp.local_as);
        }
      }
      reasons.push_back(absl::StrCat(p.ToString(), ": ", why));
    }
    for (const net::Prefix& p : accepted) {
      if (!t.rib.count(p))
        reasons.push_back(p.ToString() + ": accepted but not in the RIB");
      else if (!t.fib.count(p))
        reasons.push_back(p.ToString() + ": in the RIB, not in the FIB");
      if (!t.adj_rib_out.count(p)) reasons.push_back(p.ToString() + ": not advertised downstream");
    }
    out << "\n  prefixes received but not accepted, or not propagated: " << reasons.size() << "\n";
    for (size_t i = 0; i < reasons.size() && i < 100; ++i) out << "    " << reasons[i] << "\n";
    if (reasons.size() > 100) out << "    ... and " << reasons.size() - 100 << " more\n";
  }
  if (status.ok()) {
    out << "\n  memory (RSS now / peak):\n";
    for (const auto& c : status->children()) {
      out << absl::StrFormat("    %-14s %8.1f MB / %8.1f MB%s\n", "sluice-" + c.name(),
                             c.rss_kb() / 1024.0, c.peak_rss_kb() / 1024.0,
                             c.restarts() ? absl::StrCat(" (", c.restarts(), " restarts)") : "");
    }
    out << absl::StrFormat("    %-14s %8.1f MB\n", "sluice-rtrmgr", status->rss_kb() / 1024.0);
  }
  out.flush();
  bool good = tables.ok() && !accepted.empty() && tables->adj_rib_out == accepted;
  if (good) {
    for (const net::Prefix& p : accepted) {
      const bool elsewhere = tables->rib_other.count(p) > 0;
      good = good && (elsewhere ? tables->fib_other.count(p) > 0
                                : tables->rib.count(p) > 0 && tables->fib.count(p) > 0);
    }
    good = good && tables->rib.size() <= accepted.size() && tables->fib == tables->rib;
  }

  if (!o.once) {
    out << "\nRunning. Try:\n  SLUICE_RUNDIR=" << rundir << " " << bin
        << "/rtrmgr/cli/sluice show bgp peers\n"
        << "(show bgp routes | show route | show fib | show interfaces | show plumbing bgp)\n";
    if (config->metrics.enabled) {
      const net::IPAddress& a = config->metrics.address;
      out << "  curl -s http://" << (a.is_v6() ? "[" + a.ToString() + "]" : a.ToString()) << ":"
          << config->metrics.port << "/metrics\n";
    }
    out << "Ctrl-C stops everything.\n";
    out.flush();
    while (!g_stop) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (!Running(rtrmgr)) {
        std::cerr << "sluice-mainjob: the router manager ended:\n"
                  << Tail(rundir + "/rtrmgr.log", 20);
        break;
      }
    }
  }
  // The downstream peer's own count, then everything stops.
  Stop(down_pid, 5);
  const std::string down_summary = ReadFile(rundir + "/downstream.out");
  std::smatch m;
  static const std::regex kReceived("received ([0-9]+) prefixes and ([0-9]+) withdrawals");
  if (std::regex_search(down_summary, m, kReceived)) {
    out << "\n  the downstream peer counted " << Count(std::stoull(m[1]))
        << " prefix announcements and " << Count(std::stoull(m[2])) << " withdrawals received\n";
  }
  Stop(up_pid, 5);
  Stop(rtrmgr, 30);
  out << (good ? "\nOK: the RIB, the FIB and the downstream peer hold exactly the accepted "
                 "prefixes.\n"
               : "\nMISMATCH: see the rows marked DIFFERS above.\n");
  out << "logs: " << rundir << "\n";
  return good ? 0 : 1;
}

// Returns the status to exit with when the program should not go on (--help, --version, a bad
// command line; net/program_options.h).
std::optional<int> ParseFlags(int argc, char** argv, Options* o) {
  net::ProgramOptions options(
      "sluice-mainjob",
      "sluice-mainjob: the main job; the control plane, an upstream and a downstream "
      "sluice-replay, convergence and the summary");
  CLI::App& app = options.app();
  app.add_flag("--once", o->once,
               "exit after the summary (0 when the RIB, the FIB and the downstream peer hold "
               "exactly the accepted prefixes) instead of running until SIGINT/SIGTERM");
  app.add_option("--config", o->config, "the sluice-rtrmgr configuration");
  app.add_option("--synthetic", o->synthetic,
                 "a synthetic full table of N prefixes when no capture is given")
      ->check(CLI::Range(uint64_t{1}, uint64_t{100000000}));
  app.add_option("--timeout", o->timeout_s, "seconds to wait for convergence")
      ->check(CLI::PositiveNumber);
  app.add_option("--user", o->user,
                 "handed to sluice-rtrmgr: the user its processes run as when started as root");
  app.add_option("CAPTURE", o->capture, "an MRT capture (.mrt, .mrt.gz or .mrt.bz2) to feed");
  return options.Parse(argc, argv);
}

}  // namespace
}  // namespace sluice::rtrmgr::mainjob

int main(int argc, char** argv) {
  sluice::net::SetLogTag("mainjob");
  sluice::net::SetLogLevel(sluice::net::LogLevel::kError);
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGINT, sluice::rtrmgr::mainjob::OnSignal);
  std::signal(SIGTERM, sluice::rtrmgr::mainjob::OnSignal);
  std::signal(SIGHUP, sluice::rtrmgr::mainjob::OnSignal);
  sluice::rtrmgr::mainjob::Options o;
  o.config = "rtrmgr/examples/main-job.conf";
  if (std::optional<int> exit = sluice::rtrmgr::mainjob::ParseFlags(argc, argv, &o)) {
    return *exit;
  }
  return sluice::rtrmgr::mainjob::Run(o);
}
