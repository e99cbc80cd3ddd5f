// protocols { bgp { local-as N; bgp-id A; cluster-id A; threads N; damping { ... }
//                   graceful-restart { restart-time S; stale-routes-time S; }
//                   network PREFIX { ... } group NAME { ... } peer ADDRESS { ... }
//                   bmp { station ADDRESS { ... } } } }
// (peers and groups: build_bgp_peer.cc; networks: build_bgp_network.cc; bmp: build_bgp_bmp.cc)
#include <cmath>
#include <set>

#include "absl/strings/str_format.h"
#include "bgp/wire/constants.h"
#include "rtrmgr/config/config_builder.h"
#include "rtrmgr/config/config_reader.h"

namespace sluice::rtrmgr {

std::optional<std::string> ReadPolicyName(const ConfigValue& v, Diagnostics* diags) {
  return ReadName(v, "_.-", 64, false, "a policy name", diags);
}

std::optional<uint32_t> ReadAsNumber(const ConfigValue& v, std::string_view what,
                                     Diagnostics* diags) {
  auto as = ReadNumber(v, 1, 0xffffffff, what, diags);
  if (!as) return std::nullopt;
  if (*as == bgp::kAsTrans) {
    diags->Add(v.loc, absl::StrFormat("%s 23456 is AS_TRANS (RFC 6793), not a usable AS", what));
    return std::nullopt;
  }
  return static_cast<uint32_t>(*as);
}

namespace {

// graceful-restart { restart-time 120; stale-routes-time 360; } (RFC 4724 §3: the restart time
// has 12 bits).
void BuildGracefulRestart(const ConfigNode& n, BgpConfig* bgp, Diagnostics* diags) {
  if (!ExpectBlock(n, 0, "graceful-restart { restart-time 120; stale-routes-time 360; }", diags)) {
    return;
  }
  BlockReader("graceful-restart", diags)
      .Once("restart-time",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "restart-time SECONDS;", diags);
              if (!v) return;
              if (auto t = ReadNumber(*v, 0, 4095, "restart-time (RFC 4724: 12 bits)", diags)) {
                bgp->gr_restart_time = static_cast<uint32_t>(*t);
              }
            })
      .Once("stale-routes-time",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "stale-routes-time SECONDS;", diags);
              if (!v) return;
              if (auto t = ReadNumber(*v, 1, 86400, "stale-routes-time", diags)) {
                bgp->gr_stale_routes_time = static_cast<uint32_t>(*t);
              }
            })
      .Read(n.children);
}

void BuildDamping(const ConfigNode& n, DampingConfig* damping, Diagnostics* diags) {
  if (!ExpectBlock(n, 0, "damping { half-life 15m; reuse 750; suppress 6000; max-suppress 1h; }",
                   diags)) {
    return;
  }
  damping->where.loc = n.loc;
  const ConfigNode* suppress_node = nullptr;
  const ConfigNode* max_node = nullptr;
  BlockReader("damping", diags)
      .Once("half-life",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "half-life DURATION;", diags);
              if (!v) return;
              if (auto t = ReadDuration(*v, 1, 45 * 60, "half-life", diags)) {
                damping->half_life_s = *t;
              }
            })
      .Once("reuse",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "reuse N;", diags);
              if (!v) return;
              if (auto r = ReadNumber(*v, 1, 20000, "reuse threshold", diags)) {
                damping->reuse = static_cast<uint32_t>(*r);
              }
            })
      .Once("suppress",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "suppress N;", diags);
              if (!v) return;
              if (auto r = ReadNumber(*v, 1, 20000, "suppress threshold", diags)) {
                damping->suppress = static_cast<uint32_t>(*r);
                suppress_node = &s;
              }
            })
      .Once("max-suppress",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "max-suppress DURATION;", diags);
              if (!v) return;
              if (auto t = ReadDuration(*v, 1, 12 * 3600, "max-suppress", diags)) {
                damping->max_suppress_s = *t;
                max_node = &s;
              }
            })
      .Read(n.children);
  const Location& at = suppress_node ? suppress_node->loc : n.loc;
  if (damping->reuse >= damping->suppress) {
    diags->Add(at, absl::StrFormat("damping: the suppress threshold (%d) must be above the reuse "
                                   "threshold (%d)",
                                   damping->suppress, damping->reuse));
    return;
  }
  if (damping->max_suppress_s < damping->half_life_s) {
    diags->Add(max_node ? max_node->loc : n.loc,
               absl::StrFormat("damping: max-suppress %s is shorter than half-life %s",
                               FormatDuration(damping->max_suppress_s),
                               FormatDuration(damping->half_life_s)));
    return;
  }
  // RFC 2439 §4.2: the figure of merit never exceeds reuse * 2^(max-suppress / half-life); a
  // suppress threshold above that ceiling would never be reached.
  const double ceiling =
      damping->reuse * std::exp2(double(damping->max_suppress_s) / damping->half_life_s);
  if (damping->suppress > ceiling) {
    diags->Add(at, absl::StrFormat("damping: suppress %d is above the ceiling reuse * "
                                   "2^(max-suppress / half-life) = %.0f, so nothing would ever "
                                   "be suppressed",
                                   damping->suppress, ceiling));
  }
}

// listen ADDRESS [port N];
void ReadListen(const ConfigNode& s, BgpConfig* bgp, Diagnostics* diags) {
  constexpr std::string_view kUsage = "listen ADDRESS [port N];";
  if (!ExpectArgRange(s, 1, 3, kUsage, diags)) return;
  const ConfigValue& a = s.args[0];
  auto address = a.kind == ConfigValue::Kind::kWord ? net::IPAddress::Parse(a.text)
                                                    : absl::InvalidArgumentError("");
  if (!address.ok()) {
    diags->Add(a.loc, absl::StrFormat("expected a listen address (IPv4 or IPv6; 0.0.0.0 or :: "
                                      "for any), found %s",
                                      a.Describe()));
    return;
  }
  BgpListen listen{*address, 179, Where{s.loc}};
  if (s.args.size() > 1) {
    const ConfigValue& kw = s.args[1];
    if (kw.kind != ConfigValue::Kind::kWord || kw.text != "port") {
      diags->Add(kw.loc, absl::StrFormat("expected 'port' or ';' after the listen address, "
                                         "found %s",
                                         kw.Describe()));
      return;
    }
    if (s.args.size() < 3) {
      diags->Add(kw.loc, "'port' needs a port number 1..65535");
      return;
    }
    auto port = ReadNumber(s.args[2], 1, 65535, "listen port", diags);
    if (!port) return;
    listen.port = static_cast<uint16_t>(*port);
  }
  for (const BgpListen& l : bgp->listen) {
    if (l == listen) {
      diags->Add(s.loc, absl::StrFormat("listen %s is already given at %s", listen.ToString(),
                                        l.where.loc.ToString()));
      return;
    }
  }
  bgp->listen.push_back(listen);
}

}  // namespace

void BuildBgp(const ConfigNode& node, BgpConfig* bgp, Diagnostics* diags) {
  if (!ExpectBlock(node, 0, "bgp { local-as N; bgp-id A; peer ADDRESS { ... } }", diags)) return;
  bgp->enabled = true;
  bgp->where.loc = node.loc;
  bool has_as = false, has_id = false, bad = false;
  BlockReader("bgp", diags)
      .Once("local-as",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "local-as AS-NUMBER;", diags);
              auto as = v ? ReadAsNumber(*v, "local AS", diags) : std::nullopt;
              if (as) bgp->local_as = *as;
              has_as = true;
              bad = bad || !as;
            })
      .Once("bgp-id",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "bgp-id A.B.C.D;", diags);
              const net::Family v4 = net::Family::kIPv4;
              // RFC 4271 §4.2 / RFC 6286: a non-zero 32-bit identifier, written as IPv4.
              auto id = v ? ReadAddress(*v, &v4, "bgp-id", diags) : std::nullopt;
              if (id) bgp->bgp_id = id->v4();
              has_id = true;
              bad = bad || !id;
            })
      .Once("threads",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "threads N;", diags);
              if (!v) return;
              if (auto t = ReadNumber(*v, 1, 256, "threads", diags)) {
                bgp->threads = static_cast<uint32_t>(*t);
              }
            })
      .Once("damping", [&](const ConfigNode& s) { BuildDamping(s, &bgp->damping, diags); })
      .Once("mrt", [&](const ConfigNode& s) { BuildBgpMrt(s, &bgp->mrt, diags); })
      .Once("graceful-restart", [&](const ConfigNode& s) { BuildGracefulRestart(s, bgp, diags); })
      .Many("listen", [&](const ConfigNode& s) { ReadListen(s, bgp, diags); })
      .Once("cluster-id",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "cluster-id A.B.C.D;", diags);
              const net::Family v4 = net::Family::kIPv4;
              // RFC 4456 §7: a 4-octet CLUSTER_ID, written as IPv4; the BGP Identifier when
              // not given.
              auto id = v ? ReadAddress(*v, &v4, "cluster-id", diags) : std::nullopt;
              if (id) bgp->cluster_id = id->v4();
            })
      .Many("network", [&](const ConfigNode& s) { BuildNetwork(s, bgp, diags); })
      .Once("bmp", [&](const ConfigNode& s) { BuildBmp(s, bgp, diags); })
      .Many("group", [&](const ConfigNode& s) { BuildGroup(s, bgp, diags); })
      .Many("peer", [&](const ConfigNode& s) { BuildPeer(s, nullptr, bgp, diags); })
      .Read(node.children);
  if (!has_as) diags->Add(node.loc, "bgp needs 'local-as AS-NUMBER;'");
  if (!has_id) diags->Add(node.loc, "bgp needs 'bgp-id A.B.C.D;'");
  if (bad || !has_as) return;
  for (const auto& [address, peer] : bgp->peers) {
    if (peer.session.route_reflector_client && peer.session.remote_as != 0 &&
        !peer.session.internal(bgp->local_as)) {
      diags->Add(peer.route_reflector_where.loc,
                 absl::StrFormat("route-reflector-client applies to iBGP peers only (RFC 4456): "
                                 "peer %s has AS %d, the local AS is %d",
                                 address.ToString(), peer.session.remote_as, bgp->local_as));
    }
    if (peer.session.multihop_ttl > 0 && peer.session.remote_as != 0 &&
        peer.session.internal(bgp->local_as)) {
      diags->Add(peer.multihop_where.loc,
                 absl::StrFormat("multihop applies to external peers only: peer %s has the "
                                 "local AS %d (internal peers are not limited to one hop)",
                                 address.ToString(), bgp->local_as));
    }
  }
}

}  // namespace sluice::rtrmgr
