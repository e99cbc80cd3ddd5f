// protocols { bgp { peer ADDRESS { ... } group NAME { ... peer ADDRESS { ... } } } }: the
// settings of one peer, read from its group's block and then its own.
#include <set>

#include "absl/strings/str_format.h"
#include "rtrmgr/config/config_builder.h"
#include "rtrmgr/config/config_reader.h"

namespace sluice::rtrmgr {
namespace {

// Reads `import`/`export`: one policy name or a list; no name twice.
void ReadChain(const ConfigNode& s, std::vector<NameRef>* chain, Diagnostics* diags) {
  chain->clear();  // a peer's own chain replaces its group's
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

// max-prefix N [received | accepted] [warn | restart SECONDS];
void ReadMaxPrefix(const ConfigNode& s, bgp::MaxPrefix* max, Diagnostics* diags) {
  constexpr std::string_view kUsage =
      "max-prefix N [received | accepted] [warn | restart SECONDS];";
  if (!ExpectArgRange(s, 1, 4, kUsage, diags)) return;
  auto limit = ReadNumber(s.args[0], 1, 0xffffffff, "max-prefix limit", diags);
  if (!limit) return;
  *max = bgp::MaxPrefix();
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

// family [ ipv4-unicast ipv6-unicast ]; (RFC 4760: the AFI/SAFIs offered).
void ReadFamilies(const ConfigNode& s, bgp::AfiSafiSet* out, Diagnostics* diags) {
  if (!ExpectArgs(s, 1, "family [ ipv4-unicast ipv6-unicast ];", diags)) return;
  bgp::AfiSafiSet families;
  bool bad = false;
  for (const ConfigValue* v : Members(s.args[0])) {
    bgp::AfiSafi f = bgp::kIPv4Unicast;
    if (IsWord(*v, "ipv4-unicast")) {
      f = bgp::kIPv4Unicast;
    } else if (IsWord(*v, "ipv6-unicast")) {
      f = bgp::kIPv6Unicast;
    } else {
      diags->Add(v->loc, absl::StrFormat("expected 'ipv4-unicast' or 'ipv6-unicast', found %s",
                                         v->Describe()));
      bad = true;
      continue;
    }
    if (families.Has(f)) {
      diags->Add(v->loc, absl::StrFormat("family %s is listed twice", v->text));
      bad = true;
    }
    families.Add(f);
  }
  if (bad) return;
  if (families.empty()) {
    diags->Add(s.args[0].loc, "family needs at least one of ipv4-unicast, ipv6-unicast");
    return;
  }
  *out = families;
}

// What reading one block found, for the checks on the whole peer.
struct ReadState {
  bool has_as = false;
  bool bad = false;  // a value was refused: skip the whole-peer checks
};

// Reads the peer settings of one block (a peer's, or a group's) over `peer`: what the block
// gives replaces what was there. `family`: the peer's (null in a group: any). The keywords given go
// to `given`; `other` reads the keywords that are not peer settings (a group's `peer`).
void ReadPeerSettings(const ConfigNode& n, const std::string& context, const net::Family* family,
                      BgpPeer* peer, std::set<std::string>* given, ReadState* state,
                      Diagnostics* diags, std::function<void(BlockReader&)> other = nullptr) {
  bgp::PeerConfig& p = peer->session;
  auto one = [&](const ConfigNode& s, std::string_view usage) {
    const ConfigValue* v = ExpectOne(s, usage, diags);
    state->bad = state->bad || v == nullptr;
    return v;
  };
  auto flag = [&](const ConfigNode& s, bool* out) {
    if (ExpectArgs(s, 0, absl::StrFormat("%s;", s.keyword), diags)) *out = true;
  };
  BlockReader reader(context, diags);
  auto on = [&](const char* keyword, std::function<void(const ConfigNode&)> read) {
    reader.Once(keyword, [given, keyword, read](const ConfigNode& s) {
      given->insert(keyword);
      read(s);
    });
  };
  on("as", [&](const ConfigNode& s) {
    const ConfigValue* v = one(s, "as AS-NUMBER;");
    if (!v) return;
    if (auto as = ReadAsNumber(*v, "peer AS", diags)) {
      p.remote_as = *as;
      state->has_as = true;
    } else {
      state->bad = true;
    }
  });
  on("local-ip", [&](const ConfigNode& s) {
    const ConfigValue* v = one(s, "local-ip ADDRESS;");
    if (!v) return;
    p.local_address = ReadAddress(*v, family, "local-ip", diags);
    state->bad = state->bad || !p.local_address;
    peer->local_ip_where.loc = v->loc;
  });
  on("port", [&](const ConfigNode& s) {
    const ConfigValue* v = one(s, "port N;");
    if (!v) return;
    if (auto port = ReadNumber(*v, 1, 65535, "port", diags)) p.port = static_cast<uint16_t>(*port);
  });
  on("passive", [&](const ConfigNode& s) { flag(s, &p.passive); });
  on("md5-password", [&](const ConfigNode& s) {
    const ConfigValue* v = one(s, "md5-password \"SECRET\";");
    if (!v) return;
    // RFC 2385 keys: Linux TCP_MD5SIG takes at most 80 octets.
    auto t = ReadText(*v, 80, "md5-password", diags);
    if (t && t->empty()) diags->Add(v->loc, "md5-password is empty");
    if (t && !t->empty()) p.md5_password = *t;
  });
  on("hold-time", [&](const ConfigNode& s) {
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
    peer->hold_time_where.loc = v->loc;
  });
  on("keepalive", [&](const ConfigNode& s) {
    const ConfigValue* v = one(s, "keepalive SECONDS;");
    if (!v) return;
    // RFC 4271 §4.4: KeepaliveTime; checked against the hold time once the peer is whole.
    if (auto t = ReadNumber(*v, 0, 65534, "keepalive", diags)) {
      p.keepalive_s = static_cast<uint16_t>(*t);
      peer->keepalive_where.loc = v->loc;
    }
  });
  on("connect-retry", [&](const ConfigNode& s) {
    const ConfigValue* v = one(s, "connect-retry SECONDS;");
    if (!v) return;
    // RFC 4271 §10 ConnectRetryTime (suggested 120 s).
    if (auto t = ReadDuration(*v, 1, 3600, "connect-retry", diags)) p.connect_retry_s = *t;
  });
  on("family", [&](const ConfigNode& s) { ReadFamilies(s, &p.families, diags); });
  on("import", [&](const ConfigNode& s) { ReadChain(s, &peer->import_policies, diags); });
  on("export", [&](const ConfigNode& s) { ReadChain(s, &peer->export_policies, diags); });
  on("route-reflector-client", [&](const ConfigNode& s) {
    flag(s, &p.route_reflector_client);
    peer->route_reflector_where.loc = s.loc;
  });
  on("next-hop-self", [&](const ConfigNode& s) { flag(s, &p.next_hop_self); });
  on("next-hop6", [&](const ConfigNode& s) {
    const ConfigValue* v = one(s, "next-hop6 IPV6-ADDRESS;");
    if (!v) return;
    const net::Family v6 = net::Family::kIPv6;
    peer->next_hop6 = ReadAddress(*v, &v6, "next-hop6", diags);
    state->bad = state->bad || !peer->next_hop6;
  });
  on("max-prefix", [&](const ConfigNode& s) { ReadMaxPrefix(s, &p.max_prefix, diags); });
  on("adj-rib-in-limit", [&](const ConfigNode& s) {
    const ConfigValue* v = one(s, "adj-rib-in-limit N;  (0: no ceiling)");
    if (!v) return;
    if (auto n = ReadNumber(*v, 0, 0xffffffff, "adj-rib-in-limit", diags)) p.adj_rib_in_limit = *n;
  });
  on("enforce-first-as", [&](const ConfigNode& s) { ReadOnOff(s, &p.enforce_first_as, diags); });
  on("ttl-security", [&](const ConfigNode& s) {
    const ConfigValue* v = one(s, "ttl-security HOPS;");
    if (!v) return;
    // RFC 5082: accept packets with TTL >= 255 - (hops - 1).
    if (auto h = ReadNumber(*v, 1, 254, "ttl-security hops", diags)) {
      p.gtsm_hops = static_cast<int>(*h);
      peer->ttl_security_where.loc = v->loc;
    }
  });
  on("multihop", [&](const ConfigNode& s) {
    const ConfigValue* v = one(s, "multihop TTL;");
    if (!v) return;
    // eBGP multihop: the TTL of what we send, for a peer up to that many hops away.
    if (auto t = ReadNumber(*v, 1, 255, "multihop TTL", diags)) {
      p.multihop_ttl = static_cast<int>(*t);
      peer->multihop_where.loc = v->loc;
    }
  });
  on("damping", [&](const ConfigNode& s) { flag(s, &peer->damping); });
  on("graceful-restart", [&](const ConfigNode& s) {
    // RFC 4724: only the peer's opt-out; the timers are the bgp block's.
    const ConfigValue* v = one(s, "graceful-restart disable;");
    if (!v) return;
    if (v->text != "disable") {
      diags->Add(v->loc,
                 "graceful-restart takes 'disable' in a peer (the timers are "
                 "set in bgp { graceful-restart { ... } })");
      state->bad = true;
      return;
    }
    p.graceful_restart = false;
  });
  on("disable", [&](const ConfigNode& s) {
    bool disabled = false;
    flag(s, &disabled);
    if (disabled) p.enabled = false;
  });
  on("description", [&](const ConfigNode& s) {
    const ConfigValue* v = one(s, "description \"TEXT\";");
    if (!v) return;
    if (auto t = ReadText(*v, 256, "description", diags)) p.description = *t;
  });
  if (other) other(reader);
  reader.Read(n.children);
}

// " (group G)" for a peer of a group.
std::string InGroup(const BgpPeer& peer) {
  return peer.group.empty() ? "" : absl::StrFormat(" (group %s)", peer.group);
}

// The checks that relate several settings, once the group's and the peer's are merged.
void CheckWholePeer(const ConfigNode& n, BgpPeer* peer, bool has_as, Diagnostics* diags) {
  bgp::PeerConfig& p = peer->session;
  const std::string who = absl::StrFormat("peer %s%s", p.address.ToString(), InGroup(*peer));
  if (!has_as) {
    diags->Add(n.loc, absl::StrFormat("%s needs 'as AS-NUMBER;'", who));
    return;
  }
  if (p.local_address) {
    if (p.local_address->family() != p.address.family()) {
      diags->Add(peer->local_ip_where.loc, absl::StrFormat("local-ip %s is not of the family of %s",
                                                           p.local_address->ToString(), who));
      return;
    }
    if (*p.local_address == p.address) {
      diags->Add(peer->local_ip_where.loc, "local-ip is the peer's own address");
      return;
    }
  }
  if (p.keepalive_s) {
    const uint16_t k = *p.keepalive_s;
    const std::string hold_at =
        peer->hold_time_where.loc.line > 0 && !peer->hold_time_where.loc.file.empty()
            ? absl::StrFormat(" (at %s)", peer->hold_time_where.loc.ToString())
            : " (the default)";
    if (p.hold_time_s == 0 && k != 0) {
      diags->Add(peer->keepalive_where.loc,
                 absl::StrFormat("%s: keepalive %d with hold-time 0%s: with no hold time there "
                                 "are no keepalives, so keepalive must be 0 (RFC 4271 §4.4)",
                                 who, k, hold_at));
      return;
    }
    if (p.hold_time_s != 0 && (k == 0 || k >= p.hold_time_s)) {
      diags->Add(peer->keepalive_where.loc,
                 absl::StrFormat("%s: keepalive %d must be 1..%d, below hold-time %d%s "
                                 "(RFC 4271 §4.4; 0 only with hold-time 0)",
                                 who, k, p.hold_time_s - 1, p.hold_time_s, hold_at));
      return;
    }
  }
  if (p.multihop_ttl > 0 && p.gtsm_hops > 0) {
    diags->Add(peer->multihop_where.loc,
               absl::StrFormat("%s: multihop and ttl-security (at %s) both set the TTL; use one "
                               "(ttl-security sends 255 and checks what arrives)",
                               who, peer->ttl_security_where.loc.ToString()));
    return;
  }
  // The session layer's own checks, as a backstop for what the reader above let through.
  if (absl::Status s = p.Validate(); !s.ok()) diags->Add(n.loc, std::string(s.message()));
}

}  // namespace

void BuildPeer(const ConfigNode& n, const BgpGroup* group, BgpConfig* bgp, Diagnostics* diags) {
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
  ReadState state;
  if (group != nullptr) {
    peer = group->settings;
    peer.group = group->name;
    state.has_as = group->given.contains("as");
  }
  peer.where.loc = n.loc;
  peer.session.address = *address;
  const std::string context = absl::StrFormat("peer %s", address->ToString());
  const net::Family family = address->family();
  ReadPeerSettings(n, context, &family, &peer, &peer.own, &state, diags);
  if (!state.bad) CheckWholePeer(n, &peer, state.has_as, diags);
  bgp->peers.emplace(peer.session.address, std::move(peer));
}

void BuildGroup(const ConfigNode& n, BgpConfig* bgp, Diagnostics* diags) {
  if (!ExpectBlock(n, 1, "group NAME { SETTING; ... peer ADDRESS { ... } }", diags)) return;
  auto name = ReadName(n.args[0], "_.-", 64, true, "a group name", diags);
  if (!name) return;
  if (auto it = bgp->groups.find(*name); it != bgp->groups.end()) {
    diags->Add(n.args[0].loc, absl::StrFormat("group %s is already defined at %s", *name,
                                              it->second.where.loc.ToString()));
    return;
  }
  BgpGroup group;
  group.name = *name;
  group.where.loc = n.loc;
  ReadState state;
  std::vector<const ConfigNode*> peers;
  ReadPeerSettings(n, "group " + *name, nullptr, &group.settings, &group.given, &state, diags,
                   [&](BlockReader& reader) {
                     reader.Many("peer", [&](const ConfigNode& s) { peers.push_back(&s); });
                   });
  // The group's peers are read once the group's own settings are known, wherever they were
  // written in its block.
  for (const ConfigNode* p : peers) BuildPeer(*p, &group, bgp, diags);
  bgp->groups.emplace(group.name, std::move(group));
}

}  // namespace sluice::rtrmgr
