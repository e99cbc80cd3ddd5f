// protocols { bgp { local-as N; bgp-id A; threads N; damping { ... }
//                   graceful-restart { restart-time S; stale-routes-time S; }
//                   peer ADDRESS { ... graceful-restart disable; } } }
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

// Reads `import`/`export`: one policy name or a list; no name twice.
void ReadChain(const ConfigNode& s, std::vector<NameRef>* chain, Diagnostics* diags) {
  if (!ExpectArgs(s, 1, absl::StrFormat("%s [ POLICY ... ];", s.keyword), diags)) return;
  for (const ConfigValue* v : Members(s.args[0])) {
    auto name = ReadPolicyName(*v, diags);
    if (!name) continue;
    bool repeated = false;
    for (const NameRef& r : *chain) repeated = repeated || r.name == *name;
    if (repeated) {
      diags->Add(v->loc,
                 absl::StrFormat("policy '%s' appears twice in the %s chain", *name, s.keyword));
      continue;
    }
    chain->push_back(NameRef{*name, Where{v->loc}});
  }
}

bool IsWord(const ConfigValue& v, std::string_view word) {
  return v.kind == ConfigValue::Kind::kWord && v.text == word;
}

// max-prefix N [received | accepted] [warn | restart SECONDS];
void ReadMaxPrefix(const ConfigNode& s, bgp::MaxPrefix* max, Diagnostics* diags) {
  constexpr std::string_view kUsage =
      "max-prefix N [received | accepted] [warn | restart SECONDS];";
  if (!ExpectArgRange(s, 1, 4, kUsage, diags)) return;
  auto limit = ReadNumber(s.args[0], 1, 0xffffffff, "max-prefix limit", diags);
  if (!limit) return;
  max->limit = *limit;
  max->action = bgp::MaxPrefixAction::kTeardown;
  max->count = bgp::MaxPrefixCount::kReceived;
  size_t at = 1;  // the argument after the limit and the optional count
  if (at < s.args.size() && (IsWord(s.args[at], "received") || IsWord(s.args[at], "accepted"))) {
    if (s.args[at].text == "accepted") max->count = bgp::MaxPrefixCount::kAccepted;
    ++at;
  }
  if (at == s.args.size()) return;
  const ConfigValue& action = s.args[at];
  if (IsWord(action, "warn")) {
    if (ExpectArgs(s, at + 1, kUsage, diags)) max->action = bgp::MaxPrefixAction::kWarn;
  } else if (IsWord(action, "restart")) {
    if (s.args.size() < at + 2) {
      diags->Add(action.loc,
                 "'restart' needs the seconds to wait before the session starts "
                 "again (0: stay down)");
      return;
    }
    if (!ExpectArgs(s, at + 2, kUsage, diags)) return;
    if (auto t = ReadDuration(s.args[at + 1], 0, 86400, "max-prefix restart time", diags)) {
      max->restart_after_s = *t;
    }
  } else {
    diags->Add(action.loc, absl::StrFormat("expected 'received', 'accepted', 'warn' or 'restart' "
                                           "after the max-prefix limit, found %s",
                                           action.Describe()));
  }
}

// enforce-first-as on | off;
void ReadOnOff(const ConfigNode& s, bool* out, Diagnostics* diags) {
  const std::string usage = absl::StrFormat("%s on | off;", s.keyword);
  const ConfigValue* v = ExpectOne(s, usage, diags);
  if (v == nullptr) return;
  if (IsWord(*v, "on") || IsWord(*v, "off")) {
    *out = v->text == "on";
    return;
  }
  diags->Add(v->loc, absl::StrFormat("expected 'on' or 'off' after %s, found %s", s.keyword,
                                     v->Describe()));
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

void BuildPeer(const ConfigNode& n, BgpConfig* bgp, Diagnostics* diags) {
  if (!ExpectBlock(n, 1, "peer ADDRESS { as N; ... }", diags)) return;
  auto address = ReadAddress(n.args[0], nullptr, "peer address", diags);
  if (!address) return;
  if (IsMulticast(*address)) {
    diags->Add(n.args[0].loc,
               absl::StrFormat("peer address %s is a multicast address", address->ToString()));
    return;
  }
  if (auto it = bgp->peers.find(*address); it != bgp->peers.end()) {
    diags->Add(n.args[0].loc,
               absl::StrFormat("peer %s is already defined at %s", address->ToString(),
                               it->second.where.loc.ToString()));
    return;
  }
  BgpPeer peer;
  peer.where.loc = n.loc;
  bgp::PeerConfig& p = peer.session;
  p.address = *address;
  const net::Family family = address->family();
  const std::string context = absl::StrFormat("peer %s", address->ToString());
  bool has_as = false;
  bool bad = false;  // a value was refused: skip the whole-peer checks
  auto one = [&](const ConfigNode& s, std::string_view usage) {
    const ConfigValue* v = ExpectOne(s, usage, diags);
    bad = bad || v == nullptr;
    return v;
  };
  auto flag = [&](const ConfigNode& s, bool* out) {
    if (ExpectArgs(s, 0, absl::StrFormat("%s;", s.keyword), diags)) *out = true;
  };
  BlockReader(context, diags)
      .Once("as",
            [&](const ConfigNode& s) {
              const ConfigValue* v = one(s, "as AS-NUMBER;");
              if (!v) return;
              if (auto as = ReadAsNumber(*v, "peer AS", diags)) {
                p.remote_as = *as;
                has_as = true;
              } else {
                bad = true;
              }
            })
      .Once("local-ip",
            [&](const ConfigNode& s) {
              const ConfigValue* v = one(s, "local-ip ADDRESS;");
              if (!v) return;
              p.local_address = ReadAddress(*v, &family, "local-ip", diags);
              bad = bad || !p.local_address;
              peer.local_ip_where.loc = v->loc;
              if (p.local_address && *p.local_address == p.address) {
                diags->Add(v->loc, "local-ip is the peer's own address");
                bad = true;
              }
            })
      .Once("port",
            [&](const ConfigNode& s) {
              const ConfigValue* v = one(s, "port N;");
              if (!v) return;
              if (auto port = ReadNumber(*v, 1, 65535, "port", diags)) {
                p.port = static_cast<uint16_t>(*port);
              }
            })
      .Once("passive", [&](const ConfigNode& s) { flag(s, &p.passive); })
      .Once("md5-password",
            [&](const ConfigNode& s) {
              const ConfigValue* v = one(s, "md5-password \"SECRET\";");
              if (!v) return;
              // RFC 2385 keys: Linux TCP_MD5SIG takes at most 80 octets.
              auto t = ReadText(*v, 80, "md5-password", diags);
              if (t && t->empty()) diags->Add(v->loc, "md5-password is empty");
              if (t && !t->empty()) p.md5_password = *t;
            })
      .Once("hold-time",
            [&](const ConfigNode& s) {
              const ConfigValue* v = one(s, "hold-time SECONDS;");
              if (!v) return;
              auto t = ReadNumber(*v, 0, 65535, "hold-time", diags);
              if (!t) return;
              if (*t == 1 || *t == 2) {
                diags->Add(v->loc, absl::StrFormat("hold-time %d: must be 0 or 3..65535 seconds "
                                                   "(RFC 4271 §4.2)",
                                                   *t));
                return;
              }
              p.hold_time_s = static_cast<uint16_t>(*t);
            })
      .Once("import", [&](const ConfigNode& s) { ReadChain(s, &peer.import_policies, diags); })
      .Once("export", [&](const ConfigNode& s) { ReadChain(s, &peer.export_policies, diags); })
      .Once("route-reflector-client",
            [&](const ConfigNode& s) {
              flag(s, &p.route_reflector_client);
              peer.route_reflector_where.loc = s.loc;
            })
      .Once("next-hop-self", [&](const ConfigNode& s) { flag(s, &p.next_hop_self); })
      .Once("max-prefix", [&](const ConfigNode& s) { ReadMaxPrefix(s, &p.max_prefix, diags); })
      .Once("adj-rib-in-limit",
            [&](const ConfigNode& s) {
              const ConfigValue* v = one(s, "adj-rib-in-limit N;  (0: no ceiling)");
              if (!v) return;
              if (auto n = ReadNumber(*v, 0, 0xffffffff, "adj-rib-in-limit", diags)) {
                p.adj_rib_in_limit = *n;
              }
            })
      .Once("enforce-first-as",
            [&](const ConfigNode& s) { ReadOnOff(s, &p.enforce_first_as, diags); })
      .Once("ttl-security",
            [&](const ConfigNode& s) {
              const ConfigValue* v = one(s, "ttl-security HOPS;");
              if (!v) return;
              // RFC 5082: accept packets with TTL >= 255 - (hops - 1).
              if (auto h = ReadNumber(*v, 1, 254, "ttl-security hops", diags)) {
                p.gtsm_hops = static_cast<int>(*h);
              }
            })
      .Once("damping", [&](const ConfigNode& s) { flag(s, &peer.damping); })
      .Once("graceful-restart",
            [&](const ConfigNode& s) {
              // RFC 4724: only the peer's opt-out; the timers are the bgp block's.
              const ConfigValue* v = one(s, "graceful-restart disable;");
              if (!v) return;
              if (v->text != "disable") {
                diags->Add(v->loc,
                           "graceful-restart takes 'disable' in a peer (the timers are "
                           "set in bgp { graceful-restart { ... } })");
                bad = true;
                return;
              }
              p.graceful_restart = false;
            })
      .Once("disable",
            [&](const ConfigNode& s) {
              bool disabled = false;
              flag(s, &disabled);
              p.enabled = !disabled;
            })
      .Once("description",
            [&](const ConfigNode& s) {
              const ConfigValue* v = one(s, "description \"TEXT\";");
              if (!v) return;
              if (auto t = ReadText(*v, 256, "description", diags)) p.description = *t;
            })
      .Read(n.children);
  if (!has_as && !bad) {
    diags->Add(n.loc, absl::StrFormat("%s needs 'as AS-NUMBER;'", context));
    bad = true;
  }
  if (!bad) {
    // The session layer's own checks, as a backstop for what the reader above let through.
    if (absl::Status s = p.Validate(); !s.ok()) diags->Add(n.loc, std::string(s.message()));
  }
  bgp->peers.emplace(p.address, std::move(peer));
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
      .Once("graceful-restart", [&](const ConfigNode& s) { BuildGracefulRestart(s, bgp, diags); })
      .Many("listen", [&](const ConfigNode& s) { ReadListen(s, bgp, diags); })
      .Many("peer", [&](const ConfigNode& s) { BuildPeer(s, bgp, diags); })
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
  }
}

}  // namespace sluice::rtrmgr
