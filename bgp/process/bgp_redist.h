#pragma once
// BgpRedist: routes of other protocols redistributed from the RIB into BGP through a policy
// (policy_backend/1.0 bank "redist:PROTOCOL"; XORP NSDI'05 §8.3, the export of RIB routes to
// BGP).
//
// Configure(protocol, filter) subscribes to the RIB's winning routes of `protocol` (both
// families, rib/1.0/redist_subscribe; the RIB answers with rib_client/1.0/redist_routes,
// starting with a dump). Each route the RIB sends is kept here as it came (the source match:
// only the subscribed protocol's routes arrive) and run through the bank's filter with these
// variables:
//   protocol   the RIB protocol ("static", ...)
//   tag        the route's first policy tag (none without tags); writes are ignored
//   network, nexthop, and every BGP attribute of the route being built: ORIGIN INCOMPLETE,
//   NEXT_HOP the RIB route's nexthop, nothing else — so `community add`, `med`, `local-pref`,
//   `as-path prepend`, `origin` set what BGP announces.
// An accepted route is originated into BGP (BgpRouting::Originate, so the Loc-RIB and every
// peer's export policy see it); a rejected or deleted one is withdrawn. A route without a
// nexthop of its family cannot be announced and is skipped (logged once per prefix).
//
// A new filter re-runs every kept route at once (redistributed routes are few: statics,
// connected); Reset unsubscribes and withdraws what this bank originated. On a RIB birth the
// subscriptions are made again: routes the new RIB does not re-send by the end of its dump are
// withdrawn.
//
// Known limit: a prefix originated both here and with bgp/1.0 originate_route has one entry in
// BGP; the last writer wins and a withdraw from either side removes it.
//
// Single-threaded: the event loop of the process.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "bgp/process/bgp_process.h"
#include "policy/filter.h"

namespace sluice::bgp::process {

// One route change from the RIB (rib_client/1.0 RedistChange, decoded).
struct RedistRoute {
  bool deleted = false;
  net::Prefix network;
  std::optional<net::IPAddress> nexthop;
  uint32_t metric = 0;
  std::vector<uint32_t> tags;
};

class BgpRedist {
 public:
  // Asks the RIB to start (true) or stop (false) sending `protocol`'s routes of `family`.
  using Subscriber =
      std::function<void(net::Family family, const std::string& protocol, bool subscribe)>;

  // `bgp` outlives this; `subscriber` may be empty (no RIB: nothing ever arrives).
  BgpRedist(BgpProcess* bgp, Subscriber subscriber);

  // Installs `filter` (never null) for `protocol`; subscribes on the first call, re-runs the
  // kept routes on later ones.
  void Configure(const std::string& protocol, std::shared_ptr<const policy::Filter> filter);
  // Errors: NotFound when `protocol` has no bank.
  absl::Status Reset(const std::string& protocol);
  absl::Status Push(const std::string& protocol);
  std::vector<std::string> protocols() const;
  // Prefixes this bank has originated into BGP now.
  std::set<net::Prefix> Originated(const std::string& protocol) const;

  // rib_client/1.0/redist_routes. Changes for a protocol without a bank are ignored. At
  // `dump_start` (a dump begins: after a subscribe, or sent again after a call that failed) the
  // bank's routes of `family` become stale; at `dump_done` those the dump did not carry are
  // withdrawn.
  void OnChanges(net::Family family, const std::string& protocol,
                 std::span<const RedistRoute> changes, bool dump_done, bool dump_start = false);
  // A RIB was born (again): subscribe again; what its dump does not re-send is withdrawn.
  void OnRibBorn();

 private:
  struct Bank {
    std::shared_ptr<const policy::Filter> filter;
    std::map<net::Prefix, RedistRoute> routes;  // as the RIB sent them
    std::set<net::Prefix> originated;
    std::set<net::Prefix> stale;  // kept from a previous RIB, until its dump is done
  };
  // Runs the filter on `prefix` (kept or not) and originates or withdraws it.
  void Evaluate(Bank& bank, const std::string& protocol, const net::Prefix& prefix);
  void Withdraw(Bank& bank, const net::Prefix& prefix);

  BgpProcess* bgp_;
  Subscriber subscriber_;
  std::map<std::string, Bank> banks_;
};

}  // namespace sluice::bgp::process
