// sluice-rpki: RTR sessions to RPKI caches (RFC 8210, and RFC 6810 by negotiation) and the VRP
// set they give, served as rpki/1.0 (ipc/proto/rpki.proto). Flags and signals here;
// RpkiService (rpki_service.h) wires the rest.
//
//   sluice-rpki [--finder ENDPOINT] [--instance NAME] [--cache ADDRESS[:PORT][/PREFERENCE]]...
//               [--refresh S] [--retry S] [--expire S]
//
// Prints "ready INSTANCE" once registered with the Finder. SIGINT/SIGTERM or common/1.0/shutdown
// stop it; subscribers keep the VRPs they have (DESIGN.md § Restarts) until a new sluice-rpki's
// dump replaces them.

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/program_options.h"
#include "ipc/methods/common.h"
#include "ipc/process_security.h"
#include "ipc/random.h"
#include "ipc/run_loop.h"
#include "ipc/xrl_router.h"
#include "rpki/rpki_service.h"

namespace sluice::rpki {
namespace {

struct Flags {
  ipc::RouterOptions router;
  std::string instance = "rpki";
  std::vector<CacheConfig> caches;  // their intervals: `intervals`
  rtr::Intervals intervals;
};

// "ADDRESS[:PORT][/PREFERENCE]"; an IPv6 address with a port in brackets: "[::1]:8323".
absl::StatusOr<CacheConfig> ParseCache(const std::string& text) {
  const auto bad = [&text](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(text, ": ", why));
  };
  CacheConfig c;
  std::string rest = text;
  if (size_t slash = rest.rfind('/'); slash != std::string::npos) {
    uint32_t preference = 0;
    if (!absl::SimpleAtoi(rest.substr(slash + 1), &preference) || preference > 255) {
      return bad("the preference is a number 0..255");
    }
    c.preference = static_cast<uint8_t>(preference);
    rest.resize(slash);
  }
  std::string address = rest;
  uint32_t port = 323;
  const size_t colon = rest.rfind(':');
  const bool bracketed = !rest.empty() && rest[0] == '[';
  if (bracketed || (colon != std::string::npos && rest.find(':') == colon)) {
    const size_t close = bracketed ? rest.find(']') : colon;
    if (bracketed && (close == std::string::npos)) return bad("no closing ]");
    address = bracketed ? rest.substr(1, close - 1) : rest.substr(0, colon);
    const size_t port_at = bracketed ? close + 1 : colon;
    if (port_at < rest.size()) {
      if (rest[port_at] != ':' || !absl::SimpleAtoi(rest.substr(port_at + 1), &port) || port == 0 ||
          port > 65535) {
        return bad("the port is a number 1..65535");
      }
    }
  }
  auto parsed = net::IPAddress::Parse(address);
  if (!parsed.ok()) return bad("not an IP address");
  c.address = *parsed;
  c.port = static_cast<uint16_t>(port);
  return c;
}

int Run(const Flags& flags) {
  boost::asio::io_context io;
  ipc::XrlRouter router(io, "rpki", flags.instance, flags.router);
  uint64_t epoch = 0;
  const std::string random = ipc::RandomOctets(sizeof epoch);
  std::memcpy(&epoch, random.data(), sizeof epoch);
  RpkiService service(io, &router, epoch, std::chrono::seconds(flags.intervals.expire));
  if (absl::Status s = service.Start(); !s.ok()) {
    std::cerr << "sluice-rpki: " << s.message() << "\n";
    return 1;
  }
  for (CacheConfig c : flags.caches) {
    c.intervals = flags.intervals;
    if (absl::Status s = service.caches().Add(c); !s.ok()) {
      std::cerr << "sluice-rpki: --cache: " << s.message() << "\n";
      return 2;
    }
  }
  bool stopping = false;
  auto shutdown = [&](const std::string& why) {
    if (stopping) return;
    stopping = true;
    router.SetStatus(common::v1::SHUTDOWN, why);
    SLUICE_LOG(kInfo) << why << ": shutting down";
    io.stop();
  };
  router.SetShutdownHandler([&] { shutdown(ipc::methods::common::kShutdown.name().xrl()); });
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code& error, int signal) {
    if (!error) shutdown(absl::StrCat("signal ", signal));
  });
  router.OnReady([&](absl::Status status) {
    if (!status.ok()) {
      SLUICE_LOG(kWarning) << "Finder: " << status.message() << " (still trying)";
      return;
    }
    router.SetStatus(common::v1::READY);
    std::cout << "ready " << router.instance_name() << std::endl;
  });
  if (absl::Status s = router.Start(); !s.ok()) {
    std::cerr << "sluice-rpki: " << s.message() << "\n";
    return 1;
  }
  ipc::RunLoop(io);
  return 0;
}

}  // namespace
}  // namespace sluice::rpki

int main(int argc, char** argv) {
  sluice::base::SetLogTag("rpki");
  // Before any thread: umask, non-dumpable, the inherited class credential.
  if (absl::Status status = sluice::ipc::HardenProcess(); !status.ok()) {
    std::cerr << "sluice-rpki: " << status.message() << "\n";
    return 1;
  }
  std::signal(SIGPIPE, SIG_IGN);
  sluice::rpki::Flags flags;
  sluice::base::ProgramOptions options(
      "sluice-rpki",
      "sluice-rpki: RTR sessions to RPKI caches (RFC 8210) and the VRP set they give, served as "
      "rpki/1.0.");
  CLI::App& app = options.app();
  app.add_option("--finder", flags.router.finder_address,
                 "the Finder (default unix:$SLUICE_RUNDIR/finder.sock)");
  app.add_option("--instance", flags.instance, "our instance name");
  sluice::base::AddParsedOption(
      app, "--cache",
      [&flags](const std::string& text) {
        absl::StatusOr<sluice::rpki::CacheConfig> c = sluice::rpki::ParseCache(text);
        if (!c.ok()) return c.status();
        flags.caches.push_back(*c);
        return absl::OkStatus();
      },
      "a cache, repeatable: ADDRESS[:PORT][/PREFERENCE] (port 323, preference 0 by default; "
      "lower is preferred; [ADDRESS]:PORT for IPv6); also rpki/1.0/add_cache",
      true);
  app.add_option("--refresh", flags.intervals.refresh,
                 "seconds between Serial Queries until a cache sends its own")
      ->check(CLI::Range(1, 86400));
  app.add_option("--retry", flags.intervals.retry, "seconds before retrying a failed query")
      ->check(CLI::Range(1, 7200));
  app.add_option("--expire", flags.intervals.expire,
                 "seconds a cache's VRPs stay without a successful query")
      ->check(CLI::Range(600, 172800));
  options.AddLogOptions();
  if (std::optional<int> exit = options.Parse(argc, argv)) return *exit;
  if (!sluice::rpki::rtr::IntervalsValid(flags.intervals)) {
    return options.Fail("--expire must be above --refresh and --retry (RFC 8210 §6)");
  }
  return sluice::rpki::Run(flags);
}
