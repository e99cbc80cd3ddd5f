#include "rtrmgr/config/config_printer.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>
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
  // A process block's own log settings, printed first inside the block `head` (its keyword: "fea",
  // "bgp"...) at `depth` (0: top level, 1: inside protocols).
  void AddLogBlock(int depth, std::string head, const LogSettings* log) {
    logs_[{depth, std::move(head)}] = log;
  }
  // Prints, as a block of its own, each log block whose process block was not printed.
  void FlushLogBlocks(int depth) {
    for (auto it = logs_.begin(); it != logs_.end();) {
      if (it->first.first != depth) {
        ++it;
        continue;
      }
      const auto [key, log] = *it;
      it = logs_.erase(it);
      Line(key.second + " {");
      ++depth_;
      PrintLog(*log);
      Close();
    }
  }
  bool HasLogBlock(int depth, const std::string& head) const {
    return logs_.contains({depth, head});
  }
  void PrintLog(const LogSettings& log) {
    if (log.empty()) return;
    Open("log");
    if (log.level) Statement(absl::StrCat("level ", std::string(base::LogLevelName(*log.level))));
    if (log.destination) {
      Statement(
          absl::StrCat("destination ", std::string(base::LogDestinationName(*log.destination))));
    }
    if (!log.syslog_socket.empty()) Statement("syslog-socket " + QuoteString(log.syslog_socket));
    Close();
  }

  void Open(std::string_view head) {
    Line(std::string(head) + " {");
    ++depth_;
    auto it = logs_.find({depth_ - 1, std::string(head)});
    if (it != logs_.end()) {
      const LogSettings* log = it->second;
      logs_.erase(it);
      PrintLog(*log);
    }
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
  std::map<std::pair<int, std::string>, const LogSettings*> logs_;
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
  if (config.fea.remote_only) w->Statement("remote-only");
  w->Close();
  const RibConfig& rib = config.rib;
  if (rib.admin_distances.empty() && rib.restart_time_s == RibConfig().restart_time_s &&
      rib.fea_max_backlog == RibConfig().fea_max_backlog) {
    return;
  }
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
  if (rib.fea_max_backlog != RibConfig().fea_max_backlog) {
    w->Statement(absl::StrCat("fea-max-backlog ", rib.fea_max_backlog));
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

void PrintRpki(const RpkiConfig& rpki, Writer* w) {
  if (!rpki.enabled) return;
  w->Open("rpki");
  for (const auto& [key, c] : rpki.caches) {
    std::vector<std::string> body;
    if (c.port != RpkiCache().port) body.push_back(absl::StrCat("port ", c.port));
    if (c.preference != 0) body.push_back(absl::StrCat("preference ", c.preference));
    if (c.refresh != 0) body.push_back("refresh " + FormatDuration(c.refresh));
    if (c.retry != 0) body.push_back("retry " + FormatDuration(c.retry));
    if (c.expire != 0) body.push_back("expire " + FormatDuration(c.expire));
    if (body.empty()) {
      w->Statement("cache " + c.address.ToString());
      continue;
    }
    w->Open("cache " + c.address.ToString());
    for (const std::string& b : body) w->Statement(b);
    w->Close();
  }
  w->Close();
}

// Every setting of `peer` that a statement can say, keyword first, in the order printed. Flags
// that are off have no statement.
std::vector<std::pair<std::string, std::string>> PeerStatements(const BgpPeer& peer,
                                                                const PrintOptions& options) {
  const bgp::PeerConfig& p = peer.session;
  const bgp::PeerConfig defaults;
  std::vector<std::pair<std::string, std::string>> out;
  auto add = [&](const char* keyword, std::string text) {
    out.emplace_back(keyword, std::move(text));
  };
  add("as", absl::StrCat("as ", p.remote_as));
  if (p.local_address) add("local-ip", "local-ip " + p.local_address->ToString());
  add("port", absl::StrCat("port ", p.port));
  if (p.passive) add("passive", "passive");
  if (!p.md5_password.empty()) {
    add("md5-password",
        absl::StrCat("md5-password ",
                     options.hide_secrets ? "(hidden)" : QuoteString(p.md5_password)));
  }
  add("hold-time", absl::StrCat("hold-time ", p.hold_time_s));
  if (p.keepalive_s) add("keepalive", absl::StrCat("keepalive ", *p.keepalive_s));
  add("connect-retry", "connect-retry " + FormatDuration(static_cast<uint32_t>(p.connect_retry_s)));
  std::vector<std::string> families;
  if (p.families.Has(bgp::kIPv4Unicast)) families.push_back("ipv4-unicast");
  if (p.families.Has(bgp::kIPv6Unicast)) families.push_back("ipv6-unicast");
  add("family", "family " + List(families));
  add("import", "import " + Names(peer.import_policies));
  add("export", "export " + Names(peer.export_policies));
  if (p.route_reflector_client) add("route-reflector-client", "route-reflector-client");
  if (p.next_hop_self) add("next-hop-self", "next-hop-self");
  if (peer.next_hop6) add("next-hop6", "next-hop6 " + peer.next_hop6->ToString());
  if (p.max_prefix.limit != 0) {
    std::string text = absl::StrCat("max-prefix ", p.max_prefix.limit);
    if (p.max_prefix.count == bgp::MaxPrefixCount::kAccepted) text += " accepted";
    if (p.max_prefix.action == bgp::MaxPrefixAction::kWarn) {
      text += " warn";
    } else if (p.max_prefix.restart_after_s != defaults.max_prefix.restart_after_s) {
      absl::StrAppend(&text, " restart ",
                      FormatDuration(static_cast<uint32_t>(p.max_prefix.restart_after_s)));
    }
    add("max-prefix", text);
  }
  add("adj-rib-in-limit", absl::StrCat("adj-rib-in-limit ", p.adj_rib_in_limit));
  add("enforce-first-as", p.enforce_first_as ? "enforce-first-as on" : "enforce-first-as off");
  if (p.gtsm_hops != 0) add("ttl-security", absl::StrCat("ttl-security ", p.gtsm_hops));
  if (p.multihop_ttl != 0) add("multihop", absl::StrCat("multihop ", p.multihop_ttl));
  if (peer.damping) add("damping", "damping");
  if (!p.graceful_restart) add("graceful-restart", "graceful-restart disable");
  if (!p.enabled) add("disable", "disable");
  if (!p.description.empty()) add("description", "description " + QuoteString(p.description));
  return out;
}

// The statements of `peer`: those in `only` when given (a group's, or a peer's own inside a
// group), else those that differ from the defaults (and `as`).
void PrintPeerStatements(const BgpPeer& peer, const std::set<std::string>* only,
                         const PrintOptions& options, Writer* w) {
  BgpPeer defaults;
  const auto default_text = PeerStatements(defaults, options);
  for (const auto& [keyword, text] : PeerStatements(peer, options)) {
    if (only != nullptr) {
      if (only->contains(keyword)) w->Statement(text);
      continue;
    }
    const bool is_default = std::find(default_text.begin(), default_text.end(),
                                      std::make_pair(keyword, text)) != default_text.end();
    if (keyword == "as" || !is_default) w->Statement(text);
  }
}

void PrintPeer(const BgpPeer& peer, const PrintOptions& options, Writer* w) {
  w->Open(absl::StrCat("peer ", peer.session.address.ToString()));
  PrintPeerStatements(peer, peer.group.empty() ? nullptr : &peer.own, options, w);
  w->Close();
}

void PrintNetwork(const BgpNetwork& n, Writer* w) {
  const std::string head = "network " + n.prefix.ToString();
  if (!n.next_hop && n.origin == BgpOrigin::kIgp && !n.med && !n.local_pref &&
      n.communities.empty() && n.large_communities.empty()) {
    w->Statement(head);
    return;
  }
  w->Open(head);
  if (n.next_hop) w->Statement("next-hop " + n.next_hop->ToString());
  if (n.origin != BgpOrigin::kIgp) w->Statement(absl::StrCat("origin ", BgpOriginName(n.origin)));
  if (n.med) w->Statement(absl::StrCat("med ", *n.med));
  if (n.local_pref) w->Statement(absl::StrCat("local-pref ", *n.local_pref));
  if (!n.communities.empty()) w->Statement("community " + List(n.communities));
  if (!n.large_communities.empty()) w->Statement("large-community " + List(n.large_communities));
  w->Close();
}

void PrintBgp(const BgpConfig& bgp, const PrintOptions& options, Writer* w) {
  if (!bgp.enabled) return;
  w->Open("bgp");
  w->Statement(absl::StrCat("local-as ", bgp.local_as));
  w->Statement("bgp-id " + bgp.bgp_id.ToString());
  if (bgp.cluster_id) w->Statement("cluster-id " + bgp.cluster_id->ToString());
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
  if (bgp.mrt.enabled()) {
    w->Open("mrt");
    if (!bgp.mrt.table_dump.empty()) {
      w->Open("table-dump " + QuoteString(bgp.mrt.table_dump));
      w->Statement("interval " + FormatDuration(bgp.mrt.table_dump_interval_s));
      w->Close();
    }
    if (!bgp.mrt.updates.empty()) {
      w->Open("updates " + QuoteString(bgp.mrt.updates));
      w->Statement("rotate " + FormatDuration(bgp.mrt.updates_rotate_s));
      w->Close();
    }
    w->Close();
  }
  for (const BgpListen& l : bgp.listen) {
    w->Statement(l.port == 179 ? "listen " + l.address.ToString() : "listen " + l.ToString());
  }
  for (const auto& [prefix, network] : bgp.networks) PrintNetwork(network, w);
  if (!bgp.bmp_stations.empty()) {
    w->Open("bmp");
    for (const auto& [key, st] : bgp.bmp_stations) {
      w->Open("station " + st.address.ToString());
      w->Statement(absl::StrCat("port ", st.port));
      if (st.buffer_mib != BmpStation().buffer_mib) {
        w->Statement(absl::StrCat("buffer-size ", st.buffer_mib));
      }
      if (!st.pre_policy || !st.post_policy || !st.loc_rib) {
        std::vector<std::string> what;
        if (st.pre_policy) what.push_back("pre-policy");
        if (st.post_policy) what.push_back("post-policy");
        if (st.loc_rib) what.push_back("loc-rib");
        w->Statement("route-monitoring " + List(what));
      }
      w->Close();
    }
    w->Close();
  }
  for (const auto& [name, group] : bgp.groups) {
    w->Open("group " + name);
    PrintPeerStatements(group.settings, &group.given, options, w);
    for (const auto& [address, peer] : bgp.peers) {
      if (peer.group == name) PrintPeer(peer, options, w);
    }
    w->Close();
  }
  for (const auto& [address, peer] : bgp.peers) {
    if (peer.group.empty()) PrintPeer(peer, options, w);
  }
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
  for (const auto& [block, log] : config.log.processes) {
    const bool in_protocols = block == "static" || block == "rpki" || block == "bgp";
    w.AddLogBlock(in_protocols ? 1 : 0, block, &log);
  }
  PrintInterfaces(config, &w);
  PrintFeaRib(config, &w);
  if (!config.static_routes.routes.empty() || config.rpki.enabled || config.bgp.enabled ||
      w.HasLogBlock(1, "static")) {
    w.Open("protocols");
    PrintStatic(config.static_routes, &w);
    PrintRpki(config.rpki, &w);
    PrintBgp(config.bgp, options, &w);
    w.FlushLogBlocks(1);
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
  if (config.metrics.enabled) {
    w.Open("metrics");
    w.Statement("listen " + config.metrics.ToString());
    w.Close();
  }
  w.FlushLogBlocks(0);
  w.PrintLog(config.log.all);
  if (!config.user.empty()) w.Statement("user " + config.user);
  return w.Take();
}

}  // namespace sluice::rtrmgr
