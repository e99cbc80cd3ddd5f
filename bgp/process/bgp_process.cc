#include "bgp/process/bgp_process.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_macros.h"

namespace sluice::bgp::process {

namespace {

RouterConfig MakeRouterConfig(const BgpProcessOptions& o) {
  RouterConfig c;  // local AS and BGP Identifier come later (SetIdentity)
  c.ipv4 = o.ipv4;
  c.ipv6 = o.ipv6;
  c.threads = o.threads;
  c.encode_thread = o.encode_thread;
  return c;
}

RoutingServices MakeServices(const BgpProcessOptions& o, AttributeStore* store,
                             const RouteMonitorSlot* monitor) {
  RoutingServices s;
  s.interest = o.interest;
  s.rib = o.rib;
  s.store = store;
  s.profiler = o.profiler;
  s.validator = o.validator;
  s.route_monitor = monitor;
  return s;
}

PipelineOptions WithGate(PipelineOptions o, EndOfRibGate* gate) {
  o.peer_out.end_of_rib_gate = gate;
  o.rib_out.gate = gate;
  return o;
}

}  // namespace

BgpProcess::BgpProcess(boost::asio::io_context& io, BgpProcessOptions options)
    : options_(options),
      routing_(std::make_unique<BgpRouting>(io, MakeRouterConfig(options_),
                                            MakeServices(options_, &store_, &route_monitor_),
                                            WithGate(options_.pipeline, &gate_))),
      peers_(io, &store_) {
  peers_.set_routing_side(this);
  peers_.SetParseThreads(options_.parse_threads);
}

BgpProcess::~BgpProcess() { Shutdown(); }

void BgpProcess::Shutdown() {
  peers_.Shutdown();
  listeners_.clear();
}

void BgpProcess::CloseForRestart() {
  peers_.CloseForRestart();
  listeners_.clear();
}

void BgpProcess::SetGracefulRestart(uint16_t restart_time_s, double stale_routes_time_s) {
  GracefulRestartConfig gr = peers_.graceful_restart();
  const bool changed = gr.restart_time_s != restart_time_s;
  gr.restart_time_s = restart_time_s;
  peers_.SetGracefulRestart(gr);
  routing_->SetStaleRoutesTime(stale_routes_time_s);
  stale_routes_time_s_ = stale_routes_time_s;
  if (changed && on_restart_time_) on_restart_time_(restart_time_s);
}

// ---- identity ----

absl::Status BgpProcess::SetLocalAs(uint32_t as) {
  RETURN_IF_ERROR(peers_.SetLocalAs(as));  // running sessions restart (and are down now)
  return ApplyIdentity();
}

absl::Status BgpProcess::SetBgpId(net::IPv4Address id) {
  RETURN_IF_ERROR(peers_.SetBgpIdentifier(id));
  return ApplyIdentity();
}

absl::Status BgpProcess::ApplyIdentity() {
  const LocalConfig& l = peers_.local();
  if (!l.complete()) return absl::OkStatus();  // no peer can exist yet
  if (l.as == routing_->config().local_as && l.bgp_id == routing_->config().router_id) {
    return absl::OkStatus();
  }
  SLUICE_LOG(kInfo) << "BGP identity: AS " << l.as << ", BGP Identifier " << l.bgp_id.ToString();
  return routing_->SetIdentity(l.as, l.bgp_id);
}

// ---- listeners ----

absl::StatusOr<uint16_t> BgpProcess::Listen(const net::IPAddress& address, uint16_t port) {
  ASSIGN_OR_RETURN(uint16_t bound, peers_.Listen(address, port));
  listeners_.push_back(ListenerInfo{address, bound});
  return bound;
}

absl::Status BgpProcess::StopListening(const net::IPAddress& address, uint16_t port) {
  RETURN_IF_ERROR(peers_.StopListening(address, port));
  std::erase_if(listeners_,
                [&](const ListenerInfo& l) { return l.address == address && l.port == port; });
  return absl::OkStatus();
}

// ---- peers ----

absl::Status BgpProcess::AddPeer(const PeerConfig& session, RoutingPeerConfig routing) {
  routing.address = session.address;
  routing.peer_as = session.remote_as;
  routing.rr_client = session.route_reflector_client;
  routing.next_hop_self = session.next_hop_self;
  routing.families = session.families;
  if (routing.name.empty()) routing.name = session.address.ToString();
  adding_ = routing;
  operator_disabled_.erase(session.address);
  absl::Status st = peers_.AddPeer(session);
  adding_.reset();
  return st;
}

SessionListener* BgpProcess::PeerAdded(const PeerConfig& config, SessionSender* sender) {
  RoutingPeerConfig routing;
  if (adding_ && adding_->address == config.address) {
    routing = *adding_;
  } else {  // not through AddPeer (tests driving the PeerManager): the session's settings only
    routing.address = config.address;
    routing.peer_as = config.remote_as;
    routing.rr_client = config.route_reflector_client;
    routing.next_hop_self = config.next_hop_self;
    routing.families = config.families;
  }
  PeerPolicySlots& slots = PolicySlots(config.address);
  routing.import_policy = &slots.import_slot;
  routing.export_policy = &slots.export_slot;
  absl::StatusOr<SessionListener*> listener = routing_->AddPeer(routing, sender);
  if (!listener.ok()) {
    SLUICE_LOG(kError) << "peer " << config.address.ToString()
                       << ": the routing side refused it: " << listener.status().message();
    return nullptr;
  }
  routing_configs_[config.address] = routing;
  return *listener;
}

void BgpProcess::PeerRemoved(const net::IPAddress& address) {
  routing_configs_.erase(address);
  absl::Status st = routing_->RemovePeer(address);
  if (!st.ok()) {
    SLUICE_LOG(kWarning) << "removing peer " << address.ToString() << ": " << st;
  }
}

BgpProcess::PeerPolicySlots& BgpProcess::PolicySlots(const net::IPAddress& address) {
  std::unique_ptr<PeerPolicySlots>& slots = policy_slots_[address];
  if (slots == nullptr) slots = std::make_unique<PeerPolicySlots>();
  return *slots;
}

absl::Status BgpProcess::RefilterPeer(const net::IPAddress& address) {
  auto it = routing_configs_.find(address);
  if (it == routing_configs_.end()) return absl::OkStatus();
  return routing_->UpdatePeer(it->second);
}

absl::Status BgpProcess::RemovePeer(const net::IPAddress& address) {
  operator_disabled_.erase(address);
  return peers_.RemovePeer(address);
}
absl::Status BgpProcess::EnablePeer(const net::IPAddress& address) {
  RETURN_IF_ERROR(peers_.EnablePeer(address));
  operator_disabled_.erase(address);
  return absl::OkStatus();
}
absl::Status BgpProcess::DisablePeer(const net::IPAddress& address, bool by_operator) {
  RETURN_IF_ERROR(peers_.DisablePeer(address));
  if (by_operator) {
    operator_disabled_.insert(address);
  } else {
    operator_disabled_.erase(address);
  }
  return absl::OkStatus();
}
absl::Status BgpProcess::ResetPeer(const net::IPAddress& address) {
  return peers_.ResetPeer(address);
}

absl::StatusOr<PeerView> BgpProcess::GetPeer(const net::IPAddress& address) const {
  ASSIGN_OR_RETURN(PeerStatus status, peers_.GetPeer(address));
  PeerView v;
  v.session = std::move(status);
  v.disabled_by_operator = !v.session.enabled && operator_disabled_.count(address) > 0;
  if (PeerSession* s = const_cast<PeerManager&>(peers_).session(address)) v.config = s->config();
  absl::StatusOr<RoutingPeerStatus> r = routing_->Peer(address);
  if (r.ok()) v.routing = *std::move(r);
  if (const BgpPeer* p = routing_->peer(address); p != nullptr && p->graceful().helping()) {
    v.helper_phase = p->graceful().waiting_for_peer() ? "restart" : "end-of-rib";
    v.helper_seconds_left = p->graceful().seconds_left();
  }
  return v;
}

std::vector<PeerView> BgpProcess::ListPeers() const {
  std::vector<PeerView> out;
  for (const PeerStatus& s : peers_.ListPeers()) {
    absl::StatusOr<PeerView> v = GetPeer(s.address);
    if (v.ok()) out.push_back(*std::move(v));
  }
  return out;
}

absl::Status BgpProcess::RouteRefresh(const net::IPAddress& address,
                                      std::optional<AfiSafi> family) {
  ASSIGN_OR_RETURN(PeerStatus status, peers_.GetPeer(address));
  if (status.state != FsmState::kEstablished) {
    return absl::FailedPreconditionError(
        absl::StrCat("peer ", address.ToString(), " is not Established"));
  }
  if (!status.route_refresh) {
    return absl::FailedPreconditionError(
        absl::StrCat("peer ", address.ToString(), " did not offer route refresh (RFC 2918)"));
  }
  if (family) return routing_->RequestRouteRefresh(address, *family);
  bool any = false;
  for (const AfiSafi f : {kIPv4Unicast, kIPv6Unicast}) {
    if (!status.families.Has(f)) continue;
    RETURN_IF_ERROR(routing_->RequestRouteRefresh(address, f));
    any = true;
  }
  if (!any) {
    return absl::FailedPreconditionError(
        absl::StrCat("peer ", address.ToString(), ": no unicast family negotiated"));
  }
  return absl::OkStatus();
}

absl::Status BgpProcess::ResendRoutes(const net::IPAddress& address,
                                      std::optional<AfiSafi> family) {
  ASSIGN_OR_RETURN(PeerStatus status, peers_.GetPeer(address));
  BgpPeer* peer = routing_->peer(address);
  if (status.state != FsmState::kEstablished || peer == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("peer ", address.ToString(), " is not Established"));
  }
  for (const AfiSafi f : {kIPv4Unicast, kIPv6Unicast}) {
    if (status.families.Has(f) && (!family || *family == f)) peer->OnRouteRefresh(f);
  }
  return absl::OkStatus();
}

}  // namespace sluice::bgp::process
