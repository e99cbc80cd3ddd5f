// The router manager's translations that need no process: the Finder access list written from
// the finder block (read back by the Finder's own parser) and sluice-fea's command line.
#include "rtrmgr/process/configurator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "finder/access_list.h"
#include "policy/parser.h"
#include "rtrmgr/config/config_loader.h"

namespace sluice::rtrmgr {
namespace {

using ::testing::Contains;
using ::testing::Not;

std::string Example(const char* name) { return std::string(SLUICE_RTRMGR_EXAMPLES) + "/" + name; }

TEST(Configurator, TheFinderBlockBecomesAnAccessListTheFinderEnforces) {
  auto c = LoadConfigFile(Example("everything.conf"));
  ASSERT_TRUE(c.ok()) << c.status();
  auto acl = finder::AccessList::Parse(Configurator::AccessListText(*c));
  ASSERT_TRUE(acl.ok()) << acl.status() << "\n" << Configurator::AccessListText(*c);
  using P = finder::AccessList::Party;
  const P bgp{"bgp", "bgp"}, rib{"rib", "rib"}, fea{"fea", "fea"},
      st{"static_routes", "static_routes"};
  EXPECT_TRUE(acl->Allows(bgp, rib, "sluice.rib.v1.Rib"));
  EXPECT_TRUE(acl->Allows(bgp, fea, "sluice.fea_ifmgr.v1.FeaIfmgr"));
  EXPECT_FALSE(acl->Allows(bgp, fea, "sluice.fea_fib.v1.FeaFib"));
  EXPECT_TRUE(acl->Allows(st, rib, "sluice.rib.v1.Rib"));
  EXPECT_FALSE(acl->Allows(st, fea, "sluice.fea_ifmgr.v1.FeaIfmgr"));
  // Everyone may still ask anyone's status; classes not listed follow `default allow`; the
  // router manager itself is never locked out.
  EXPECT_TRUE(acl->Allows(st, fea, "sluice.common.v1.Common"));
  EXPECT_TRUE(acl->Allows(P{"rib", "rib"}, fea, "sluice.fea_fib.v1.FeaFib"));
  EXPECT_TRUE(acl->Allows(P{"rtrmgr", "rtrmgr"}, bgp, "sluice.bgp.v1.Bgp"));
}

TEST(Configurator, AnRpkiBlockLetsBgpAndRpkiTalkWhateverTheClassRules) {
  auto c = LoadConfigFile(Example("everything.conf"));
  ASSERT_TRUE(c.ok()) << c.status();
  using P = finder::AccessList::Party;
  const P bgp{"bgp", "bgp"}, rpki{"rpki", "rpki"}, rib{"rib", "rib"};
  c->finder.default_allow = false;
  auto acl = finder::AccessList::Parse(Configurator::AccessListText(*c));
  ASSERT_TRUE(acl.ok()) << acl.status();
  EXPECT_TRUE(acl->Allows(bgp, rpki, "sluice.rpki.v1.Rpki"));
  EXPECT_TRUE(acl->Allows(rpki, bgp, "sluice.rpki_client.v1.RpkiClient"));
  EXPECT_FALSE(acl->Allows(rpki, rib, "sluice.rib.v1.Rib"));
  EXPECT_FALSE(acl->Allows(rpki, bgp, "sluice.bgp.v1.Bgp"));
  c->rpki = RpkiConfig();
  acl = finder::AccessList::Parse(Configurator::AccessListText(*c));
  ASSERT_TRUE(acl.ok()) << acl.status();
  EXPECT_FALSE(acl->Allows(bgp, rpki, "sluice.rpki.v1.Rpki"));
}

TEST(Configurator, NoFinderBlockAllowsEverything) {
  auto c = LoadConfigFile(Example("main-job.conf"));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(Configurator::AccessListText(*c), "");
}

TEST(Configurator, TheDummyFeaStartsWithTheConfiguredInterfaces) {
  auto c = ParseConfig(
      "interfaces { interface eth0 { address 10.1.0.1/24; address 2001:db8::1/64; }\n"
      "             interface eth1 { } }\nfea { backend dummy; }\n",
      "t.conf");
  ASSERT_TRUE(c.ok()) << c.status();
  const std::vector<std::string> flags = Configurator::FeaFlags(*c);
  EXPECT_THAT(flags, Contains("eth0=10.1.0.1/24,2001:db8::1/64"));
  EXPECT_THAT(flags, Contains("eth1"));
  auto n = ParseConfig("fea { backend netlink; table 100; }\n", "n.conf");
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(Configurator::FeaFlags(*n),
            (std::vector<std::string>{"--backend", "netlink", "--table", "100"}));
}

TEST(Configurator, RetainOnExitAndTheRibsRestartTimeAndBacklogReachTheCommandLines) {
  auto c = ParseConfig(
      "fea { backend netlink; retain-on-exit; }\nrib { restart-time 2m; fea-max-backlog 1000; }\n",
      "t.conf");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(Configurator::FeaFlags(*c), Contains("--retain-on-exit"));
  EXPECT_EQ(Configurator::RibFlags(*c),
            (std::vector<std::string>{"--restart-time", "120", "--fea-max-backlog", "1000"}));
  auto b = ParseConfig(
      "protocols { static { route 192.0.2.0/24 { next-hop 10.0.0.1; } }\n"
      "bgp { local-as 65001; bgp-id 10.0.0.1; } }\n",
      "b.conf");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(
      Configurator::RibFlags(*b),
      (std::vector<std::string>{"--restart-time", "60", "--expect-protocols", "static,ebgp,ibgp"}));
  auto d = ParseConfig("fea { backend netlink; }\n", "d.conf");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_THAT(Configurator::FeaFlags(*d), Not(Contains("--retain-on-exit")));
  EXPECT_EQ(Configurator::RibFlags(*d), (std::vector<std::string>{"--restart-time", "60"}));
}

TEST(Configurator, WhereTheFinderTakesTcpTheRibDoesTooBesideItsUnixSocket) {
  auto c = ParseConfig(
      "finder { listen 10.0.0.1 port 7001; listen 2001:db8::1 port 7001; insecure; }\n"
      "fea { remote-only; }\n",
      "t.conf");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->fea.remote_only);
  EXPECT_EQ(
      Configurator::RibFlags(*c),
      (std::vector<std::string>{"--restart-time", "60", "--listen", "unix:default", "--listen",
                                "tcp:10.0.0.1:0", "--listen", "tcp:[2001:db8::1]:0"}));
}

TEST(Configurator, ThePolicySourceParsesBackToTheSameSetsAndStatements) {
  auto c = LoadConfigFile(Example("everything.conf"));
  ASSERT_TRUE(c.ok()) << c.status();
  const std::string source = Configurator::PolicySource(*c);
  auto parsed = policy::ParsePolicy(source, policy::SourceLocation{});
  ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << source;
  EXPECT_EQ(parsed->sets.size(), c->policy.parsed->sets.size());
  ASSERT_EQ(parsed->statements.size(), c->policy.parsed->statements.size());
  for (size_t i = 0; i < parsed->statements.size(); ++i) {
    EXPECT_EQ(parsed->statements[i].name, c->policy.parsed->statements[i].name);
    EXPECT_EQ(parsed->statements[i].terms.size(), c->policy.parsed->statements[i].terms.size());
  }
}

TEST(Configurator, RedistributionBanksRunTheExportChainsThatNameTheProtocol) {
  auto c = ParseConfig(
      "protocols { bgp { local-as 65000; bgp-id 10.0.0.1;\n"
      "  peer 127.0.0.2 { as 65001; export [ a b ]; }\n"
      "  peer 127.0.0.3 { as 65002; export [ b c ]; }\n"
      "  peer 127.0.0.4 { as 65003; } } }\n"
      "policy {\n"
      "  policy-statement a { term t { from { protocol static; } then { accept; } } }\n"
      "  policy-statement b { term t { from { med 5; } then { reject; } } }\n"
      "  policy-statement c { term t { from { protocol connected; } then { accept; } } }\n"
      "}\n",
      "r.conf");
  ASSERT_TRUE(c.ok()) << c.status();
  const auto chains = Configurator::RedistChains(*c);
  ASSERT_EQ(chains.size(), 2u);
  auto names = [&](const char* protocol) {
    std::vector<std::string> out;
    if (chains.count(protocol)) {
      for (const NameRef& ref : chains.at(protocol)) out.push_back(ref.name);
    }
    return out;
  };
  EXPECT_EQ(names("static"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(names("connected"), (std::vector<std::string>{"b", "c"}));
  auto none = ParseConfig("protocols { bgp { local-as 65000; bgp-id 10.0.0.1; } }\n", "n.conf");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(Configurator::RedistChains(*none).empty());
}

}  // namespace
}  // namespace sluice::rtrmgr
