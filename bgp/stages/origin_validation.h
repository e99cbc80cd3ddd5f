#pragma once
// OriginValidation: the RPKI origin validation state (RFC 6811 §2) of one peer's routes, set on
// each route (BgpRoute::rpki) before its import filter, so that policy can match it
// (`from { rpki invalid; }`) and the Adj-RIB-In and Loc-RIB views can show it:
//
//   PeerIn(P) → [Deletion]* → OriginValidation(P) → ImportFilter(P) → ...
//
// The state is computed from the route's prefix and Route Origin ASN against the process's VRP
// set (an OriginValidator shared by every branch) as the route passes; the stage stores nothing
// per route. When the VRP set changes, the routes it covers are re-validated in the background
// (XORP NSDI'05 §5.1.2), while updates keep flowing:
//
//   1. Prepare(changed VRPs), before the set changes: every route of the branch that a changed
//      VRP covers (its prefix equal to or inside the VRP's) is noted as pending, with the state
//      downstream has for it — the state as of now.
//   2. The caller applies the change to the OriginValidator.
//      A change may come in several parts (batches): each is prepared and applied in turn, and
//      the walk waits (a running one pauses) until the last part is in.
//   3. Revalidate(): a background task takes the pending prefixes in order, a slice at a time,
//      computes each one's new state and, where it differs, sends replace_route(route with the
//      old state, route with the new) downstream; the import filter re-filters it.
//
// Consistency (the stage contract, stage/stage.h): for a pending prefix, the stage answers
// lookups and deletes with the state downstream has (the noted one); an add or replace of it
// goes down with the state computed now and is noted as what downstream has, to be checked
// again by the walk. Every other prefix's state downstream is the one the set gives now.

#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/btree_map.h"
#include "bgp/rpki/origin_validator.h"
#include "bgp/stages/bgp_stage.h"
#include "stage/background_task.h"

namespace sluice::bgp {

class OriginValidation : public BgpLinearStage {
 public:
  struct Counters {
    uint64_t revalidated = 0;  // pending prefixes the walks checked
    uint64_t changed = 0;      // of those, routes whose state changed (replace_route sent)
  };

  // `branch`: the prefixes of this peer's branch (PeerIn's and Deletion stages' tables).
  // `validator` outlives the stage. `local_as`: the Route Origin ASN of an empty AS_PATH.
  OriginValidation(std::string name, boost::asio::io_context& io, const PrefixSource* branch,
                   const rpki::OriginValidator* validator, uint32_t local_as);

  std::string_view kind() const override { return "OriginValidation"; }
  std::string Status() const override;

  void add_route(const BgpRoute& route, BgpStage* caller) override;
  void delete_route(const BgpRoute& route, BgpStage* caller) override;
  void replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                     BgpStage* caller) override;
  std::optional<BgpRoute> lookup_route(const net::Prefix& prefix) const override;

  // Step 1 above: `changed` are the prefixes of the VRPs (of this branch's family) about to
  // enter or leave the set. Returns how many prefixes became pending.
  size_t Prepare(const std::vector<net::Prefix>& changed);
  // Step 3 above, once the change is complete.
  void Revalidate();

  void set_local_as(uint32_t local_as) { local_as_ = local_as; }
  size_t pending() const { return pending_.size(); }
  bool revalidating() const { return walk_.running(); }
  const Counters& counters() const { return counters_; }

 private:
  rpki::RpkiState Compute(const BgpRoute& route) const;
  // The state downstream has for `route`: the noted one while pending, else the current one.
  rpki::RpkiState Sent(const BgpRoute& route) const;
  void NoteCovered(const net::Prefix& vrp_prefix);
  bool Slice();

  const PrefixSource* branch_;
  const rpki::OriginValidator* validator_;
  uint32_t local_as_;
  absl::btree_map<net::Prefix, rpki::RpkiState> pending_;
  bool held_ = false;  // a change is being applied: the walk waits for Revalidate
  Counters counters_;
  stage::BackgroundTask walk_;
};

}  // namespace sluice::bgp
