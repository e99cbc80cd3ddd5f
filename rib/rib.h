#pragma once
// Rib: the RIB process's core, one object per process (DESIGN.md § Processes, § Route stages;
// XORP NSDI'05 §5.2). It builds the IPv4 and IPv6 stage networks (rib_network.h) and is the
// only thing the process's RPC service (rib/1.0) and main.cc call: each RPC hands its call to
// the event loop, which calls one method here. Everything runs on that loop.
//
// Adapters implement the interfaces this core uses:
//   FibClient          (fib_client.h)        route changes to each FEA, in batches;
//   InterfaceSource    (interface_source.h)  interfaces and addresses from the FEA;
//   InterestRegistrant (interest.h)          one per client that registers interest;
//   RedistSubscriber   (redist.h)            one per redistribution client.
//
// Protocols: any protocol may add routes under its name ([a-z0-9_-], up to 32 characters);
// its origin is created on its first route. Class and admin distance come from DefaultsFor()
// (protocol.h) unless declared. "connected" routes come only from the interface events.
//
// Profiling point "rib_route_in" (stage/profile.h): each route change as it arrives, text
// "<add|replace|delete> <prefix> <protocol>".

#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "net/ip_address.h"
#include "net/prefix.h"
#include "rib/connected_routes.h"
#include "rib/connected_union.h"
#include "rib/fea_view.h"
#include "rib/fib_client.h"
#include "rib/interest.h"
#include "rib/interface_source.h"
#include "rib/origin_policy.h"
#include "rib/protocol.h"
#include "rib/redist.h"
#include "rib/rib_network.h"
#include "rib/rib_route.h"
#include "rib/route_input.h"
#include "stage/plumber.h"
#include "stage/profile.h"

namespace sluice::rib {

struct RibOptions {
  FeaOutOptions fea;
  // Tests: a CacheStage after every stage; violations go to on_violation.
  bool insert_cache_stages = false;
  std::function<void(const std::string&)> on_violation;
  stage::Profiler* profiler = nullptr;  // nullptr: stage::Profiler::Default()
  // Called with a protocol's name when it has (re-)sent all its routes: EndOfRib(), and
  // "connected" when a snapshot of the FEA's interfaces has been applied.
  std::function<void(std::string_view protocol)> on_end_of_rib;
};

// What a batch did. Routes not found (replace or delete of a prefix the protocol does not
// have) are skipped and listed; everything else in the batch is applied.
struct BatchResult {
  size_t applied = 0;    // routes added, replaced or deleted (unchanged re-adds included)
  size_t unchanged = 0;  // adds identical to the route already there
  std::vector<net::Prefix> not_found;
};

// Where the stream to one FEA stands, both families together (Rib::FeaStates).
struct FeaState {
  std::string name;
  bool up = false;         // born and not dead since
  bool lagging = false;    // changes dropped past the backlog bound; a full push follows
  bool resyncing = false;  // the whole FIB is being sent
  uint64_t queued = 0;     // changes queued, not sent
  uint64_t in_flight = 0;  // changes sent, not answered
  uint64_t full_pushes = 0;
  uint64_t lagged = 0;
  uint64_t batches_failed = 0;
  bool interfaces_known = false;  // it reported its interfaces (Rib::FeaViewKnown)
};

struct ProtocolInfo {
  std::string name;
  ProtocolClass protocol_class;
  uint16_t admin_distance;
  size_t routes_v4 = 0;
  size_t routes_v6 = 0;
};

class Rib {
 public:
  // `fib`, when not null, is the FEA kDefaultFea (AddFea) and must outlive the Rib. Nothing
  // is sent to an FEA before FeaBorn().
  Rib(boost::asio::io_context& io, FibClient* fib, RibOptions options = {});
  ~Rib();
  Rib(const Rib&) = delete;
  Rib& operator=(const Rib&) = delete;

  // --- Protocols --------------------------------------------------------------------------
  // Sets a protocol's class and admin distance before its first route. Errors: InvalidArgument
  // (bad name, distance > 255, "connected"); FailedPrecondition when it already has routes in
  // another class.
  absl::Status DeclareProtocol(std::string_view protocol, ProtocolClass protocol_class,
                               std::optional<uint16_t> admin_distance = std::nullopt);
  // Errors: InvalidArgument for a bad name.
  absl::StatusOr<uint16_t> GetAdminDistance(std::string_view protocol) const;
  // Changes a protocol's admin distance; its routes are re-announced and the merge re-decided
  // in the background. Errors: InvalidArgument (bad name, distance > 255).
  absl::Status SetAdminDistance(std::string_view protocol, uint16_t admin_distance);
  std::vector<ProtocolInfo> Protocols() const;

  // --- Routes (rib/1.0 add_route4/6, replace_route4/6, delete_route4/6, in batches) ---------
  // The whole batch is validated first: one bad route (route_input.h) refuses the batch with
  // InvalidArgument naming its index and fault, and nothing is applied. Routes of both families
  // may be mixed.
  // Adds routes; a route for a prefix the protocol already has replaces it.
  absl::StatusOr<BatchResult> AddRoutes(std::string_view protocol,
                                        std::span<const RouteInput> routes);
  // Replaces routes the protocol has; others are listed in not_found.
  absl::StatusOr<BatchResult> ReplaceRoutes(std::string_view protocol,
                                            std::span<const RouteInput> routes);
  // Deletes routes; prefixes the protocol does not have are listed in not_found.
  absl::StatusOr<BatchResult> DeleteRoutes(std::string_view protocol,
                                           std::span<const net::Prefix> prefixes);

  // --- Lookups ------------------------------------------------------------------------------
  // The winner (what the FIB gets) for the longest match of `address` / for exactly `prefix`.
  std::optional<RibRoute> LookupDestination(const net::IPAddress& address) const;
  std::optional<RibRoute> LookupPrefix(const net::Prefix& prefix) const;
  // Up to `max` winners of `family` after `after` (nullopt: from the first), in prefix order;
  // call again with the last prefix returned to page through the table.
  std::vector<RibRoute> ListRoutes(net::Family family, const std::optional<net::Prefix>& after,
                                   size_t max) const;
  // A protocol's own routes (winning or not). Errors: InvalidArgument for a bad name.
  absl::StatusOr<std::vector<RibRoute>> ListProtocolRoutes(std::string_view protocol,
                                                           net::Family family,
                                                           const std::optional<net::Prefix>& after,
                                                           size_t max) const;

  // --- Interest registration (XORP §5.2.1) ----------------------------------------------------
  InterestAnswer RegisterInterest(InterestRegistrant* registrant, const net::IPAddress& address);
  // Errors: NotFound when `registrant` has no registration for exactly `valid_subnet`.
  absl::Status DeregisterInterest(InterestRegistrant* registrant, const net::Prefix& valid_subnet);
  // Every registration of a client (it died or is going away).
  void DeregisterAllInterest(InterestRegistrant* registrant);

  // --- Redistribution ------------------------------------------------------------------------
  // Streams `protocol`'s winning routes of `family` ("" = every protocol's) to `subscriber`,
  // starting with a dump. Errors: InvalidArgument (bad name), AlreadyExists.
  absl::Status RedistSubscribe(RedistSubscriber* subscriber, net::Family family,
                               std::string_view protocol, RedistPolicy policy = {});
  // Errors: NotFound when not subscribed.
  absl::Status RedistUnsubscribe(RedistSubscriber* subscriber, net::Family family,
                                 std::string_view protocol);
  void RedistUnsubscribeAll(RedistSubscriber* subscriber);

  // --- Origin policy (policy_backend/1.0 "origin:static", "origin:connected"; origin_policy.h)
  // Installs `filter` (compiled with OriginPolicy::Options(); null: no policy) for `protocol`'s
  // routes and re-applies it to the routes the protocol has given, in the background.
  // Errors: InvalidArgument for a protocol other than static and connected.
  absl::Status SetOriginPolicy(std::string_view protocol,
                               std::shared_ptr<const policy::Filter> filter);
  // Re-applies the current origin policy of `protocol` (push_routes). Errors: as above.
  absl::Status PushOriginPolicy(std::string_view protocol);
  const OriginPolicy& origin_policy() const { return origin_policy_; }

  // --- Lifetime --------------------------------------------------------------------------------
  // The component that added `protocol`'s routes died: they are withdrawn in the background
  // (a deletion stage per family, XORP §5.1.2) while the protocol may register again and
  // re-send them. Errors: InvalidArgument for a bad name.
  absl::Status ProtocolDied(std::string_view protocol);
  // The component that added `protocol`'s routes died and may come back: its routes stay, stale
  // (DESIGN.md § Restarts), for `restart_time`; then, or at EndOfRib(), those not re-sent are
  // withdrawn. Errors: InvalidArgument for a bad name.
  absl::Status ProtocolStale(std::string_view protocol, std::chrono::seconds restart_time);
  // `protocol` has (re-)sent every route: its stale routes not re-sent are withdrawn in the
  // background; returns how many. Errors: InvalidArgument for a bad name.
  absl::StatusOr<size_t> EndOfRib(std::string_view protocol);
  // Stale routes of `protocol` (both families) waiting to be re-sent.
  size_t StaleRoutes(std::string_view protocol) const;
  // --- FEAs (DESIGN.md § Processes: one RIB feeding several FEAs) ------------------------------
  // Each FEA the RIB feeds has a FeaOut per family below the FIB fanout (rib_network.h), with
  // its own flow control, re-send and bounded backlog: one that is slow, stopped or dead
  // delays none of the others. Calls naming an FEA the Rib does not feed do nothing.
  // The name the constructor's `fib` is fed under, and the FEA the calls below default to.
  static constexpr std::string_view kDefaultFea = "fea";
  // Feeds `fea` (its Finder instance name) through `fib`, which outlives the Rib or the
  // RemoveFea. Nothing is sent before FeaBorn(fea). Errors: InvalidArgument (empty name),
  // AlreadyExists.
  absl::Status AddFea(std::string_view fea, FibClient* fib);
  // Stops feeding `fea` and forgets what was queued for it. Errors: NotFound.
  absl::Status RemoveFea(std::string_view fea);
  // The FEAs fed, by name.
  std::vector<std::string> Feas() const;
  // The same, with where each one's stream stands.
  std::vector<FeaState> FeaStates() const;
  // The FEA was born (first time or again): the whole FIB is (re-)sent to it in the background.
  void FeaBorn(std::string_view fea = kDefaultFea);
  // The FEA died: nothing is sent to it until it is born again.
  void FeaDied(std::string_view fea = kDefaultFea);
  // Where `fea`'s own interface events go (its FeaView, fea_view.h); nullptr for an FEA the RIB
  // does not feed. Its subnets join the connected routes (a nexthop on any of them resolves),
  // and they decide which winners it is sent, and through which of its interfaces (its
  // FeaResolve stages, fea_resolve_stage.h). When its view changes while it is up, the
  // whole FIB is re-sent to it (FibClient::BeginFullPush, then as after a birth).
  InterfaceEvents* FeaInterfaceEvents(std::string_view fea);
  // `fea` has reported its interfaces: what it is sent follows them.
  bool FeaViewKnown(std::string_view fea) const;
  // The FEA's FeaOutStages dropped changes while it lagged, and it has now answered everything
  // sent (FeaOutOptions::max_backlog): FibClient::BeginFullPush, then the whole FIB is re-sent.
  void FeaCaughtUp(std::string_view fea = kDefaultFea);
  // Calls `fn` once every route change queued so far for `fea`, in both families, has been
  // handed to its FibClient (FeaOutStage::WhenSent); dropped if the FEA is born again or dies
  // first.
  void WhenFeaSent(std::function<void()> fn, std::string_view fea = kDefaultFea);
  // Calls `fn` once no EGP route waits for a re-resolution walk (routes held for an
  // unresolvable nexthop that a new IGP route resolves) and everything queued for `fea` is
  // handed to its FibClient: what the RIB has been given is then on its way to that FEA.
  void WhenSettled(std::function<void()> fn, std::string_view fea = kDefaultFea);

  // --- Interfaces --------------------------------------------------------------------------------
  // Where the shared interface events go (the first FEA's, or a test's). The connected routes
  // are theirs, joined by the subnets other FEAs report that they lack (ConnectedUnion,
  // connected_union.h; FeaInterfaceEvents).
  InterfaceEvents* interface_events() { return &connected_; }
  // Starts `source` delivering to interface_events(); Stop() it before destroying the Rib.
  void AttachInterfaceSource(InterfaceSource* source);

  // --- Show ------------------------------------------------------------------------------------
  // The stage networks as text (`sluice show plumbing rib`).
  std::string Describe() const { return plumber_.Describe(); }
  // The stages that keep a queue (FeaOut) and how much each holds (sluice_stage_queue_depth).
  std::vector<stage::Plumber::QueueDepth> QueueDepths() const { return plumber_.QueueDepths(); }
  RibNetwork& network(net::Family family) { return family == net::Family::kIPv4 ? *v4_ : *v6_; }
  const RibNetwork& network(net::Family family) const {
    return family == net::Family::kIPv4 ? *v4_ : *v6_;
  }
  // No background work under way in either family.
  bool Idle() const { return v4_->Idle() && v6_->Idle(); }

 private:
  struct Protocol {
    Symbol name;
    ProtocolClass protocol_class;
    uint16_t admin_distance;
  };
  absl::StatusOr<Protocol*> ProtocolFor(std::string_view name, bool from_client);
  absl::StatusOr<BatchResult> Apply(std::string_view protocol, std::span<const RouteInput> routes,
                                    bool replace_only);
  void ApplyConnected(const net::Prefix& prefix, const std::optional<std::string>& ifname);
  void PushConnected();
  // The origin policy's walk: `filtered` (or its absence) replaces what the origin holds.
  void ApplyFiltered(std::string_view protocol, const net::Prefix& prefix,
                     const std::optional<RouteInput>& filtered);
  void PushOrigins(std::string_view protocol);
  // Sweeps `protocol`'s stale routes in both families and forgets its timer.
  size_t SweepStale(const std::string& protocol);
  // `fea`'s interfaces changed: its FeaResolve stages take `view`, and an FEA that is up is
  // re-sent its FIB.
  void FeaViewChanged(const std::string& fea, const FeaInterfacesView& view);

  stage::Plumber plumber_;
  RibOptions options_;
  std::map<std::string, FibClient*, std::less<>> feas_;  // by FEA name
  stage::ProfilePoint* route_in_;
  absl::flat_hash_map<std::string, Protocol> protocols_;
  // Per protocol with stale routes: when its restart time ends.
  absl::flat_hash_map<std::string, std::unique_ptr<boost::asio::steady_timer>> stale_timers_;
  // Its walk applies to the networks below; destroyed after them (and after connected_, which
  // calls it), it never runs then.
  OriginPolicy origin_policy_;
  std::unique_ptr<RibNetwork> v4_;
  std::unique_ptr<RibNetwork> v6_;
  // The connected routes: the shared events' and every FEA's subnets (calls into the networks).
  ConnectedUnion connected_union_;
  ConnectedRoutes connected_;
  // Per FEA fed: its own interfaces (they call into the networks above).
  std::map<std::string, std::unique_ptr<FeaView>, std::less<>> fea_views_;
};

}  // namespace sluice::rib
