#pragma once
// NetlinkFibBackend: programs the Linux kernel's routing table through rtnetlink.
//
// Ownership: every route Sluice writes carries route protocol number kSluiceRouteProtocol (83,
// chosen because no other routing daemon or iproute2's rt_protos uses it; ASCII 'S') and goes
// into one configurable table (default 254, "main"). The pair (table, protocol) is how the FEA
// recognises its own routes: `ip route show table N proto 83` lists exactly them, deletions
// name the protocol so they never remove another's route, and an add never overwrites a route
// it does not own (NLM_F_EXCL; the kernel's "File exists" is reported instead). One FEA per
// (table, protocol): another writer of the same pair would see its routes taken as stale.
// `ip route show table N proto 83` prints the number; an operator who wants a name can add
// "83 sluice" to /etc/iproute2/rt_protos.d/ (Sluice does not touch host configuration).
//
// Batching: changes are sent many per sendmsg (routes_per_send, default 1,000). Every failure
// comes back as its own NLMSG_ERROR matched by sequence number, so each route's outcome is
// known; the last request of a batch asks for an ACK to mark the end (or, with
// ack_every_message, every request does: slower, for debugging).
//
// A replace that keeps the metric is one NLM_F_REPLACE; one that changes it writes the new
// route and deletes the old (the kernel keys routes by prefix and metric).
//
// Crash recovery: Start() lists the table's routes of Sluice's protocol; these are stale until
// added again (an add of a stale prefix and metric overwrites it) or removed by
// RemoveStaleRoutes(). Shutdown() deletes every route of the protocol in the table, whether
// known or not; destroying the backend without Shutdown() leaves the routes, as a crash would.
//
// Connected routes (protocol "connected", a subnet of an interface address) are not written:
// the kernel makes them itself with the address (as XORP's FEA does), and a second one would
// be refused as a duplicate in the main table. They stay in the Fib's table; a replace between
// a connected route and another becomes an add or a delete here.
//
// Replies: each exchange waits at most 60 s for the kernel. An exchange that breaks (no reply,
// receive buffer overrun) leaves the outcome of its unanswered requests unknown: they are
// reported as DataLoss and not undone.

#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "fea/fib_backend.h"
#include "fea/netlink_socket.h"
#include "fea/rtnl_route_codec.h"

namespace sluice::fea {

inline constexpr uint8_t kSluiceRouteProtocol = 83;
// FibRoute::protocol of routes the kernel owns (see below).
inline constexpr std::string_view kKernelOwnedProtocol = "connected";

struct NetlinkFibOptions {
  uint32_t table = 254;                     // 1..0xfffffffe, not 255 (local)
  uint8_t protocol = kSluiceRouteProtocol;  // 5..255 (below: the kernel's own)
  size_t routes_per_send = 1000;            // requests per sendmsg, 1..10,000
  bool ack_every_message = false;
};

class NetlinkFibBackend : public FibBackend {
 public:
  explicit NetlinkFibBackend(NetlinkFibOptions options = {});
  ~NetlinkFibBackend() override;

  std::string_view name() const override { return "netlink"; }
  // Errors: InvalidArgument for bad options; the socket's errno text.
  absl::Status Start() override;
  void Apply(std::span<const FibOp> ops, const InterfaceTree& interfaces,
             std::span<absl::Status> results) override;
  size_t stale_route_count() const override { return stale_.size(); }
  absl::StatusOr<size_t> RemoveStaleRoutes() override;
  absl::Status Shutdown() override;

  const NetlinkFibOptions& options() const { return options_; }
  // The routes of Sluice's protocol now in the table (for tests and `show fib kernel`).
  absl::StatusOr<std::vector<KernelRoute>> ReadKernelRoutes();

 private:
  using Key = std::pair<net::Prefix, uint32_t>;  // prefix, kernel metric
  // Apply() for ops that all go to the kernel.
  void ApplyToKernel(std::span<const FibOp> ops, const InterfaceTree& interfaces,
                     std::span<absl::Status> results);
  // Deletes the routes `keys` from the table; returns how many went (ESRCH counts as gone).
  absl::StatusOr<size_t> DeleteKeys(const std::vector<Key>& keys, std::string_view why);

  NetlinkFibOptions options_;
  KernelRouteTarget target_;
  std::unique_ptr<NetlinkSocket> socket_;
  absl::flat_hash_set<Key> stale_;
  std::vector<char> buffer_;
};

}  // namespace sluice::fea
