// ConfigDelta::ToString: one line per change, for `sluice configure load FILE`.
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "rtrmgr/config/config_delta.h"

namespace sluice::rtrmgr {
namespace {

std::string Value(const std::string& v) { return v.empty() ? "(none)" : v; }

std::string Fields(const std::vector<FieldChange>& fields) {
  std::vector<std::string> parts;
  for (const FieldChange& f : fields) {
    if (f.before == "(hidden)" && f.after == "(hidden)") {
      parts.push_back(absl::StrCat(f.keyword, " changed"));
    } else {
      parts.push_back(absl::StrCat(f.keyword, " ", Value(f.before), " -> ", Value(f.after)));
    }
  }
  return absl::StrJoin(parts, "; ");
}

std::string Addresses(const std::vector<InterfaceAddressConfig>& list) {
  std::vector<std::string> parts;
  for (const InterfaceAddressConfig& a : list) parts.push_back(a.ToString());
  return absl::StrJoin(parts, " ");
}

std::string Rules(const std::optional<FinderClassAccess>& access) {
  std::vector<std::string> parts;
  if (access) {
    for (const ResolveRule& r : access->resolve) parts.push_back(r.ToString());
  }
  return absl::StrCat("[ ", absl::StrJoin(parts, " "), " ]");
}

std::string Distance(const std::optional<uint16_t>& d) { return d ? absl::StrCat(*d) : "default"; }

std::string RouteSummary(const StaticRoute& r) {
  std::vector<std::string> parts;
  if (r.next_hop) parts.push_back("next-hop " + r.next_hop->ToString());
  if (!r.interface.empty()) parts.push_back("interface " + r.interface);
  parts.push_back(absl::StrCat("metric ", r.metric));
  if (r.tag != 0) parts.push_back(absl::StrCat("tag ", r.tag));
  if (r.track) parts.push_back("track");
  return absl::StrJoin(parts, " ");
}

std::string PeerActions(const PeerDelta& p) {
  std::vector<std::string> actions;
  if (p.reset) actions.push_back("reset the session");
  if (p.update) actions.push_back("update settings");
  if (p.enable) actions.push_back("enable");
  if (p.disable) actions.push_back("disable");
  if (p.refilter_import) actions.push_back("re-filter import");
  if (p.refilter_export) actions.push_back("re-filter export");
  if (p.replumb_damping) actions.push_back("re-plumb damping");
  return absl::StrJoin(actions, ", ");
}

}  // namespace

std::string ConfigDelta::ToString() const {
  std::vector<std::string> lines;
  // 1. finder
  if (finder.default_allow) {
    lines.push_back(absl::StrCat("finder: access default ",
                                 *finder.default_allow ? "deny" : "allow", " -> ",
                                 *finder.default_allow ? "allow" : "deny"));
  }
  for (const FinderClassDelta& c : finder.classes) {
    std::string line = absl::StrCat("finder: access ", c.caller_class, " ", ChangeName(c.change));
    if (c.change == Change::kChanged) {
      absl::StrAppend(&line, ": resolve ", Rules(c.before), " -> ", Rules(c.after));
    } else if (c.change == Change::kAdded) {
      absl::StrAppend(&line, ": resolve ", Rules(c.after));
    }
    lines.push_back(line);
  }
  // 2. fea
  if (fea.restart) lines.push_back(absl::StrCat("fea: restart (", Fields(fea.fields), ")"));
  for (const InterfaceDelta& i : fea.interfaces) {
    std::string line = absl::StrCat("interface ", i.name, ": ", ChangeName(i.change));
    if (i.change == Change::kAdded) {
      absl::StrAppend(&line, " (", Addresses(i.after->addresses),
                      i.after->addresses.empty() ? "" : " ", "mtu ", i.after->mtu,
                      i.after->enabled ? "" : ", disabled", ")");
    } else if (i.change == Change::kChanged) {
      std::vector<std::string> parts;
      if (!i.link.empty()) parts.push_back(Fields(i.link));
      if (!i.addresses_added.empty()) parts.push_back("address + " + Addresses(i.addresses_added));
      if (!i.addresses_removed.empty()) {
        parts.push_back("address - " + Addresses(i.addresses_removed));
      }
      absl::StrAppend(&line, ": ", absl::StrJoin(parts, "; "));
    }
    lines.push_back(line);
  }
  // 3. rib
  if (rib.restart) lines.push_back(absl::StrCat("rib: restart (", Fields(rib.fields), ")"));
  for (const AdminDistanceDelta& a : admin_distances) {
    lines.push_back(absl::StrCat("rib: admin-distance ", a.protocol, " ", Distance(a.before),
                                 " -> ", Distance(a.after)));
  }
  // 4. static
  for (const StaticRouteDelta& r : static_routes) {
    std::string line =
        absl::StrCat("static: route ", r.prefix.ToString(), " ", ChangeName(r.change));
    if (r.change == Change::kAdded) absl::StrAppend(&line, " (", RouteSummary(*r.after), ")");
    if (r.change == Change::kChanged) absl::StrAppend(&line, ": ", Fields(r.fields));
    lines.push_back(line);
  }
  // 4b. rpki
  if (rpki.started) lines.push_back("rpki: started");
  if (rpki.stopped) lines.push_back("rpki: stopped");
  for (const RpkiCacheDelta& c : rpki.caches) {
    std::string line = absl::StrCat("rpki: cache ", c.key.first.ToString(), " port ", c.key.second,
                                    " ", ChangeName(c.change));
    if (c.change == Change::kChanged) absl::StrAppend(&line, ": ", Fields(c.fields));
    lines.push_back(line);
  }
  // 5. policy
  for (const PolicyItemDelta& p : policy.items) {
    lines.push_back(absl::StrCat("policy: ", p.kind, " ", p.name, " ", ChangeName(p.change)));
  }
  // 6. bgp
  if (bgp.started) lines.push_back("bgp: started");
  if (bgp.stopped) lines.push_back("bgp: stopped (every peer is removed)");
  if (!bgp.fields.empty()) {
    lines.push_back(absl::StrCat("bgp: ", Fields(bgp.fields),
                                 bgp.identity_changed ? " (every session restarts)" : ""));
  }
  for (const BgpListen& l : bgp.listen_added) lines.push_back("bgp: listen + " + l.ToString());
  for (const BgpListen& l : bgp.listen_removed) lines.push_back("bgp: listen - " + l.ToString());
  for (const BmpStation& s : bgp.bmp_removed) lines.push_back("bgp: bmp station - " + s.ToString());
  for (const BmpStation& s : bgp.bmp_added) lines.push_back("bgp: bmp station + " + s.ToString());
  for (const std::string& p : bgp.redistribute_added) {
    lines.push_back("bgp: redistribute + " + p + " (from the RIB)");
  }
  for (const std::string& p : bgp.redistribute_removed) {
    lines.push_back("bgp: redistribute - " + p);
  }
  for (const NetworkDelta& n : bgp.networks) {
    lines.push_back(absl::StrCat("bgp: network ", n.prefix.ToString(), " ", ChangeName(n.change),
                                 n.change == Change::kRemoved ? " (withdrawn)" : " (originated)"));
  }
  for (const PeerDelta& p : bgp.peers) {
    std::string line = absl::StrCat("bgp: peer ", p.address.ToString(), " ", ChangeName(p.change));
    if (p.change == Change::kAdded) {
      absl::StrAppend(&line, " (as ", p.after->session.remote_as,
                      p.after->session.enabled ? "" : ", disabled", ")");
    }
    if (p.change == Change::kChanged) {
      std::vector<std::string> why;
      if (!p.fields.empty()) why.push_back(Fields(p.fields));
      if (!p.policies.empty()) {
        why.push_back(absl::StrCat("policy ", absl::StrJoin(p.policies, ", "), " changed"));
      }
      if (p.fields.empty() && bgp.identity_changed) why.push_back("local identity changed");
      if (p.fields.empty() && p.policies.empty() && p.replumb_damping) {
        why.push_back("damping parameters changed");
      }
      absl::StrAppend(&line, ": ", absl::StrJoin(why, "; "), " => ", PeerActions(p));
    }
    lines.push_back(line);
  }
  // 7. metrics
  if (!metrics.empty()) lines.push_back(absl::StrCat("metrics: ", Fields(metrics)));
  for (const LogDelta& d : log) lines.push_back(LogDeltaLine(d));
  if (lines.empty()) return "nothing to change\n";
  return absl::StrCat(absl::StrJoin(lines, "\n"), "\n");
}

}  // namespace sluice::rtrmgr
