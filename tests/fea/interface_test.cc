// The interface model, the tree's change events and the dummy (configured) ifmgr.
#include "fea/interface.h"

#include <string>
#include <vector>

#include "fea/dummy_ifmgr.h"
#include "fea/interface_tree.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice::fea {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

net::IPAddress Ip(const char* text) { return *net::IPAddress::Parse(text); }

std::vector<std::string> Texts(const std::vector<InterfaceEvent>& events) {
  std::vector<std::string> out;
  for (const InterfaceEvent& e : events) out.push_back(e.ToString());
  return out;
}

TEST(MacAddressTest, ParsesAndPrints) {
  auto mac = MacAddress::Parse("02:00:5E:10:0:1");
  ASSERT_TRUE(mac.ok()) << mac.status();
  EXPECT_EQ(mac->ToString(), "02:00:5e:10:00:01");
  EXPECT_FALSE(mac->is_zero());
  EXPECT_TRUE(MacAddress().is_zero());
  for (const char* bad :
       {"", "02:00:5e:10:00", "02:00:5e:10:00:01:02", "02:00:5e:10:00:xyz", "0200:5e:10:00:01:"}) {
    auto r = MacAddress::Parse(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_THAT(std::string(r.status().message()), HasSubstr("invalid MAC"));
    }
  }
}

TEST(InterfaceTreeTest, ReportsOnlyRealChanges) {
  InterfaceTree tree;
  Interface eth;
  eth.index = 3;
  eth.name = "eth0";
  eth.enabled = true;
  eth.carrier = true;
  eth.mtu = 1500;
  EXPECT_THAT(Texts(tree.SetInterface(eth)), ElementsAre("interface_added eth0"));
  EXPECT_TRUE(tree.SetInterface(eth).empty()) << "the same link twice is no change";
  EXPECT_THAT(Texts(tree.AddAddress(3, {Ip("10.1.0.1"), 24})),
              ElementsAre("address_added eth0 10.1.0.1/24"));
  EXPECT_TRUE(tree.AddAddress(3, {Ip("10.1.0.1"), 24}).empty());
  EXPECT_TRUE(tree.AddAddress(99, {Ip("10.9.0.1"), 24}).empty()) << "unknown interface";
  // A new prefix length for the same address: removal then addition.
  EXPECT_THAT(Texts(tree.AddAddress(3, {Ip("10.1.0.1"), 16})),
              ElementsAre("address_removed eth0 10.1.0.1/24", "address_added eth0 10.1.0.1/16"));
  eth.enabled = false;
  EXPECT_THAT(Texts(tree.SetInterface(eth)),
              ElementsAre("interface_changed eth0 disabled carrier mtu 1500"));
  // Link changes keep the addresses.
  EXPECT_EQ(tree.FindByName("eth0")->addresses.size(), 1u);
  EXPECT_THAT(Texts(tree.RemoveInterface(3)),
              ElementsAre("address_removed eth0 10.1.0.1/16", "interface_removed eth0"));
  EXPECT_EQ(tree.size(), 0u);
}

TEST(InterfaceTreeTest, FindConnectedPrefersTheLongestNetwork) {
  InterfaceTree tree;
  for (uint32_t index : {1u, 2u}) {
    Interface i;
    i.index = index;
    i.name = index == 1 ? "wide" : "narrow";
    tree.SetInterface(i);
  }
  tree.AddAddress(1, {Ip("10.0.0.1"), 8});
  tree.AddAddress(2, {Ip("10.1.0.1"), 24});
  tree.AddAddress(2, {Ip("2001:db8:1::1"), 64});
  EXPECT_EQ(tree.FindConnected(Ip("10.1.0.77"))->name, "narrow");
  EXPECT_EQ(tree.FindConnected(Ip("10.2.0.77"))->name, "wide");
  EXPECT_EQ(tree.FindConnected(Ip("2001:db8:1::9"))->name, "narrow");
  EXPECT_EQ(tree.FindConnected(Ip("192.0.2.1")), nullptr);
  EXPECT_EQ(tree.FindConnected(Ip("2001:db8:2::9")), nullptr);
}

TEST(InterfaceTreeTest, ReplaceWithReportsTheDifference) {
  InterfaceTree a, b;
  Interface x;
  x.index = 2;
  x.name = "x";
  Interface y;
  y.index = 3;
  y.name = "y";
  a.SetInterface(x);
  a.AddAddress(2, {Ip("10.1.0.1"), 24});
  a.AddAddress(2, {Ip("10.2.0.1"), 24});
  a.SetInterface(y);
  x.mtu = 9000;
  b.SetInterface(x);
  b.AddAddress(2, {Ip("10.1.0.1"), 24});
  b.AddAddress(2, {Ip("10.3.0.1"), 24});
  EXPECT_THAT(Texts(a.ReplaceWith(b)),
              ElementsAre("interface_removed y", "interface_changed x disabled no-carrier mtu 9000",
                          "address_removed x 10.2.0.1/24", "address_added x 10.3.0.1/24"));
  EXPECT_TRUE(a.ReplaceWith(b).empty());
}

TEST(DummyIfMgrTest, StartsWithLoopback) {
  DummyIfMgr ifmgr;
  ASSERT_TRUE(ifmgr.Start().ok());
  EXPECT_EQ(ifmgr.backend_name(), "dummy");
  const Interface* lo = ifmgr.tree().FindByName("lo");
  ASSERT_NE(lo, nullptr);
  EXPECT_EQ(lo->ToString(), "lo index 1 enabled carrier mtu 65536 127.0.0.1/8 ::1/128");
  EXPECT_TRUE(lo->up());
  EXPECT_EQ(DummyIfMgr(false).tree().size(), 0u);
}

TEST(DummyIfMgrTest, ConfigurationChangesReachWatchers) {
  DummyIfMgr ifmgr;
  std::vector<std::string> seen;
  WatcherId id = ifmgr.AddWatcher([&](const InterfaceEvent& e) { seen.push_back(e.ToString()); });
  DummyInterfaceConfig eth;
  eth.name = "eth0";
  eth.mac = *MacAddress::Parse("02:00:00:00:00:01");
  auto index = ifmgr.AddInterface(eth);
  ASSERT_TRUE(index.ok()) << index.status();
  EXPECT_EQ(*index, 2u);
  ASSERT_TRUE(ifmgr.AddAddress("eth0", Ip("192.0.2.1"), 24).ok());
  ASSERT_TRUE(ifmgr.SetEnabled("eth0", false).ok());
  ASSERT_TRUE(ifmgr.SetEnabled("eth0", false).ok());  // no change, no event
  ASSERT_TRUE(ifmgr.SetMtu("eth0", 9000).ok());
  ASSERT_TRUE(ifmgr.RemoveAddress("eth0", Ip("192.0.2.1")).ok());
  ASSERT_TRUE(ifmgr.RemoveInterface("eth0").ok());
  EXPECT_THAT(seen, ElementsAre("interface_added eth0", "address_added eth0 192.0.2.1/24",
                                "interface_changed eth0 disabled carrier mtu 1500",
                                "interface_changed eth0 disabled carrier mtu 9000",
                                "address_removed eth0 192.0.2.1/24", "interface_removed eth0"));
  EXPECT_TRUE(ifmgr.RemoveWatcher(id));
  seen.clear();
  ASSERT_TRUE(ifmgr.AddInterface(eth).ok());
  EXPECT_TRUE(seen.empty());
  EXPECT_EQ(ifmgr.tree().FindByName("eth0")->index, 3u) << "indices are not reused";
}

TEST(DummyIfMgrTest, RefusesBadConfigurationWithClearErrors) {
  DummyIfMgr ifmgr;
  auto message = [](const absl::Status& s) { return std::string(s.message()); };
  DummyInterfaceConfig bad;
  bad.name = "a name with spaces";
  EXPECT_THAT(message(ifmgr.AddInterface(bad).status()), HasSubstr("invalid interface name"));
  bad.name = "this-name-is-far-too-long";
  EXPECT_FALSE(ifmgr.AddInterface(bad).ok());
  bad.name = "lo";
  EXPECT_EQ(ifmgr.AddInterface(bad).status().code(), absl::StatusCode::kAlreadyExists);
  bad.name = "eth9";
  bad.mtu = 20;
  EXPECT_THAT(message(ifmgr.AddInterface(bad).status()), HasSubstr("MTU 20 out of range"));
  EXPECT_EQ(ifmgr.SetEnabled("nope", true).code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(message(ifmgr.AddAddress("lo", Ip("10.0.0.1"), 33)),
              HasSubstr("prefix length out of range"));
  EXPECT_THAT(message(ifmgr.AddAddress("lo", Ip("224.0.0.1"), 4)),
              HasSubstr("cannot be an interface address"));
  EXPECT_THAT(message(ifmgr.RemoveAddress("lo", Ip("10.0.0.1"))), HasSubstr("has no address"));
  EXPECT_EQ(ifmgr.tree().FindByName("lo")->addresses.size(), 2u);
}

}  // namespace
}  // namespace sluice::fea
