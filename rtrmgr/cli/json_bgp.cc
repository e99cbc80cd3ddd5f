#include <map>

#include "rtrmgr/cli/json_view.h"

namespace sluice::rtrmgr::cli {
namespace {

Json FamilyJson(const bgp::v1::PeerFamily& f) {
  return Json{{"family", f.family()},
              {"up", f.up()},
              {"received", f.received()},
              {"accepted", f.accepted()},
              {"advertised", f.advertised()},
              {"updates_received", f.updates_received()},
              {"updates_sent", f.updates_sent()},
              {"end_of_rib_received", f.end_of_rib_received()},
              {"end_of_rib_sent", f.end_of_rib_sent()},
              {"disabled", f.disabled()},
              {"stale", f.stale()}};
}

// One side's Graceful Restart capability; null when it was not sent.
Json GracefulJson(bool has, const bgp::v1::GracefulRestartInfo& g) {
  if (!has) return nullptr;
  return Json{{"restart_time", g.restart_time()},
              {"restart_state", g.restart_state()},
              {"notification", g.notification()},
              {"families", StringList(g.families())},
              {"forwarding_preserved", StringList(g.forwarding_preserved())}};
}

Json GracefulRestartJson(const bgp::v1::PeerInfo& p) {
  return Json{
      {"configured", p.graceful_restart_configured()},
      {"sent", GracefulJson(p.has_graceful_restart_sent(), p.graceful_restart_sent())},
      {"received", GracefulJson(p.has_graceful_restart_received(), p.graceful_restart_received())},
      {"notification", p.graceful_notification()},
      {"helper", p.graceful_helper()},
      {"seconds_left", p.graceful_seconds_left()}};
}

Json CountersJson(const bgp::v1::PeerInfo& p) {
  return Json{{"updates_in", p.updates_in()},
              {"updates_out", p.updates_out()},
              {"keepalives_in", p.keepalives_in()},
              {"keepalives_out", p.keepalives_out()},
              {"notifications_in", p.notifications_in()},
              {"notifications_out", p.notifications_out()},
              {"route_refreshes_in", p.route_refreshes_in()},
              {"route_refreshes_out", p.route_refreshes_out()},
              {"established_transitions", p.established_transitions()},
              {"connect_attempts", p.connect_attempts()},
              {"collisions", p.collisions()},
              {"updates_treat_as_withdraw", p.updates_treat_as_withdraw()},
              {"updates_attribute_discard", p.updates_attribute_discard()},
              {"afi_safi_disables", p.afi_safi_disables()}};
}

}  // namespace

std::string PeerStateText(const bgp::v1::PeerInfo& p) {
  if (p.enabled()) return p.state();
  return p.disabled_by_operator() ? "administratively down (CLI)" : "disabled";
}

Json PeerJson(const bgp::v1::PeerInfo& p) {
  Json families = Json::array();
  for (const bgp::v1::PeerFamily& f : p.family_counts()) families.push_back(FamilyJson(f));
  Json resets = Json::object();
  for (const auto& [cause, n] :
       std::map<std::string, uint64_t>(p.session_resets().begin(), p.session_resets().end())) {
    resets[cause] = n;
  }
  return Json{{"address", AddressJson(p.address())},
              {"port", p.port()},
              {"remote_as", p.remote_as()},
              {"description", p.description()},
              {"enabled", p.enabled()},
              {"disabled_by_operator", p.disabled_by_operator()},
              {"state", p.state()},
              {"state_text", PeerStateText(p)},
              {"internal", p.internal()},
              {"passive", p.passive()},
              {"uptime_s", p.uptime_s()},
              {"local_address", AddressJson(p.local_address())},
              {"local_port", p.local_port()},
              {"remote_port", p.remote_port()},
              {"remote_bgp_id", AddressJson(p.remote_bgp_id())},
              {"hold_time_configured", p.hold_time_configured()},
              {"hold_time", p.hold_time()},
              {"keepalive_time", p.keepalive_time()},
              {"families", StringList(p.families())},
              {"capabilities",
               Json{{"four_octet_as", p.four_octet_as()}, {"route_refresh", p.route_refresh()}}},
              {"md5", p.md5()},
              {"ttl_security", p.ttl_security()},
              {"next_hop_self", p.next_hop_self()},
              {"route_reflector_client", p.route_reflector_client()},
              {"max_prefix", p.max_prefix()},
              {"max_prefix_action", p.max_prefix_action()},
              {"max_prefix_count", p.max_prefix_count()},
              {"max_prefix_exceeded", p.max_prefix_exceeded()},
              {"adj_rib_in_limit", p.adj_rib_in_limit()},
              {"enforce_first_as", p.enforce_first_as()},
              {"last_error", p.last_error()},
              {"last_notification_sent", p.last_notification_sent()},
              {"last_notification_received", p.last_notification_received()},
              {"consecutive_failures", p.consecutive_failures()},
              {"idle_hold_remaining_s", p.idle_hold_remaining_s()},
              {"messages_in", p.messages_in()},
              {"messages_out", p.messages_out()},
              {"prefixes_received", p.prefixes_received()},
              {"prefixes_accepted", p.prefixes_accepted()},
              {"prefixes_advertised", p.prefixes_advertised()},
              {"counters", CountersJson(p)},
              {"family_counts", families},
              {"disabled_families", StringList(p.disabled_families())},
              {"session_resets", resets},
              {"graceful_restart", GracefulRestartJson(p)}};
}

Json BgpRouteJson(const bgp::v1::Route& r) {
  Json cluster = Json::array();
  for (const auto& id : r.cluster_list()) cluster.push_back(AddressJson(id));
  return Json{
      {"network", PrefixJson(r.network())},
      {"nexthop", AddressJson(r.nexthop())},
      {"peer", r.has_peer() ? AddressJson(r.peer()) : Json(nullptr)},
      {"origin", r.origin()},
      {"as_path", r.as_path()},
      {"med", r.has_med() ? Json(r.med()) : Json(nullptr)},
      {"local_pref", r.has_local_pref() ? Json(r.local_pref()) : Json(nullptr)},
      {"communities", StringList(r.communities())},
      {"large_communities", StringList(r.large_communities())},
      {"ext_communities", StringList(r.ext_communities())},
      {"atomic_aggregate", r.atomic_aggregate()},
      {"aggregator", r.aggregator()},
      {"originator_id", r.has_originator_id() ? AddressJson(r.originator_id()) : Json(nullptr)},
      {"cluster_list", cluster},
      {"path_id", r.path_id()},
      {"igp_metric", r.igp_metric()},
      {"best", r.best()},
      {"ibgp", r.ibgp()},
      {"rpki", r.rpki().empty() ? Json(nullptr) : Json(r.rpki())}};
}

Json DampedJson(const bgp::v1::DampedRoute& d) {
  return Json{{"peer", AddressJson(d.peer())}, {"prefix", PrefixJson(d.prefix())},
              {"penalty", d.penalty()},        {"suppressed", d.suppressed()},
              {"reuse_in_s", d.reuse_in_s()},  {"announced", d.has_route()}};
}

}  // namespace sluice::rtrmgr::cli
