// sluice-fea: the FEA process (DESIGN.md § Processes; XORP NSDI'05 §3). Wiring only: the
// interface manager and the FIB are in fea/ (ifmgr.h, fib.h), the RPC adapters in fea/service/.
//
//   sluice-fea [--finder ADDR] [--instance NAME] [--listen EP]...
//              [--backend dummy|netlink] [--table N] [--routes-per-send N]
//              [--transaction-timeout-ms N] [--stale-timeout-ms N] [--retain-on-exit]
//              [--interface NAME[=ADDRESS/LENGTH[,ADDRESS/LENGTH]...]]...
//
//   --finder     the Finder (default $SLUICE_FINDER or unix:$SLUICE_RUNDIR/finder.sock)
//   --instance   the component instance name (default "fea"; with a Finder on TCP, the host's
//                short name: an FEA on a host of its own is named after it); the class is "fea"
//   --listen     where to serve (unix:/PATH or tcp:127.0.0.1:PORT); default a Unix socket
//   --backend    dummy (default): interfaces configured through fea_ifmgr/1.0, FIB in memory;
//                netlink: the kernel's interfaces, routes installed in a kernel table
//   --table      netlink: the kernel table (default 254, main)
//   --routes-per-send  netlink: route requests per sendmsg (default 1000)
//   --transaction-timeout-ms  open transactions idle this long are aborted (default 60000)
//   --stale-timeout-ms  netlink: routes an earlier FEA left are removed this long after start
//                if no client completed a full push before (default 0: wait for the client)
//   --interface  dummy: an interface (up, MTU 1500) with addresses, there from the start — so
//                that a restarted FEA validates routes before the router manager configures it
//   --retain-on-exit  a deliberate stop leaves the routes in the forwarding plane, for the next
//                start to adopt (BIRD's `persist`)
//
// Serves fea_fib/1.0, fea_ifmgr/1.0, profile/1.0 (and common/1.0). Status: READY once
// registered. SIGTERM, SIGINT or common/1.0/shutdown (a deliberate stop): the FIB's routes
// leave the forwarding plane (netlink: every route of protocol 83 in the table) unless
// --retain-on-exit, then the process exits 0. SIGUSR2 (exit for a restart, DESIGN.md
// § Restarts): the routes stay for the next FEA to adopt. --help lists the options. A bad option
// exits 2 (the message names it), a backend that cannot start exits 1.

#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <charconv>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/program_options.h"
#include "fea/dummy_fib_backend.h"
#include "fea/dummy_ifmgr.h"
#include "fea/fib.h"
#include "fea/netlink_fib_backend.h"
#include "fea/netlink_ifmgr.h"
#include "fea/service/fea_fib_service.h"
#include "fea/service/fea_ifmgr_service.h"
#include "ipc/methods/common.h"
#include "ipc/process_security.h"
#include "ipc/profile_service.h"
#include "ipc/run_loop.h"
#include "ipc/xrl_router.h"
#include "stage/profile.h"

namespace {

using namespace sluice;

bool ParseNumber(std::string_view text, int64_t min, int64_t max, int64_t* out) {
  int64_t v = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (error != std::errc() || end != text.data() + text.size() || v < min || v > max) return false;
  *out = v;
  return true;
}

struct Flags {
  ipc::RouterOptions router;
  std::string instance = "fea";
  std::string backend = "dummy";
  fea::NetlinkFibOptions netlink;
  fea::FeaFibServiceOptions service;
  int64_t stale_timeout_ms = 0;
  bool retain_on_exit = false;
  struct InterfaceFlag {
    std::string name;
    std::vector<std::pair<net::IPAddress, int>> addresses;
  };
  std::vector<InterfaceFlag> interfaces;
};

// "eth0=192.0.2.1/24,2001:db8::1/64" or "eth0".
bool ParseInterface(const std::string& text, Flags::InterfaceFlag* out) {
  size_t eq = text.find('=');
  out->name = text.substr(0, eq);
  if (out->name.empty()) return false;
  if (eq == std::string::npos) return true;
  std::string rest = text.substr(eq + 1);
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string item = rest.substr(0, comma);
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    size_t slash = item.find('/');
    if (slash == std::string::npos) return false;
    auto address = net::IPAddress::Parse(item.substr(0, slash));
    int64_t length = 0;
    if (!address.ok() || !ParseNumber(item.substr(slash + 1), 0, address->bits(), &length)) {
      return false;
    }
    out->addresses.emplace_back(*address, static_cast<int>(length));
  }
  return true;
}

// The Finder is reached over TCP: this FEA is on a host of its own, or may be.
bool FinderOverTcp(const ipc::RouterOptions& router) {
  std::string finder = router.finder_address;
  if (finder.empty()) {
    const char* env = std::getenv("SLUICE_FINDER");
    if (env != nullptr) finder = env;
  }
  return finder.rfind("tcp:", 0) == 0;
}

// The host name up to its first dot (systemd's %l); empty when there is none.
std::string ShortHostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "";
  std::string host(name);
  return host.substr(0, host.find('.'));
}

// Returns the status to exit with when the program should not go on (--help, --version, a bad
// command line; base/program_options.h).
std::optional<int> ParseFlags(int argc, char** argv, Flags* flags) {
  base::ProgramOptions options("sluice-fea", "sluice-fea: the FEA process, interfaces and the FIB");
  CLI::App& app = options.app();
  app.add_option("--finder", flags->router.finder_address,
                 "the Finder (default $SLUICE_FINDER or unix:$SLUICE_RUNDIR/finder.sock)");
  app.add_option("--instance", flags->instance,
                 "the component instance name (default fea; with a Finder on tcp:, the host's "
                 "short name); the class is fea")
      ->check(
          CLI::Validator([](std::string& v) { return v.empty() ? "wants a name" : ""; }, "NAME"));
  base::AddRepeatedOption(app, "--listen", flags->router.listen,
                          "where to serve: unix:/PATH or tcp:127.0.0.1:PORT (default a Unix "
                          "socket); repeatable");
  app.add_option("--backend", flags->backend,
                 "dummy: interfaces configured through fea_ifmgr/1.0, FIB in memory; netlink: "
                 "the kernel's interfaces, routes installed in a kernel table")
      ->check(CLI::IsMember({"dummy", "netlink"}));
  app.add_option("--table", flags->netlink.table, "netlink: the kernel table (254 is main)")
      ->check(CLI::Range(int64_t{1}, int64_t{0xfffffffe}) &
              CLI::Validator([](std::string& v) { return v == "255" ? "255 is local" : ""; },
                             "not 255"));
  app.add_option("--routes-per-send", flags->netlink.routes_per_send,
                 "netlink: route requests per sendmsg")
      ->check(CLI::Range(1, 10000));
  base::AddParsedOption(
      app, "--transaction-timeout-ms",
      [flags](const std::string& v) {
        int64_t n = 0;
        if (!ParseNumber(v, 10, 86400000, &n)) {
          return absl::InvalidArgumentError(v + ": want 10..86400000 milliseconds");
        }
        flags->service.transaction_timeout = std::chrono::milliseconds(n);
        return absl::OkStatus();
      },
      "open transactions idle this long are aborted (default 60000)");
  app.add_option("--stale-timeout-ms", flags->stale_timeout_ms,
                 "netlink: routes an earlier FEA left are removed this long after start if no "
                 "client completed a full push before (0: wait for the client)")
      ->check(CLI::Range(0, 86400000));
  app.add_flag("--retain-on-exit", flags->retain_on_exit,
               "a deliberate stop leaves the routes in the forwarding plane, for the next start "
               "to adopt");
  base::AddParsedOption(
      app, "--interface",
      [flags](const std::string& v) {
        Flags::InterfaceFlag interface;
        if (!ParseInterface(v, &interface)) {
          return absl::InvalidArgumentError(v + ": want NAME or NAME=ADDRESS/LENGTH[,...]");
        }
        flags->interfaces.push_back(std::move(interface));
        return absl::OkStatus();
      },
      "NAME[=ADDRESS/LENGTH[,...]]: dummy: an interface (up, MTU 1500) with addresses, there "
      "from the start; repeatable",
      true);
  options.AddLogOptions();
  if (std::optional<int> exit = options.Parse(argc, argv)) return exit;
  if (!flags->interfaces.empty() && flags->backend != "dummy") {
    return options.Fail("--interface configures the dummy backend; netlink follows the kernel");
  }
  if (app.count("--instance") == 0 && FinderOverTcp(flags->router)) {
    std::string host = ShortHostName();
    if (host.empty()) return options.Fail("the host has no name to use: give --instance");
    flags->instance = host;
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  base::SetLogTag("fea");
  // Before any thread: umask, non-dumpable, the inherited class credential.
  if (absl::Status status = ipc::HardenProcess(); !status.ok()) {
    std::cerr << "sluice-fea: " << status.message() << "\n";
    return 1;
  }
  Flags flags;
  if (std::optional<int> exit = ParseFlags(argc, argv, &flags)) return *exit;

  boost::asio::io_context io;
  stage::Profiler& profiler = stage::Profiler::Default();

  // The interface manager: configured (dummy) or the kernel's (netlink).
  std::unique_ptr<fea::IfMgr> ifmgr;
  fea::DummyIfMgr* dummy_ifmgr = nullptr;
  std::unique_ptr<fea::FibBackend> backend;
  if (flags.backend == "netlink") {
    ifmgr = std::make_unique<fea::NetlinkIfMgr>(io);
    backend = std::make_unique<fea::NetlinkFibBackend>(flags.netlink);
  } else {
    auto dummy = std::make_unique<fea::DummyIfMgr>();
    dummy_ifmgr = dummy.get();
    for (const Flags::InterfaceFlag& i : flags.interfaces) {
      fea::DummyInterfaceConfig config;
      config.name = i.name;
      absl::Status s = dummy->AddInterface(config).status();
      for (const auto& [address, length] : i.addresses) {
        if (s.ok()) s = dummy->AddAddress(i.name, address, length);
      }
      if (!s.ok()) {
        std::cerr << "sluice-fea: --interface " << i.name << ": " << s.message() << "\n";
        return 2;
      }
    }
    ifmgr = std::move(dummy);
    backend = std::make_unique<fea::DummyFibBackend>();
  }
  // IfMgr -> Fib: routes are validated against the interface tree; interfaces coming up get
  // their routes re-installed.
  fea::Fib fib(*ifmgr, std::move(backend));
  if (absl::Status s = ifmgr->Start(); !s.ok()) {
    std::cerr << "sluice-fea: interfaces (" << flags.backend << "): " << s.message() << "\n";
    return 1;
  }
  if (absl::Status s = fib.Start(); !s.ok()) {
    std::cerr << "sluice-fea: FIB (" << flags.backend << "): " << s.message() << "\n";
    return 1;
  }

  ipc::XrlRouter router(io, "fea", flags.instance, flags.router);
  // fea_fib/1.0 -> Fib; Fib changes -> subscribers' fea_fib_client/1.0.
  fea::FeaFibService fib_service(io, router, fib, profiler, flags.service);
  // fea_ifmgr/1.0 -> IfMgr; IfMgr events -> subscribers' fea_ifmgr_client/1.0 (the RIB).
  fea::FeaIfmgrService ifmgr_service(io, router, *ifmgr, dummy_ifmgr);
  // profile/1.0 -> the process's profiling points; describe_plumbing -> the FEA's parts.
  auto describe_plumbing = [&] {
    return absl::StrCat(ifmgr_service.Describe(), "\n", "Fib: ", fib.size(), " routes (",
                        std::string(fib.backend().name()), " backend",
                        flags.backend == "netlink"
                            ? absl::StrCat(", kernel table ", flags.netlink.table, " proto ",
                                           fea::kSluiceRouteProtocol)
                            : "",
                        "), ", fib.open_transactions(), " open transactions, ",
                        fib.stale_route_count(), " stale\n", fib_service.Describe(), "\n");
  };
  for (absl::Status s :
       {fib_service.Register(), ifmgr_service.Register(),
        ipc::ServeProfile(router, profiler, ipc::DescribeNow(describe_plumbing))}) {
    if (!s.ok()) {
      std::cerr << "sluice-fea: " << s.message() << "\n";
      return 1;
    }
  }

  // A deliberate stop (SIGTERM, SIGINT, common/1.0/shutdown): the routes leave the forwarding
  // plane unless --retain-on-exit. An exit for a restart (SIGUSR2): they stay.
  bool shutting_down = false;
  auto shutdown = [&](const std::string& why, bool retain) {
    if (shutting_down) return;
    shutting_down = true;
    router.SetStatus(common::v1::SHUTDOWN, why);
    const size_t routes = fib.size();
    if (retain) {
      SLUICE_LOG(kInfo) << why << ": leaving the FIB's " << routes
                        << " routes in the forwarding plane for the next FEA";
    } else if (absl::Status s = fib.Shutdown(); !s.ok()) {
      SLUICE_LOG(kError) << "shutdown: " << s.message();
    } else {
      SLUICE_LOG(kInfo) << why << ": removed the FIB's " << routes << " routes";
    }
    ifmgr->Stop();
    io.stop();
  };
  router.SetShutdownHandler(
      [&] { shutdown(ipc::methods::common::kShutdown.name().xrl(), flags.retain_on_exit); });
  boost::asio::signal_set signals(io, SIGINT, SIGTERM, SIGUSR2);
  signals.async_wait([&](const boost::system::error_code& error, int signal) {
    if (!error) {
      shutdown(absl::StrCat("signal ", signal), signal == SIGUSR2 || flags.retain_on_exit);
    }
  });

  // Routes left by an earlier FEA: removed when a client completes its full push, or by timer.
  boost::asio::steady_timer stale_timer(io);
  if (fib.stale_route_count() > 0) {
    SLUICE_LOG(kInfo) << fib.stale_route_count()
                      << " routes left by an earlier FEA are kept until the RIB re-sends its FIB";
    if (flags.stale_timeout_ms > 0) {
      stale_timer.expires_after(std::chrono::milliseconds(flags.stale_timeout_ms));
      stale_timer.async_wait([&](const boost::system::error_code& error) {
        if (error || fib.stale_route_count() == 0) return;
        auto removed = fib.CompleteFullPush();
        if (removed.ok()) {
          SLUICE_LOG(kInfo) << "stale timeout: removed " << *removed << " routes";
        }
      });
    }
  }

  router.SetStatus(common::v1::STARTUP, "registering with the Finder");
  router.OnReady([&](absl::Status status) {
    if (!status.ok()) {
      SLUICE_LOG(kWarning) << "Finder: " << status.message() << " (still trying)";
      return;
    }
    router.SetStatus(common::v1::READY);
    SLUICE_LOG(kInfo) << "ready: instance " << router.instance_name() << ", " << flags.backend
                      << " backend, " << ifmgr->tree().size() << " interfaces";
  });
  if (absl::Status s = router.Start(); !s.ok()) {
    std::cerr << "sluice-fea: " << s.message() << "\n";
    return 1;
  }
  ipc::RunLoop(io);
  return 0;
}
