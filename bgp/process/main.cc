// sluice-bgp: the BGP process (DESIGN.md § Processes). Flags and signals only: BgpDaemon
// (bgp_daemon.h) wires the core (BgpProcess: sessions + the staged pipeline), the adapters
// (bgp/1.0, rib_client/1.0, profile/1.0) and the RIB client.
//
//   sluice-bgp [--finder ENDPOINT] [--instance NAME] [--listen ADDR[:PORT]]...
//              [--local-as AS] [--bgp-id ADDR] [--rib TARGET | --no-rib] [--rpki CLASS]
//              [--ipv4-only]
//              [--send-buffer-kb KB] [--send-budget-mb MB] [--threads N] [--parse-threads N]
//              [--encode-thread 0|1]
//
// Prints "ready INSTANCE" on stdout once registered with the Finder. SIGINT/SIGTERM (or
// common/1.0/shutdown): every session ends with Cease / Administrative Shutdown, then exit 0.
// --help lists the options; a bad option exits 2 with a message naming it, a failure to start 1.

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/program_options.h"
#include "bgp/process/bgp_daemon.h"
#include "bgp/stages/send_budget.h"
#include "ipc/process_security.h"
#include "ipc/run_loop.h"

namespace sluice::bgp::process {
namespace {

struct Flags {
  std::string finder;
  std::string instance = "bgp";
  std::vector<std::pair<net::IPAddress, uint16_t>> listen;
  std::optional<uint32_t> local_as;
  std::optional<net::IPv4Address> bgp_id;
  std::string rib = "rib";
  std::string rpki;
  bool no_rib = false;
  bool ipv4_only = false;
  // PeerOut's high water: with the 1 MiB of bgp/stages, a downstream peer that reads a full
  // table slower than it arrives leaves most of the table in the fanout queue, which costs more
  // memory per prefix than the session's send buffer (bench/bgp/README.md).
  size_t send_buffer_kb = 8192;
  // All peers' queues together: with many peers each gets less (SendBudget). A change waiting
  // in the fanout queue costs 100-170 octets once, however many peers wait for it; encoded, about
  // 15 octets per peer. Past a few peers the shared queue holds the surplus more cheaply.
  size_t send_budget_mb = 8;
  int threads = RouterConfig::DefaultThreads();
  int parse_threads = -1;  // -1: RouterConfig::DefaultParseThreads
  int encode_thread = -1;  // -1: RouterConfig::DefaultEncodeThread
};

[[noreturn]] void Die(const std::string& message) {
  std::cerr << "sluice-bgp: " << message << "\n";
  std::exit(1);
}

// ADDR, ADDR:PORT or [ADDR]:PORT (port 179 by default).
absl::StatusOr<std::pair<net::IPAddress, uint16_t>> ParseListen(const std::string& text) {
  std::string host = text;
  uint32_t port = kBgpPort;
  std::string port_text;
  if (!text.empty() && text[0] == '[') {
    const size_t close = text.find(']');
    if (close == std::string::npos) return absl::InvalidArgumentError("bad address " + text);
    host = text.substr(1, close - 1);
    if (close + 1 < text.size()) {
      if (text[close + 1] != ':') return absl::InvalidArgumentError("bad address " + text);
      port_text = text.substr(close + 2);
    }
  } else if (const size_t colon = text.rfind(':');
             colon != std::string::npos && text.find(':') == colon) {
    host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
  }
  if (!port_text.empty() && (!absl::SimpleAtoi(port_text, &port) || port > 65535)) {
    return absl::InvalidArgumentError("bad port in " + text);
  }
  absl::StatusOr<net::IPAddress> address = net::IPAddress::Parse(host);
  if (!address.ok()) return absl::InvalidArgumentError("bad address in " + text);
  return std::pair{*address, uint16_t(port)};
}

// Returns the status to exit with when the program should not go on (--help, --version, a bad
// command line; base/program_options.h).
std::optional<int> ParseFlags(int argc, char** argv, Flags* f) {
  base::ProgramOptions options(
      "sluice-bgp",
      "sluice-bgp: the BGP process, BGP-4 sessions and the staged BGP pipeline, configured "
      "through bgp/1.0.\n\nSignals: SIGTERM and SIGINT stop for good (Cease, in a Hard Reset "
      "where RFC 8538 was negotiated, and the RIB withdraws BGP's routes at once); SIGUSR2 exits "
      "to be restarted (the connections just close and the RIB keeps BGP's routes: graceful "
      "restart, RFC 4724).");
  CLI::App& app = options.app();
  app.add_option("--finder", f->finder,
                 "the Finder: unix:/PATH or tcp:127.0.0.1:PORT (default "
                 "unix:$SLUICE_RUNDIR/finder.sock)");
  app.add_option("--instance", f->instance, "our instance name; the RIB calls it back");
  base::AddParsedOption(
      app, "--listen",
      [f](const std::string& v) {
        auto listen = ParseListen(v);
        if (!listen.ok()) return listen.status();
        f->listen.push_back(*listen);
        return absl::OkStatus();
      },
      "ADDR[:PORT]: accept BGP connections there ([ADDR]:PORT for IPv6; port 179 by default, 0 "
      "for a free one); repeatable. Also bgp/1.0/listen.",
      true);
  app.add_option_function<uint32_t>(
         "--local-as", [f](const uint32_t& as) { f->local_as = as; },
         "the local AS (else bgp/1.0/set_local_as)")
      ->check(CLI::Range(uint32_t{1}, uint32_t{0xffffffff}));
  base::AddParsedOption(
      app, "--bgp-id",
      [f](const std::string& v) {
        absl::StatusOr<net::IPv4Address> id = net::IPv4Address::Parse(v);
        if (!id.ok() || id->value() == 0) {
          return absl::InvalidArgumentError(v + ": want a non-zero IPv4 address");
        }
        f->bgp_id = *id;
        return absl::OkStatus();
      },
      "ADDR: the BGP Identifier (else bgp/1.0/set_bgp_id)");
  app.add_option("--rib", f->rib, "the RIB's class or instance name");
  app.add_flag("--no-rib", f->no_rib,
               "run without a RIB: every nexthop resolves, no route is sent to a RIB");
  app.add_option("--rpki", f->rpki,
                 "sluice-rpki's class to take VRPs from (rpki/1.0 subscribe); none by default");
  app.add_flag("--ipv4-only", f->ipv4_only, "run IPv4 unicast only");
  app.add_option("--send-buffer-kb", f->send_buffer_kb,
                 "encoded UPDATEs queued per peer (KiB) before the peer's branch waits in the "
                 "fanout queue (queued UPDATEs cost about 15 octets per prefix, the fanout queue "
                 "about 100)")
      ->check(CLI::Range(size_t{1}, size_t{1} << 22));
  app.add_option("--send-budget-mb", f->send_budget_mb,
                 "encoded UPDATEs queued by all peers together (MiB): each peer's share is this "
                 "over the number of peers, at least 256 KiB and at most --send-buffer-kb")
      ->check(CLI::Range(size_t{1}, size_t{1} << 20));
  app.add_option("--threads", f->threads,
                 "route processing on N worker threads (the prefixes shared among them by hash); "
                 "1: the serial pipeline on the event loop "
                 "(default: the CPUs sluice-bgp may use, its affinity mask within its cgroup's CPU "
                 "quota)")
      ->check(CLI::Range(1, 256));
  app.add_option_function<int>(
         "--parse-threads", [f](const int& n) { f->parse_threads = n; },
         "decode received UPDATEs on a pool of N threads; 0: on the event loop (default: the "
         "usable CPUs that the event loop and --threads leave, at most --threads; 0 with "
         "--threads 1)")
      ->check(CLI::Range(0, 256));
  app.add_option_function<int>(
         "--encode-thread", [f](const int& n) { f->encode_thread = n; },
         "1: encode the UPDATEs sent to peers on a thread of their own, 0: on the event loop "
         "(default: 1 when --threads > 1 leaves a usable CPU beside the event loop and the "
         "shards)")
      ->check(CLI::Range(0, 1));
  options.AddLogOptions();
  return options.Parse(argc, argv);
}

int Run(const Flags& flags) {
  boost::asio::io_context io;
  SendBudget send_budget(flags.send_budget_mb << 20, 256 * 1024, flags.send_buffer_kb * 1024);
  BgpDaemonOptions options;
  options.instance = flags.instance;
  options.router.finder_address = flags.finder;
  options.rib = flags.no_rib ? "" : flags.rib;
  options.rpki = flags.rpki;
  options.ipv6 = !flags.ipv4_only;
  options.pipeline.peer_out.high_water = flags.send_buffer_kb * 1024;
  options.pipeline.peer_out.budget = &send_budget;
  options.threads = flags.threads;
  options.parse_threads = flags.parse_threads >= 0
                              ? flags.parse_threads
                              : RouterConfig::DefaultParseThreads(flags.threads);
  options.encode_thread = flags.encode_thread >= 0
                              ? flags.encode_thread == 1
                              : RouterConfig::DefaultEncodeThread(flags.threads);
  BgpDaemon daemon(io, options);
  BgpProcess& bgp = daemon.bgp();

  if (flags.local_as) {
    if (absl::Status st = bgp.SetLocalAs(*flags.local_as); !st.ok()) Die(st.ToString());
  }
  if (flags.bgp_id) {
    if (absl::Status st = bgp.SetBgpId(*flags.bgp_id); !st.ok()) Die(st.ToString());
  }
  for (const auto& [address, port] : flags.listen) {
    absl::StatusOr<uint16_t> bound = bgp.Listen(address, port);
    if (!bound.ok()) Die(absl::StrCat("--listen: ", bound.status().ToString()));
  }

  // Clean shutdown: Cease / Administrative Shutdown (Hard Reset) to every peer, deregistration
  // at the RIB, a moment for the NOTIFICATIONs and the call to leave, then stop.
  boost::asio::steady_timer stop_timer(io);
  bool stopping = false;
  auto shutdown = [&] {
    if (stopping) return;
    stopping = true;
    daemon.Shutdown();
    stop_timer.expires_after(std::chrono::milliseconds(200));
    stop_timer.async_wait([&](const boost::system::error_code&) { io.stop(); });
  };
  daemon.router().SetShutdownHandler(shutdown);  // common/1.0/shutdown
  boost::asio::signal_set signals(io, SIGINT, SIGTERM, SIGUSR2);
  signals.async_wait([&](const boost::system::error_code& error, int signal) {
    if (error) return;
    if (signal == SIGUSR2) {
      // An exit to be restarted (the router manager: `threads`, an upgrade): peers and the RIB
      // keep our routes for the new process (graceful restart), as after a crash.
      SLUICE_LOG(kInfo) << "signal " << signal << ": exiting for a restart";
      if (stopping) return;
      stopping = true;
      daemon.ExitForRestart();
      stop_timer.expires_after(std::chrono::milliseconds(50));
      stop_timer.async_wait([&](const boost::system::error_code&) { io.stop(); });
      return;
    }
    SLUICE_LOG(kInfo) << "signal " << signal << ": shutting down";
    shutdown();
  });

  daemon.router().OnReady([&](absl::Status status) {
    if (status.ok()) {
      std::cout << "ready " << daemon.router().instance_name() << std::endl;
    } else {
      SLUICE_LOG(kWarning) << "not registered with the Finder yet: " << status.message();
    }
  });
  if (absl::Status st = daemon.Start(); !st.ok()) Die(st.ToString());
  sluice::ipc::RunLoop(io);
  SLUICE_LOG(kInfo) << "stopped";
  return 0;
}

}  // namespace
}  // namespace sluice::bgp::process

int main(int argc, char** argv) {
  sluice::base::SetLogTag("bgp");
  // Before any thread: umask, non-dumpable, the inherited class credential.
  if (absl::Status status = sluice::ipc::HardenProcess(); !status.ok()) {
    std::cerr << "sluice-bgp: " << status.message() << "\n";
    return 1;
  }
  std::signal(SIGPIPE, SIG_IGN);
  sluice::bgp::process::Flags flags;
  if (std::optional<int> exit = sluice::bgp::process::ParseFlags(argc, argv, &flags)) {
    return *exit;
  }
  return sluice::bgp::process::Run(flags);
}
