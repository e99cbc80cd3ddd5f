#pragma once
// The session scenario against one real BGP daemon, shared by the per-daemon tests
// (session_<daemon>_test.cc). Sluice's side is a PeerManager listening on 127.0.0.1 and ::1 with
// an AdjRibIn per peer; the daemon peers with it twice, over IPv4 (from its own 127.0.0.x address)
// and over IPv6 (::1), with 4-octet ASes on both sides:
//
//   1. both sessions reach Established; the daemon's static routes (three per family) arrive in
//      the Adj-RIB-In of the right session, with the daemon's AS first in the AS_PATH;
//   2. the daemon withdraws one route per family: it leaves the Adj-RIB-In;
//   3. the daemon restarts (killed, then started with a different route set): the sessions come
//      back, and the Adj-RIB-In holds exactly the new set — the stale route is gone.
//
// A daemon plugs in by implementing Daemon (config files in its own TempDir, started and stopped
// by PID).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "bgp/session/peer_manager.h"
#include "tests/bgp/session_test_util.h"
#include "tests/interop/interop_util.h"

namespace sluice::bgp::interop {

inline constexpr uint32_t kSluiceAs = 4200000001u;

struct RouteSet {
  std::vector<std::string> v4, v6;
};

// The endpoints of one daemon test: where Sluice listens and where the daemon listens.
struct Endpoints {
  std::string daemon_v4;  // the daemon's 127.0.0.x address
  uint16_t daemon_port4 = 0;
  uint16_t daemon_port6 = 0;  // on ::1
  uint32_t daemon_as = 0;
  uint16_t sluice_port4 = 0;  // on 127.0.0.1
  uint16_t sluice_port6 = 0;  // on ::1
};

class Daemon {
 public:
  virtual ~Daemon() = default;
  virtual std::string name() const = 0;
  // Writes the configuration announcing `routes` and starts the daemon. Errors: it did not start.
  virtual absl::Status Start(const Endpoints& e, const RouteSet& routes) = 0;
  // Withdraws one route while running. Errors: the command failed.
  virtual absl::Status Withdraw(const Endpoints& e, const RouteSet& remaining,
                                const std::string& prefix) = 0;
  // Stops the daemon for the restart step (by PID: SIGKILL where the daemon is one process,
  // SIGTERM otherwise).
  virtual void StopForRestart() = 0;
  // Everything the daemon logged, for failure messages.
  virtual std::string Logs() const = 0;
  // The daemon listens on one port for both families (Endpoints::daemon_port6 = daemon_port4).
  virtual bool OnePort() const { return false; }
};

// Sluice's side.
class SluiceSide {
 public:
  SluiceSide();
  // Peers with the daemon at e.daemon_v4 and ::1 (their ports and AS from `e`).
  void AddDaemon(const Endpoints& e, bool ipv6);
  testing::AdjRibIn* rib(const std::string& address) { return routing.rib(address); }
  PeerStatus Status(const std::string& address);
  bool RunUntil(const std::function<bool()>& condition, double seconds) {
    return testing::RunUntil(io, condition, seconds);
  }
  // Established and the Adj-RIB-In holds exactly `prefixes`.
  bool Holds(const std::string& address, const std::vector<std::string>& prefixes);
  std::string Describe(const std::string& address);

  boost::asio::io_context io;
  testing::TestRouting routing;
  PeerManager manager;
  uint16_t port4 = 0, port6 = 0;
};

// Runs the scenario. `ipv6`: also over ::1 (false when the daemon cannot; the test says why).
// `first_octet_v4`: routes are 10.N.x.0/24 and 2001:db8:N:x::/64 with N = this.
void RunScenario(Daemon& daemon, const std::string& daemon_v4, uint32_t daemon_as, bool ipv6,
                 int n);

}  // namespace sluice::bgp::interop
