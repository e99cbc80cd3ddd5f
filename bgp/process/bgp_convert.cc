#include "bgp/process/bgp_convert.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "ipc/types_convert.h"

namespace sluice::bgp::process {

namespace v1 = ::sluice::bgp::v1;

namespace {

absl::Status Invalid(const char* method, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(method, ": ", what));
}

absl::StatusOr<uint16_t> U16(const char* method, const char* field, uint32_t v) {
  if (v > 65535) return Invalid(method, absl::StrFormat("%s %u is over 65535", field, v));
  return uint16_t(v);
}

// Lower-case copy of a proto string.
std::string Lower(const std::string& s) { return absl::AsciiStrToLower(s); }

}  // namespace

absl::StatusOr<std::optional<AfiSafi>> FamilyFromText(std::string_view text) {
  const std::string t = absl::AsciiStrToLower(absl::string_view(text.data(), text.size()));
  if (t.empty()) return std::optional<AfiSafi>();
  if (t == "ipv4" || t == "ipv4-unicast") return std::optional<AfiSafi>(kIPv4Unicast);
  if (t == "ipv6" || t == "ipv6-unicast") return std::optional<AfiSafi>(kIPv6Unicast);
  return absl::InvalidArgumentError(
      absl::StrFormat("unknown address family \"%s\" (ipv4 or ipv6)", text));
}

std::string FamilyText(AfiSafi family) {
  if (family == kIPv4Unicast) return "ipv4";
  if (family == kIPv6Unicast) return "ipv6";
  return family.ToString();
}

absl::StatusOr<uint32_t> ParseCommunity(std::string_view text) {
  const std::string t = absl::AsciiStrToLower(absl::string_view(text.data(), text.size()));
  if (t == "no-export") return kCommunityNoExport;
  if (t == "no-advertise") return kCommunityNoAdvertise;
  if (t == "no-export-subconfed" || t == "local-as") return kCommunityNoExportSubconfed;
  if (t == "no-peer") return kCommunityNoPeer;
  std::vector<std::string> parts = absl::StrSplit(t, ':');
  uint32_t high = 0, low = 0, whole = 0;
  if (parts.size() == 1 && absl::SimpleAtoi(parts[0], &whole)) return whole;
  if (parts.size() == 2 && absl::SimpleAtoi(parts[0], &high) && absl::SimpleAtoi(parts[1], &low) &&
      high <= 65535 && low <= 65535) {
    return (high << 16) | low;
  }
  return absl::InvalidArgumentError(absl::StrFormat(
      "bad community \"%s\" (HIGH:LOW with 16-bit halves, or no-export, no-advertise, "
      "no-export-subconfed, no-peer)",
      text));
}

absl::StatusOr<LargeCommunity> ParseLargeCommunity(std::string_view text) {
  std::vector<std::string> parts = absl::StrSplit(absl::string_view(text.data(), text.size()), ':');
  LargeCommunity c;
  if (parts.size() == 3 && absl::SimpleAtoi(parts[0], &c.global_admin) &&
      absl::SimpleAtoi(parts[1], &c.local1) && absl::SimpleAtoi(parts[2], &c.local2)) {
    return c;
  }
  return absl::InvalidArgumentError(
      absl::StrFormat("bad large community \"%s\" (GLOBAL:LOCAL1:LOCAL2, RFC 8092)", text));
}

absl::StatusOr<std::pair<PeerConfig, RoutingPeerConfig>> PeerFromProto(
    const v1::AddPeerRequest& r) {
  constexpr const char* m = "add_peer";
  PeerConfig c;
  RoutingPeerConfig routing;
  if (!r.has_address()) return Invalid(m, "address is required");
  absl::StatusOr<net::IPAddress> address = ipc::FromProto(r.address());
  if (!address.ok()) return Invalid(m, absl::StrCat("address: ", address.status().message()));
  c.address = *address;
  ASSIGN_OR_RETURN(c.port, U16(m, "port", r.port()));
  if (c.port == 0) c.port = kBgpPort;
  c.remote_as = r.remote_as();
  if (r.has_local_address()) {
    absl::StatusOr<net::IPAddress> local = ipc::FromProto(r.local_address());
    if (!local.ok()) return Invalid(m, absl::StrCat("local_address: ", local.status().message()));
    c.local_address = *local;
  }
  if (r.has_hold_time()) {
    ASSIGN_OR_RETURN(c.hold_time_s, U16(m, "hold_time", r.hold_time()));
  }
  if (r.has_min_hold_time()) {
    ASSIGN_OR_RETURN(c.min_hold_time_s, U16(m, "min_hold_time", r.min_hold_time()));
  }
  c.passive = r.passive();
  c.md5_password = r.md5_password();
  c.next_hop_self = r.next_hop_self();
  c.route_reflector_client = r.route_reflector_client();
  c.max_prefix.limit = r.max_prefix();
  const std::string action = Lower(r.max_prefix_action());
  if (action.empty() || action == "teardown") {
    c.max_prefix.action = MaxPrefixAction::kTeardown;
  } else if (action == "warn") {
    c.max_prefix.action = MaxPrefixAction::kWarn;
  } else {
    return Invalid(
        m, absl::StrFormat("max_prefix_action \"%s\" (teardown or warn)", r.max_prefix_action()));
  }
  if (r.has_max_prefix_restart_s()) c.max_prefix.restart_after_s = r.max_prefix_restart_s();
  const std::string count = Lower(r.max_prefix_count());
  if (count.empty() || count == "received") {
    c.max_prefix.count = MaxPrefixCount::kReceived;
  } else if (count == "accepted") {
    c.max_prefix.count = MaxPrefixCount::kAccepted;
  } else {
    return Invalid(
        m, absl::StrFormat("max_prefix_count \"%s\" (received or accepted)", r.max_prefix_count()));
  }
  if (r.has_adj_rib_in_limit()) c.adj_rib_in_limit = r.adj_rib_in_limit();
  c.enforce_first_as = r.has_enforce_first_as() ? r.enforce_first_as() : true;
  c.graceful_restart = r.has_graceful_restart() ? r.graceful_restart() : true;
  if (r.ttl_security() > 254) {
    return Invalid(m, absl::StrFormat("ttl_security %u is over 254 hops", r.ttl_security()));
  }
  c.gtsm_hops = int(r.ttl_security());
  if (r.multihop() > 255) {
    return Invalid(m, absl::StrFormat("multihop %u: a TTL of 1..255", r.multihop()));
  }
  c.multihop_ttl = int(r.multihop());
  if (r.has_keepalive_time()) {
    ASSIGN_OR_RETURN(c.keepalive_s, U16(m, "keepalive_time", r.keepalive_time()));
  }
  c.description = r.description();
  c.enabled = r.has_enabled() ? r.enabled() : true;
  if (r.has_connect_retry_s()) c.connect_retry_s = r.connect_retry_s();
  if (r.has_idle_hold_s()) c.idle_hold_s = r.idle_hold_s();
  if (r.has_idle_hold_max_s()) c.idle_hold_max_s = r.idle_hold_max_s();
  if (r.families_size() > 0) {
    AfiSafiSet families;
    for (const std::string& f : r.families()) {
      absl::StatusOr<std::optional<AfiSafi>> family = FamilyFromText(f);
      if (!family.ok() || !*family) {
        return Invalid(m, absl::StrFormat("families: \"%s\" (ipv4 or ipv6)", f));
      }
      families.Add(**family);
    }
    c.families = families;
  }
  c.extended_messages = r.extended_messages();
  if (absl::Status st = c.Validate(); !st.ok()) return Invalid(m, st.message());

  if (r.has_next_hop4()) routing.nexthop_v4 = net::IPAddress(ipc::FromProto(r.next_hop4()));
  if (r.has_next_hop6()) routing.nexthop_v6 = net::IPAddress(ipc::FromProto(r.next_hop6()));
  routing.ebgp_requires_policy = r.has_ebgp_requires_policy() ? r.ebgp_requires_policy() : true;
  return std::make_pair(std::move(c), std::move(routing));
}

namespace {

void GracefulToProto(const GracefulRestart& gr, v1::GracefulRestartInfo* out) {
  out->set_restart_time(gr.restart_time);
  out->set_restart_state(gr.restart_state);
  out->set_notification(gr.notification);
  for (const GracefulRestart::Family& f : gr.families) {
    out->add_families(FamilyText(f.family));
    if (f.forwarding_preserved) out->add_forwarding_preserved(FamilyText(f.family));
  }
}

}  // namespace

void ToProto(const PeerView& v, v1::PeerInfo* out) {
  const PeerStatus& s = v.session;
  const PeerConfig& c = v.config;
  ipc::ToProto(s.address, out->mutable_address());
  out->set_port(s.port);
  out->set_remote_as(s.remote_as);
  out->set_description(s.description);
  out->set_enabled(s.enabled);
  out->set_disabled_by_operator(v.disabled_by_operator);
  out->set_internal(v.routing && v.routing->ibgp);
  out->set_passive(c.passive);
  out->set_md5(!c.md5_password.empty());
  out->set_ttl_security(uint32_t(c.gtsm_hops));
  out->set_next_hop_self(c.next_hop_self);
  out->set_route_reflector_client(c.route_reflector_client);
  out->set_max_prefix(uint32_t(c.max_prefix.limit));
  out->set_max_prefix_action(c.max_prefix.action == MaxPrefixAction::kWarn ? "warn" : "teardown");
  out->set_hold_time_configured(c.hold_time_s);
  out->set_enforce_first_as(c.enforce_first_as);
  out->set_max_prefix_count(c.max_prefix.count == MaxPrefixCount::kAccepted ? "accepted"
                                                                            : "received");
  out->set_adj_rib_in_limit(c.adj_rib_in_limit);
  out->set_graceful_restart_configured(c.graceful_restart);
  if (s.graceful_restart_sent)
    GracefulToProto(*s.graceful_restart_sent, out->mutable_graceful_restart_sent());
  if (s.graceful_restart_received) {
    GracefulToProto(*s.graceful_restart_received, out->mutable_graceful_restart_received());
  }
  out->set_graceful_notification(s.graceful_notification);
  if (v.helper_phase) {
    out->set_graceful_helper(*v.helper_phase);
    out->set_graceful_seconds_left(v.helper_seconds_left);
  }

  out->set_state(std::string(FsmStateName(s.state)));
  out->set_uptime_s(s.uptime_s);
  if (s.local_address) ipc::ToProto(*s.local_address, out->mutable_local_address());
  out->set_local_port(s.local_port);
  out->set_remote_port(s.remote_port);
  ipc::ToProto(s.remote_bgp_id, out->mutable_remote_bgp_id());
  out->set_hold_time(s.hold_time_s);
  out->set_keepalive_time(s.keepalive_time_s);
  for (int i = 0; i < AfiSafi::kCount; ++i) {
    const AfiSafi f = AfiSafi::FromIndex(i);
    if (s.families.Has(f)) out->add_families(FamilyText(f));
  }
  out->set_four_octet_as(s.four_octet_as);
  out->set_route_refresh(s.route_refresh);
  out->set_last_error(s.last_error);
  if (s.last_notification_sent) {
    out->set_last_notification_sent(s.last_notification_sent->ToString());
  }
  if (s.last_notification_received) {
    out->set_last_notification_received(s.last_notification_received->ToString());
  }
  out->set_max_prefix_exceeded(s.max_prefix_exceeded);
  out->set_consecutive_failures(uint32_t(s.consecutive_failures));
  out->set_idle_hold_remaining_s(s.idle_hold_remaining_s);

  const PeerCounters& k = s.counters;
  out->set_messages_in(k.messages_in);
  out->set_messages_out(k.messages_out);
  out->set_updates_in(k.updates_in);
  out->set_updates_out(k.updates_out);
  out->set_keepalives_in(k.keepalives_in);
  out->set_keepalives_out(k.keepalives_out);
  out->set_notifications_in(k.notifications_in);
  out->set_notifications_out(k.notifications_out);
  out->set_route_refreshes_in(k.route_refreshes_in);
  out->set_route_refreshes_out(k.route_refreshes_out);
  out->set_established_transitions(k.established_transitions);
  out->set_connect_attempts(k.connect_attempts);
  out->set_collisions(k.collisions);
  out->set_updates_treat_as_withdraw(k.updates_treat_as_withdraw);
  out->set_updates_attribute_discard(k.updates_attribute_discard);
  out->set_afi_safi_disables(k.afi_safi_disables);
  for (int i = 0; i < AfiSafi::kCount; ++i) {
    const AfiSafi f = AfiSafi::FromIndex(i);
    if (s.disabled_families.Has(f)) out->add_disabled_families(FamilyText(f));
  }
  for (int i = 0; i < kResetCauses; ++i) {
    if (k.session_resets[i] == 0) continue;
    (*out->mutable_session_resets())[std::string(ResetCauseName(ResetCause(i)))] =
        k.session_resets[i];
  }
  uint64_t received = 0, accepted = 0, advertised = 0;
  if (v.routing) {
    for (const RoutingPeerStatus::Family& f : v.routing->families) {
      received += f.received;
      accepted += f.accepted;
      advertised += f.advertised;
      v1::PeerFamily* pf = out->add_family_counts();
      pf->set_family(FamilyText(f.family));
      pf->set_up(f.up);
      pf->set_disabled(f.disabled);
      pf->set_received(f.received);
      pf->set_accepted(f.accepted);
      pf->set_advertised(f.advertised);
      pf->set_updates_received(f.updates_received);
      pf->set_updates_sent(f.updates_sent);
      pf->set_end_of_rib_received(f.end_of_rib_received);
      pf->set_end_of_rib_sent(f.end_of_rib_sent);
      pf->set_stale(f.stale);
    }
  }
  out->set_prefixes_received(received);
  out->set_prefixes_accepted(accepted);
  out->set_prefixes_advertised(advertised);
}

absl::StatusOr<PathAttributes> AttributesFromProto(const v1::OriginateRouteRequest& r,
                                                   const net::Prefix& network) {
  constexpr const char* m = "originate_route";
  PathAttributes a;
  const std::string origin = Lower(r.origin());
  if (origin.empty() || origin == "igp") {
    a.origin = Origin::kIgp;
  } else if (origin == "egp") {
    a.origin = Origin::kEgp;
  } else if (origin == "incomplete") {
    a.origin = Origin::kIncomplete;
  } else {
    return Invalid(m, absl::StrFormat("origin \"%s\" (igp, egp or incomplete)", r.origin()));
  }
  // No nexthop (or the unspecified address): this router; each peer gets our session address.
  absl::StatusOr<net::IPAddress> nh =
      r.has_nexthop() ? ipc::FromProto(r.nexthop())
                      : absl::StatusOr<net::IPAddress>(network.family() == net::Family::kIPv4
                                                           ? net::IPAddress(net::IPv4Address())
                                                           : net::IPAddress(net::IPv6Address()));
  if (!nh.ok()) return Invalid(m, absl::StrCat("nexthop: ", nh.status().message()));
  if (nh->family() != network.family()) {
    return Invalid(m, absl::StrCat("nexthop ", nh->ToString(), " is not of the family of ",
                                   network.ToString()));
  }
  // The unspecified address stands for this router: the export rules put our own address.
  if (nh->is_v4()) {
    a.next_hop = nh->v4();
  } else {
    a.mp_next_hop = MpNextHop{*nh, std::nullopt};
  }
  AsPath path;
  if (r.as_path_size() > 0) {
    for (uint32_t as : r.as_path()) {
      if (as == 0) return Invalid(m, "as_path: AS 0 is not allowed (RFC 7607)");
    }
    std::vector<uint32_t> asns(r.as_path().begin(), r.as_path().end());
    path.AppendSegment(SegmentType::kSequence, asns);
  }
  a.as_path = std::move(path);
  if (r.has_med()) a.med = r.med();
  if (r.has_local_pref()) a.local_pref = r.local_pref();
  for (const std::string& text : r.communities()) {
    absl::StatusOr<uint32_t> c = ParseCommunity(text);
    if (!c.ok()) return Invalid(m, c.status().message());
    a.communities.push_back(*c);
  }
  for (const std::string& text : r.large_communities()) {
    absl::StatusOr<LargeCommunity> c = ParseLargeCommunity(text);
    if (!c.ok()) return Invalid(m, c.status().message());
    a.mutable_rare().large_communities.push_back(*c);
  }
  return a;
}

void ToProto(const BgpRoute& route, v1::Route* out) {
  ipc::ToProto(route.net, out->mutable_network());
  if (std::optional<net::IPAddress> nh = route.nexthop()) {
    ipc::ToProto(*nh, out->mutable_nexthop());
  }
  if (route.source != nullptr && !route.source->local) {
    ipc::ToProto(route.source->address, out->mutable_peer());
  }
  out->set_ibgp(route.source != nullptr && route.source->ibgp);
  out->set_path_id(route.path_id);
  out->set_igp_metric(route.igp_metric);
  if (route.rpki) out->set_rpki(rpki::RpkiStateName(*route.rpki));
  if (!route.attrs) return;
  const PathAttributes& a = *route.attrs;
  if (a.origin) out->set_origin(std::string(OriginName(*a.origin)));
  if (a.as_path) out->set_as_path(a.as_path->ToString());
  if (a.med) out->set_med(*a.med);
  if (a.local_pref) out->set_local_pref(*a.local_pref);
  for (uint32_t c : a.communities) out->add_communities(CommunityToString(c));
  const RareAttributes& rare = a.rare();
  for (const LargeCommunity& c : rare.large_communities) {
    out->add_large_communities(c.ToString());
  }
  for (uint64_t c : rare.ext_communities) out->add_ext_communities(absl::StrFormat("%016x", c));
  out->set_atomic_aggregate(a.atomic_aggregate);
  if (a.aggregator) {
    out->set_aggregator(absl::StrCat(a.aggregator->as, " ", a.aggregator->address.ToString()));
  }
  if (a.originator_id) ipc::ToProto(*a.originator_id, out->mutable_originator_id());
  for (uint32_t id : a.cluster_list) ipc::ToProto(net::IPv4Address(id), out->add_cluster_list());
}

}  // namespace sluice::bgp::process
