#pragma once
// NexthopResolver: finds out whether each route's nexthop is reachable and at what IGP cost,
// for the decision process (RFC 4271 §9.1.2 "unresolvable nexthops", §9.1.2.2 e; XORP NSDI'05
// §5.1.1 NhLookupTable, §5.2.1). One per peer branch, in front of Decision.
//
// Answers come from the shared NexthopCache (interest registration with the RIB, cached by
// valid subnet). Per nexthop the stage keeps one small record (routes using it, the answer its
// routes carry downstream); it stores no routes.
//   - A route whose nexthop has an answer goes on at once, marked kResolved with the metric, or
//     kUnresolvable (Decision ignores those; they stay visible for `show`).
//   - A route whose nexthop has no answer yet is held: nothing goes downstream and lookups do
//     not see it, until the answer comes; then the held routes go on, in background slices,
//     under the oldest arrival of those held (stage/route_arrival.h: route latency counts the
//     wait).
//   - When an answer changes (the RIB invalidated a subnet and answered again with another
//     metric or reachability), a background walk over the branch's prefixes sends a
//     replace_route for each route using that nexthop. Until the walk reaches a prefix, its
//     route keeps the old answer — for adds, deletes and lookups alike — so downstream always
//     sees consistent routes. A route without a nexthop is unresolvable.

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/container/node_hash_map.h"
#include "bgp/stages/bgp_stage.h"
#include "bgp/stages/nexthop_cache.h"
#include "bgp/stages/prefix_walk.h"
#include "stage/background_task.h"

namespace sluice::bgp {

class NexthopResolver : public BgpLinearStage, public NexthopCache::Subscriber {
 public:
  NexthopResolver(std::string name, boost::asio::io_context& io, NexthopCache* cache,
                  const PrefixSource* branch);
  ~NexthopResolver() override;

  std::string_view kind() const override { return "NexthopResolver"; }
  std::string Status() const override;

  void add_route(const BgpRoute& route, BgpStage* caller) override;
  void delete_route(const BgpRoute& route, BgpStage* caller) override;
  void replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                     BgpStage* caller) override;
  std::optional<BgpRoute> lookup_route(const net::Prefix& prefix) const override;

  void OnNexthopsChanged(const net::Prefix& subnet) override;

  size_t held() const { return held_.size(); }
  size_t nexthops() const { return nexthops_.size(); }
  // Routes held until their nexthop's first answer.
  std::optional<uint64_t> queue_depth() const override { return held_.size(); }
  bool walking() const { return walk_.running(); }

 private:
  struct NhState {
    uint32_t routes = 0;     // routes of this branch using the nexthop
    bool known = false;      // an answer came; routes go downstream
    NexthopAnswer sent;      // the answer routes carry downstream (past the walk's cursor: see
    NexthopAnswer previous;  // `previous`, during a walk that moves routes from it to `sent`)
    bool in_walk = false;
    std::optional<NexthopAnswer> next;  // a newer answer for the next walk
    std::vector<net::Prefix> held;      // prefixes waiting for the first answer (may be stale)
    int64_t held_arrival = 0;           // their oldest arrival (stage/route_arrival.h)
  };

  NhState& Track(const net::IPAddress& nexthop);
  void Untrack(const net::IPAddress& nexthop);
  const NexthopAnswer& AnswerFor(const NhState& st, const net::Prefix& prefix) const {
    return st.in_walk && !walk_.Covers(prefix) ? st.previous : st.sent;
  }
  // What this stage has sent downstream for `route` (nullopt when held).
  std::optional<BgpRoute> Out(const BgpRoute& route) const;
  // Registers `route` (its nexthop), and returns what to send downstream for it (nullopt: held).
  std::optional<BgpRoute> In(const BgpRoute& route);
  static BgpRoute Annotate(const BgpRoute& route, const NexthopAnswer& answer);
  void StartWalkIfNeeded();
  void Visit(const net::Prefix& prefix);
  void WalkDone();
  bool ReleaseSlice();

  NexthopCache* cache_;
  absl::node_hash_map<net::IPAddress, NhState> nexthops_;
  absl::flat_hash_set<net::Prefix> held_;  // prefixes whose route is not downstream
  std::vector<net::Prefix> release_;       // held prefixes whose nexthop got an answer
  int64_t release_arrival_ = 0;            // their oldest arrival: released under it
  PrefixWalk walk_;
  stage::BackgroundTask release_task_;
};

}  // namespace sluice::bgp
