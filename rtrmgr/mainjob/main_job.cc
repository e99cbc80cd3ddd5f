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
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/log.h"
#include "base/program_options.h"
#include "base/progress.h"
#include "ipc/methods/bgp.h"
#include "ipc/methods/rtrmgr.h"
#include "ipc/types_convert.h"
#include "rtrmgr/cli/queries.h"
#include "rtrmgr/config/config_loader.h"
#include "rtrmgr/mainjob/expected_table.h"
#include "rtrmgr/mainjob/observed_tables.h"
#include "rtrmgr/mainjob/programs.h"

namespace sluice::rtrmgr::mainjob {
namespace {

using Clock = std::chrono::steady_clock;

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

// The progress line while routes flow: redrawn in place on a terminal, a line every 2 s
// otherwise.
class ProgressReport {
 public:
  explicit ProgressReport(uint64_t total) : total_(total) {}
  bool due(Clock::time_point now) const {
    return now - last_print_ >
           (bar_.terminal() ? std::chrono::seconds(1) : std::chrono::seconds(2));
  }
  // `sent`: the upstream has sent its whole table.
  void Update(const Counts& last, bool sent, Clock::time_point now);
  void Finish() { bar_.Finish(); }

 private:
  uint64_t total_;
  Clock::time_point last_print_ = Clock::now();
  uint64_t received_at_last_print_ = 0;
  base::ProgressLine bar_{stderr};
};

void ProgressReport::Update(const Counts& last, bool sent, Clock::time_point now) {
  const double seconds = std::chrono::duration<double>(now - last_print_).count();
  last_print_ = now;
  const double rate = last.received >= received_at_last_print_
                          ? double(last.received - received_at_last_print_) / seconds
                          : 0;
  received_at_last_print_ = last.received;
  const std::string fib = absl::StrCat("FIB ", Count(last.fib), sent ? ", table sent" : "");
  base::Progress p;
  p.label = "main job";
  p.done = last.received;
  p.total = total_;
  p.rate_per_s = rate;
  p.note = fib;
  bar_.Update(base::FormatProgress(p),
              absl::StrFormat("main job: %s received, %s accepted, RIB %s BGP + %s other, FIB "
                              "%s, downstream %s%s",
                              Count(last.received), Count(last.accepted), Count(last.rib),
                              Count(last.rib_other), Count(last.fib), Count(last.downstream),
                              sent ? " (upstream has sent its table)" : ""));
}

// One run of the main job: its steps in order, and the state they hand on.
class MainJob {
 public:
  explicit MainJob(const Options& o) : o_(o) {}
  // The exit status: 0 when the RIB, the FIB and the downstream peer hold exactly the accepted
  // prefixes.
  int Run();

 private:
  // Each step prints what went wrong and returns false when the run cannot go on.
  bool LoadConfiguration();
  bool ReadExpected();
  bool StartControlPlane();
  void StartPeers();
  void AwaitDownstreamSession();
  // Until the upstream has sent everything and no counter moved for 3 s, or the timeout.
  bool AwaitConvergence();
  // Whether a process ended or a signal came while waiting for convergence; if so, says which
  // and stops the processes.
  bool EndedEarly(bool sent);
  // The summary; returns whether the router holds exactly the accepted prefixes.
  bool Summarize(std::ostream& out);
  void PrintRows(std::ostream& out, const Tables& t, const PrefixSet& accepted);
  void PrintMemory(std::ostream& out, const absl::StatusOr<rtrmgr::v1::GetStatusReply>& status);
  // Without --once: how to look at the router, then wait for a signal.
  void KeepRunning(std::ostream& out);
  void StopAll(std::ostream& out, bool good);

  const Options& o_;
  Config config_;
  const BgpPeer* up_ = nullptr;
  const BgpPeer* down_ = nullptr;
  std::string upstream_, downstream_;  // the peers' addresses
  std::string connect_;                // where the peers connect: "address:port"
  ExpectedTable expected_;
  std::string rundir_, bin_;
  pid_t rtrmgr_ = 0, down_pid_ = 0, up_pid_ = 0;
  std::unique_ptr<cli::SyncClient> client_;
  std::optional<ProgressReport> progress_;
  Clock::time_point feed_start_;
  // Convergence: the counters at the end, when they last moved, when the first prefix came.
  Counts last_;
  Clock::time_point last_change_;
  std::optional<Clock::time_point> first_received_;
};

bool MainJob::LoadConfiguration() {
  absl::StatusOr<Config> config = LoadConfigFile(o_.config);
  if (!config.ok()) {
    std::cerr << config.status().message() << "\n";
    return false;
  }
  if (!config->bgp.enabled || config->bgp.peers.size() < 2) {
    std::cerr << "sluice-mainjob: " << o_.config
              << ": wants a bgp block with two peers (upstream, downstream)\n";
    return false;
  }
  config_ = *std::move(config);
  auto it = config_.bgp.peers.begin();
  up_ = &it->second;
  down_ = &(++it)->second;
  upstream_ = up_->session.address.ToString();
  downstream_ = down_->session.address.ToString();
  connect_ = "127.0.0.1:179";
  if (!config_.bgp.listen.empty()) {
    const BgpListen& l = config_.bgp.listen.front();
    connect_ = absl::StrCat(
        l.address.is_v4() && l.address.v4().value() != 0 ? l.address.ToString() : "127.0.0.1", ":",
        l.port);
  }
  return true;
}

// What the upstream sends, from the same data.
bool MainJob::ReadExpected() {
  std::cerr << "main job: reading "
            << (o_.capture.empty() ? absl::StrCat("a synthetic table of ", o_.synthetic)
                                   : o_.capture)
            << " for the summary...\n";
  absl::StatusOr<ExpectedTable> expected =
      o_.capture.empty() ? ExpectedSynthetic(o_.synthetic) : ExpectedFromCapture(o_.capture);
  if (!expected.ok()) {
    std::cerr << "sluice-mainjob: " << expected.status().message() << "\n";
    return false;
  }
  expected_ = *std::move(expected);
  return true;
}

// The control plane, in a new run directory, up when sluice-rtrmgr says "ready".
bool MainJob::StartControlPlane() {
  char dir_template[] = "/tmp/sluice-main.XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (dir == nullptr) {
    std::perror("mkdtemp");
    return false;
  }
  rundir_ = dir;
  bin_ = BuildDir();
  std::vector<std::string> rtrmgr_argv = {bin_ + "/rtrmgr/process/sluice-rtrmgr", "--config",
                                          o_.config, "--rundir", rundir_};
  if (!o_.user.empty()) rtrmgr_argv.insert(rtrmgr_argv.end(), {"--user", o_.user});
  rtrmgr_ = Spawn(rtrmgr_argv, rundir_ + "/rtrmgr.out", rundir_ + "/rtrmgr.log");
  const auto start = Clock::now();
  while (ReadFile(rundir_ + "/rtrmgr.out").find("ready") == std::string::npos) {
    if (g_stop || !Running(rtrmgr_) || Clock::now() - start > std::chrono::seconds(60)) {
      std::cerr << "sluice-mainjob: the router manager did not come up:\n"
                << Tail(rundir_ + "/rtrmgr.log", 30);
      Stop(rtrmgr_, 10);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::cerr << "main job: control plane up in "
            << absl::StrFormat("%.1f", std::chrono::duration<double>(Clock::now() - start).count())
            << " s (logs in " << rundir_ << ")\n";
  return true;
}

// The peers: the downstream first, so that it sees the table arrive.
void MainJob::StartPeers() {
  down_pid_ = Spawn({bin_ + "/bgp/replay/sluice-replay", "--connect", connect_, "--local-address",
                     downstream_, "--local-as", absl::StrCat(down_->session.remote_as),
                     "--receive-only", "--linger", "--quiet"},
                    rundir_ + "/downstream.out", rundir_ + "/downstream.log");
  std::vector<std::string> up_argv = {bin_ + "/bgp/replay/sluice-replay",
                                      "--connect",
                                      connect_,
                                      "--local-address",
                                      upstream_,
                                      "--local-as",
                                      absl::StrCat(up_->session.remote_as),
                                      "--prepend-own-as",
                                      "--next-hop-self",
                                      "--linger",
                                      "--quiet",
                                      "--json"};
  if (o_.capture.empty()) {
    up_argv.insert(up_argv.end(), {"--synthetic", absl::StrCat(o_.synthetic)});
  } else {
    up_argv.insert(up_argv.end(), {"--mrt", o_.capture});
  }
  client_ = std::make_unique<cli::SyncClient>("unix:" + rundir_ + "/finder.sock", 30000, "mainjob");
  AwaitDownstreamSession();
  feed_start_ = Clock::now();
  up_pid_ = Spawn(up_argv, rundir_ + "/upstream.out", rundir_ + "/upstream.log");
}

// The downstream session up before feeding (at most 30 s).
void MainJob::AwaitDownstreamSession() {
  const auto session_wait = Clock::now();
  while (!g_stop && Clock::now() - session_wait < std::chrono::seconds(30)) {
    auto p = client_->Call("bgp", ipc::methods::bgp::kListPeers, bgp::v1::ListPeersRequest());
    bool established = false;
    if (p.ok()) {
      for (const auto& peer : p->peers()) {
        auto a = ipc::FromProto(peer.address());
        if (a.ok() && a->ToString() == downstream_ && peer.state() == "Established") {
          established = true;
        }
      }
    }
    if (established) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

bool MainJob::AwaitConvergence() {
  last_change_ = Clock::now();
  progress_.emplace(expected_.final.size());
  bool sent = false;
  while (true) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (!sent) sent = ReadFile(rundir_ + "/upstream.out").find("\"sent\"") != std::string::npos;
    std::optional<Counts> c = Poll(*client_, upstream_, downstream_);
    const auto now = Clock::now();
    if (c) {
      if (c->received > 0 && !first_received_) first_received_ = now;
      if (!(*c == last_)) {
        last_ = *c;
        last_change_ = now;
      }
    }
    if (progress_->due(now)) progress_->Update(last_, sent, now);
    if (sent && last_.received > 0 && now - last_change_ > std::chrono::seconds(3)) {
      progress_->Finish();
      return true;
    }
    if (EndedEarly(sent)) return false;
    if (now - feed_start_ > std::chrono::duration<double>(o_.timeout_s)) {
      progress_->Finish();
      std::cerr << "sluice-mainjob: no convergence after " << o_.timeout_s << " s\n";
      return true;
    }
  }
}

bool MainJob::EndedEarly(bool sent) {
  if (!Running(rtrmgr_) || (!sent && !Running(up_pid_))) {
    progress_->Finish();
    std::cerr << "sluice-mainjob: a process ended early:\n"
              << Tail(rundir_ + "/upstream.log", 10) << Tail(rundir_ + "/rtrmgr.log", 20);
    Stop(up_pid_, 5);
    Stop(down_pid_, 5);
    Stop(rtrmgr_, 20);
    return true;
  }
  if (g_stop) {
    progress_->Finish();
    std::cerr << "main job: stopped by a signal\n";
    Stop(up_pid_, 5);
    Stop(down_pid_, 5);
    Stop(rtrmgr_, 30);
    return true;
  }
  return false;
}

bool MainJob::Summarize(std::ostream& out) {
  absl::StatusOr<Tables> tables = ReadTables(*client_, upstream_, downstream_);
  if (!tables.ok()) {
    std::cerr << "sluice-mainjob: reading the tables: " << tables.status().message() << "\n";
  }
  auto status =
      client_->Call("rtrmgr", ipc::methods::rtrmgr::kGetStatus, rtrmgr::v1::GetStatusRequest());
  out << "\n=== Sluice main job: " << (o_.capture.empty() ? "synthetic table" : o_.capture)
      << " ===\n";
  out << "upstream " << upstream_ << " AS" << up_->session.remote_as << " (replaying "
      << expected_.peer << "), downstream " << downstream_ << " AS" << down_->session.remote_as
      << ", Sluice AS" << config_.bgp.local_as << ", " << FeaBackendName(config_.fea.backend)
      << " FEA\n\n";
  PrefixSet accepted;
  if (tables.ok()) {
    accepted = tables->loc_rib;
    PrintRows(out, *tables, accepted);
    // Every prefix not accepted, with the reason.
    const std::vector<std::string> reasons =
        NotAcceptedOrPropagated(expected_, *tables, accepted, config_.bgp.local_as);
    out << "\n  prefixes received but not accepted, or not propagated: " << reasons.size() << "\n";
    for (size_t i = 0; i < reasons.size() && i < 100; ++i) out << "    " << reasons[i] << "\n";
    if (reasons.size() > 100) out << "    ... and " << reasons.size() - 100 << " more\n";
  }
  PrintMemory(out, status);
  out.flush();
  return HoldExactlyTheAccepted(tables, accepted);
}

// The table of counts, each compared with the one it should equal, and the time to converge.
void MainJob::PrintRows(std::ostream& out, const Tables& t, const PrefixSet& accepted) {
  const ExpectedTable& e = expected_;
  // Accepted prefixes another protocol wins in the RIB (a connected 127.0.0.0/8 over BGP's).
  PrefixSet won_elsewhere;
  for (const net::Prefix& p : accepted) {
    if (t.rib_other.count(p)) won_elsewhere.insert(p);
  }
  PrefixSet bgp_winners;
  std::set_difference(accepted.begin(), accepted.end(), won_elsewhere.begin(), won_elsewhere.end(),
                      std::inserter(bgp_winners, bgp_winners.end()));
  auto row = [&](const std::string& what, uint64_t n, const std::string& note) {
    out << absl::StrFormat("  %-44s %9s  %s\n", what, Count(n), note);
  };
  row("received (distinct prefixes announced)", e.announced.size(),
      absl::StrCat(Count(e.updates), " UPDATEs; ", Count(e.announced.size() - e.final.size()),
                   " withdrawn again"));
  row("Adj-RIB-In (upstream, at the end)", t.adj_rib_in.size(),
      absl::StrCat("sluice-bgp counters: ", Count(last_.received), " received, ",
                   Count(last_.accepted), " accepted"));
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
  const double converge_s = std::chrono::duration<double>(last_change_ - feed_start_).count();
  const double from_first_s =
      first_received_ ? std::chrono::duration<double>(last_change_ - *first_received_).count()
                      : 0.0;
  out << absl::StrFormat(
      "\n  time to converge: %.2f s from the upstream's start (%.2f s from "
      "its first prefix received to the last change)\n",
      converge_s, from_first_s);
}

// Memory (RSS now and peak) of every process the router manager started, and its own.
void MainJob::PrintMemory(std::ostream& out,
                          const absl::StatusOr<rtrmgr::v1::GetStatusReply>& status) {
  if (!status.ok()) return;
  out << "\n  memory (RSS now / peak):\n";
  for (const auto& c : status->children()) {
    out << absl::StrFormat("    %-14s %8.1f MB / %8.1f MB%s\n", "sluice-" + c.name(),
                           c.rss_kb() / 1024.0, c.peak_rss_kb() / 1024.0,
                           c.restarts() ? absl::StrCat(" (", c.restarts(), " restarts)") : "");
  }
  out << absl::StrFormat("    %-14s %8.1f MB\n", "sluice-rtrmgr", status->rss_kb() / 1024.0);
}

void MainJob::KeepRunning(std::ostream& out) {
  out << "\nRunning. Try:\n  SLUICE_RUNDIR=" << rundir_ << " " << bin_
      << "/rtrmgr/cli/sluice show bgp peers\n"
      << "(show bgp routes | show route | show fib | show interfaces | show plumbing bgp)\n";
  if (config_.metrics.enabled) {
    const net::IPAddress& a = config_.metrics.address;
    out << "  curl -s http://" << (a.is_v6() ? "[" + a.ToString() + "]" : a.ToString()) << ":"
        << config_.metrics.port << "/metrics\n";
  }
  out << "Ctrl-C stops everything.\n";
  out.flush();
  while (!g_stop) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!Running(rtrmgr_)) {
      std::cerr << "sluice-mainjob: the router manager ended:\n"
                << Tail(rundir_ + "/rtrmgr.log", 20);
      break;
    }
  }
}

// The downstream peer's own count, then everything stops; the verdict.
void MainJob::StopAll(std::ostream& out, bool good) {
  Stop(down_pid_, 5);
  const std::string down_summary = ReadFile(rundir_ + "/downstream.out");
  std::smatch m;
  static const std::regex kReceived("received ([0-9]+) prefixes and ([0-9]+) withdrawals");
  if (std::regex_search(down_summary, m, kReceived)) {
    out << "\n  the downstream peer counted " << Count(std::stoull(m[1]))
        << " prefix announcements and " << Count(std::stoull(m[2])) << " withdrawals received\n";
  }
  Stop(up_pid_, 5);
  Stop(rtrmgr_, 30);
  out << (good ? "\nOK: the RIB, the FIB and the downstream peer hold exactly the accepted "
                 "prefixes.\n"
               : "\nMISMATCH: see the rows marked DIFFERS above.\n");
  out << "logs: " << rundir_ << "\n";
}

int MainJob::Run() {
  if (!LoadConfiguration() || !ReadExpected() || !StartControlPlane()) return 1;
  StartPeers();
  if (!AwaitConvergence()) return 1;
  std::ostream& out = std::cout;
  const bool good = Summarize(out);
  if (!o_.once) KeepRunning(out);
  StopAll(out, good);
  return good ? 0 : 1;
}

// Returns the status to exit with when the program should not go on (--help, --version, a bad
// command line; base/program_options.h).
std::optional<int> ParseFlags(int argc, char** argv, Options* o) {
  base::ProgramOptions options(
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
  sluice::base::SetLogTag("mainjob");
  sluice::base::SetLogLevel(sluice::base::LogLevel::kError);
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGINT, sluice::rtrmgr::mainjob::OnSignal);
  std::signal(SIGTERM, sluice::rtrmgr::mainjob::OnSignal);
  std::signal(SIGHUP, sluice::rtrmgr::mainjob::OnSignal);
  sluice::rtrmgr::mainjob::Options o;
  o.config = "rtrmgr/examples/main-job.conf";
  if (std::optional<int> exit = sluice::rtrmgr::mainjob::ParseFlags(argc, argv, &o)) {
    return *exit;
  }
  return sluice::rtrmgr::mainjob::MainJob(o).Run();
}
