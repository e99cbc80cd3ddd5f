#pragma once
// BgpRouting: the routing side of the BGP process — what sluice-bgp's main and its RPC adapter
// (bgp/1.0) call. It owns the Plumber, the NexthopCache, one FamilyPipeline per
// address family (IPv4 and IPv6 unicast) and one BgpPeer per configured peer, applies the local
// AS and BGP Identifier, and answers what `show bgp routes`, `show bgp peers` and
// `show plumbing` need.
//
// Wiring in the process (the adapter's job):
//   BgpRouting routing(io, config, {&interest_client, &rib_client, &store, &profiler});
//   for each configured peer:
//     ASSIGN_OR_RETURN(SessionListener* l, routing.AddPeer(peer_config, &session));
//     session.SetListener(l);                 // Session → routing: Established, UPDATEs, ...
//   Finder birth of the RIB  → routing.OnRibBorn();
//   RIB route_info_invalid   → routing.nexthop_cache().OnInvalid(subnet);
//   bgp/1.0 originate_route  → routing.Originate(prefix, attributes);
//   bgp/1.0 get routes       → routing.ReadRoutesAsync(query, done) page by page;
//   profile/1.0              → the Profiler given in the services ("bgp_route_in",
//                              "bgp_queued_to_rib", "bgp_sent_to_rib").
// Everything runs on the loop `io`; nothing here blocks.

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bgp/session/session_link.h"
#include "bgp/stages/bgp_peer.h"
#include "bgp/stages/encode_thread.h"
#include "bgp/stages/family_pipeline.h"
#include "bgp/stages/family_routing.h"
#include "bgp/stages/nexthop_cache.h"
#include "bgp/stages/rib_client.h"
#include "bgp/stages/shard_pipeline.h"
#include "stage/plumber.h"
#include "stage/profile.h"

namespace sluice::bgp {

struct RouterConfig {
  uint32_t local_as = 0;
  net::IPv4Address router_id;          // BGP Identifier
  std::optional<uint32_t> cluster_id;  // RFC 4456; the router id when unset
  DecisionOptions decision;            // always-compare-med, default LOCAL_PREF
  bool ipv4 = true;                    // run IPv4 unicast
  bool ipv6 = true;                    // run IPv6 unicast
  // `bgp { threads N; }`: route processing spread over N worker threads by prefix
  // (ShardedRouting, shard_pipeline.h); 1 is the serial pipeline, on the event loop, with no
  // extra thread; 0 means DefaultThreads(). The configuration's default is DefaultThreads(); this
  // struct keeps 1 so that code filling it field by field gets the serial pipeline.
  int threads = 1;
  // With threads 1: run the shard stage anyway, on one worker thread (benchmarks: what the
  // hand-over between the event loop and the shards costs, apart from spreading the work).
  bool shard_single_thread = false;
  // PeerOut's encoding on a thread of its own (EncodeThread, PeerOut::Options::encoder), so that
  // the event loop only hands batches over and sends; false: on the event loop.
  bool encode_thread = false;
  // RFC 4724 §4.2 helper: seconds a restarted peer has, once Established again, to send
  // End-of-RIB before its routes still stale are withdrawn (`graceful-restart {
  // stale-routes-time }`).
  double stale_routes_time_s = 360;
  // The CPUs this process may use (base::UsableCpus: its affinity mask, within its cgroups' CPU
  // quota; at least 1).
  static int DefaultThreads();
  // How many threads sluice-bgp decodes received UPDATEs on (its parse pool) for `threads` shard
  // workers on `cores` usable CPUs: the cores that the event loop and the shards leave free, at
  // most `threads`; 0 (decoded on the event loop) for the serial pipeline or when no core is
  // left. A pool on cores the shards also need costs more CPU than the
  // decoding it takes off the loop (bench/bgp/README.md).
  static int DefaultParseThreads(int threads, int cores = DefaultThreads());
  // Whether sluice-bgp encodes on a thread of its own for `threads` shard workers on `cores`
  // usable CPUs: with the shard stage, when a core is left beside the event loop and the shards
  // (then the loop's main remaining work, encoding, moves there); never for the serial pipeline.
  static bool DefaultEncodeThread(int threads, int cores = DefaultThreads());
};

// What the routing side knows of a peer (the session side's PeerConfig and PeerStatus, in
// bgp/session/, are other types of the same namespace: the process uses both).
struct RoutingPeerConfig {
  std::string name;  // for display; the address when empty
  net::IPAddress address;
  uint32_t peer_as = 0;
  AfiSafiSet families = [] {
    AfiSafiSet s;
    s.Add(kIPv4Unicast);
    s.Add(kIPv6Unicast);
    return s;
  }();
  bool rr_client = false;
  bool next_hop_self = false;
  bool ebgp_requires_policy = true;  // RFC 8212 default deny for external peers
  std::optional<net::Prefix> shared_subnet;
  std::optional<net::IPAddress> nexthop_v4;
  std::optional<net::IPAddress> nexthop_v6;
  policy::FilterSlot* import_policy = nullptr;  // owned by the caller, outlive the peer
  policy::FilterSlot* export_policy = nullptr;
};

// What the routing side needs from the rest of the process. Pointers are not owned; all but
// `store` may be null (no RIB: nexthops all resolve and nothing is sent to a RIB; no profiler).
struct RoutingServices {
  NexthopInterestClient* interest = nullptr;
  RibRouteClient* rib = nullptr;
  AttributeStore* store = nullptr;
  stage::Profiler* profiler = nullptr;
  // Non-null: route origins are validated against this VRP set (RFC 6811), which the caller
  // changes only between VrpsChanging's `ready` and VrpsChanged.
  const rpki::OriginValidator* validator = nullptr;
  // Non-null: post-policy Adj-RIB-In and Loc-RIB changes go to the slot's monitor
  // (route_monitor.h, BMP).
  const RouteMonitorSlot* route_monitor = nullptr;
};

struct RoutingPeerStatus {
  std::string name;
  net::IPAddress address;
  uint32_t peer_as = 0;
  bool ibgp = false;
  bool established = false;
  absl::Time established_since;
  std::string last_down_reason;
  net::IPv4Address remote_bgp_id;
  struct Family {
    AfiSafi family;
    bool up = false;
    bool disabled = false;  // RFC 7606 AFI/SAFI disable: the peer's routes of it are gone
    size_t received = 0;    // in the Adj-RIB-In
    size_t accepted = 0;    // past the import filter
    size_t advertised = 0;  // in the Adj-RIB-Out
    uint64_t updates_received = 0;
    uint64_t updates_sent = 0;
    bool end_of_rib_received = false;
    bool end_of_rib_sent = false;
    size_t stale = 0;  // routes kept from an earlier session for a restarting peer (RFC 4724)
  };
  std::vector<Family> families;
};

class BgpRouting {
 public:
  // Errors are reported by the methods; construction needs services.store.
  BgpRouting(boost::asio::io_context& io, RouterConfig config, RoutingServices services,
             PipelineOptions options = {});
  ~BgpRouting();
  BgpRouting(const BgpRouting&) = delete;
  BgpRouting& operator=(const BgpRouting&) = delete;

  const RouterConfig& config() const { return config_; }
  // A new local AS and BGP Identifier (the process's set_local_as / set_bgp_id). Every peer's
  // session must be down (the session side restarts them with Cease / Other Configuration
  // Change, RFC 4486): peers are re-classified as internal or external, and their filters and
  // output branches use the new values from now on. Errors: InvalidArgument for AS 0.
  absl::Status SetIdentity(uint32_t local_as, net::IPv4Address router_id);
  // RFC 4456 §7 CLUSTER_ID; nullopt: the router id. Every peer's filters use it from now on
  // (routes already sent keep their CLUSTER_LIST).
  void SetClusterId(std::optional<uint32_t> cluster_id);

  // --- Peers ---------------------------------------------------------------------------------
  // Adds a peer whose session is `sender`; returns the listener the session must report to.
  // Errors: AlreadyExists for a configured address, InvalidArgument for AS 0.
  absl::StatusOr<SessionListener*> AddPeer(const RoutingPeerConfig& config, SessionSender* sender);
  // New settings or policies for a configured peer (routes move over in the background).
  // Errors: NotFound. Changing peer_as or the address is a remove and add.
  absl::Status UpdatePeer(const RoutingPeerConfig& config);
  // Removes a peer; its routes are withdrawn in the background. The session must stop reporting
  // to the listener from now on (the listener is destroyed). Errors: NotFound.
  absl::Status RemovePeer(const net::IPAddress& address);
  // Asks the peer to send its routes again (RFC 2918). Errors: NotFound, FailedPrecondition
  // when the session is down or did not negotiate route refresh.
  absl::Status RequestRouteRefresh(const net::IPAddress& address, AfiSafi family);
  std::vector<RoutingPeerStatus> Peers() const;
  absl::StatusOr<RoutingPeerStatus> Peer(const net::IPAddress& address) const;

  // --- Originated routes (bgp/1.0 originate_route / withdraw_route) --------------------------
  // Announces `prefix` with `attributes` (a nexthop of the prefix's family is required; ORIGIN
  // defaults to IGP, AS_PATH to empty). Errors: InvalidArgument naming what is missing,
  // FailedPrecondition when the family is not run.
  absl::Status Originate(const net::Prefix& prefix, PathAttributes attributes);
  // Errors: NotFound when `prefix` was not originated.
  absl::Status WithdrawOriginated(const net::Prefix& prefix);

  // --- RIB -----------------------------------------------------------------------------------
  // A RIB instance was born (again): nexthops are asked again and every route is re-sent.
  void OnRibBorn();
  // Whether every family's RIB branch has handed the RIB every route (FamilyRouting::RibSynced),
  // through `done` on the loop, without waiting for the shards.
  void RibSyncedAsync(std::function<void(bool synced)> done);
  NexthopCache& nexthop_cache() { return *nexthops_; }

  // --- RPKI (origin_validation.h) -----------------------------------------------------------
  // The VRP set is about to change by `delta`: every copy of every family's pipeline notes the
  // routes it covers, in order with the routes handed to it, then `ready` runs on the loop (at
  // once with the serial pipeline); the caller applies the change only then. VrpsChanged, after
  // it, has every copy re-validate them in the background. Neither waits for the shards. Without
  // services.validator, `ready` runs at once and nothing else happens.
  void VrpsChanging(const rpki::VrpDelta& delta, std::function<void()> ready);
  void VrpsChanged();

  // --- Graceful restart, helper (RFC 4724 §4.2) ---------------------------------------------
  // Seconds a restarted peer has to send End-of-RIB (RouterConfig::stale_routes_time_s), for
  // every peer from now on.
  void SetStaleRoutesTime(double seconds);

  // --- Reading -------------------------------------------------------------------------------
  // One page of routes. Errors: NotFound for an unknown peer, InvalidArgument for a query that
  // needs a peer and has none, FailedPrecondition for a family that is not run.
  absl::StatusOr<std::vector<BgpRoute>> ReadRoutes(const RouteQuery& query);
  // The same through `done` on the loop, without waiting for the shards (FamilyRouting::
  // ReadRoutesAsync): what the loop serves reads this way. Errors found here answer at once.
  void ReadRoutesAsync(const RouteQuery& query, FamilyRouting::RoutesDone done);
  // The Loc-RIB route and every candidate for one prefix (`show bgp routes PREFIX detail`),
  // through `done` on the loop.
  void CandidatesAsync(const net::Prefix& prefix, std::function<void(std::vector<BgpRoute>)> done);
  // `show plumbing`: every stage, one per line (Plumber::Describe), the shards' after the loop's.
  // Describe waits for the shards (tests); DescribeAsync, what the process serves, answers
  // through `done` on the loop without waiting.
  std::string Describe() const;
  void DescribeAsync(std::function<void(std::string)> done) const;
  // Every loop stage that keeps a queue (stage::Plumber::QueueDepths), then each shard's input
  // queue and Fanouts (ShardedRouting::QueueDepths); on the loop, never waiting for a shard
  // (sluice_stage_queue_depth).
  std::vector<stage::Plumber::QueueDepth> QueueDepths() const;

  // The family's serial pipeline; null when the family is not run or runs sharded (sharded()).
  FamilyPipeline* pipeline(net::Family family) {
    return dynamic_cast<FamilyPipeline*>(routing(family));
  }
  // The family's routing, serial or sharded; null when the family is not run.
  FamilyRouting* routing(net::Family family) {
    return families_[family == net::Family::kIPv6 ? 1 : 0];
  }
  // The worker threads of the shard stage (1 without one: the serial pipeline, on the loop).
  int threads() const { return sharded_ != nullptr ? sharded_->threads() : 1; }
  // Null with one thread.
  ShardedRouting* sharded() { return sharded_.get(); }
  // Runs the event loop (and waits for the shards and the encoding thread) until nothing is left
  // to do anywhere: every route handed over was processed, every output delivered and sent, no
  // handler ready. For tests and
  // benchmarks: a process's loop never runs dry this way (timers are not waited for).
  void Settle();
  // The shards' input is full (ShardedRouting::SetBackpressure): every peer's session was told
  // to stop reading (SessionSender::PauseInput), until the shards are down to half. A caller that
  // feeds UPDATEs itself (a test, a benchmark) runs the loop meanwhile, as a session would.
  bool input_paused() const { return input_paused_; }
  stage::Plumber& plumber() { return plumber_; }
  boost::asio::io_context& io() { return plumber_.io(); }
  BgpPeer* peer(const net::IPAddress& address);

 private:
  // Pushes config_ (AS, router id, cluster id) to every family and re-makes every peer's filters.
  void ApplyRouter();
  PeerSettings MakeSettings(const RoutingPeerConfig& config, uint32_t peer_id) const;
  // The routing and peer id that answer `query`.
  absl::StatusOr<std::pair<FamilyRouting*, uint32_t>> Reader(const RouteQuery& query);
  void RibSyncedFrom(size_t family, std::function<void(bool synced)> done);
  // Tells every peer's session to stop (or go on) reading.
  void PauseInputs(bool paused);
  // Settle's step for the encoding thread: runs the loop until every batch handed to it came
  // back; whether any handler ran.
  bool SettleEncoder();

  RouterConfig config_;
  RoutingServices services_;
  // config_.encode_thread: destroyed after every PeerOut that uses it.
  std::unique_ptr<EncodeThread> encoder_;
  // Destroyed in reverse: peers, then the stages (which use the pipelines' table sets and the
  // nexthop cache), then the pipelines.
  PeerSourceRegistry sources_;
  std::unique_ptr<NexthopCache> nexthops_;
  std::array<std::unique_ptr<FamilyRouting>, 2> pipelines_;   // serial
  std::unique_ptr<ShardedRouting> sharded_;                   // threads > 1 (or 1 forced)
  std::array<FamilyRouting*, 2> families_{nullptr, nullptr};  // whichever runs
  // DescribeAsync's step: `text` plus the shards' stages of families_[i] and those after it.
  void DescribeShardsFrom(size_t i, std::string text, std::function<void(std::string)> done) const;
  stage::Plumber plumber_;
  std::map<net::IPAddress, std::unique_ptr<BgpPeer>> peers_;
  std::map<uint32_t, BgpPeer*> peers_by_id_;  // the same peers, by PeerSettings::peer_id
  uint32_t next_peer_id_ = 1;
  bool input_paused_ = false;
};

}  // namespace sluice::bgp
