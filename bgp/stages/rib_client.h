#pragma once
// What BGP needs from the RIB process, as abstract interfaces (the process adapter implements
// them over rib/1.0; tests use fakes). Both are used on the BGP process's event loop, and both
// answer asynchronously.
//
// NexthopInterestClient — nexthop resolution by interest registration (XORP NSDI'05 §5.2.1,
// XORP rib register_interest4 / route_info_invalid4). BGP asks which route covers a nexthop; the
// RIB answers whether it resolves, the IGP metric, and the *valid subnet*: the largest subnet
// around the address for which this same answer holds (it excludes more specific routes). BGP
// caches the answer for the whole subnet (NexthopCache). When anything changes inside the
// subnet, the RIB invalidates it (the adapter calls NexthopCache::OnInvalid), and BGP asks
// again.
//
// RibRouteClient — BGP's winning routes into the RIB: batches of adds and
// deletes, several batches in flight, delivered and applied in order. A failed batch means the
// RIB is gone; when a RIB is born again (Finder birth event), the adapter calls
// BgpRouting::OnRibBorn() and BGP re-sends every route.

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "net/ip_address.h"
#include "net/prefix.h"

namespace sluice::bgp {

struct NexthopInfo {
  bool resolvable = false;
  uint32_t metric = 0;       // IGP metric of the covering route (when resolvable)
  net::Prefix valid_subnet;  // the answer holds for every address in it (contains the nexthop)
};

class NexthopInterestClient {
 public:
  using Answer = std::function<void(absl::StatusOr<NexthopInfo>)>;
  virtual ~NexthopInterestClient() = default;
  // Asks about `nexthop`. `answer` runs once, later, on the event loop. An error (the RIB is
  // unreachable) counts as unresolvable until the RIB is back.
  virtual void RegisterInterest(const net::IPAddress& nexthop, Answer answer) = 0;
  // BGP no longer needs the answer for `valid_subnet`.
  virtual void DeregisterInterest(const net::Prefix& valid_subnet) = 0;
};

// One route change for the RIB's origin table of protocol "ebgp" or "ibgp".
struct RibRouteChange {
  enum class Op : uint8_t { kAdd, kDelete };  // kAdd replaces a route already there
  Op op = Op::kAdd;
  bool ibgp = false;  // protocol "ibgp" (learnt from an internal peer), else "ebgp"
  net::Prefix prefix;
  net::IPAddress nexthop;  // kAdd: the BGP nexthop (the RIB resolves it for ibgp)
  uint32_t med = 0;        // kAdd: MULTI_EXIT_DISC, 0 when absent (the RIB's route metric)
  // When the change's UPDATE arrived (stage/route_arrival.h): CLOCK_MONOTONIC ns, 0 unknown.
  int64_t arrival_ns = 0;
};

class RibRouteClient {
 public:
  using Done = std::function<void(absl::Status)>;
  virtual ~RibRouteClient() = default;
  // Sends one batch (changes of one family, in order). `done` runs later on the event loop with
  // OK once the RIB applied the batch, or an error when it could not be delivered. Batches are
  // applied in the order sent.
  virtual void SendRoutes(net::Family family, std::vector<RibRouteChange> batch, Done done) = 0;
};

}  // namespace sluice::bgp
