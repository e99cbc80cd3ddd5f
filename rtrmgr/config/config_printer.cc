#include "rtrmgr/config/config_printer.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "rtrmgr/config/config_reader.h"
#include "rtrmgr/config/policy_text.h"

namespace sluice::rtrmgr {
namespace {

class Writer {
 public:
  void Open(std::string_view head) {
    Line(std::string(head) + " {");
    ++depth_;
  }
  void Close() {
    --depth_;
    Line("}");
  }
  void Statement(std::string_view text) { Line(std::string(text) + ";"); }
  std::string* out() { return &out_; }
  int indent() const { return 4 * depth_; }
  std::string Take() { return std::move(out_); }

 private:
  void Line(std::string_view text) {
    out_.append(static_cast<size_t>(4 * depth_), ' ');
    out_.append(text);
    out_.append("\n");
  }
  std::string out_;
  int depth_ = 0;
};

std::string List(const std::vector<std::string>& items) {
  return absl::StrCat("[ ", absl::StrJoin(items, " "), " ]");
}

std::string Names(const std::vector<NameRef>& refs) {
  std::vector<std::string> names;
  for (const NameRef& r : refs) names.push_back(r.name);
  return List(names);
}

void PrintInterfaces(const Config& config, Writer* w) {
  if (config.interfaces.empty()) return;
  w->Open("interfaces");
  for (const auto& [name, ifc] : config.interfaces) {
    w->Open(absl::StrCat("interface ", name));
    for (const InterfaceAddressConfig& a : ifc.addresses) w->Statement("address " + a.ToString());
    if (ifc.mtu != InterfaceConfig().mtu) w->Statement(absl::StrCat("mtu ", ifc.mtu));
    if (ifc.mac) {
      const auto& m = *ifc.mac;
      w->Statement(
          absl::StrFormat("mac %02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]));
    }
    if (!ifc.enabled) w->Statement("disable");
    if (!ifc.description.empty()) w->Statement("description " + QuoteString(ifc.description));
    w->Close();
  }
  w->Close();
}

void PrintFeaRib(const Config& config, Writer* w) {
  w->Open("fea");
  w->Statement(absl::StrCat("backend ", FeaBackendName(config.fea.backend)));
  if (config.fea.table != FeaConfig().table) w->Statement(absl::StrCat("table ", config.fea.table));
  if (config.fea.retain_on_exit) w->Statement("retain-on-exit");
  w->Close();
  const RibConfig& rib = config.rib;
  if (rib.admin_distances.empty() && rib.restart_time_s == RibConfig().restart_time_s) return;
  w->Open("rib");
  if (!rib.admin_distances.empty()) {
    w->Open("admin-distance");
    for (const auto& [protocol, d] : rib.admin_distances) {
      w->Statement(absl::StrCat(protocol, " ", d.distance));
    }
    w->Close();
  }
  if (rib.restart_time_s != RibConfig().restart_time_s) {
    w->Statement("restart-time " + FormatDuration(rib.restart_time_s));
  }
  w->Close();
}

void PrintStatic(const StaticConfig& routes, Writer* w) {
  if (routes.routes.empty()) return;
  w->Open("static");
  for (const auto& [prefix, r] : routes.routes) {
    w->Open(absl::StrCat("route ", prefix.ToString()));
    if (r.next_hop) w->Statement("next-hop " + r.next_hop->ToString());
    if (!r.interface.empty()) w->Statement("interface " + r.interface);
    if (r.metric != StaticRoute().metric) w->Statement(absl::StrCat("metric ", r.metric));
    if (r.tag != 0) w->Statement(absl::StrCat("tag ", r.tag));
    if (r.track) w->Statement("track");
    w->Close();
  }
  w->Close();
}

void PrintPeer(const BgpPeer& peer, const PrintOptions& options, Writer* w) {
  const bgp::PeerConfig& p = peer.session;
  const bgp::PeerConfig defaults;
  w->Open(absl::StrCat("peer ", p.address.ToString()));
  w->Statement(absl::StrCat("as ", p.remote_as));
  if (p.local_address) w->Statement("local-ip " + p.local_address->ToString());
  if (p.port != defaults.port) w->Statement(absl::StrCat("port ", p.port));
  if (p.passive) w->Statement("passive");
  if (!p.md5_password.empty()) {
    w->Statement(absl::StrCat("md5-password ",
                              options.hide_secrets ? "(hidden)" : QuoteString(p.md5_password)));
  }
  if (p.hold_time_s != defaults.hold_time_s)
    w->Statement(absl::StrCat("hold-time ", p.hold_time_s));
  if (!peer.import_policies.empty()) w->Statement("import " + Names(peer.import_policies));
  if (!peer.export_policies.empty()) w->Statement("export " + Names(peer.export_policies));
  if (p.route_reflector_client) w->Statement("route-reflector-client");
  if (p.next_hop_self) w->Statement("next-hop-self");
  if (p.max_prefix.limit != 0) {
    std::string text = absl::StrCat("max-prefix ", p.max_prefix.limit);
    if (p.max_prefix.count == bgp::MaxPrefixCount::kAccepted) text += " accepted";
    if (p.max_prefix.action == bgp::MaxPrefixAction::kWarn) {
      text += " warn";
    } else if (p.max_prefix.restart_after_s != defaults.max_prefix.restart_after_s) {
      absl::StrAppend(&text, " restart ",
                      FormatDuration(static_cast<uint32_t>(p.max_prefix.restart_after_s)));
    }
    w->Statement(text);
  }
  if (p.adj_rib_in_limit != defaults.adj_rib_in_limit) {
    w->Statement(absl::StrCat("adj-rib-in-limit ", p.adj_rib_in_limit));
  }
  if (!p.enforce_first_as) w->Statement("enforce-first-as off");
  if (p.gtsm_hops != 0) w->Statement(absl::StrCat("ttl-security ", p.gtsm_hops));
  if (peer.damping) w->Statement("damping");
  if (!p.graceful_restart) w->Statement("graceful-restart disable");
  if (!p.enabled) w->Statement("disable");
  if (!p.description.empty()) w->Statement("description " + QuoteString(p.description));
  w->Close();
}

void PrintBgp(const BgpConfig& bgp, const PrintOptions& options, Writer* w) {
  if (!bgp.enabled) return;
  w->Open("bgp");
  w->Statement(absl::StrCat("local-as ", bgp.local_as));
  w->Statement("bgp-id " + bgp.bgp_id.ToString());
  if (bgp.threads != BgpConfig().threads) w->Statement(absl::StrCat("threads ", bgp.threads));
  if (bgp.gr_restart_time != BgpConfig().gr_restart_time ||
      bgp.gr_stale_routes_time != BgpConfig().gr_stale_routes_time) {
    w->Open("graceful-restart");
    w->Statement(absl::StrCat("restart-time ", bgp.gr_restart_time));
    w->Statement(absl::StrCat("stale-routes-time ", bgp.gr_stale_routes_time));
    w->Close();
  }
  if (!(bgp.damping == DampingConfig())) {
    w->Open("damping");
    w->Statement("half-life " + FormatDuration(bgp.damping.half_life_s));
    w->Statement(absl::StrCat("reuse ", bgp.damping.reuse));
    w->Statement(absl::StrCat("suppress ", bgp.damping.suppress));
    w->Statement("max-suppress " + FormatDuration(bgp.damping.max_suppress_s));
    w->Close();
  }
  for (const BgpListen& l : bgp.listen) {
    w->Statement(l.port == 179 ? "listen " + l.address.ToString() : "listen " + l.ToString());
  }
  for (const auto& [address, peer] : bgp.peers) PrintPeer(peer, options, w);
  w->Close();
}

void PrintFinderAccess(const FinderConfig& finder, Writer* w) {
  const FinderConfig defaults;
  if (finder.default_allow && finder.access.empty() &&
      finder.operator_group == defaults.operator_group &&
      finder.admin_group == defaults.admin_group) {
    return;
  }
  w->Open("access");
  if (finder.operator_group != defaults.operator_group) {
    w->Statement("operator-group " + finder.operator_group);
  }
  if (finder.admin_group != defaults.admin_group) {
    w->Statement("admin-group " + finder.admin_group);
  }
  if (!finder.default_allow) w->Statement("default deny");
  for (const auto& [cls, access] : finder.access) {
    w->Open(cls);
    std::vector<std::string> rules;
    for (const ResolveRule& r : access.resolve) rules.push_back(r.ToString());
    if (!rules.empty()) w->Statement("resolve " + List(rules));
    w->Close();
  }
  w->Close();
}

void PrintFinder(const FinderConfig& finder, Writer* w) {
  if (finder == FinderConfig()) return;
  w->Open("finder");
  PrintFinderAccess(finder, w);
  for (const BgpListen& l : finder.listen) w->Statement("listen " + l.ToString());
  if (finder.tls) {
    w->Open("tls");
    w->Statement("ca " + QuoteString(finder.tls->ca));
    w->Statement("certificate " + QuoteString(finder.tls->certificate));
    w->Statement("key " + QuoteString(finder.tls->key));
    w->Close();
  }
  if (finder.insecure) w->Statement("insecure");
  w->Close();
}

}  // namespace

std::string PrintConfig(const Config& config, const PrintOptions& options) {
  Writer w;
  PrintInterfaces(config, &w);
  PrintFeaRib(config, &w);
  if (!config.static_routes.routes.empty() || config.bgp.enabled) {
    w.Open("protocols");
    PrintStatic(config.static_routes, &w);
    PrintBgp(config.bgp, options, &w);
    w.Close();
  }
  if (!config.policy.items.empty()) {
    w.Open("policy");
    for (const PolicyItemText& item : config.policy.items) {
      PrintPolicyItem(item, w.indent(), w.out());
    }
    w.Close();
  }
  PrintFinder(config.finder, &w);
  if (!config.user.empty()) w.Statement("user " + config.user);
  return w.Take();
}

}  // namespace sluice::rtrmgr
