#pragma once
// FibClient: how the RIB's FEA output stage talks to the FEA (XORP NSDI'05 §3, §5.2). The FEA
// adapter implements it over `fea_fib` RPCs; tests and benchmarks implement it in memory.
//
// Route changes go in batches, each one FIB transaction: the FEA applies a batch's changes in
// order and commits or refuses it as a whole. Batches are sent in sequence order, several may
// be in flight (pipelined), and the FEA applies them in the order sent.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "net/ip_address.h"
#include "net/prefix.h"
#include "rib/rib_route.h"
#include "rib/symbol.h"

namespace sluice::rib {

// A forwarding entry: what the kernel needs, plus where it came from.
struct FibRoute {
  net::Prefix network;
  std::optional<net::IPAddress> nexthop;  // none: on-link on `ifname`
  Symbol ifname;
  uint32_t metric = 0;
  Symbol protocol;
  uint16_t admin_distance = 0;

  // A RIB winner's forwarding entry (its resolved nexthop and interface, if resolved).
  static FibRoute From(const RibRoute& route) {
    return FibRoute{
        route.network,  route.forwarding_nexthop(), route.forwarding_ifname(), route.metric,
        route.protocol, route.admin_distance};
  }
  const net::Prefix& prefix() const { return network; }
  // "10.0.0.0/8 via 192.0.2.1 dev eth0 metric 5 static/1"
  std::string ToString() const;
  friend bool operator==(const FibRoute&, const FibRoute&) = default;
};

struct FibChange {
  enum class Op : uint8_t { kAdd, kReplace, kDelete };
  Op op;
  FibRoute route;  // kDelete: the entry removed (only its prefix matters to the FEA)
  friend bool operator==(const FibChange&, const FibChange&) = default;
};
const char* FibOpName(FibChange::Op op);  // "add" / "replace" / "delete"

struct FibBatch {
  net::Family family = net::Family::kIPv4;
  uint64_t sequence = 0;  // 1, 2, 3, ... per family, restarting at 1 when the FEA is born again
  std::vector<FibChange> changes;
  // The oldest arrival of its changes (stage/route_arrival.h): CLOCK_MONOTONIC ns, 0 unknown.
  int64_t arrival_ns = 0;
};

class FibClient {
 public:
  virtual ~FibClient() = default;
  // Sends one transaction. `done` is called exactly once, on the RIB's event loop and never
  // from inside SendBatch, with OK when the FEA committed it or the FEA's error (naming the
  // route it refused). If the FEA dies, `done` may never be called for batches in flight; the
  // RIB forgets them when told the FEA was born again, and re-sends everything: an add for
  // every route, which the FEA takes as a replace for a prefix it still holds (a FIB that
  // survived the restart, or reconciled from the kernel).
  virtual void SendBatch(FibBatch batch, std::function<void(absl::Status)> done) = 0;
  // The re-send that follows a birth of the FEA has handed its last batch of `family` to
  // SendBatch: every winner of that family has been sent (batches may still be in flight; later
  // batches carry live changes). Called on the event loop, once per family and birth. An
  // adapter tells the FEA, after those batches, that routes not re-sent are stale.
  virtual void FullPushDone(net::Family family) { (void)family; }
  // The RIB is about to re-send its whole FIB to the FEA it feeds, which stays up: it dropped
  // changes for an FEA that lagged (FeaOutOptions::max_backlog). Before any batch of the
  // re-send, the adapter tells the FEA that every route it holds is stale until the push
  // completes (FullPushDone of both families); then it removes the stale routes, as after a
  // birth.
  virtual void BeginFullPush() {}
};

}  // namespace sluice::rib
