#pragma once
// RibNetwork: the stage network of one address family (DESIGN.md § Route stages, the RIB
// figure; XORP NSDI'05 Fig. 7), built and re-plumbed at run time:
//
//   Origin(connected) ┐
//   Origin(static)    ├ Merge(igp) ─┐
//   Origin(igp...)    ┘             ├ ExtInt → Register → [Redist]* → FibFanout ─┐
//   Origin(ebgp/ibgp) ─ Merge(egp) ─┘                                             │
//                                    ┌────────────────────────────────────────────┘
//                                    ├ FeaResolve(fea) ─ FeaOut(fea)
//                                    └ FeaResolve(...) ─ FeaOut(...)
//
// Per FEA the RIB feeds (AddFeaOut): a FeaResolve, which keeps the winners that FEA can forward
// through its own interfaces (fea_resolve_stage.h), and a FeaOut with its own FibClient, flow
// control and bounded backlog (fea_out_stage.h, fib_fanout_stage.h).
//
// Origins are created when a protocol first adds a route, and plumbed into the IGP or EGP
// merge by their class. A protocol's death plumbs a DeletionStage after its origin; a
// redistribution subscription to a new protocol plumbs a RedistStage before the FibFanout. The
// network keeps the registry of route sources (route_source.h) and the interned nexthops.
//
// With `insert_cache_stages` (tests), a CacheStage is plumbed after every stage, dynamic ones
// included, and every consistency violation goes to `on_violation`.
//
// The Rib facade (rib.h) owns one network per family; nothing else talks to a network.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "net/prefix.h"
#include "rib/deletion_stage.h"
#include "rib/ext_int_stage.h"
#include "rib/fea_out_stage.h"
#include "rib/fea_resolve_stage.h"
#include "rib/fib_fanout_stage.h"
#include "rib/merge_stage.h"
#include "rib/nexthop_table.h"
#include "rib/origin_stage.h"
#include "rib/redist_stage.h"
#include "rib/register_stage.h"
#include "rib/route_source.h"
#include "stage/cache_stage.h"
#include "stage/plumber.h"
#include "stage/profile.h"

namespace sluice::rib {

struct RibNetworkOptions {
  FeaOutOptions fea;  // for every FeaOut (AddFeaOut sets its on_caught_up)
  bool insert_cache_stages = false;
  std::function<void(const std::string&)> on_violation;
  stage::Profiler* profiler = nullptr;
};

class RibNetwork {
 public:
  RibNetwork(net::Family family, stage::Plumber* plumber, RibNetworkOptions options);
  RibNetwork(const RibNetwork&) = delete;
  RibNetwork& operator=(const RibNetwork&) = delete;

  net::Family family() const { return family_; }

  // The protocol's origin, or nullptr before its first route.
  OriginStage* origin(Symbol protocol) const;
  // The protocol's origin, created and plumbed if needed.
  OriginStage* EnsureOrigin(Symbol protocol, ProtocolClass protocol_class, uint16_t admin_distance);
  std::vector<OriginStage*> origins() const;
  // Withdraws the protocol's routes through a new DeletionStage (nothing if it has none).
  void ProtocolDied(Symbol protocol);
  // Keeps the protocol's routes, stale, in a held DeletionStage: they stay in the RIB and the
  // FIB, a re-sent route takes its prefix back, and SweepStale withdraws the rest.
  void ProtocolStale(Symbol protocol);
  // Starts withdrawing the protocol's stale routes not re-sent; returns how many there are.
  size_t SweepStale(Symbol protocol);
  // The protocol's stale routes (held, not re-sent yet).
  size_t StaleCount(Symbol protocol) const;

  // The winner for exactly `prefix`; the longest-match winner for `address`.
  std::optional<RibRoute> LookupPrefix(const net::Prefix& prefix) const;
  std::optional<RibRoute> LookupDestination(const net::IPAddress& address) const;
  // Up to `max` winners after `after` (from the start when nullopt), in prefix order.
  std::vector<RibRoute> ListRoutes(const std::optional<net::Prefix>& after, size_t max) const;

  ExtIntStage* ext_int() const { return ext_int_; }
  RegisterStage* register_stage() const { return register_; }
  FibFanoutStage* fanout() const { return fanout_; }

  // --- FEAs: a FeaResolve and a FeaOut each, below the fanout, named "<family>/fea-resolve/<fea>"
  // and "<family>/fea-out/<fea>". -----------------------------------------------------------
  // Plumbs a FeaResolve and a FeaOut for `fea` sending through `client` (which outlives it);
  // `on_caught_up`: FeaOutOptions::on_caught_up. Nothing is sent before its FeaBorn(). Returns the
  // existing one when `fea` has one.
  FeaOutStage* AddFeaOut(const std::string& fea, FibClient* client,
                         std::function<void()> on_caught_up);
  // Unplumbs and retires `fea`'s FeaOut (nothing when it has none).
  void RemoveFeaOut(const std::string& fea);
  // `fea`'s FeaOut, or nullptr.
  FeaOutStage* fea_out(std::string_view fea) const;
  // The FeaResolve stage above it (fea_resolve_stage.h), or nullptr.
  FeaResolveStage* fea_resolve(std::string_view fea) const;

  // `protocol` empty: every protocol.
  absl::Status RedistSubscribe(RedistSubscriber* subscriber, Symbol protocol, RedistPolicy policy);
  absl::Status RedistUnsubscribe(RedistSubscriber* subscriber, Symbol protocol);
  void RedistUnsubscribeAll(RedistSubscriber* subscriber);

  SourceRegistry& sources() { return sources_; }
  const NexthopTable& nexthops() const { return nexthops_; }
  size_t deletion_stage_count() const { return deletions_.size(); }
  // No background work under way: deletions, admin distance changes, re-resolution, dumps,
  // FIB re-send, batches queued or in flight. Held stale routes are not work under way.
  bool Idle() const;

  // Tests: checks every CacheStage against its upstream; returns the violations found.
  size_t VerifyCaches() const;
  size_t cache_stage_count() const { return caches_.size(); }

 private:
  std::string Name(std::string_view what) const;
  // With cache stages on: plumbs a new CacheStage after `stage` and returns it; else `stage`.
  RibStage* CacheAfter(RibStage* stage);
  // Hands the origin's routes to a new DeletionStage plumbed after it; nullptr if it has none.
  DeletionStage* HandOver(Symbol protocol);
  stage::CacheStage<RibRoute>* MakeCache(const std::string& after);

  net::Family family_;
  stage::Plumber* plumber_;
  RibNetworkOptions options_;
  NexthopTable nexthops_;
  SourceRegistry sources_;

  MergeStage* igp_merge_ = nullptr;
  MergeStage* egp_merge_ = nullptr;
  ExtIntStage* ext_int_ = nullptr;
  RegisterStage* register_ = nullptr;
  FibFanoutStage* fanout_ = nullptr;
  struct FeaStages {
    FeaResolveStage* resolve;
    FeaOutStage* out;
  };
  std::map<std::string, FeaStages, std::less<>> fea_outs_;  // by FEA
  std::map<uint32_t, OriginStage*> origins_;                // by Symbol id
  std::map<uint32_t, RedistStage*> redists_;                // by Symbol id; 0 = every protocol
  std::map<uint32_t, stage::CacheStage<RibRoute>*> redist_caches_;  // the cache after each
  std::vector<DeletionStage*> deletions_;
  std::vector<stage::CacheStage<RibRoute>*> caches_;
  uint64_t deaths_ = 0;
};

}  // namespace sluice::rib
