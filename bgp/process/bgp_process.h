#pragma once
// BgpProcess: the core of sluice-bgp — the sessions (PeerManager, bgp/session/) glued to the
// routing side (BgpRouting, bgp/stages/), with the RIB reached through the interfaces of
// bgp/stages/rib_client.h. The bgp/1.0 adapter (bgp_service.h) only translates to the calls
// below; main.cc wires the IPC pieces around it.
//
//   PeerManager ──RoutingSide (this)──► BgpRouting ──► RibRouteClient / NexthopInterestClient
//     sessions: PeerAdded(config, sender) → BgpRouting::AddPeer → the peer's SessionListener
//               PeerRemoved(address)      → BgpRouting::RemovePeer
//
// A peer has the session's settings (PeerConfig: transport, timers, MD5, GTSM, max-prefix...)
// and the routing side's (RoutingPeerConfig: families, nexthop towards it, RFC 8212); AddPeer
// takes both, and fills the routing side's copies of the shared fields (address, AS,
// next-hop-self, route-reflector client, families) from the session's.
//
// Identity: peers need the local AS and the BGP Identifier first (FailedPrecondition). Changing
// either later restarts every session (Cease / Other Configuration Change, RFC 4486) and moves
// the routing side to the new identity (BgpRouting::SetIdentity) while every session is down.
//
// Single-threaded: every call on the event loop's thread.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bgp/session/peer_manager.h"
#include "bgp/stages/bgp_routing.h"
#include "policy/filter.h"
#include "stage/profile.h"

namespace sluice::bgp::process {

struct BgpProcessOptions {
  // Where nexthops are resolved and winning routes go; both null: BGP without a RIB (every
  // nexthop resolves with metric 0, nothing is sent).
  NexthopInterestClient* interest = nullptr;
  RibRouteClient* rib = nullptr;
  stage::Profiler* profiler = nullptr;  // null: no profiling points
  // Null: no RPKI. Else the VRP set route origins are validated against (RoutingServices).
  const rpki::OriginValidator* validator = nullptr;
  PipelineOptions pipeline;
  bool ipv4 = true;
  bool ipv6 = true;
  // The shard stage's worker threads (RouterConfig::threads): 1 is the serial pipeline.
  int threads = 1;
  // PBTS: threads decoding the peers' UPDATEs off the event loop (PeerManager::SetParseThreads);
  // 0: on the event loop.
  int parse_threads = 0;
  // PeerOut's encoding on a thread of its own (RouterConfig::encode_thread).
  bool encode_thread = false;
};

// One peer as `list_peers` shows it: the session's status and configuration and the routing
// side's counts.
struct PeerView {
  PeerStatus session;
  PeerConfig config;
  bool disabled_by_operator = false;  // DisablePeer(address, true) and no enable or add since
  std::optional<RoutingPeerStatus> routing;
  // While we keep the peer's routes stale (RFC 4724 §4.2): "restart" (it is away) or
  // "end-of-rib" (it is back, sending its table), and the seconds left on that timer.
  std::optional<std::string> helper_phase;
  double helper_seconds_left = 0;
};

// One listening socket.
struct ListenerInfo {
  net::IPAddress address;
  uint16_t port = 0;
};

class BgpProcess : private RoutingSide {
 public:
  BgpProcess(boost::asio::io_context& io, BgpProcessOptions options);
  ~BgpProcess() override;  // Shutdown()
  BgpProcess(const BgpProcess&) = delete;
  BgpProcess& operator=(const BgpProcess&) = delete;

  // --- Identity (RFC 4271 §4.2; 4-octet AS, RFC 6793) -----------------------------------------
  // Errors: InvalidArgument for AS 0 or identifier 0.0.0.0.
  absl::Status SetLocalAs(uint32_t as);
  absl::Status SetBgpId(net::IPv4Address id);
  const LocalConfig& local() const { return peers_.local(); }
  // RFC 4456 §7 CLUSTER_ID (0: the BGP Identifier), for routes filtered and sent from now on.
  void SetClusterId(uint32_t id) {
    routing_->SetClusterId(id == 0 ? std::nullopt : std::optional<uint32_t>(id));
  }
  // The CLUSTER_ID in use: the configured one, or the BGP Identifier.
  uint32_t cluster_id() const {
    return routing_->config().cluster_id.value_or(peers_.local().bgp_id.value());
  }

  // --- Listening sockets ---------------------------------------------------------------------
  // Returns the port bound (`port` 0: a free one). Errors: AlreadyExists, Unavailable.
  absl::StatusOr<uint16_t> Listen(const net::IPAddress& address, uint16_t port);
  absl::Status StopListening(const net::IPAddress& address, uint16_t port);  // NotFound
  const std::vector<ListenerInfo>& listeners() const { return listeners_; }

  // --- Peers ---------------------------------------------------------------------------------
  // Errors: FailedPrecondition before the local AS and BGP Identifier are set; InvalidArgument
  // naming the field; AlreadyExists.
  absl::Status AddPeer(const PeerConfig& session, RoutingPeerConfig routing = {});
  // Errors of these: NotFound.
  absl::Status RemovePeer(const net::IPAddress& address);
  // EnablePeer, AddPeer and RemovePeer forget an operator's disable; `by_operator` marks the
  // peer as disabled by a person (the CLI) rather than by the configuration (PeerView).
  absl::Status EnablePeer(const net::IPAddress& address);
  absl::Status DisablePeer(const net::IPAddress& address, bool by_operator = false);
  absl::Status ResetPeer(const net::IPAddress& address);
  absl::StatusOr<PeerView> GetPeer(const net::IPAddress& address) const;
  std::vector<PeerView> ListPeers() const;  // by address
  // RFC 2918 towards the peer, for `family` or (nullopt) every family of the session.
  // Errors: NotFound; FailedPrecondition when down or not negotiated.
  absl::Status RouteRefresh(const net::IPAddress& address, std::optional<AfiSafi> family);
  // Sends the peer our Adj-RIB-Out again for `family` or (nullopt) every family of the session,
  // as when it asks with a ROUTE-REFRESH (RFC 2918 §4; "soft reset out").
  // Errors: NotFound; FailedPrecondition when the session is not Established.
  absl::Status ResendRoutes(const net::IPAddress& address, std::optional<AfiSafi> family);

  // --- Policy (policy_backend/1.0 import:ADDRESS and export:ADDRESS, policy_service.h) --------
  // The import and export filter slots of the peer at `address`, created empty (no policy:
  // RFC 8212 for external peers) on first use, so a policy may be configured before its peer.
  // They live as long as the process; a peer added later runs what they hold.
  struct PeerPolicySlots {
    policy::FilterSlot import_slot{nullptr};
    policy::FilterSlot export_slot{nullptr};
  };
  PeerPolicySlots& PolicySlots(const net::IPAddress& address);
  // The peer's routes move to what its slots hold now, in the background (a re-filter walk in
  // its ImportFilter and ExportFilter stages). OK (nothing to do) when the peer is not
  // configured.
  absl::Status RefilterPeer(const net::IPAddress& address);

  // --- Routes --------------------------------------------------------------------------------
  absl::Status Originate(const net::Prefix& prefix, PathAttributes attributes) {
    return routing_->Originate(prefix, std::move(attributes));
  }
  absl::Status WithdrawOriginated(const net::Prefix& prefix) {
    return routing_->WithdrawOriginated(prefix);
  }
  absl::StatusOr<std::vector<BgpRoute>> ReadRoutes(const RouteQuery& query) {
    return routing_->ReadRoutes(query);
  }
  // The same through `done` on the loop, which never waits for the shards meanwhile.
  void ReadRoutesAsync(const RouteQuery& query, FamilyRouting::RoutesDone done) {
    routing_->ReadRoutesAsync(query, std::move(done));
  }

  // --- The RIB -------------------------------------------------------------------------------
  bool has_rib() const { return options_.rib != nullptr; }
  // A RIB was born (again): nexthops are asked again and every route is re-sent.
  void OnRibBorn() { routing_->OnRibBorn(); }
  // rib_client/1.0/route_info_invalid.
  void OnRouteInfoInvalid(const net::Prefix& valid_subnet) {
    routing_->nexthop_cache().OnInvalid(valid_subnet);
  }

  // Every session stopped (Cease / Administrative Shutdown, in a Hard Reset where RFC 8538 was
  // negotiated), listeners closed. Idempotent.
  void Shutdown();
  // An exit for a restart: every connection closed without a NOTIFICATION (GR peers keep our
  // routes, RFC 4724), listeners closed; nothing is withdrawn.
  void CloseForRestart();

  // --- Graceful restart (RFC 4724; bgp/1.0/set_graceful_restart) -----------------------------
  // The restart time we advertise (and register at the RIB with), and how long a restarted peer
  // has to send End-of-RIB. Defaults 120 s and 360 s.
  void SetGracefulRestart(uint16_t restart_time_s, double stale_routes_time_s);
  uint16_t restart_time() const { return peers_.graceful_restart().restart_time_s; }
  double stale_routes_time() const { return stale_routes_time_s_; }
  // Called when the restart time changes (the RIB registration carries it).
  void set_on_restart_time(std::function<void(uint16_t)> fn) { on_restart_time_ = std::move(fn); }
  // End-of-RIB to peers waits on this while the process restarts (RestartCoordinator).
  EndOfRibGate& end_of_rib_gate() { return gate_; }

  BgpRouting& routing() { return *routing_; }
  // Where Loc-RIB changes are reported (BMP, bgp/stages/route_monitor.h); empty until set.
  RouteMonitorSlot& route_monitor() { return route_monitor_; }
  PeerManager& peers() { return peers_; }
  AttributeStore& store() { return store_; }
  // `show plumbing`, answered on the loop without waiting for the shards.
  void DescribeAsync(std::function<void(std::string)> done) const {
    routing_->DescribeAsync(std::move(done));
  }

 private:
  // RoutingSide.
  SessionListener* PeerAdded(const PeerConfig& config, SessionSender* sender) override;
  void PeerRemoved(const net::IPAddress& address) override;
  // After an identity change: the routing side follows once every session is down.
  absl::Status ApplyIdentity();

  BgpProcessOptions options_;
  AttributeStore store_;  // every route's attributes: outlives the routing side and sessions
  EndOfRibGate gate_;     // PeerOut stages hold it: outlives the routing side
  RouteMonitorSlot route_monitor_;  // the pipelines' stages read it: outlives the routing side
  // Peers' filter slots: the routing side's stages hold pointers to them, so they outlive it.
  std::map<net::IPAddress, std::unique_ptr<PeerPolicySlots>> policy_slots_;
  std::unique_ptr<BgpRouting> routing_;
  PeerManager peers_;
  std::vector<ListenerInfo> listeners_;
  // The routing settings of each configured peer (for RefilterPeer).
  std::map<net::IPAddress, RoutingPeerConfig> routing_configs_;
  // The peers an operator disabled (DisablePeer by_operator), until enabled, added or removed.
  std::set<net::IPAddress> operator_disabled_;
  // The routing settings of the peer being added (read by PeerAdded, inside PeerManager::AddPeer).
  std::optional<RoutingPeerConfig> adding_;
  double stale_routes_time_s_ = 360;
  std::function<void(uint16_t)> on_restart_time_;
};

}  // namespace sluice::bgp::process
