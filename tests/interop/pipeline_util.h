#pragma once
// Helpers for tests that run Sluice as real processes (sluice-finder, sluice-bgp, and the RIB)
// next to real BGP daemons on loopback:
//
//   SluiceRouter   a private SLUICE_RUNDIR, sluice-finder, sluice-bgp (its flags given), and the
//                  RIB: the real sluice-rib + sluice-fea (dummy backend) when they are built
//                  (SLUICE_HAVE_RIB_PROCESS), else a FakeRib in this process
//                  (tests/bgp/process_fake_rib.h). Stopped by PID on destruction.
//   BgpClient      a synchronous bgp/1.0 client (an XrlRouter of its own): add_peer, get_peer,
//                  every route of a view (all pages).
//   BirdPeer       BIRD 2 as a downstream or upstream peer of Sluice, with its route count,
//   GoBgpPeer      GoBGP likewise (../shared/INTEROP.md for both).

#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ipc/methods/bgp.h"
#include "ipc/xrl_router.h"
#include "net/prefix.h"
#include "tests/bgp/process_fake_rib.h"
#include "tests/interop/interop_util.h"

namespace sluice::bgp::interop {

// $SLUICE_BUILD_DIR/relative (set by ctest).
std::string BuildPath(const std::string& relative);

class BgpClient {
 public:
  explicit BgpClient(const std::string& finder_address);
  ~BgpClient();

  template <typename Request, typename Reply>
  absl::StatusOr<Reply> Call(const ipc::Method<Request, Reply>& method, Request request,
                             const std::string& target = "bgp", double seconds = 30) {
    std::optional<absl::StatusOr<Reply>> result;
    router_->Call(target, method, std::move(request),
                  [&](absl::StatusOr<Reply> reply) { result = std::move(reply); });
    if (!RunUntil([&] { return result.has_value(); }, seconds)) {
      return absl::DeadlineExceededError("no answer");
    }
    return *std::move(result);
  }
  // Runs the client's loop until `done` or `seconds` pass; returns done().
  bool RunUntil(const std::function<bool()>& done, double seconds);

  absl::Status AddPeer(const bgp::v1::AddPeerRequest& request);
  absl::StatusOr<bgp::v1::PeerInfo> Peer(const std::string& address);
  // Every route of a view, page by page (`peer` for the Adj-RIB-In and -Out).
  absl::StatusOr<std::vector<bgp::v1::Route>> Routes(bgp::v1::RibView view,
                                                     const std::string& peer = "",
                                                     const std::string& family = "ipv4");
  absl::StatusOr<std::set<net::Prefix>> Prefixes(bgp::v1::RibView view,
                                                 const std::string& peer = "");

 private:
  boost::asio::io_context io_;
  std::unique_ptr<ipc::XrlRouter> router_;
};

class SluiceRouter {
 public:
  // Starts the Finder, the RIB side and sluice-bgp with `bgp_flags` (after --finder and
  // --instance). Check ok() (and error()).
  explicit SluiceRouter(const std::vector<std::string>& bgp_flags, bool with_rib = true);
  ~SluiceRouter();
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  const std::string& rundir() const { return rundir_; }
  std::string finder_address() const { return "unix:" + rundir_ + "/finder.sock"; }
  std::vector<std::string> env() const { return {"SLUICE_RUNDIR=" + rundir_}; }
  BgpClient& client() { return *client_; }
  sluice::testing::ChildProcess& bgp() { return *bgp_; }
  // Runs the `sluice` CLI with `args` in this router's rundir; its stdout, or the error.
  absl::StatusOr<std::string> Cli(std::vector<std::string> args);

  bool real_rib() const { return real_rib_; }
  // Real processes only: kills sluice-rib (SIGKILL, no goodbye), waits until the Finder has
  // dropped it, and starts a new one (with the static route to 127.0.0.0/8 again).
  absl::Status RestartRib();
  // Ends sluice-bgp with `signal` (SIGKILL: a crash; SIGUSR2: an exit for a restart), waits until
  // the Finder has dropped it, and starts a new one with the same flags. Its peers are gone: add
  // them again (as the router manager would), through a new client().
  absl::Status RestartBgp(int signal);
  // The prefixes the RIB holds from BGP (protocol ebgp), and what the FIB holds (real
  // processes only; the fake RIB has no FIB: nullopt).
  absl::StatusOr<std::set<net::Prefix>> RibPrefixes();
  // How many routes the RIB holds from BGP (protocol ebgp): one cheap call (list_protocols).
  absl::StatusOr<uint64_t> RibRouteCount();
  absl::StatusOr<std::optional<std::set<net::Prefix>>> FibPrefixes();
  // Peak RSS (VmHWM) of sluice-bgp in kB, 0 if unknown.
  uint64_t BgpPeakRssKb() const;
  std::string Logs() const;

 private:
  absl::Status StartRib();

  std::string rundir_;
  std::string error_;
  bool real_rib_ = false;
  std::unique_ptr<sluice::testing::TempDir> dir_;
  std::unique_ptr<sluice::testing::ChildProcess> finder_, fea_, rib_, bgp_;
  std::unique_ptr<bgp::testing::FakeRibThread> fake_rib_;
  std::unique_ptr<BgpClient> client_;
  std::vector<std::string> bgp_argv_;
  int bgp_runs_ = 1;
};

// A BGP daemon peering with Sluice over IPv4 on loopback.
class DaemonPeer {
 public:
  virtual ~DaemonPeer() = default;
  virtual std::string name() const = 0;
  // Prefixes in the daemon's table learnt from Sluice (-1 on error).
  virtual int64_t RouteCount() = 0;
  virtual absl::StatusOr<std::set<net::Prefix>> Prefixes() = 0;
  // The AS path the daemon holds for `prefix` ("4200000001 4200000002 2914 ..."), or an error.
  virtual absl::StatusOr<std::string> AsPath(const std::string& prefix) = 0;
  // The NEXT_HOP the daemon holds for `prefix`.
  virtual absl::StatusOr<std::string> NextHop(const std::string& prefix) = 0;
  // When the session with Sluice came up (the daemon's own text), "" when it is not
  // Established (BIRD: "[DATE ]HH:MM:SS.mmm", which may move by a millisecond between reads).
  virtual std::string SessionSince() = 0;
  virtual bool Established() = 0;
  virtual uint64_t PeakRssKb() = 0;  // VmHWM
  virtual std::string Logs() const = 0;
};

struct PeerEndpoint {
  std::string address;   // the daemon's 127.0.0.x
  uint16_t port = 0;     // the daemon's BGP port
  uint32_t as = 0;       // the daemon's AS
  uint16_t sluice_port;  // Sluice listens on 127.0.0.1:sluice_port
  uint32_t sluice_as;
  int hold_time = 9;
  // BIRD only accepts Sluice's connection and never dials (`passive on`; StartBird). Tests that
  // restart sluice-bgp use it: a daemon dialling while the new sluice-bgp dials it makes a
  // collision (RFC 4271 §6.8), and BIRD 2 drops a session, routes and all, when the connection
  // it already counted Established is the one Sluice closes — whatever RFC 8538 says.
  bool passive = false;
};

// BIRD 2: one eBGP session to Sluice, multihop 2, an igp table resolving loopback nexthops,
// import all, export none.
std::unique_ptr<DaemonPeer> StartBird(const PeerEndpoint& e, std::string* error);
// GoBGP 3.10: one eBGP session to Sluice (passive towards it is not needed: it connects).
std::unique_ptr<DaemonPeer> StartGoBgp(const PeerEndpoint& e, std::string* error);

}  // namespace sluice::bgp::interop
