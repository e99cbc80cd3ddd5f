// The delta between a running configuration and a new one: each kind of change gives exactly
// the expected change set (as structure and as the text `sluice configure load` shows), and an
// identical configuration gives none.
#include "rtrmgr/config/config_delta.h"

#include <string>

#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "rtrmgr/config/config_loader.h"
#include "rtrmgr/config/config_printer.h"

namespace sluice::rtrmgr {
namespace {

const char kBase[] = R"(
interfaces {
    interface eth0 { address 192.0.2.1/24; }
    interface eth1 { address 198.51.100.1/24; }
}
fea { backend dummy; }
rib { admin-distance { static 5; } }
protocols {
    static {
        route 10.0.0.0/8 { next-hop 192.0.2.254; }
        route 172.16.0.0/12 { interface eth0; }
    }
    bgp {
        local-as 65000;
        bgp-id 192.0.2.1;
        listen 127.0.0.1 port 10179;
        peer 127.0.0.2 { as 65001; local-ip 127.0.0.1; import [ in ]; export [ out ]; damping; }
        peer 127.0.0.3 { as 65002; local-ip 127.0.0.1; export [ out ]; }
    }
}
policy {
    prefix-list bogons { 10.0.0.0/8 orlonger; }
    policy-statement in { term a { from { prefix-list bogons; } then { reject; } } }
    policy-statement out { term a { then { accept; } } }
}
finder { access { bgp { resolve [ rib ]; } } }
)";

Config Parse(const std::string& text) {
  auto c = ParseConfig(text, "t.conf");
  EXPECT_TRUE(c.ok()) << c.status() << "\n" << text;
  return c.ok() ? *c : Config();
}

// kBase with `from` replaced by `to` (which must occur).
Config Edit(const std::string& from, const std::string& to) {
  const std::string base = kBase;
  EXPECT_NE(base.find(from), std::string::npos) << from;
  return Parse(absl::StrReplaceAll(base, {{from, to}}));
}

TEST(ConfigDelta, IdenticalConfigurationsGiveNothing) {
  const Config a = Parse(kBase);
  const ConfigDelta d = ComputeDelta(a, Parse(kBase));
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(d.ToString(), "nothing to change\n");
  // The same configuration written differently (printed canonically, comments, other order).
  const std::string reordered =
      "# the same, reordered\n" + PrintConfig(a) + "\n/* trailing comment */\n";
  EXPECT_TRUE(ComputeDelta(a, Parse(reordered)).empty());
  EXPECT_TRUE(ComputeDelta(Config(), Config()).empty());
}

struct DeltaCase {
  const char* name;
  const char* from;
  const char* to;
  const char* expected;  // ConfigDelta::ToString()
};

const DeltaCase kCases[] = {
    {"fea table", "fea { backend dummy; }", "fea { backend dummy; table 100; }",
     "fea: restart (table 254 -> 100)\n"},
    {"interface added", "interface eth1 {",
     "interface eth2 { address 203.0.113.1/24; mtu 9000; disable; }\n    interface eth1 {",
     "interface eth2: added (203.0.113.1/24 mtu 9000, disabled)\n"},
    {"interface removed", "interface eth1 { address 198.51.100.1/24; }", "",
     "interface eth1: removed\n"},
    {"interface changed", "interface eth1 { address 198.51.100.1/24; }",
     "interface eth1 { address 198.51.100.1/25; address 2001:db8::1/64; mtu 9000; }",
     "interface eth1: changed: mtu 1500 -> 9000; address + 198.51.100.1/25 2001:db8::1/64; "
     "address - 198.51.100.1/24\n"},
    {"admin distance changed, added", "admin-distance { static 5; }",
     "admin-distance { static 6; ebgp 30; }",
     "rib: admin-distance ebgp default -> 30\nrib: admin-distance static 5 -> 6\n"},
    {"admin distance back to default", "rib { admin-distance { static 5; } }", "",
     "rib: admin-distance static 5 -> default\n"},
    {"static route added", "route 10.0.0.0/8 {",
     "route 10.1.0.0/16 { next-hop 192.0.2.253; tag 7; track; }\n        route 10.0.0.0/8 {",
     "static: route 10.1.0.0/16 added (next-hop 192.0.2.253 metric 1 tag 7 track)\n"},
    {"static route removed", "route 10.0.0.0/8 { next-hop 192.0.2.254; }", "",
     "static: route 10.0.0.0/8 removed\n"},
    {"static route changed", "route 10.0.0.0/8 { next-hop 192.0.2.254; }",
     "route 10.0.0.0/8 { next-hop 192.0.2.253; metric 3; }",
     "static: route 10.0.0.0/8 changed: next-hop 192.0.2.254 -> 192.0.2.253; metric 1 -> 3\n"},
    {"local AS: every peer resets", "local-as 65000;", "local-as 65100;",
     "bgp: local-as 65000 -> 65100 (every session restarts)\n"
     "bgp: peer 127.0.0.2 changed: local identity changed => reset the session\n"
     "bgp: peer 127.0.0.3 changed: local identity changed => reset the session\n"},
    {"BGP identifier", "bgp-id 192.0.2.1;", "bgp-id 192.0.2.9;",
     "bgp: bgp-id 192.0.2.1 -> 192.0.2.9 (every session restarts)\n"
     "bgp: peer 127.0.0.2 changed: local identity changed => reset the session\n"
     "bgp: peer 127.0.0.3 changed: local identity changed => reset the session\n"},
    {"threads", "bgp-id 192.0.2.1;", "bgp-id 192.0.2.1; threads 4;", "bgp: threads default -> 4\n"},
    {"graceful restart timers: no session restarts", "bgp-id 192.0.2.1;",
     "bgp-id 192.0.2.1; graceful-restart { restart-time 60; }",
     "bgp: graceful-restart restart-time 120 stale-routes-time 360 -> restart-time 60 "
     "stale-routes-time 360\n"},
    {"graceful-restart disable: reset", "as 65002;", "as 65002; graceful-restart disable;",
     "bgp: peer 127.0.0.3 changed: graceful-restart on -> off => reset the session\n"},
    {"damping parameters", "bgp-id 192.0.2.1;", "bgp-id 192.0.2.1; damping { half-life 10m; }",
     "bgp: damping half-life 15m reuse 750 suppress 6000 max-suppress 1h -> half-life 10m reuse "
     "750 suppress 6000 max-suppress 1h\n"
     "bgp: peer 127.0.0.2 changed: damping parameters changed => re-plumb damping\n"},
    {"listen", "listen 127.0.0.1 port 10179;", "listen 127.0.0.1 port 10180;",
     "bgp: listen + 127.0.0.1 port 10180\nbgp: listen - 127.0.0.1 port 10179\n"},
    {"peer added", "peer 127.0.0.3 {", "peer 127.0.0.4 { as 65004; disable; }\n peer 127.0.0.3 {",
     "bgp: peer 127.0.0.4 added (as 65004, disabled)\n"},
    {"peer removed", "peer 127.0.0.3 { as 65002; local-ip 127.0.0.1; export [ out ]; }", "",
     "bgp: peer 127.0.0.3 removed\n"},
    {"import chain: re-filter only", "import [ in ];", "import [ out in ];",
     "bgp: peer 127.0.0.2 changed: import [ in ] -> [ out in ] => re-filter import\n"},
    {"import removed", "import [ in ];", "",
     "bgp: peer 127.0.0.2 changed: import [ in ] -> (none) => re-filter import\n"},
    {"hold time: reset", "peer 127.0.0.3 { as 65002;", "peer 127.0.0.3 { as 65002; hold-time 30;",
     "bgp: peer 127.0.0.3 changed: hold-time 90 -> 30 => reset the session\n"},
    {"remote AS: reset", "as 65002;", "as 65003;",
     "bgp: peer 127.0.0.3 changed: as 65002 -> 65003 => reset the session\n"},
    {"password: reset, never printed", "as 65002;", "as 65002; md5-password \"x\";",
     "bgp: peer 127.0.0.3 changed: md5-password (none) -> (hidden) => reset the session\n"},
    {"reset subsumes the rest", "as 65002; local-ip 127.0.0.1; export [ out ];",
     "as 65002; local-ip 127.0.0.5; export [ in ]; disable;",
     "bgp: peer 127.0.0.3 changed: local-ip 127.0.0.1 -> 127.0.0.5; export [ out ] -> [ in ]; "
     "disable off -> on => reset the session\n"},
    {"description and max-prefix: no reset", "as 65002;",
     "as 65002; description \"d\"; max-prefix 100 warn; passive;",
     "bgp: peer 127.0.0.3 changed: passive off -> on; max-prefix (none) -> 100 warn; description "
     "(none) -> d => update settings\n"},
    {"input limits: no reset", "as 65002;",
     "as 65002; max-prefix 100 accepted; adj-rib-in-limit 500; enforce-first-as off;",
     "bgp: peer 127.0.0.3 changed: max-prefix (none) -> 100 accepted restart 1m; "
     "adj-rib-in-limit 4000000 -> 500; enforce-first-as on -> off => update settings\n"},
    {"disable", "as 65002;", "as 65002; disable;",
     "bgp: peer 127.0.0.3 changed: disable off -> on => disable\n"},
    {"next-hop-self: re-export", "as 65002;", "as 65002; next-hop-self;",
     "bgp: peer 127.0.0.3 changed: next-hop-self off -> on => re-filter export\n"},
    {"damping off", "export [ out ]; damping;", "export [ out ];",
     "bgp: peer 127.0.0.2 changed: damping on -> off => re-plumb damping\n"},
    {"import policy changed", "then { reject; }", "then { local-pref 50; accept; }",
     "policy: policy-statement in changed\n"
     "bgp: peer 127.0.0.2 changed: policy in changed => re-filter import\n"},
    {"export policy changed: both peers", "term a { then { accept; } }",
     "term a { then { med 5; accept; } }",
     "policy: policy-statement out changed\n"
     "bgp: peer 127.0.0.2 changed: policy out changed => re-filter export\n"
     "bgp: peer 127.0.0.3 changed: policy out changed => re-filter export\n"},
    {"a set changes its users", "10.0.0.0/8 orlonger;", "10.0.0.0/8 orlonger; 0.0.0.0/8 orlonger;",
     "policy: prefix-list bogons changed\n"
     "bgp: peer 127.0.0.2 changed: policy in changed => re-filter import\n"},
    {"unused policy added", "policy-statement out {",
     "policy-statement spare { term a { then { reject; } } }\n    policy-statement out {",
     "policy: policy-statement spare added\n"},
    {"redistribution", "term a { then { accept; } }",
     "term a { from { protocol static; } then { accept; } }",
     "policy: policy-statement out changed\n"
     "bgp: redistribute + static (from the RIB)\n"
     "bgp: peer 127.0.0.2 changed: policy out changed => re-filter export\n"
     "bgp: peer 127.0.0.3 changed: policy out changed => re-filter export\n"},
    {"finder class changed", "bgp { resolve [ rib ]; }", "bgp { resolve [ rib fea ]; }",
     "finder: access bgp changed: resolve [ rib ] -> [ rib fea ]\n"},
    {"finder default and class added", "finder { access {",
     "finder { access { default deny; static { resolve [ rib/rib/1.0 ]; }",
     "finder: access default allow -> deny\nfinder: access static added: resolve [ rib/rib/1.0 "
     "]\n"},
};

TEST(ConfigDelta, EachChangeKindGivesExactlyItsDelta) {
  const Config base = Parse(kBase);
  for (const DeltaCase& c : kCases) {
    SCOPED_TRACE(c.name);
    const Config next = Edit(c.from, c.to);
    EXPECT_EQ(ComputeDelta(base, next).ToString(), c.expected);
    EXPECT_TRUE(ComputeDelta(next, next).empty());
  }
}

TEST(ConfigDelta, PeerActionsAsStructure) {
  const Config base = Parse(kBase);
  {
    const ConfigDelta d = ComputeDelta(base, Edit("import [ in ];", "import [ out in ];"));
    ASSERT_EQ(d.bgp.peers.size(), 1u);
    const PeerDelta& p = d.bgp.peers[0];
    EXPECT_EQ(p.change, Change::kChanged);
    EXPECT_TRUE(p.refilter_import);
    EXPECT_FALSE(p.reset || p.update || p.refilter_export || p.replumb_damping);
    ASSERT_TRUE(p.after.has_value());
    EXPECT_EQ(p.after->import_policies.size(), 2u);
  }
  {
    const ConfigDelta d = ComputeDelta(base, Edit("local-as 65000;", "local-as 65100;"));
    EXPECT_TRUE(d.bgp.identity_changed);
    ASSERT_EQ(d.bgp.peers.size(), 2u);
    for (const PeerDelta& p : d.bgp.peers) EXPECT_TRUE(p.reset);
  }
  {
    const ConfigDelta d = ComputeDelta(base, Edit("as 65002;", "as 65002; disable;"));
    ASSERT_EQ(d.bgp.peers.size(), 1u);
    EXPECT_TRUE(d.bgp.peers[0].disable);
    EXPECT_FALSE(d.bgp.peers[0].reset);
    const ConfigDelta back = ComputeDelta(Edit("as 65002;", "as 65002; disable;"), base);
    EXPECT_TRUE(back.bgp.peers[0].enable);
  }
}

TEST(ConfigDelta, BackendChangeRestartsTheFea) {
  const Config dummy = Parse("fea { backend dummy; }");
  const Config netlink = Parse("fea { backend netlink; table 100; }");
  const ConfigDelta d = ComputeDelta(dummy, netlink);
  EXPECT_TRUE(d.fea.restart);
  EXPECT_EQ(d.ToString(), "fea: restart (backend dummy -> netlink; table 254 -> 100)\n");
}

// Both are fixed when the process starts: a change restarts the FEA or the RIB.
TEST(ConfigDelta, RetainOnExitRestartsTheFeaAndRestartTimeTheRib) {
  const Config base = Parse("fea { backend dummy; }");
  const ConfigDelta retain = ComputeDelta(base, Parse("fea { backend dummy; retain-on-exit; }"));
  EXPECT_TRUE(retain.fea.restart);
  EXPECT_FALSE(retain.rib.restart);
  EXPECT_EQ(retain.ToString(), "fea: restart (retain-on-exit off -> on)\n");
  const ConfigDelta rib = ComputeDelta(base, Parse("rib { restart-time 2m; }"));
  EXPECT_TRUE(rib.rib.restart);
  EXPECT_FALSE(rib.fea.restart);
  EXPECT_FALSE(rib.empty());
  EXPECT_EQ(rib.ToString(), "rib: restart (restart-time 1m -> 2m)\n");
  EXPECT_TRUE(ComputeDelta(base, Parse("rib { restart-time 60; }")).empty());
  const ConfigDelta backlog = ComputeDelta(base, Parse("rib { fea-max-backlog 1000; }"));
  EXPECT_TRUE(backlog.rib.restart);
  EXPECT_EQ(backlog.ToString(), "rib: restart (fea-max-backlog 524288 -> 1000)\n");
}

TEST(ConfigDelta, StartingAndStoppingBgp) {
  const Config none = Parse("fea { backend dummy; }");
  const Config base = Parse(kBase);
  const ConfigDelta start = ComputeDelta(none, base);
  EXPECT_TRUE(start.bgp.started);
  EXPECT_EQ(start.bgp.peers.size(), 2u);
  const ConfigDelta stop = ComputeDelta(base, none);
  EXPECT_TRUE(stop.bgp.stopped);
  ASSERT_EQ(stop.bgp.peers.size(), 2u);
  EXPECT_EQ(stop.bgp.peers[0].change, Change::kRemoved);
  EXPECT_EQ(stop.ToString(),
            "finder: access bgp removed\n"
            "interface eth0: removed\n"
            "interface eth1: removed\n"
            "rib: admin-distance static 5 -> default\n"
            "static: route 10.0.0.0/8 removed\n"
            "static: route 172.16.0.0/12 removed\n"
            "policy: prefix-list bogons removed\n"
            "policy: policy-statement in removed\n"
            "policy: policy-statement out removed\n"
            "bgp: stopped (every peer is removed)\n"
            "bgp: listen - 127.0.0.1 port 10179\n"
            "bgp: peer 127.0.0.2 removed\n"
            "bgp: peer 127.0.0.3 removed\n");
}

TEST(ConfigDelta, RpkiCachesAddedRemovedAndChanged) {
  const Config none = Parse("fea { backend dummy; }");
  const Config one = Parse("protocols { rpki { cache 127.0.0.1 { port 8323; } } }");
  const Config two =
      Parse("protocols { rpki { cache 127.0.0.1 { port 8323; preference 2; } cache ::1; } }");
  const ConfigDelta start = ComputeDelta(none, one);
  EXPECT_TRUE(start.rpki.started);
  ASSERT_EQ(start.rpki.caches.size(), 1u);
  EXPECT_EQ(start.rpki.caches[0].change, Change::kAdded);
  EXPECT_EQ(start.ToString(),
            "rpki: started\n"
            "rpki: cache 127.0.0.1 port 8323 added\n");
  const ConfigDelta grow = ComputeDelta(one, two);
  EXPECT_FALSE(grow.rpki.started);
  EXPECT_EQ(grow.ToString(),
            "rpki: cache 127.0.0.1 port 8323 changed: preference 0 -> 2\n"
            "rpki: cache ::1 port 323 added\n");
  const ConfigDelta stop = ComputeDelta(two, none);
  EXPECT_TRUE(stop.rpki.stopped);
  EXPECT_EQ(stop.rpki.caches.size(), 2u);
  EXPECT_TRUE(ComputeDelta(two, two).empty());
  EXPECT_FALSE(ComputeDelta(none, Parse("protocols { rpki { } }")).empty());
}

TEST(ConfigDelta, RedistributedProtocols) {
  const Config c = Edit("term a { then { accept; } }",
                        "term a { from { protocol [ static connected bgp ]; } then { accept; } }");
  EXPECT_EQ(RedistributedProtocols(c), (std::set<std::string>{"connected", "static"}));
  EXPECT_TRUE(RedistributedProtocols(Parse(kBase)).empty());
}

Change Opposite(Change c) {
  if (c == Change::kAdded) return Change::kRemoved;
  if (c == Change::kRemoved) return Change::kAdded;
  return Change::kChanged;
}

// The rollback of a refused load sends ComputeDelta(next, running): for every change the load
// made, it must make the opposite one, back to the running configuration's values.
TEST(ConfigDelta, TheReverseDeltaUndoesEachChange) {
  const Config a = Parse(kBase);
  const std::vector<std::pair<std::string, std::string>> edits = {
      {"listen 127.0.0.1 port 10179;", "listen 127.0.0.1 port 10179; listen ::1 port 10179;"},
      {"peer 127.0.0.3 { as 65002;", "peer 127.0.0.4 { as 65004;"},
      {"peer 127.0.0.3 { as 65002;", "peer 127.0.0.3 { as 65003;"},
      {"route 10.0.0.0/8 { next-hop 192.0.2.254; }", "route 10.0.0.0/8 { next-hop 192.0.2.9; }"},
      {"route 172.16.0.0/12 { interface eth0; }", "route 203.0.113.0/24 { interface eth1; }"},
      {"static 5;", "static 7; ebgp 30;"},
  };
  for (const auto& [from, to] : edits) {
    SCOPED_TRACE(to);
    const Config b = Edit(from, to);
    const ConfigDelta forward = ComputeDelta(a, b);
    const ConfigDelta reverse = ComputeDelta(b, a);
    ASSERT_FALSE(forward.empty());
    EXPECT_EQ(reverse.bgp.listen_added, forward.bgp.listen_removed);
    EXPECT_EQ(reverse.bgp.listen_removed, forward.bgp.listen_added);
    ASSERT_EQ(reverse.bgp.peers.size(), forward.bgp.peers.size());
    for (size_t i = 0; i < forward.bgp.peers.size(); ++i) {
      const PeerDelta& f = forward.bgp.peers[i];
      const PeerDelta& r = reverse.bgp.peers[i];
      EXPECT_EQ(r.address, f.address);
      EXPECT_EQ(r.change, Opposite(f.change));
      EXPECT_EQ(r.before, f.after);
      EXPECT_EQ(r.after, f.before);
      EXPECT_EQ(r.reset, f.reset);
    }
    ASSERT_EQ(reverse.static_routes.size(), forward.static_routes.size());
    for (size_t i = 0; i < forward.static_routes.size(); ++i) {
      EXPECT_EQ(reverse.static_routes[i].change, Opposite(forward.static_routes[i].change));
      EXPECT_EQ(reverse.static_routes[i].after, forward.static_routes[i].before);
    }
    ASSERT_EQ(reverse.admin_distances.size(), forward.admin_distances.size());
    for (size_t i = 0; i < forward.admin_distances.size(); ++i) {
      EXPECT_EQ(reverse.admin_distances[i].after, forward.admin_distances[i].before);
    }
  }
}

}  // namespace
}  // namespace sluice::rtrmgr

namespace sluice::rtrmgr {
namespace {

const char kGroupBase[] = R"(
protocols {
    bgp {
        local-as 65000;
        bgp-id 192.0.2.1;
        network 10.9.0.0/16;
        group up {
            as 65001;
            hold-time 90;
            peer 127.0.0.2 { }
            peer 127.0.0.3 { hold-time 30; }
        }
        peer 127.0.0.4 { as 65004; }
    }
}
)";

const DeltaCase kGroupCases[] = {
    {"a group's setting is each of its peers' (not one that overrides it)", "hold-time 90;",
     "hold-time 60;", "bgp: peer 127.0.0.2 changed: hold-time 90 -> 60 => reset the session\n"},
    {"a setting added to a group", "as 65001;", "as 65001; keepalive 10; family ipv4-unicast;",
     "bgp: peer 127.0.0.2 changed: keepalive (none) -> 10; family [ ipv4-unicast ipv6-unicast ] "
     "-> [ ipv4-unicast ] => reset the session\n"
     "bgp: peer 127.0.0.3 changed: keepalive (none) -> 10; family [ ipv4-unicast ipv6-unicast ] "
     "-> [ ipv4-unicast ] => reset the session\n"},
    {"a group's peer removed", "peer 127.0.0.2 { }", "", "bgp: peer 127.0.0.2 removed\n"},
    {"connect-retry: new settings", "peer 127.0.0.4 { as 65004; }",
     "peer 127.0.0.4 { as 65004; connect-retry 30; }",
     "bgp: peer 127.0.0.4 changed: connect-retry 2m -> 30s => update settings\n"},
    {"multihop: reset", "peer 127.0.0.4 { as 65004; }", "peer 127.0.0.4 { as 65004; multihop 3; }",
     "bgp: peer 127.0.0.4 changed: multihop 0 -> 3 => reset the session\n"},
    {"cluster-id: every session restarts", "bgp-id 192.0.2.1;",
     "bgp-id 192.0.2.1; cluster-id 192.0.2.9;",
     "bgp: cluster-id (none) -> 192.0.2.9 (every session restarts)\n"
     "bgp: peer 127.0.0.2 changed: local identity changed => reset the session\n"
     "bgp: peer 127.0.0.3 changed: local identity changed => reset the session\n"
     "bgp: peer 127.0.0.4 changed: local identity changed => reset the session\n"},
    {"network added", "network 10.9.0.0/16;", "network 10.9.0.0/16; network 10.8.0.0/16;",
     "bgp: network 10.8.0.0/16 added (originated)\n"},
    {"network removed", "network 10.9.0.0/16;", "",
     "bgp: network 10.9.0.0/16 removed (withdrawn)\n"},
    {"network attributes changed", "network 10.9.0.0/16;", "network 10.9.0.0/16 { med 5; }",
     "bgp: network 10.9.0.0/16 changed (originated)\n"},
};

// Putting peers in a group changes nothing they are configured with: no delta.
TEST(ConfigDelta, ThePeersOfAGroupWrittenOutAreTheSame) {
  const Config grouped = Parse(kGroupBase);
  const Config flat = Parse(R"(
protocols {
    bgp {
        local-as 65000;
        bgp-id 192.0.2.1;
        network 10.9.0.0/16;
        peer 127.0.0.2 { as 65001; }
        peer 127.0.0.3 { as 65001; hold-time 30; }
        peer 127.0.0.4 { as 65004; }
    }
}
)");
  EXPECT_EQ(ComputeDelta(grouped, flat).ToString(), "nothing to change\n");
}

TEST(ConfigDelta, GroupsNetworksAndClusterId) {
  const Config base = Parse(kGroupBase);
  ASSERT_TRUE(ComputeDelta(base, Parse(kGroupBase)).empty());
  for (const DeltaCase& c : kGroupCases) {
    SCOPED_TRACE(c.name);
    const std::string text = kGroupBase;
    ASSERT_NE(text.find(c.from), std::string::npos) << c.from;
    const ConfigDelta d = ComputeDelta(base, Parse(absl::StrReplaceAll(text, {{c.from, c.to}})));
    EXPECT_EQ(d.ToString(), c.expected);
  }
}

}  // namespace
}  // namespace sluice::rtrmgr
