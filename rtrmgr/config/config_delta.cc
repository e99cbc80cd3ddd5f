#include "rtrmgr/config/config_delta.h"

#include <algorithm>
#include <functional>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "rtrmgr/config/config_reader.h"

namespace sluice::rtrmgr {

const char* ChangeName(Change change) {
  switch (change) {
    case Change::kAdded:
      return "added";
    case Change::kRemoved:
      return "removed";
    case Change::kChanged:
      return "changed";
  }
  return "?";
}

namespace {

std::string Flag(bool on) { return on ? "on" : "off"; }

template <typename T>
std::string Optional(const std::optional<T>& v) {
  return v ? v->ToString() : "";
}

std::string Chain(const std::vector<NameRef>& chain) {
  std::vector<std::string> names;
  for (const NameRef& r : chain) names.push_back(r.name);
  return names.empty() ? "" : absl::StrCat("[ ", absl::StrJoin(names, " "), " ]");
}

std::string MaxPrefixText(const bgp::MaxPrefix& m) {
  if (m.limit == 0) return "";
  const char* count = m.count == bgp::MaxPrefixCount::kAccepted ? " accepted" : "";
  if (m.action == bgp::MaxPrefixAction::kWarn) return absl::StrCat(m.limit, count, " warn");
  return absl::StrCat(m.limit, count, " restart ",
                      FormatDuration(static_cast<uint32_t>(m.restart_after_s)));
}

std::string FamiliesText(const bgp::AfiSafiSet& f) {
  std::vector<std::string> names;
  if (f.Has(bgp::kIPv4Unicast)) names.push_back("ipv4-unicast");
  if (f.Has(bgp::kIPv6Unicast)) names.push_back("ipv6-unicast");
  return absl::StrCat("[ ", absl::StrJoin(names, " "), " ]");
}

std::string DampingText(const DampingConfig& d) {
  return absl::StrCat("half-life ", FormatDuration(d.half_life_s), " reuse ", d.reuse, " suppress ",
                      d.suppress, " max-suppress ", FormatDuration(d.max_suppress_s));
}

std::string MacText(const std::optional<std::array<uint8_t, 6>>& mac) {
  if (!mac) return "";
  std::vector<std::string> octets;
  for (uint8_t o : *mac) octets.push_back(absl::StrCat(absl::Hex(o, absl::kZeroPad2)));
  return absl::StrJoin(octets, ":");
}

// A field of T: its keyword and its value as text; a change is a change of the text.
template <typename T>
struct Field {
  const char* keyword;
  std::function<std::string(const T&)> text;
};

template <typename T>
std::vector<FieldChange> Diff(const std::vector<Field<T>>& fields, const T& a, const T& b) {
  std::vector<FieldChange> out;
  for (const Field<T>& f : fields) {
    std::string before = f.text(a), after = f.text(b);
    if (before != after) out.push_back(FieldChange{f.keyword, std::move(before), std::move(after)});
  }
  return out;
}

// Calls visit(key, before, after) for every key of `a` or `b` (two maps of the same type), in key
// order; `before` points to a's value and `after` to b's, each nullptr where its map lacks the key.
template <typename Map, typename Visit>
void ForEachKey(const Map& a, const Map& b, Visit visit) {
  std::set<typename Map::key_type> keys;
  for (const auto& [k, v] : a) keys.insert(k);
  for (const auto& [k, v] : b) keys.insert(k);
  for (const auto& k : keys) {
    auto x = a.find(k);
    auto y = b.find(k);
    visit(k, x == a.end() ? nullptr : &x->second, y == b.end() ? nullptr : &y->second);
  }
}

// The entries of a keyed part of the configuration (interfaces, static routes, peers, finder
// classes) that differ between `a` and `b`, in key order. Delta has `change`, optional `before`
// and `after`, and holds the key in the member `key` points to. A key only in b gives kAdded
// (with `after`), one only in a kRemoved (with `before`); for a key in both,
// `changed(delta, before, after)` fills in the kChanged entry (its key already set) and returns
// false when nothing that matters changed, which drops the entry.
template <typename Delta, typename Map, typename Key, typename Changed>
std::vector<Delta> DiffKeyed(const Map& a, const Map& b, Key Delta::*key, Changed changed) {
  using Value = typename Map::mapped_type;
  std::vector<Delta> out;
  ForEachKey(a, b, [&](const auto& k, const Value* x, const Value* y) {
    Delta d;
    d.*key = k;
    if (x == nullptr) {
      d.change = Change::kAdded;
      d.after = *y;
    } else if (y == nullptr) {
      d.change = Change::kRemoved;
      d.before = *x;
    } else {
      d.change = Change::kChanged;
      if (!changed(d, *x, *y)) return;
    }
    out.push_back(std::move(d));
  });
  return out;
}

// ---- fea and interfaces

void DiffInterfaces(const Config& a, const Config& b, FeaDelta* out) {
  static const std::vector<Field<InterfaceConfig>> kLink = {
      {"mtu", [](const InterfaceConfig& i) { return absl::StrCat(i.mtu); }},
      {"mac", [](const InterfaceConfig& i) { return MacText(i.mac); }},
      {"disable", [](const InterfaceConfig& i) { return Flag(!i.enabled); }},
      {"description", [](const InterfaceConfig& i) { return i.description; }},
  };
  out->interfaces = DiffKeyed(
      a.interfaces, b.interfaces, &InterfaceDelta::name,
      [](InterfaceDelta& d, const InterfaceConfig& x, const InterfaceConfig& y) {
        if (x == y) return false;
        d.before = x;
        d.after = y;
        d.link = Diff(kLink, x, y);
        auto has = [](const std::vector<InterfaceAddressConfig>& list,
                      const InterfaceAddressConfig& v) {
          return std::find(list.begin(), list.end(), v) != list.end();
        };
        for (const auto& addr : y.addresses) {
          if (!has(x.addresses, addr)) d.addresses_added.push_back(addr);
        }
        for (const auto& addr : x.addresses) {
          if (!has(y.addresses, addr)) d.addresses_removed.push_back(addr);
        }
        // Only the order of the addresses changed: nothing to do.
        return !d.link.empty() || !d.addresses_added.empty() || !d.addresses_removed.empty();
      });
}

FeaDelta DiffFea(const Config& a, const Config& b) {
  static const std::vector<Field<FeaConfig>> kFields = {
      {"backend", [](const FeaConfig& f) { return std::string(FeaBackendName(f.backend)); }},
      {"table", [](const FeaConfig& f) { return absl::StrCat(f.table); }},
      {"retain-on-exit", [](const FeaConfig& f) { return Flag(f.retain_on_exit); }},
  };
  FeaDelta d;
  d.fields = Diff(kFields, a.fea, b.fea);
  d.restart = !d.fields.empty();
  DiffInterfaces(a, b, &d);
  return d;
}

// ---- rib and static routes

RibDelta DiffRib(const RibConfig& a, const RibConfig& b) {
  static const std::vector<Field<RibConfig>> kFields = {
      {"restart-time", [](const RibConfig& r) { return FormatDuration(r.restart_time_s); }},
      {"fea-max-backlog", [](const RibConfig& r) { return absl::StrCat(r.fea_max_backlog); }},
  };
  RibDelta d;
  d.fields = Diff(kFields, a, b);
  d.restart = !d.fields.empty();
  return d;
}

std::vector<AdminDistanceDelta> DiffAdminDistances(const RibConfig& a, const RibConfig& b) {
  std::vector<AdminDistanceDelta> out;
  ForEachKey(a.admin_distances, b.admin_distances,
             [&](const std::string& p, const AdminDistanceConfig* x, const AdminDistanceConfig* y) {
               AdminDistanceDelta d{p, std::nullopt, std::nullopt};
               if (x != nullptr) d.before = x->distance;
               if (y != nullptr) d.after = y->distance;
               if (d.before != d.after) out.push_back(std::move(d));
             });
  return out;
}

std::vector<StaticRouteDelta> DiffStatic(const StaticConfig& a, const StaticConfig& b) {
  static const std::vector<Field<StaticRoute>> kFields = {
      {"next-hop", [](const StaticRoute& r) { return Optional(r.next_hop); }},
      {"interface", [](const StaticRoute& r) { return r.interface; }},
      {"metric", [](const StaticRoute& r) { return absl::StrCat(r.metric); }},
      {"tag", [](const StaticRoute& r) { return absl::StrCat(r.tag); }},
      {"track", [](const StaticRoute& r) { return Flag(r.track); }},
  };
  return DiffKeyed(a.routes, b.routes, &StaticRouteDelta::prefix,
                   [](StaticRouteDelta& d, const StaticRoute& x, const StaticRoute& y) {
                     if (x == y) return false;
                     d.before = x;
                     d.after = y;
                     d.fields = Diff(kFields, x, y);
                     return true;
                   });
}

RpkiDelta DiffRpki(const RpkiConfig& a, const RpkiConfig& b) {
  static const std::vector<Field<RpkiCache>> kFields = {
      {"preference", [](const RpkiCache& c) { return absl::StrCat(c.preference); }},
      {"refresh", [](const RpkiCache& c) { return absl::StrCat(c.refresh); }},
      {"retry", [](const RpkiCache& c) { return absl::StrCat(c.retry); }},
      {"expire", [](const RpkiCache& c) { return absl::StrCat(c.expire); }},
  };
  RpkiDelta d;
  d.started = !a.enabled && b.enabled;
  d.stopped = a.enabled && !b.enabled;
  d.caches = DiffKeyed(a.caches, b.caches, &RpkiCacheDelta::key,
                       [](RpkiCacheDelta& c, const RpkiCache& x, const RpkiCache& y) {
                         if (x == y) return false;
                         c.before = x;
                         c.after = y;
                         c.fields = Diff(kFields, x, y);
                         return true;
                       });
  return d;
}

// ---- policy

std::set<std::string> SetsUsedBy(const policy::PolicyStatement& st) {
  std::set<std::string> sets;
  for (const policy::Term& t : st.terms) {
    for (const auto* block : {&t.from, &t.to}) {
      for (const policy::Condition& c : *block) {
        if (!c.set_name.empty()) sets.insert(c.set_name);
      }
    }
    for (const policy::Action& a : t.then) {
      if (!a.set_name.empty()) sets.insert(a.set_name);
    }
  }
  return sets;
}

PolicyDelta DiffPolicy(const PolicyBlock& a, const PolicyBlock& b) {
  using Key = std::pair<bool, std::string>;  // (is a statement, name)
  auto index = [](const PolicyBlock& p) {
    std::map<Key, const PolicyItemText*> m;
    for (const PolicyItemText& item : p.items) {
      m[{item.kind == "policy-statement", item.name}] = &item;
    }
    return m;
  };
  const auto x = index(a), y = index(b);
  PolicyDelta d;
  std::set<std::string> sets_changed;
  ForEachKey(x, y,
             [&](const Key& k, const PolicyItemText* const* i, const PolicyItemText* const* j) {
               PolicyItemDelta item;
               item.name = k.second;
               if (i == nullptr) {
                 item.change = Change::kAdded;
                 item.kind = (*j)->kind;
               } else if (j == nullptr) {
                 item.change = Change::kRemoved;
                 item.kind = (*i)->kind;
               } else {
                 if ((*i)->canonical == (*j)->canonical) return;
                 item.kind = (*j)->kind;
               }
               if (k.first && item.change != Change::kRemoved) d.statements.insert(k.second);
               if (!k.first) sets_changed.insert(k.second);
               d.items.push_back(std::move(item));
             });
  for (const policy::PolicyStatement& st : b.parsed->statements) {
    for (const std::string& set : SetsUsedBy(st)) {
      if (sets_changed.contains(set)) d.statements.insert(st.name);
    }
  }
  return d;
}

// ---- bgp

struct PeerField {
  const char* keyword;
  std::function<std::string(const BgpPeer&)> text;
  bool PeerDelta::*effect;
};

const std::vector<PeerField>& PeerFields() {
  static const std::vector<PeerField> kFields = {
      {"as", [](const BgpPeer& p) { return absl::StrCat(p.session.remote_as); }, &PeerDelta::reset},
      {"local-ip", [](const BgpPeer& p) { return Optional(p.session.local_address); },
       &PeerDelta::reset},
      {"port", [](const BgpPeer& p) { return absl::StrCat(p.session.port); }, &PeerDelta::reset},
      {"hold-time", [](const BgpPeer& p) { return absl::StrCat(p.session.hold_time_s); },
       &PeerDelta::reset},
      {"md5-password", [](const BgpPeer& p) { return p.session.md5_password; }, &PeerDelta::reset},
      {"ttl-security", [](const BgpPeer& p) { return absl::StrCat(p.session.gtsm_hops); },
       &PeerDelta::reset},
      {"multihop", [](const BgpPeer& p) { return absl::StrCat(p.session.multihop_ttl); },
       &PeerDelta::reset},
      {"keepalive",
       [](const BgpPeer& p) {
         return p.session.keepalive_s ? absl::StrCat(*p.session.keepalive_s) : std::string();
       },
       &PeerDelta::reset},
      // RFC 4760: the families are offered in the OPEN.
      {"family", [](const BgpPeer& p) { return FamiliesText(p.session.families); },
       &PeerDelta::reset},
      {"connect-retry",
       [](const BgpPeer& p) {
         return FormatDuration(static_cast<uint32_t>(p.session.connect_retry_s));
       },
       &PeerDelta::update},
      {"passive", [](const BgpPeer& p) { return Flag(p.session.passive); }, &PeerDelta::update},
      {"max-prefix", [](const BgpPeer& p) { return MaxPrefixText(p.session.max_prefix); },
       &PeerDelta::update},
      {"adj-rib-in-limit",
       [](const BgpPeer& p) { return absl::StrCat(p.session.adj_rib_in_limit); },
       &PeerDelta::update},
      {"enforce-first-as", [](const BgpPeer& p) { return Flag(p.session.enforce_first_as); },
       &PeerDelta::update},
      {"description", [](const BgpPeer& p) { return p.session.description; }, &PeerDelta::update},
      {"import", [](const BgpPeer& p) { return Chain(p.import_policies); },
       &PeerDelta::refilter_import},
      {"export", [](const BgpPeer& p) { return Chain(p.export_policies); },
       &PeerDelta::refilter_export},
      {"next-hop-self", [](const BgpPeer& p) { return Flag(p.session.next_hop_self); },
       &PeerDelta::refilter_export},
      {"next-hop6",
       [](const BgpPeer& p) { return p.next_hop6 ? p.next_hop6->ToString() : std::string(); },
       &PeerDelta::refilter_export},
      {"route-reflector-client",
       [](const BgpPeer& p) { return Flag(p.session.route_reflector_client); },
       &PeerDelta::refilter_export},
      {"damping", [](const BgpPeer& p) { return Flag(p.damping); }, &PeerDelta::replumb_damping},
      // The capability is in the OPEN: a new session offers it (or not).
      {"graceful-restart", [](const BgpPeer& p) { return Flag(p.session.graceful_restart); },
       &PeerDelta::reset},
      {"disable", [](const BgpPeer& p) { return Flag(!p.session.enabled); }, nullptr},
  };
  return kFields;
}

// The changed policies of `chain`.
std::vector<std::string> ChangedIn(const std::vector<NameRef>& chain,
                                   const std::set<std::string>& changed) {
  std::vector<std::string> out;
  for (const NameRef& r : chain) {
    if (changed.contains(r.name)) out.push_back(r.name);
  }
  return out;
}

std::optional<PeerDelta> DiffPeer(const BgpPeer& a, const BgpPeer& b, const BgpDelta& bgp,
                                  const PolicyDelta& policy) {
  PeerDelta d;
  d.address = b.session.address;
  d.before = a;
  d.after = b;
  for (const PeerField& f : PeerFields()) {
    std::string before = f.text(a), after = f.text(b);
    if (before == after) continue;
    if (f.effect != nullptr) d.*f.effect = true;
    if (std::string_view(f.keyword) == "disable") (b.session.enabled ? d.enable : d.disable) = true;
    if (std::string_view(f.keyword) == "md5-password") {
      before = before.empty() ? "" : "(hidden)";
      after = after.empty() ? "" : "(hidden)";
    }
    d.fields.push_back(FieldChange{f.keyword, std::move(before), std::move(after)});
  }
  // Anything PeerConfig holds that the file cannot set is a session parameter too.
  bool listed = !d.fields.empty();
  if (!listed && !SamePeerConfig(a.session, b.session)) d.reset = true;
  if (bgp.identity_changed) d.reset = true;
  if (a.import_policies == b.import_policies) {
    for (std::string& p : ChangedIn(b.import_policies, policy.statements)) {
      d.refilter_import = true;
      d.policies.push_back(std::move(p));
    }
  }
  if (a.export_policies == b.export_policies) {
    for (std::string& p : ChangedIn(b.export_policies, policy.statements)) {
      d.refilter_export = true;
      if (std::find(d.policies.begin(), d.policies.end(), p) == d.policies.end()) {
        d.policies.push_back(std::move(p));
      }
    }
  }
  if (bgp.damping_changed && a.damping && b.damping) d.replumb_damping = true;
  if (d.reset) {
    d.update = d.enable = d.disable = false;
    d.refilter_import = d.refilter_export = d.replumb_damping = false;
  }
  if (!d.reset && !d.update && !d.enable && !d.disable && !d.refilter_import &&
      !d.refilter_export && !d.replumb_damping) {
    return std::nullopt;
  }
  return d;
}

BgpDelta DiffBgp(const Config& ca, const Config& cb, const PolicyDelta& policy) {
  static const std::vector<Field<BgpConfig>> kFields = {
      {"local-as", [](const BgpConfig& b) { return b.enabled ? absl::StrCat(b.local_as) : ""; }},
      {"bgp-id", [](const BgpConfig& b) { return b.enabled ? b.bgp_id.ToString() : ""; }},
      {"cluster-id",
       [](const BgpConfig& b) {
         return b.enabled && b.cluster_id ? b.cluster_id->ToString() : std::string();
       }},
      {"threads",
       [](const BgpConfig& b) {
         if (!b.enabled) return std::string();
         return b.threads == 0 ? std::string("default") : absl::StrCat(b.threads);
       }},
      {"damping", [](const BgpConfig& b) { return b.enabled ? DampingText(b.damping) : ""; }},
      {"mrt",
       [](const BgpConfig& b) {
         if (!b.enabled || !b.mrt.enabled()) return std::string();
         std::vector<std::string> parts;
         if (!b.mrt.table_dump.empty()) {
           parts.push_back(absl::StrCat("table-dump \"", b.mrt.table_dump, "\" interval ",
                                        FormatDuration(b.mrt.table_dump_interval_s)));
         }
         if (!b.mrt.updates.empty()) {
           parts.push_back(absl::StrCat("updates \"", b.mrt.updates, "\" rotate ",
                                        FormatDuration(b.mrt.updates_rotate_s)));
         }
         return absl::StrJoin(parts, " ");
       }},
      {"graceful-restart",
       [](const BgpConfig& b) {
         if (!b.enabled) return std::string();
         return absl::StrCat("restart-time ", b.gr_restart_time, " stale-routes-time ",
                             b.gr_stale_routes_time);
       }},
  };
  const BgpConfig& a = ca.bgp;
  const BgpConfig& b = cb.bgp;
  BgpDelta d;
  d.started = !a.enabled && b.enabled;
  d.stopped = a.enabled && !b.enabled;
  if (a.enabled && b.enabled) {
    d.fields = Diff(kFields, a, b);
    for (const FieldChange& f : d.fields) {
      // A new CLUSTER_ID: reflected routes must be sent again with it (RFC 4456 §8).
      if (f.keyword == "local-as" || f.keyword == "bgp-id" || f.keyword == "cluster-id") {
        d.identity_changed = true;
      }
      if (f.keyword == "threads") d.threads_changed = true;
      if (f.keyword == "damping") d.damping_changed = true;
      if (f.keyword == "mrt") d.mrt_changed = true;
      if (f.keyword == "graceful-restart") d.graceful_restart_changed = true;
    }
  }
  for (const BgpListen& l : b.listen) {
    if (std::find(a.listen.begin(), a.listen.end(), l) == a.listen.end()) {
      d.listen_added.push_back(l);
    }
  }
  for (const BgpListen& l : a.listen) {
    if (std::find(b.listen.begin(), b.listen.end(), l) == b.listen.end()) {
      d.listen_removed.push_back(l);
    }
  }
  for (const auto& [key, st] : b.bmp_stations) {
    auto was = a.bmp_stations.find(key);
    if (was == a.bmp_stations.end() || !(was->second == st)) {
      if (was != a.bmp_stations.end()) d.bmp_removed.push_back(was->second);
      d.bmp_added.push_back(st);
    }
  }
  for (const auto& [key, st] : a.bmp_stations) {
    if (!b.bmp_stations.contains(key)) d.bmp_removed.push_back(st);
  }
  // A peer in both is compared even when equal: a new identity, a changed policy its chains use
  // or new damping parameters touch it too.
  d.peers = DiffKeyed(a.peers, b.peers, &PeerDelta::address,
                      [&](PeerDelta& p, const BgpPeer& x, const BgpPeer& y) {
                        std::optional<PeerDelta> changed = DiffPeer(x, y, d, policy);
                        if (changed) p = *std::move(changed);
                        return changed.has_value();
                      });
  d.networks = DiffKeyed(a.networks, b.networks, &NetworkDelta::prefix,
                         [](NetworkDelta& n, const BgpNetwork& x, const BgpNetwork& y) {
                           if (x == y) return false;
                           n.before = x;
                           n.after = y;
                           return true;
                         });
  const std::set<std::string> before = RedistributedProtocols(ca);
  const std::set<std::string> after = RedistributedProtocols(cb);
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                      std::back_inserter(d.redistribute_added));
  std::set_difference(before.begin(), before.end(), after.begin(), after.end(),
                      std::back_inserter(d.redistribute_removed));
  return d;
}

// ---- finder

FinderDelta DiffFinder(const FinderConfig& a, const FinderConfig& b) {
  FinderDelta d;
  if (a.default_allow != b.default_allow) d.default_allow = b.default_allow;
  d.classes =
      DiffKeyed(a.access, b.access, &FinderClassDelta::caller_class,
                [](FinderClassDelta& fc, const FinderClassAccess& x, const FinderClassAccess& y) {
                  if (x == y) return false;
                  fc.before = x;
                  fc.after = y;
                  return true;
                });
  return d;
}

}  // namespace

std::set<std::string> RedistributedProtocols(const Config& config) {
  std::set<std::string> out;
  const policy::PolicyConfig& parsed = *config.policy.parsed;
  for (const auto& [address, peer] : config.bgp.peers) {
    for (const NameRef& ref : peer.export_policies) {
      const policy::PolicyStatement* st = parsed.FindStatement(ref.name);
      if (st == nullptr) continue;
      for (const policy::Term& t : st->terms) {
        for (const policy::Condition& c : t.from) {
          if (c.kind != policy::MatchKind::kProtocol) continue;
          for (const std::string& name : c.names) {
            if (name != "bgp" && name != "ebgp" && name != "ibgp") out.insert(name);
          }
        }
      }
    }
  }
  return out;
}

bool BgpDelta::empty() const {
  return !started && !stopped && fields.empty() && listen_added.empty() && listen_removed.empty() &&
         bmp_added.empty() && bmp_removed.empty() && peers.empty() && networks.empty() &&
         redistribute_added.empty() && redistribute_removed.empty();
}

bool ConfigDelta::empty() const {
  return finder.empty() && fea.empty() && !rib.restart && admin_distances.empty() &&
         static_routes.empty() && rpki.empty() && policy.items.empty() && bgp.empty() &&
         metrics.empty() && log.empty();
}

ConfigDelta ComputeDelta(const Config& running, const Config& next) {
  ConfigDelta d;
  d.finder = DiffFinder(running.finder, next.finder);
  d.fea = DiffFea(running, next);
  d.rib = DiffRib(running.rib, next.rib);
  d.admin_distances = DiffAdminDistances(running.rib, next.rib);
  d.static_routes = DiffStatic(running.static_routes, next.static_routes);
  d.rpki = DiffRpki(running.rpki, next.rpki);
  d.policy = DiffPolicy(running.policy, next.policy);
  d.bgp = DiffBgp(running, next, d.policy);
  if (running.metrics != next.metrics) {
    auto text = [](const MetricsConfig& m) { return m.enabled ? m.ToString() : std::string(); };
    d.metrics.push_back(FieldChange{"listen", text(running.metrics), text(next.metrics)});
  }
  d.log = DiffLog(running.log, next.log);
  return d;
}

}  // namespace sluice::rtrmgr
