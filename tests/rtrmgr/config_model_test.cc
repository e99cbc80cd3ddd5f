// The example configurations load; the model holds what they say; printing and reading back
// gives the same configuration.
#include <string>

#include "gtest/gtest.h"
#include "rtrmgr/config/config_loader.h"
#include "rtrmgr/config/config_printer.h"

namespace sluice::rtrmgr {
namespace {

std::string Example(const std::string& name) {
  return std::string(SLUICE_RTRMGR_EXAMPLES) + "/" + name;
}

net::IPAddress Ip(const char* text) { return *net::IPAddress::Parse(text); }
net::Prefix Net(const char* text) { return *net::Prefix::Parse(text); }

TEST(ConfigExamples, MainJob) {
  auto c = LoadConfigFile(Example("main-job.conf"));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->fea.backend, FeaBackend::kDummy);
  EXPECT_TRUE(c->interfaces.empty());
  ASSERT_TRUE(c->bgp.enabled);
  EXPECT_EQ(c->bgp.local_as, 4200000001u);
  EXPECT_EQ(c->bgp.bgp_id.ToString(), "10.255.0.1");
  ASSERT_EQ(c->bgp.listen.size(), 1u);
  EXPECT_EQ(c->bgp.listen[0].ToString(), "127.0.0.1 port 10179");
  ASSERT_EQ(c->bgp.peers.size(), 2u);
  const BgpPeer& up = c->bgp.peers.at(Ip("127.0.0.2"));
  EXPECT_EQ(up.session.remote_as, 4200000002u);
  EXPECT_EQ(up.session.local_address, Ip("127.0.0.1"));
  EXPECT_TRUE(up.session.passive);
  EXPECT_EQ(up.session.hold_time_s, 90);
  EXPECT_TRUE(up.import_policies.empty());
  EXPECT_EQ(c->bgp.peers.at(Ip("127.0.0.3")).session.remote_as, 4200000003u);
  EXPECT_TRUE(c->policy.items.empty());
}

TEST(ConfigExamples, Everything) {
  auto c = LoadConfigFile(Example("everything.conf"));
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->interfaces.size(), 3u);
  const InterfaceConfig& eth0 = c->interfaces.at("eth0");
  ASSERT_EQ(eth0.addresses.size(), 2u);
  EXPECT_EQ(eth0.addresses[1].ToString(), "2001:db8:0:1::1/64");
  EXPECT_EQ(eth0.mtu, 9000u);
  EXPECT_TRUE(eth0.mac.has_value());
  EXPECT_FALSE(c->interfaces.at("eth2").enabled);
  EXPECT_EQ(c->fea.table, 100u);
  EXPECT_TRUE(c->fea.retain_on_exit);
  EXPECT_EQ(c->rib.admin_distances.at("static").distance, 5);
  EXPECT_EQ(c->rib.restart_time_s, 90u);
  EXPECT_EQ(c->rib.fea_max_backlog, 262144u);
  ASSERT_EQ(c->static_routes.routes.size(), 3u);
  const StaticRoute& r = c->static_routes.routes.at(Net("10.0.0.0/8"));
  EXPECT_EQ(r.next_hop, Ip("192.0.2.254"));
  EXPECT_EQ(r.metric, 10u);
  EXPECT_EQ(r.tag, 100u);
  EXPECT_TRUE(r.track);
  EXPECT_EQ(c->static_routes.routes.at(Net("172.16.0.0/12")).interface, "eth1");
  ASSERT_TRUE(c->rpki.enabled);
  ASSERT_EQ(c->rpki.caches.size(), 2u);
  const RpkiCache& first = c->rpki.caches.at({Ip("127.0.0.1"), 8323});
  EXPECT_EQ(first.preference, 1u);
  EXPECT_EQ(first.expire, 0u);  // sluice-rpki's default
  const RpkiCache& second = c->rpki.caches.at({Ip("::1"), 323});
  EXPECT_EQ(second.preference, 2u);
  EXPECT_EQ(second.refresh, 1800u);
  EXPECT_EQ(second.retry, 300u);
  EXPECT_EQ(second.expire, 3600u);
  EXPECT_EQ(c->bgp.threads, 4u);
  EXPECT_EQ(c->bgp.damping.suppress, 6000u);
  ASSERT_EQ(c->bgp.peers.size(), 5u);
  EXPECT_EQ(c->bgp.cluster_id, net::IPv4Address(0xc0000264));  // 192.0.2.100
  ASSERT_EQ(c->bgp.networks.size(), 2u);
  EXPECT_FALSE(c->bgp.networks.at(Net("10.9.0.0/16")).next_hop);
  const BgpNetwork& n6 = c->bgp.networks.at(Net("2001:db8:9::/48"));
  EXPECT_EQ(n6.next_hop, Ip("2001:db8:0:1::1"));
  EXPECT_EQ(n6.med, 10u);
  EXPECT_EQ(n6.local_pref, 200u);
  EXPECT_EQ(n6.communities, (std::vector<std::string>{"65000:100", "no-export"}));
  EXPECT_EQ(n6.large_communities, (std::vector<std::string>{"65000:1:2"}));
  // The group's peers: its settings, their own winning.
  ASSERT_EQ(c->bgp.groups.size(), 1u);
  const BgpPeer& g3 = c->bgp.peers.at(Ip("127.0.0.3"));
  EXPECT_EQ(g3.group, "ebgp-upstreams");
  EXPECT_EQ(g3.session.remote_as, 65002u);
  EXPECT_EQ(g3.session.keepalive_s, 20);
  EXPECT_EQ(g3.session.connect_retry_s, 30);
  EXPECT_EQ(g3.session.multihop_ttl, 2);
  EXPECT_TRUE(g3.session.families.Has(bgp::kIPv4Unicast));
  EXPECT_FALSE(g3.session.families.Has(bgp::kIPv6Unicast));
  ASSERT_EQ(g3.import_policies.size(), 2u);
  EXPECT_EQ(g3.session.local_address, Ip("127.0.0.1"));
  const BgpPeer& g4 = c->bgp.peers.at(Ip("127.0.0.4"));
  EXPECT_EQ(g4.session.remote_as, 65004u);
  EXPECT_EQ(g4.session.keepalive_s, 10);
  EXPECT_EQ(g4.session.multihop_ttl, 2);
  EXPECT_TRUE(g4.session.families.Has(bgp::kIPv6Unicast));
  EXPECT_FALSE(g4.session.local_address);
  const BgpPeer& transit = c->bgp.peers.at(Ip("127.0.0.2"));
  EXPECT_EQ(transit.session.port, 10180);
  EXPECT_EQ(transit.session.md5_password, "s3cret");
  EXPECT_EQ(transit.session.gtsm_hops, 1);
  EXPECT_EQ(transit.session.max_prefix.limit, 1000000u);
  EXPECT_EQ(transit.session.max_prefix.restart_after_s, 300);
  EXPECT_EQ(transit.session.max_prefix.count, bgp::MaxPrefixCount::kReceived);
  EXPECT_EQ(transit.session.adj_rib_in_limit, 2000000u);
  EXPECT_TRUE(transit.session.enforce_first_as);
  ASSERT_EQ(transit.import_policies.size(), 2u);
  EXPECT_EQ(transit.import_policies[1].name, "upstream-in");
  EXPECT_TRUE(transit.damping);
  const BgpPeer& client = c->bgp.peers.at(Ip("::1"));
  EXPECT_TRUE(client.session.route_reflector_client);
  EXPECT_TRUE(client.session.next_hop_self);
  const BgpPeer& off = c->bgp.peers.at(Ip("192.0.2.2"));
  EXPECT_FALSE(off.session.enabled);
  EXPECT_EQ(off.session.remote_as, 4200000000u);
  EXPECT_EQ(off.session.max_prefix.action, bgp::MaxPrefixAction::kWarn);
  EXPECT_EQ(off.session.max_prefix.count, bgp::MaxPrefixCount::kAccepted);
  EXPECT_FALSE(off.session.enforce_first_as);
  EXPECT_EQ(off.session.adj_rib_in_limit, bgp::PeerConfig::kDefaultAdjRibInLimit);
  EXPECT_EQ(c->policy.parsed->statements.size(), 3u);
  EXPECT_EQ(c->policy.items.size(), 6u);
  EXPECT_EQ(c->finder.access.at("bgp").resolve[1].ToString(), "fea/fea_ifmgr/1.0");
}

// The package's /etc/sluice/sluice.conf: an idle router on the kernel's FIB, no protocol.
TEST(ConfigExamples, ShippedConfigurationIsAnIdleRouterOnNetlink) {
  auto c = LoadConfigFile(Example("sluice.conf"));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->fea.backend, FeaBackend::kNetlink);
  EXPECT_FALSE(c->fea.retain_on_exit);
  EXPECT_FALSE(c->bgp.enabled);
  EXPECT_TRUE(c->static_routes.routes.empty());
  EXPECT_TRUE(c->interfaces.empty());
  EXPECT_EQ(c->user, "sluice");
}

TEST(ConfigExamples, EmptyFileIsTheDefaultConfiguration) {
  auto c = ParseConfig("# nothing\n", "empty.conf");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(*c, Config());
  EXPECT_FALSE(c->bgp.enabled);
}

// Print, read back: the same configuration; printing that again gives the same text.
void ExpectRoundTrip(const Config& c) {
  const std::string text = PrintConfig(c);
  auto again = ParseConfig(text, "printed.conf");
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << text;
  EXPECT_EQ(*again, c) << text;
  EXPECT_EQ(PrintConfig(*again), text);
}

TEST(ConfigRoundTrip, Examples) {
  for (const char* name : {"main-job.conf", "everything.conf", "sluice.conf"}) {
    SCOPED_TRACE(name);
    auto c = LoadConfigFile(Example(name));
    ASSERT_TRUE(c.ok()) << c.status();
    ExpectRoundTrip(*c);
  }
}

TEST(ConfigRoundTrip, NonDefaultValuesAndAwkwardStrings) {
  auto c = ParseConfig(R"(
    fea { backend netlink; table 1000; retain-on-exit; remote-only; }
    rib { restart-time 5m; fea-max-backlog 0; }
    protocols { bgp {
      local-as 4294967295; bgp-id 1.2.3.4; threads 256;
      damping { half-life 90s; reuse 500; suppress 3000; max-suppress 20m; }
      graceful-restart { restart-time 4095; stale-routes-time 30; }
      listen 0.0.0.0; listen :: port 1179;
      peer 2001:db8::2 {
        as 1; local-ip 2001:db8::1; hold-time 0; md5-password "a \"quoted\" \\ key";
        max-prefix 10 accepted restart 0; adj-rib-in-limit 0; enforce-first-as off;
        graceful-restart disable;
        description "tab	and # not a comment";
      }
    } }
    finder { access { default deny; rtrmgr { } } listen 10.0.0.1 port 7001; insecure; }
  )",
                       "t.conf");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->bgp.peers.begin()->second.session.md5_password, "a \"quoted\" \\ key");
  const bgp::PeerConfig& p = c->bgp.peers.begin()->second.session;
  EXPECT_EQ(p.max_prefix.count, bgp::MaxPrefixCount::kAccepted);
  EXPECT_EQ(p.max_prefix.restart_after_s, 0);
  EXPECT_EQ(p.adj_rib_in_limit, 0u);
  EXPECT_FALSE(p.enforce_first_as);
  EXPECT_FALSE(p.graceful_restart);
  EXPECT_EQ(c->bgp.gr_restart_time, 4095u);
  EXPECT_EQ(c->bgp.gr_stale_routes_time, 30u);
  EXPECT_EQ(c->bgp.damping.half_life_s, 90u);
  EXPECT_EQ(c->bgp.damping.max_suppress_s, 1200u);
  EXPECT_FALSE(c->finder.default_allow);
  EXPECT_EQ(c->rib.fea_max_backlog, 0u);
  EXPECT_TRUE(c->fea.remote_only);
  ExpectRoundTrip(*c);
}

TEST(ConfigRoundTrip, LocationsDoNotMatterButValuesDo) {
  auto a = ParseConfig("protocols { bgp { local-as 1; bgp-id 1.1.1.1; } }", "a.conf");
  auto b =
      ParseConfig("protocols {\n  bgp {\n    bgp-id 1.1.1.1;\n    local-as 1;\n  }\n}\n", "b.conf");
  auto c = ParseConfig("protocols { bgp { local-as 2; bgp-id 1.1.1.1; } }", "c.conf");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_FALSE(*a == *c);
}

// A group prints as a group, its peers inside with only their own settings; a peer's own
// setting equal to the default still wins over the group's.
TEST(ConfigRoundTrip, GroupsKeepTheirShapeAndPeersTheirOverrides) {
  auto c = ParseConfig(R"(
    protocols { bgp {
      local-as 65000; bgp-id 10.0.0.1; cluster-id 10.0.0.9;
      network 10.9.0.0/16;
      network 10.8.0.0/16 { next-hop 192.0.2.1; origin incomplete; med 0; }
      group rr-clients {
        as 65000; route-reflector-client; hold-time 30; keepalive 5;
        peer 127.0.0.5 { hold-time 90; keepalive 30; }
        peer 127.0.0.6 { description "six"; }
      }
      group empty { family ipv6-unicast; }
      peer 127.0.0.2 { as 65001; keepalive 29; connect-retry 1m; multihop 64;
                       family [ ipv6-unicast ipv4-unicast ]; }
    } }
  )",
                       "t.conf");
  ASSERT_TRUE(c.ok()) << c.status();
  const BgpPeer& five = c->bgp.peers.at(Ip("127.0.0.5"));
  EXPECT_EQ(five.session.hold_time_s, 90);
  EXPECT_EQ(five.session.keepalive_s, 30);
  EXPECT_TRUE(five.session.route_reflector_client);
  const BgpPeer& six = c->bgp.peers.at(Ip("127.0.0.6"));
  EXPECT_EQ(six.session.hold_time_s, 30);
  EXPECT_EQ(six.session.keepalive_s, 5);
  EXPECT_EQ(c->bgp.groups.size(), 2u);
  ExpectRoundTrip(*c);
  const std::string text = PrintConfig(*c);
  EXPECT_NE(text.find("        group rr-clients {\n"
                      "            as 65000;\n"
                      "            hold-time 30;\n"
                      "            keepalive 5;\n"
                      "            route-reflector-client;\n"
                      "            peer 127.0.0.5 {\n"
                      "                hold-time 90;\n"
                      "                keepalive 30;\n"
                      "            }\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("cluster-id 10.0.0.9;"), std::string::npos) << text;
  EXPECT_NE(text.find("network 10.9.0.0/16;"), std::string::npos) << text;
  EXPECT_NE(text.find("origin incomplete;"), std::string::npos) << text;
  EXPECT_NE(text.find("multihop 64;"), std::string::npos) << text;
}

TEST(ConfigPrinter, HidesSecretsWhenAsked) {
  auto c = LoadConfigFile(Example("everything.conf"));
  ASSERT_TRUE(c.ok()) << c.status();
  const std::string shown = PrintConfig(*c, PrintOptions{.hide_secrets = true});
  EXPECT_EQ(shown.find("s3cret"), std::string::npos);
  EXPECT_NE(shown.find("md5-password (hidden);"), std::string::npos);
}

}  // namespace
}  // namespace sluice::rtrmgr
