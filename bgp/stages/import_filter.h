#pragma once
// ImportFilter: what a peer's routes must pass before they compete in the decision process
// (RFC 4271 §9.1.1, §9.1.2; XORP NSDI'05 §5.1 filter tables).
//
// Checks, in order, on each route from upstream (PeerIn, through any Deletion stages):
//   1. AS_PATH loop: the local AS anywhere in the path (sets and confederation segments too) →
//      dropped (RFC 4271 §9.1.2).
//   2. Route-reflection loops (RFC 4456 §8), routes from internal peers only: ORIGINATOR_ID equal
//      to our BGP Identifier, or our cluster id in CLUSTER_LIST → dropped.
//   3. The import policy (a policy::Filter run through BgpVarRW): reject drops the route; a
//      modified route continues with its new attributes (interned). Without a policy, routes
//      from external peers are dropped when RFC 8212 default deny is on (`ebgp_requires_policy`,
//      the default) and pass otherwise; routes from internal peers pass.
// The stage stores nothing: delete_route and lookup_route run the same checks again, which give
// the same answer because the configuration in force for a prefix only changes through a
// re-filter walk (below).
//
// Changing the configuration (SetConfig, or a new filter in the FilterSlot, noticed at each
// push): the old configuration stays in force and a background walk over the branch's prefixes
// moves them one by one to the new one, sending the differences downstream (add, delete or
// replace); prefixes the walk has passed follow the new configuration, the others the old one.
// A change that comes during a walk starts another walk after it.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "bgp/stages/bgp_stage.h"
#include "bgp/stages/bgp_var_rw.h"
#include "bgp/stages/prefix_walk.h"
#include "policy/filter.h"

namespace sluice::bgp {

struct ImportConfig {
  uint32_t local_as = 0;
  net::IPv4Address router_id;        // our BGP Identifier (RFC 4456 ORIGINATOR_ID check)
  uint32_t cluster_id = 0;           // our cluster id (RFC 4456 CLUSTER_LIST check)
  bool ebgp_requires_policy = true;  // RFC 8212 default deny for external peers
  std::shared_ptr<const policy::Filter> filter;  // the import policy; null = none
  PolicyContext context;                         // addresses for `nexthop self|peer`, local-as
};

class ImportFilter : public BgpLinearStage {
 public:
  struct Counters {
    uint64_t accepted = 0;        // routes currently passed downstream
    uint64_t loop_dropped = 0;    // AS_PATH or route-reflection loops (events)
    uint64_t policy_dropped = 0;  // rejected by policy or RFC 8212 (events)
  };

  // `branch`: the prefixes of this peer's branch (for re-filter walks). `slot`, when not null,
  // is watched for a new import policy at each push; it overrides config.filter.
  ImportFilter(std::string name, boost::asio::io_context& io, const PrefixSource* branch,
               AttributeStore* store, ImportConfig config, policy::FilterSlot* slot = nullptr);

  std::string_view kind() const override { return "ImportFilter"; }
  std::string Status() const override;

  // Replaces the configuration; routes move to it in the background.
  void SetConfig(ImportConfig config);
  const ImportConfig& config() const { return *active_; }
  bool refiltering() const { return walk_.running(); }
  const Counters& counters() const { return counters_; }

  void add_route(const BgpRoute& route, BgpStage* caller) override;
  void delete_route(const BgpRoute& route, BgpStage* caller) override;
  void replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                     BgpStage* caller) override;
  void push(BgpStage* caller) override;
  std::optional<BgpRoute> lookup_route(const net::Prefix& prefix) const override;

  // The checks alone, for tests and for `show`: the route as it would leave this stage.
  std::optional<BgpRoute> Apply(const BgpRoute& route, const ImportConfig& config) const;

 private:
  // Apply without a copy when nothing changes: `&route` when the route passes as it is,
  // `changed` (filled) when the policy changed its attributes, null when it is dropped.
  const BgpRoute* Pass(const BgpRoute& route, const ImportConfig& config, BgpRoute* changed) const;
  const ImportConfig& ConfigFor(const net::Prefix& prefix) const {
    return pending_ != nullptr && walk_.Covers(prefix) ? *pending_ : *active_;
  }
  void Emit(const BgpRoute* o, const BgpRoute* n);
  void CheckSlot();
  void Visit(const net::Prefix& prefix);
  void WalkDone();

  AttributeStore* store_;
  policy::FilterWatch slot_;
  std::shared_ptr<const ImportConfig> active_;
  std::shared_ptr<const ImportConfig> pending_;  // during a walk
  std::shared_ptr<const ImportConfig> queued_;   // the next walk's
  // The sets the policy made last: consecutive routes of one UPDATE usually come out of the policy
  // with equal attributes, and comparing with these is cheaper than interning (hashing the set,
  // the store's lock, its table). Equal sets are one interned entry, so a match is the answer.
  AttrRef Interned(const PathAttributes& attrs) const;
  mutable std::array<AttrRef, 2> made_;
  mutable size_t made_next_ = 0;
  mutable BgpVarRW rw_;
  mutable Counters counters_;
  PrefixWalk walk_;
};

}  // namespace sluice::bgp
