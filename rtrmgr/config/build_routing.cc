// fea { backend dummy | netlink; table N; retain-on-exit; remote-only; }
// rib { admin-distance { PROTOCOL N; ... } restart-time SECONDS; fea-max-backlog CHANGES; }
// protocols { static { route PREFIX { next-hop ADDRESS; interface NAME; metric N; tag N; track; } }
// }
#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "rtrmgr/config/config_builder.h"
#include "rtrmgr/config/config_reader.h"

namespace sluice::rtrmgr {

void BuildFea(const ConfigNode& node, FeaConfig* fea, Diagnostics* diags) {
  if (!ExpectBlock(node, 0,
                   "fea { backend dummy | netlink; table N; retain-on-exit; remote-only; }",
                   diags)) {
    return;
  }
  fea->where.loc = node.loc;
  BlockReader("fea", diags)
      .Once("backend",
            [&](const ConfigNode& n) {
              const ConfigValue* v = ExpectOne(n, "backend dummy | netlink;", diags);
              if (!v) return;
              if (v->kind == ConfigValue::Kind::kWord && v->text == "dummy") {
                fea->backend = FeaBackend::kDummy;
              } else if (v->kind == ConfigValue::Kind::kWord && v->text == "netlink") {
                fea->backend = FeaBackend::kNetlink;
              } else {
                diags->Add(v->loc, absl::StrFormat("expected a FEA backend ('dummy' or "
                                                   "'netlink'), found %s",
                                                   v->Describe()));
              }
            })
      .Once("table",
            [&](const ConfigNode& n) {
              const ConfigValue* v = ExpectOne(n, "table N;", diags);
              if (!v) return;
              auto table = ReadNumber(*v, 1, 0xfffffffe, "kernel table", diags);
              if (!table) return;
              if (*table == 255) {
                diags->Add(v->loc,
                           "kernel table 255 is the kernel's local table; choose another "
                           "(254 is main)");
                return;
              }
              fea->table = static_cast<uint32_t>(*table);
            })
      .Once("retain-on-exit",
            [&](const ConfigNode& n) {
              if (ExpectArgs(n, 0, "retain-on-exit;", diags)) fea->retain_on_exit = true;
            })
      .Once("remote-only",
            [&](const ConfigNode& n) {
              if (ExpectArgs(n, 0, "remote-only;", diags)) fea->remote_only = true;
            })
      .Read(node.children);
}

void BuildRib(const ConfigNode& node, RibConfig* rib, Diagnostics* diags) {
  if (!ExpectBlock(node, 0,
                   "rib { admin-distance { PROTOCOL N; } restart-time SECONDS; "
                   "fea-max-backlog CHANGES; }",
                   diags)) {
    return;
  }
  BlockReader("rib", diags)
      .Once("restart-time",
            [&](const ConfigNode& n) {
              const ConfigValue* v = ExpectOne(n, "restart-time SECONDS;", diags);
              if (!v) return;
              if (auto t = ReadDuration(*v, 1, 3600, "restart-time", diags)) {
                rib->restart_time_s = *t;
              }
            })
      .Once("fea-max-backlog",
            [&](const ConfigNode& n) {
              const ConfigValue* v = ExpectOne(n, "fea-max-backlog CHANGES;", diags);
              if (!v) return;
              if (auto b = ReadNumber(*v, 0, 100000000, "fea-max-backlog", diags)) {
                rib->fea_max_backlog = static_cast<uint32_t>(*b);
              }
            })
      .Once("admin-distance",
            [&](const ConfigNode& n) {
              if (!ExpectBlock(n, 0, "admin-distance { PROTOCOL N; ... }", diags)) return;
              BlockReader("admin-distance", diags)
                  .Otherwise([&](const ConfigNode& p) {
                    // The keyword is the protocol name (rib/protocol.h: [a-z0-9_-], 1..32).
                    ConfigValue name{ConfigValue::Kind::kWord, p.keyword, {}, p.loc};
                    auto protocol = ReadName(name, "_-", 32, true, "a protocol name", diags);
                    if (!protocol) return;
                    if (absl::AsciiStrToLower(*protocol) != *protocol) {
                      diags->Add(p.loc, absl::StrFormat("protocol names are lower case: '%s'",
                                                        absl::AsciiStrToLower(*protocol)));
                      return;
                    }
                    const ConfigValue* v =
                        ExpectOne(p, absl::StrFormat("%s DISTANCE;", *protocol), diags);
                    if (!v) return;
                    auto distance = ReadNumber(*v, 0, 255, "admin distance", diags);
                    if (!distance) return;
                    auto [it, fresh] = rib->admin_distances.emplace(
                        *protocol,
                        AdminDistanceConfig{static_cast<uint16_t>(*distance), Where{p.loc}});
                    if (!fresh) {
                      diags->Add(p.loc,
                                 absl::StrFormat("admin distance of '%s' is already set at %s",
                                                 *protocol, it->second.where.loc.ToString()));
                    }
                  })
                  .Read(n.children);
            })
      .Read(node.children);
}

namespace {

bool IsLinkLocal(const net::IPAddress& a) { return a.is_v6() && (a.v6().hi() >> 54) == 0x3fa; }

void BuildRoute(const ConfigNode& n, StaticConfig* routes, Diagnostics* diags) {
  if (!ExpectBlock(n, 1, "route PREFIX { next-hop ADDRESS; ... }", diags)) return;
  auto prefix = ReadPrefix(n.args[0], "route prefix", diags);
  if (!prefix) return;
  if (auto it = routes->routes.find(*prefix); it != routes->routes.end()) {
    diags->Add(n.args[0].loc, absl::StrFormat("route %s is already defined at %s",
                                              prefix->ToString(), it->second.where.loc.ToString()));
    return;
  }
  StaticRoute route;
  route.prefix = *prefix;
  route.where.loc = n.loc;
  const net::Family family = prefix->is_v4() ? net::Family::kIPv4 : net::Family::kIPv6;
  const ConfigNode* track = nullptr;
  bool bad = false;
  BlockReader(absl::StrFormat("route %s", prefix->ToString()), diags)
      .Once("next-hop",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "next-hop ADDRESS;", diags);
              if (!v) return void(bad = true);
              route.next_hop = ReadAddress(*v, &family, "next-hop", diags);
              if (!route.next_hop) return void(bad = true);
              if (IsMulticast(*route.next_hop)) {
                diags->Add(v->loc, absl::StrFormat("next-hop %s is a multicast address", v->text));
                bad = true;
              }
            })
      .Once("interface",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "interface NAME;", diags);
              if (!v) return void(bad = true);
              auto name = ReadName(*v, "_.-", 15, true, "an interface name", diags);
              if (!name) return void(bad = true);
              route.interface = *name;
              route.interface_where.loc = v->loc;
            })
      .Once("metric",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "metric N;", diags);
              if (!v) return;
              if (auto m = ReadNumber(*v, 0, 0xffffffff, "metric", diags)) route.metric = *m;
            })
      .Once("tag",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "tag N;", diags);
              if (!v) return;
              if (auto t = ReadNumber(*v, 0, 0xffffffff, "tag", diags)) route.tag = *t;
            })
      .Once("track",
            [&](const ConfigNode& s) {
              if (!ExpectArgs(s, 0, "track;", diags)) return;
              route.track = true;
              track = &s;
            })
      .Read(n.children);
  if (!bad) {
    if (!route.next_hop && route.interface.empty()) {
      diags->Add(n.loc, absl::StrFormat("route %s needs a next-hop or an interface (or both)",
                                        prefix->ToString()));
    } else if (route.next_hop && IsLinkLocal(*route.next_hop) && route.interface.empty()) {
      diags->Add(n.loc, absl::StrFormat("route %s: link-local next-hop %s needs an interface",
                                        prefix->ToString(), route.next_hop->ToString()));
    } else if (track != nullptr && !route.next_hop) {
      diags->Add(track->loc,
                 absl::StrFormat("route %s: track needs a next-hop to track", prefix->ToString()));
    }
  }
  routes->routes.emplace(route.prefix, std::move(route));
}

}  // namespace

void BuildStatic(const ConfigNode& node, StaticConfig* routes, Diagnostics* diags) {
  if (!ExpectBlock(node, 0, "static { route PREFIX { ... } }", diags)) return;
  BlockReader("static", diags)
      .Many("route", [&](const ConfigNode& n) { BuildRoute(n, routes, diags); })
      .Read(node.children);
}

}  // namespace sluice::rtrmgr
