#pragma once
// ExtIntStage: joins the IGP side and the EGP side of the RIB and resolves EGP nexthops
// (XORP NSDI'05 §5.2, Fig. 7, ExtIntTable).
//
// Two parents: the internal one (the merge of connected, static and IGP origins) and the
// external one (the merge of the EGP origins). For each prefix it sends downstream the
// preferred (rib_route.h Preferred; the IGP route on a complete tie) of
//   - the internal route, unchanged, and
//   - the external route, if its nexthop resolves, with `resolved` set.
// An external route whose nexthop does not resolve is held back (not sent), and the internal
// route for its prefix, if any, is used instead.
//
// Resolution of an EGP nexthop X, through the internal side only: find the longest-match IGP
// route for X (over the internal parent's routes). If it is an interface route (no nexthop, a
// connected subnet), X is on-link there: resolved via X on that interface. If it has a nexthop
// and an interface, resolved via that nexthop and interface. If it has a nexthop only, resolve
// that nexthop the same way, recursively (at most kMaxDepth steps; a loop is unresolvable).
// The IGP metric is the metric of the first route on the way. An EGP route that carries an
// interface (or no nexthop at all) is taken as directly connected and not resolved further.
//
// Re-resolution: resolutions are cached per nexthop address, with the addresses looked up on
// the way and the longest match found for each. A change of an IGP route for prefix Q makes
// every cached nexthop whose lookup of some address A in Q found a match no longer than Q
// (or none) resolve again. When a nexthop with EGP routes behind it resolves differently,
// the stage re-sends those routes (a replace, a delete or an add each): a background walk in
// prefix order over the EGP sources (route_source.h), so a full table behind one nexthop does
// not stall the loop. Until the walk reaches a prefix, that prefix keeps its old resolution
// downstream and in lookups; a new IGP change first completes a walk under way.
//
// Nothing is stored per route: the cache holds one entry per distinct EGP nexthop.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/node_hash_map.h"
#include "net/prefix_map.h"
#include "rib/rib_stage.h"
#include "rib/route_source.h"
#include "stage/background_task.h"

namespace sluice::rib {

class ExtIntStage : public RibStage {
 public:
  static constexpr int kMaxDepth = 8;

  ExtIntStage(std::string name, SourceRegistry* sources, boost::asio::io_context& io);

  std::string_view kind() const override { return "ExtInt"; }
  std::string Status() const override;

  // Plumbs `stage` as the internal (IGP) or external (EGP) parent. Plumber::Plumb(x, this)
  // fills the internal parent first, then the external one.
  void PlumbInternal(RibStage* stage);
  void PlumbExternal(RibStage* stage);

  void add_route(const RibRoute& route, RibStage* caller) override;
  void delete_route(const RibRoute& route, RibStage* caller) override;
  void replace_route(const RibRoute& old_route, const RibRoute& new_route,
                     RibStage* caller) override;
  void push(RibStage* caller) override;
  std::optional<RibRoute> lookup_route(const net::Prefix& prefix) const override;

  // The cached resolution of an EGP nexthop; nullopt when unresolvable or not in use.
  std::optional<Resolution> ResolutionOf(const net::IPAddress& nexthop) const;
  // Distinct EGP nexthops in use.
  size_t nexthop_count() const { return nexthops_.size(); }
  bool rewalk_running() const { return walking_; }

  std::vector<const StageBase*> upstream_stages() const override;
  std::vector<const StageBase*> downstream_stages() const override;
  void ConnectUpstream(RibStage* upstream) override;
  void ConnectDownstream(RibStage* downstream) override { downstream_ = downstream; }
  void DisconnectUpstream(RibStage* upstream) override;
  void DisconnectDownstream(RibStage* downstream) override;
  void ReplaceUpstream(RibStage* old_stage, RibStage* new_stage) override;
  void ReplaceDownstream(RibStage* old_stage, RibStage* new_stage) override;

 private:
  struct Step {
    net::IPAddress address;  // looked up
    int matched_length;      // of the longest match found; -1 for none
  };
  struct Nexthop {
    net::IPAddress address;
    uint32_t dependents = 0;  // EGP routes from the external parent using it
    std::optional<Resolution> current;
    // While `changing`: what prefixes the re-send walk has not reached yet have downstream.
    std::optional<Resolution> previous;
    bool changing = false;
    std::vector<Step> steps;
  };

  // Internal side.
  void InternalChanged(const std::optional<RibRoute>& before, const std::optional<RibRoute>& after,
                       const net::Prefix& prefix);
  // External side.
  void ExternalChanged(const std::optional<RibRoute>& before, const std::optional<RibRoute>& after,
                       const net::Prefix& prefix);

  // `route` (external) with its resolution as downstream has it, or nullopt if unresolvable.
  std::optional<RibRoute> Resolved(const std::optional<RibRoute>& route) const;
  std::optional<RibRoute> ResolvedWith(const RibRoute& route, bool previous) const;
  static bool NeedsResolution(const RibRoute& route) {
    return route.nexthop.has_value() && route.ifname.empty();
  }
  bool Pending(const net::Prefix& prefix) const {
    return walking_ && (!walk_cursor_ || *walk_cursor_ < prefix);
  }
  std::optional<RibRoute> Internal(const net::Prefix& prefix) const;
  std::optional<RibRoute> External(const net::Prefix& prefix) const;

  // Nexthop cache.
  void Acquire(const RibRoute& route);
  void Release(const RibRoute& route);
  std::optional<Resolution> Resolve(const net::IPAddress& address, std::vector<Step>* steps) const;
  std::optional<RibRoute> LongestMatchInternal(const net::IPAddress& address) const;
  void Watch(Nexthop* nh);
  void Unwatch(Nexthop* nh);
  void IgpChanged(const net::Prefix& prefix);
  void Erase(Nexthop* nh);

  // Re-send walk.
  bool WalkSlice();
  void FinishWalk();

  SourceRegistry* sources_;
  RibStage* internal_ = nullptr;
  RibStage* external_ = nullptr;
  RibStage* downstream_ = nullptr;

  absl::node_hash_map<net::IPAddress, Nexthop> nexthops_;
  Nexthop* last_ = nullptr;  // the entry used last: routes come in runs with one nexthop
  // Host prefix of each address a cached resolution looked up -> the nexthops that did.
  net::PrefixMap<std::vector<Nexthop*>> watch_;

  bool walking_ = false;
  std::optional<net::Prefix> walk_cursor_;
  std::vector<net::IPAddress> changing_;
  uint64_t rewalks_ = 0;
  stage::BackgroundTask walk_;
};

}  // namespace sluice::rib
