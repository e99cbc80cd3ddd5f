// The FEA against the real Linux kernel, in a private network namespace this test process
// makes (it never touches the host's network configuration; skipped when not root). Everything
// asserted is read back with `ip`, the way an operator would look.
#include <boost/asio/io_context.hpp>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "fea/fib.h"
#include "fea/netlink_fib_backend.h"
#include "fea/netlink_ifmgr.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fea/netns.h"

namespace sluice::fea {
namespace {

using ::testing::HasSubstr;
using testing::KernelPrefixes;
using testing::KernelSkipReason;
using testing::KernelTable;
using testing::MustRun;

constexpr unsigned kTable = 100;

FibRoute R(const std::string& text) {
  auto r = FibRoute::Parse(text);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : FibRoute{};
}
std::string Message(const absl::Status& s) { return std::string(s.message()); }

// The i-th of many test routes: IPv4 /24s in 10.128.0.0/9 and every fifth an IPv6 /64.
std::string TestRoute(int i) {
  if (i % 5 == 4) return absl::StrCat("2001:db8:100:", absl::Hex(i), "::/64 via 2001:db8:1::2");
  return absl::StrCat("10.", 128 + i / 256, ".", i % 256, ".0/24 via 10.1.0.2 dev v0");
}
std::string TestPrefix(int i) { return R(TestRoute(i)).prefix.ToString(); }

class KernelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!KernelSkipReason().empty()) {
      GTEST_SKIP() << KernelSkipReason();
    }
    MustRun(
        "ip link add v0 type veth peer name v1 && ip link add v2 type veth peer name v3 && "
        "ip addr add 10.1.0.1/24 dev v0 && ip addr add 2001:db8:1::1/64 dev v0 nodad && "
        "ip addr add 10.2.0.1/24 dev v2 && ip link set v0 up && ip link set v1 up && "
        "ip link set v0 mtu 9000");
    ifmgr_ = std::make_unique<NetlinkIfMgr>(io_);
    absl::Status s = ifmgr_->Start();
    ASSERT_TRUE(s.ok()) << s;
  }
  void TearDown() override {
    fib_.reset();
    ifmgr_.reset();
    if (KernelSkipReason().empty()) {
      testing::Run("ip link del v0; ip link del v2; ip route flush table " +
                   std::to_string(kTable));
    }
  }

  void StartFib(size_t routes_per_send = 1000) {
    NetlinkFibOptions options;
    options.table = kTable;
    options.routes_per_send = routes_per_send;
    auto backend = std::make_unique<NetlinkFibBackend>(options);
    backend_ = backend.get();
    fib_ = std::make_unique<Fib>(*ifmgr_, std::move(backend));
    absl::Status s = fib_->Start();
    ASSERT_TRUE(s.ok()) << s;
  }

  // Runs the event loop until `done` or 10 s (a hang guard, not a timing assertion).
  bool RunUntil(const std::function<bool()>& done) {
    for (int i = 0; i < 200 && !done(); ++i) {
      io_.restart();
      io_.run_for(std::chrono::milliseconds(50));
    }
    return done();
  }

  absl::Status CommitRoutes(int from, int to, bool add, int per_transaction) {
    for (int start = from; start < to; start += per_transaction) {
      auto id = fib_->StartTransaction("test");
      if (!id.ok()) return id.status();
      for (int i = start; i < std::min(to, start + per_transaction); ++i) {
        absl::Status s = add ? fib_->AddRoute(*id, R(TestRoute(i)))
                             : fib_->DeleteRoute(*id, R(TestRoute(i)).prefix);
        if (!s.ok()) return s;
      }
      auto done = fib_->Commit(*id);
      if (!done.ok()) return done.status();
    }
    return absl::OkStatus();
  }

  boost::asio::io_context io_;
  std::unique_ptr<NetlinkIfMgr> ifmgr_;
  std::unique_ptr<Fib> fib_;
  NetlinkFibBackend* backend_ = nullptr;
};

TEST_F(KernelTest, InterfacesAndAddressesAreReportedAndFollowed) {
  const Interface* v0 = ifmgr_->tree().FindByName("v0");
  ASSERT_NE(v0, nullptr);
  // `ip -o link show v0`: "3: v0@v1: <...> mtu 9000 ... link/ether 6a:3e:99:58:d3:9d brd ..."
  std::string link = MustRun("ip -o link show v0");
  EXPECT_TRUE(absl::StartsWith(link, absl::StrCat(v0->index, ": v0@v1:"))) << link;
  EXPECT_THAT(link, HasSubstr("link/ether " + v0->mac.ToString() + " "));
  EXPECT_EQ(v0->mtu, 9000u);
  EXPECT_TRUE(v0->enabled);
  EXPECT_TRUE(v0->carrier);
  std::set<std::string> addresses;
  for (const InterfaceAddress& a : v0->addresses) addresses.insert(a.ToString());
  EXPECT_TRUE(addresses.count("10.1.0.1/24"));
  EXPECT_TRUE(addresses.count("2001:db8:1::1/64"));
  const Interface* v2 = ifmgr_->tree().FindByName("v2");
  ASSERT_NE(v2, nullptr);
  EXPECT_FALSE(v2->enabled);
  ASSERT_NE(ifmgr_->tree().FindByName("lo"), nullptr);
  EXPECT_TRUE(ifmgr_->tree().FindByName("lo")->IsConnected(*net::IPAddress::Parse("127.0.0.1")));

  std::vector<std::string> events;
  ifmgr_->AddWatcher([&](const InterfaceEvent& e) { events.push_back(e.ToString()); });
  auto saw = [&](const std::string& event) {
    return std::find(events.begin(), events.end(), event) != events.end();
  };
  MustRun("ip addr add 10.3.0.1/16 dev v0");
  EXPECT_TRUE(RunUntil([&] { return saw("address_added v0 10.3.0.1/16"); }));
  MustRun("ip link set v0 down");
  EXPECT_TRUE(RunUntil([&] { return saw("interface_changed v0 disabled no-carrier mtu 9000"); }))
      << ::testing::PrintToString(events);
  EXPECT_FALSE(ifmgr_->tree().FindByName("v0")->enabled);
  MustRun("ip link set v0 up");
  EXPECT_TRUE(RunUntil([&] { return ifmgr_->tree().FindByName("v0")->up(); }));
  MustRun("ip addr del 10.3.0.1/16 dev v0");
  EXPECT_TRUE(RunUntil([&] { return saw("address_removed v0 10.3.0.1/16"); }));
  MustRun("ip link add v4 type veth peer name v5");
  EXPECT_TRUE(RunUntil([&] { return saw("interface_added v4"); }));
  MustRun("ip link del v4");
  EXPECT_TRUE(RunUntil([&] { return saw("interface_removed v4"); }));
  EXPECT_EQ(ifmgr_->tree().FindByName("v4"), nullptr);
  EXPECT_EQ(ifmgr_->tree().FindByName("v5"), nullptr);
}

TEST_F(KernelTest, TenThousandRoutesInTransactionsThenGone) {
  StartFib();
  ASSERT_TRUE(CommitRoutes(0, 10000, /*add=*/true, 1000).ok());
  std::set<std::string> expected;
  for (int i = 0; i < 10000; ++i) expected.insert(TestPrefix(i));
  ASSERT_EQ(expected.size(), 10000u);
  EXPECT_EQ(fib_->size(), 10000u);
  EXPECT_EQ(KernelPrefixes(kTable, kSluiceRouteProtocol), expected)
      << "ip route show table 100 proto 83 lists exactly the routes added";
  std::string sample = MustRun("ip route show table 100 proto 83 10.128.7.0/24");
  EXPECT_EQ(sample, "10.128.7.0/24 via 10.1.0.2 dev v0 \n");
  // Nothing outside Sluice's protocol was written into the table.
  EXPECT_EQ(KernelPrefixes(kTable, 4), std::set<std::string>{});

  ASSERT_TRUE(CommitRoutes(0, 10000, /*add=*/false, 1000).ok());
  EXPECT_EQ(fib_->size(), 0u);
  EXPECT_TRUE(KernelPrefixes(kTable, kSluiceRouteProtocol).empty());
}

TEST_F(KernelTest, BadInputLeavesTheKernelTableUnchanged) {
  StartFib(/*routes_per_send=*/100);
  ASSERT_TRUE(CommitRoutes(0, 300, true, 300).ok());
  const std::string before = KernelTable(kTable);
  auto attempt = [&](const std::vector<std::string>& routes) -> absl::Status {
    auto id = fib_->StartTransaction();
    if (!id.ok()) return id.status();
    for (const std::string& text : routes) {
      auto route = FibRoute::Parse(text);
      if (!route.ok()) {  // what the RPC layer does with a malformed prefix: refuse the call
        fib_->Abort(*id).IgnoreError();
        return route.status();
      }
      if (absl::Status s = fib_->AddRoute(*id, *route); !s.ok()) {
        auto done = fib_->Commit(*id);
        EXPECT_FALSE(done.ok());
        return s;
      }
    }
    auto done = fib_->Commit(*id);
    return done.ok() ? absl::OkStatus() : done.status();
  };
  std::vector<std::string> good;
  for (int i = 0; i < 250; ++i) good.push_back(absl::StrCat("10.50.", i, ".0/24 via 10.1.0.2"));
  auto with = [&](const std::string& bad) {
    std::vector<std::string> routes = good;
    routes.insert(routes.begin() + 120, bad);
    return routes;
  };
  struct Case {
    std::string route;
    std::string error;
  };
  for (const Case& c : std::vector<Case>{
           {"10.60.0.0/16 via 10.1.0.2 dev nosuch0", "unknown interface \"nosuch0\""},
           {"10.60.0.0/16 via 192.0.2.1", "gateway 192.0.2.1 is on no connected network"},
           {"10.60.0.0/33 via 10.1.0.2", "invalid route \"10.60.0.0/33 via 10.1.0.2\""},
           {"10.60.0.1/16 via 10.1.0.2", "invalid route \"10.60.0.1/16 via 10.1.0.2\""},
           // Valid for the FEA, refused by the kernel (v2 is down).
           {"10.60.0.0/16 via 10.2.0.9 dev v2 onlink",
            "the netlink backend refused add 10.60.0.0/16 via 10.2.0.9 dev v2 onlink: Network "
            "is down (ENETDOWN): Nexthop device is not up"},
       }) {
    SCOPED_TRACE(c.route);
    absl::Status s = attempt(with(c.route));
    EXPECT_FALSE(s.ok());
    EXPECT_THAT(Message(s), HasSubstr(c.error));
    EXPECT_EQ(KernelTable(kTable), before);
    EXPECT_EQ(fib_->size(), 300u);
  }
  // The kernel refuses a route because it clashes with one Sluice does not own.
  MustRun("ip route add 10.61.0.0/16 via 10.1.0.9 table 100 proto static");
  const std::string with_foreign = KernelTable(kTable);
  absl::Status s = attempt(with("10.61.0.0/16 via 10.1.0.2"));
  EXPECT_THAT(Message(s), HasSubstr("refused add 10.61.0.0/16 via 10.1.0.2: File exists (EEXIST)"));
  EXPECT_EQ(KernelTable(kTable), with_foreign) << "the foreign route is neither overwritten";
  // An interface that vanished before the FEA heard of it (no event loop run in between).
  MustRun("ip link add v6 type veth peer name v7 && ip link set v6 up");
  ASSERT_TRUE(RunUntil([&] { return ifmgr_->tree().FindByName("v6") != nullptr; }));
  MustRun("ip link del v6");
  s = attempt(with("10.62.0.0/16 dev v6"));
  EXPECT_THAT(Message(s), HasSubstr("refused add 10.62.0.0/16 dev v6: No such device (ENODEV)"));
  EXPECT_EQ(KernelTable(kTable), with_foreign);
  EXPECT_EQ(fib_->size(), 300u);
}

TEST_F(KernelTest, CrashLeftoversAreKeptUntilTheFullPushThenReconciled) {
  StartFib();
  ASSERT_TRUE(CommitRoutes(0, 3000, true, 1000).ok());
  MustRun("ip route add 10.99.0.0/16 via 10.1.0.9 table 100 proto static");
  // A crash: the process goes away without Shutdown().
  fib_.reset();
  ASSERT_EQ(KernelPrefixes(kTable, kSluiceRouteProtocol).size(), 3000u);

  StartFib();
  EXPECT_EQ(fib_->stale_route_count(), 3000u);
  EXPECT_EQ(fib_->size(), 0u);
  EXPECT_EQ(KernelPrefixes(kTable, kSluiceRouteProtocol).size(), 3000u)
      << "leftovers keep forwarding until the FIB has been pushed again";
  // The RIB re-sends: 2,000 of the old routes (500 of them with a new gateway) and 500 new.
  auto id = fib_->StartTransaction();
  for (int i = 0; i < 2000; ++i) {
    std::string text = TestRoute(i);
    if (i < 500 && i % 5 != 4) text = absl::StrCat(R(text).prefix.ToString(), " via 10.1.0.3");
    ASSERT_TRUE(fib_->AddRoute(*id, R(text)).ok()) << text;
  }
  for (int i = 5000; i < 5500; ++i) ASSERT_TRUE(fib_->AddRoute(*id, R(TestRoute(i))).ok());
  auto done = fib_->Commit(*id);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(fib_->stale_route_count(), 1000u);
  auto removed = fib_->CompleteFullPush();
  ASSERT_TRUE(removed.ok()) << removed.status();
  EXPECT_EQ(*removed, 1000u);
  EXPECT_EQ(fib_->stale_route_count(), 0u);
  std::set<std::string> expected;
  for (int i = 0; i < 2000; ++i) expected.insert(TestPrefix(i));
  for (int i = 5000; i < 5500; ++i) expected.insert(TestPrefix(i));
  EXPECT_EQ(KernelPrefixes(kTable, kSluiceRouteProtocol), expected);
  EXPECT_EQ(MustRun("ip route show table 100 proto 83 10.128.1.0/24"),
            "10.128.1.0/24 via 10.1.0.3 dev v0 \n")
      << "a re-added leftover takes the new nexthop";
  EXPECT_THAT(MustRun("ip route show table 100 proto static"), HasSubstr("10.99.0.0/16"));

  // A clean shutdown removes every Sluice route and only those.
  ASSERT_TRUE(fib_->Shutdown().ok());
  EXPECT_TRUE(KernelPrefixes(kTable, kSluiceRouteProtocol).empty());
  EXPECT_THAT(MustRun("ip route show table 100 proto static"), HasSubstr("10.99.0.0/16"));
}

TEST_F(KernelTest, RoutesComeBackWhenTheirInterfaceComesUp) {
  // Linux removes IPv6 addresses from an interface that goes down unless told to keep them;
  // without its address the IPv6 routes' gateways would be on no connected network.
  MustRun("sysctl -qw net.ipv6.conf.v0.keep_addr_on_down=1");
  StartFib();
  ASSERT_TRUE(CommitRoutes(0, 100, true, 100).ok());
  std::set<std::string> all = KernelPrefixes(kTable, kSluiceRouteProtocol);
  ASSERT_EQ(all.size(), 100u);
  bool down_seen = false;
  ifmgr_->AddWatcher([&](const InterfaceEvent& e) {
    if (e.interface.name == "v0" && !e.interface.enabled) down_seen = true;
  });
  MustRun("ip link set v0 down");
  ASSERT_TRUE(RunUntil([&] { return down_seen; }));
  EXPECT_TRUE(KernelPrefixes(kTable, kSluiceRouteProtocol).empty())
      << "Linux drops routes through an interface that goes down";
  EXPECT_EQ(fib_->size(), 100u) << "the FIB still holds them";
  MustRun("ip link set v0 up");
  EXPECT_TRUE(RunUntil([&] { return KernelPrefixes(kTable, kSluiceRouteProtocol) == all; }));
}

}  // namespace
}  // namespace sluice::fea

int main(int argc, char** argv) {
  sluice::fea::testing::EnterPrivateNetworkNamespace();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
