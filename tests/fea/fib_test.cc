// The Fib through its public interface, run once with each backend: the dummy one (in memory)
// and the netlink one (the kernel, inside a private network namespace this test process makes;
// skipped when not root). What the forwarding plane holds is read back independently: for
// netlink with `ip route show table 100`, so a passing test means the kernel really holds (or
// does not hold) the routes.
#include "fea/fib.h"

#include <boost/asio/io_context.hpp>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "fea/dummy_fib_backend.h"
#include "fea/dummy_ifmgr.h"
#include "fea/netlink_fib_backend.h"
#include "fea/netlink_ifmgr.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fea/netns.h"

namespace sluice::fea {
namespace {

using ::testing::ElementsAre;
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
net::Prefix P(const char* text) { return *net::Prefix::Parse(text); }
net::IPAddress Ip(const char* text) { return *net::IPAddress::Parse(text); }
std::string Message(const absl::Status& s) { return std::string(s.message()); }

enum class Backend { kDummy, kNetlink };

// Both setups have the same interfaces: v0 (up; 10.1.0.1/24, 2001:db8:1::1/64) and v2
// (administratively down; 10.2.0.1/24).
class FibTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    std::unique_ptr<FibBackend> backend;
    if (GetParam() == Backend::kNetlink) {
      if (!KernelSkipReason().empty()) {
        GTEST_SKIP() << KernelSkipReason();
      }
      MustRun(
          "ip link add v0 type veth peer name v1 && ip link add v2 type veth peer name v3 && "
          "ip addr add 10.1.0.1/24 dev v0 && ip addr add 2001:db8:1::1/64 dev v0 nodad && "
          "ip addr add 10.2.0.1/24 dev v2 && ip link set v0 up && ip link set v1 up");
      ifmgr_ = std::make_unique<NetlinkIfMgr>(io_);
      NetlinkFibOptions options;
      options.table = kTable;
      options.routes_per_send = 64;  // several batches per transaction
      backend = std::make_unique<NetlinkFibBackend>(options);
    } else {
      auto dummy = std::make_unique<DummyIfMgr>();
      DummyInterfaceConfig v0, v2;
      v0.name = "v0";
      v2.name = "v2";
      v2.enabled = false;
      ASSERT_TRUE(dummy->AddInterface(v0).ok());
      ASSERT_TRUE(dummy->AddInterface(v2).ok());
      ASSERT_TRUE(dummy->AddAddress("v0", Ip("10.1.0.1"), 24).ok());
      ASSERT_TRUE(dummy->AddAddress("v0", Ip("2001:db8:1::1"), 64).ok());
      ASSERT_TRUE(dummy->AddAddress("v2", Ip("10.2.0.1"), 24).ok());
      dummy_ifmgr_ = dummy.get();
      ifmgr_ = std::move(dummy);
      auto d = std::make_unique<DummyFibBackend>();
      dummy_backend_ = d.get();
      backend = std::move(d);
    }
    ASSERT_TRUE(ifmgr_->Start().ok());
    fib_ = std::make_unique<Fib>(*ifmgr_, std::move(backend));
    absl::Status started = fib_->Start();
    ASSERT_TRUE(started.ok()) << started;
  }

  void TearDown() override {
    if (fib_) {
      absl::Status s = fib_->Shutdown();
      EXPECT_TRUE(s.ok()) << s;
    }
    fib_.reset();
    ifmgr_.reset();
    if (GetParam() == Backend::kNetlink && KernelSkipReason().empty()) {
      EXPECT_EQ(KernelPrefixes(kTable, kSluiceRouteProtocol).size(), 0u)
          << "Shutdown leaves no route of Sluice's protocol behind";
      testing::Run("ip link del v0; ip link del v2");
    }
  }

  bool netlink() const { return GetParam() == Backend::kNetlink; }

  // A route the forwarding plane refuses although it passes validation: for the kernel an
  // onlink nexthop on the down interface v2 ("Nexthop device is not up").
  FibRoute RefusedRoute() {
    if (!netlink()) dummy_backend_->RefuseRoutesMatching(P("10.66.0.0/16"));
    return R("10.66.0.0/16 via 10.2.0.9 dev v2 onlink");
  }
  std::string RefusalReason() const {
    return netlink() ? "Network is down (ENETDOWN)" : "refused by the dummy forwarding plane";
  }

  // The prefixes the forwarding plane holds, read back from it.
  std::set<std::string> ForwardingPlane() {
    if (netlink()) return KernelPrefixes(kTable, kSluiceRouteProtocol);
    std::set<std::string> out;
    fib_->table().ForEach(std::nullopt, std::nullopt, [&](const FibRoute& r) {
      out.insert(r.prefix.ToString());
      return true;
    });
    return out;
  }
  // Everything observable: the Fib's routes and (netlink) the kernel table in full.
  std::string Snapshot() {
    std::string s;
    fib_->table().ForEach(std::nullopt, std::nullopt, [&](const FibRoute& r) {
      s += r.ToString() + "\n";
      return true;
    });
    if (netlink()) s += KernelTable(kTable);
    return s;
  }

  absl::StatusOr<CommitResult> Commit(const std::vector<std::string>& adds) {
    auto id = fib_->StartTransaction("test");
    if (!id.ok()) return id.status();
    for (const std::string& a : adds) {
      if (absl::Status s = fib_->AddRoute(*id, R(a)); !s.ok()) return s;
    }
    return fib_->Commit(*id);
  }

  std::string Lookup(const char* address) {
    std::optional<FibRoute> r = fib_->LookupByDestination(Ip(address));
    return r ? r->ToString() : "none";
  }

  boost::asio::io_context io_;
  std::unique_ptr<IfMgr> ifmgr_;
  std::unique_ptr<Fib> fib_;
  DummyFibBackend* dummy_backend_ = nullptr;
  DummyIfMgr* dummy_ifmgr_ = nullptr;
};

TEST_P(FibTest, AddLookupReplaceDelete) {
  auto done = Commit({"10.5.0.0/16 via 10.1.0.2 dev v0 metric 20 proto ebgp",
                      "10.6.0.0/16 via 10.1.0.2",  // interface found from the gateway
                      "10.1.0.128/25 dev v0 proto static",
                      "10.7.0.0/16 via 10.1.0.2 dev v0 via 10.1.0.3 dev v0 weight 3",
                      "2001:db8:5::/48 via 2001:db8:1::2 dev v0",
                      "2001:db8:6::/48 via fe80::1 dev v0 via fe80::2 dev v0",
                      "2001:db8:7::/48 via fe80::1 dev v0 via fe80::2 dev v0"});
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->added, 7u);
  EXPECT_EQ(fib_->size(), 7u);
  EXPECT_EQ(ForwardingPlane(),
            (std::set<std::string>{"10.5.0.0/16", "10.6.0.0/16", "10.1.0.128/25", "10.7.0.0/16",
                                   "2001:db8:5::/48", "2001:db8:6::/48", "2001:db8:7::/48"}));
  EXPECT_EQ(Lookup("10.5.1.1"), "10.5.0.0/16 via 10.1.0.2 dev v0 metric 20 proto ebgp");
  EXPECT_EQ(Lookup("10.1.0.200"), "10.1.0.128/25 dev v0 proto static");
  EXPECT_EQ(Lookup("10.1.0.100"), "none");
  EXPECT_EQ(Lookup("2001:db8:6::1"), "2001:db8:6::/48 via fe80::1 dev v0 via fe80::2 dev v0");
  ASSERT_TRUE(fib_->LookupByPrefix(P("10.7.0.0/16")).has_value());
  EXPECT_EQ(fib_->LookupByPrefix(P("10.7.0.0/16"))->nexthops.size(), 2u);
  EXPECT_FALSE(fib_->LookupByPrefix(P("10.7.0.0/17")).has_value());
  if (netlink()) {
    std::string kernel = KernelTable(kTable);
    EXPECT_THAT(kernel, HasSubstr("10.5.0.0/16 via 10.1.0.2 dev v0 proto 83 metric 20"));
    EXPECT_THAT(kernel, HasSubstr("nexthop via 10.1.0.3 dev v0 weight 3"));
    EXPECT_THAT(kernel, HasSubstr("2001:db8:5::/48 via 2001:db8:1::2 dev v0 proto 83"));
  }

  // Replace: same metric (one kernel route), then a new metric (the old route must go).
  auto id = fib_->StartTransaction();
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(fib_->ReplaceRoute(*id, R("10.5.0.0/16 via 10.1.0.9 dev v0 metric 20")).ok());
  ASSERT_TRUE(fib_->ReplaceRoute(*id, R("10.6.0.0/16 via 10.1.0.9 metric 7")).ok());
  ASSERT_TRUE(fib_->DeleteRoute(*id, P("2001:db8:6::/48")).ok());
  ASSERT_TRUE(fib_->ReplaceRoute(*id, R("2001:db8:7::/48 via fe80::3 dev v0")).ok());
  done = fib_->Commit(*id);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->replaced, 3u);
  EXPECT_EQ(done->deleted, 1u);
  EXPECT_EQ(Lookup("10.5.1.1"), "10.5.0.0/16 via 10.1.0.9 dev v0 metric 20");
  EXPECT_EQ(Lookup("10.6.1.1"), "10.6.0.0/16 via 10.1.0.9 metric 7");
  EXPECT_EQ(Lookup("2001:db8:6::1"), "none");
  if (netlink()) {
    std::string kernel = KernelTable(kTable);
    EXPECT_THAT(kernel, HasSubstr("10.5.0.0/16 via 10.1.0.9 dev v0 proto 83 metric 20"));
    EXPECT_THAT(kernel, HasSubstr("10.6.0.0/16 via 10.1.0.9 dev v0 proto 83 metric 7"));
    EXPECT_THAT(kernel, ::testing::Not(HasSubstr("10.1.0.2 dev v0 proto 83 metric 20")));
    EXPECT_THAT(kernel, ::testing::Not(HasSubstr("2001:db8:6::")));
    // The IPv6 multipath route became one route with the one new nexthop.
    EXPECT_EQ(MustRun("ip -6 route show table 100 2001:db8:7::/48"),
              "2001:db8:7::/48 via fe80::3 dev v0 proto 83 metric 1024 pref medium\n");
  }
  EXPECT_EQ(ForwardingPlane().size(), 6u);
}

TEST_P(FibTest, SetAndDeleteIfPresentTakeARepeatedFibAsItComes) {
  ASSERT_TRUE(Commit({"10.5.0.0/16 via 10.1.0.2"}).ok());
  auto id = fib_->StartTransaction();
  ASSERT_TRUE(id.ok());
  // Set: a replace of the present prefix, an add of the absent one.
  ASSERT_TRUE(fib_->SetRoute(*id, R("10.5.0.0/16 via 10.1.0.3")).ok());
  ASSERT_TRUE(fib_->SetRoute(*id, R("10.6.0.0/16 via 10.1.0.3")).ok());
  auto gone = fib_->DeleteRouteIfPresent(*id, P("10.9.0.0/16"));
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(*gone) << "absent: nothing queued, no error";
  auto done = fib_->Commit(*id);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->added, 1u);
  EXPECT_EQ(done->replaced, 1u);
  EXPECT_EQ(Lookup("10.5.1.1"), "10.5.0.0/16 via 10.1.0.3");
  id = fib_->StartTransaction();
  gone = fib_->DeleteRouteIfPresent(*id, P("10.5.0.0/16"));
  ASSERT_TRUE(gone.ok());
  EXPECT_TRUE(*gone);
  // Validation still applies to Set.
  EXPECT_EQ(fib_->SetRoute(*id, R("10.7.0.0/16 via 192.0.2.1")).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(fib_->Commit(*id).ok());
  EXPECT_EQ(ForwardingPlane(), (std::set<std::string>{"10.5.0.0/16", "10.6.0.0/16"}));
}

TEST_P(FibTest, ConnectedRoutesAreTheKernelsOwn) {
  // The RIB sends the subnets of interface addresses as "connected" routes: kept in the table,
  // not written to the kernel (which has them already).
  ASSERT_TRUE(Commit({"10.1.0.0/24 dev v0 proto connected", "10.5.0.0/16 via 10.1.0.2"}).ok());
  EXPECT_EQ(fib_->size(), 2u);
  EXPECT_TRUE(fib_->LookupByPrefix(P("10.1.0.0/24")).has_value());
  if (netlink()) {
    EXPECT_EQ(ForwardingPlane(), (std::set<std::string>{"10.5.0.0/16"}));
  }
  // A connected route replaced by a static one (the address went) is written then; the other
  // way round the static one leaves the kernel.
  auto id = fib_->StartTransaction();
  ASSERT_TRUE(fib_->ReplaceRoute(*id, R("10.1.0.0/24 dev v0 proto static")).ok());
  ASSERT_TRUE(fib_->ReplaceRoute(*id, R("10.5.0.0/16 dev v0 proto connected")).ok());
  ASSERT_TRUE(fib_->Commit(*id).ok());
  if (netlink()) {
    EXPECT_EQ(ForwardingPlane(), (std::set<std::string>{"10.1.0.0/24"}));
  }
  id = fib_->StartTransaction();
  ASSERT_TRUE(fib_->DeleteRoute(*id, P("10.5.0.0/16")).ok());
  ASSERT_TRUE(fib_->Commit(*id).ok());
  EXPECT_EQ(fib_->size(), 1u);
}

TEST_P(FibTest, InvalidRoutesAreRefusedWithClearErrorsAndChangeNothing) {
  ASSERT_TRUE(Commit({"10.5.0.0/16 via 10.1.0.2 dev v0"}).ok());
  const std::string before = Snapshot();
  struct Case {
    std::string route;
    std::string error;
  };
  for (const Case& c : std::vector<Case>{
           {"10.8.0.0/16 via 10.1.0.2 dev eth7", "unknown interface \"eth7\""},
           {"10.8.0.0/16 via 10.9.9.9", "gateway 10.9.9.9 is on no connected network"},
           {"10.8.0.0/16 via 10.2.0.9 dev v0",
            "gateway 10.2.0.9 is on no connected network of interface v0"},
           {"10.8.0.0/16 via 10.9.9.9 onlink", "\"onlink\" needs an interface"},
           {"10.8.0.0/16 via 2001:db8:1::2 dev v0", "is not ipv4 like the prefix"},
           {"2001:db8:8::/48 via fe80::1", "link-local gateway fe80::1 needs an interface"},
           {"10.8.0.0/16 via 224.0.0.1 dev v0 onlink", "not a unicast address"},
           {"10.5.0.0/16 via 10.1.0.3", "10.5.0.0/16 is already in the FIB (use replace)"},
       }) {
    SCOPED_TRACE(c.route);
    auto id = fib_->StartTransaction();
    ASSERT_TRUE(id.ok());
    // A valid change first: it must not be applied either.
    ASSERT_TRUE(fib_->AddRoute(*id, R("10.9.0.0/16 via 10.1.0.2")).ok());
    absl::Status queued = fib_->AddRoute(*id, R(c.route));
    EXPECT_FALSE(queued.ok());
    EXPECT_THAT(Message(queued), HasSubstr(c.error));
    EXPECT_THAT(Message(queued), HasSubstr(R(c.route).ToString())) << "the error names the route";
    // The transaction is poisoned: later changes are refused, the commit applies nothing.
    EXPECT_FALSE(fib_->AddRoute(*id, R("10.10.0.0/16 via 10.1.0.2")).ok());
    auto done = fib_->Commit(*id);
    ASSERT_FALSE(done.ok());
    EXPECT_THAT(Message(done.status()), HasSubstr("not committed, FIB unchanged"));
    EXPECT_THAT(Message(done.status()), HasSubstr(c.error));
    EXPECT_EQ(Snapshot(), before);
  }
  // Replace and delete of absent prefixes.
  auto id = fib_->StartTransaction();
  EXPECT_THAT(Message(fib_->DeleteRoute(*id, P("10.99.0.0/16"))),
              HasSubstr("delete 10.99.0.0/16: not in the FIB"));
  ASSERT_TRUE(fib_->Abort(*id).ok());
  id = fib_->StartTransaction();
  EXPECT_EQ(fib_->ReplaceRoute(*id, R("10.99.0.0/16 via 10.1.0.2")).code(),
            absl::StatusCode::kNotFound);
  ASSERT_TRUE(fib_->Abort(*id).ok());
  EXPECT_EQ(fib_->Commit(*id).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Snapshot(), before);
}

TEST_P(FibTest, RefusedRouteUndoesTheWholeTransaction) {
  ASSERT_TRUE(Commit({"10.5.0.0/16 via 10.1.0.2 dev v0", "10.6.0.0/16 via 10.1.0.2 dev v0",
                      "2001:db8:5::/48 via 2001:db8:1::2 dev v0"})
                  .ok());
  const std::string before = Snapshot();
  const std::set<std::string> plane_before = ForwardingPlane();
  auto id = fib_->StartTransaction();
  ASSERT_TRUE(id.ok());
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(fib_->AddRoute(*id, R("10.20." + std::to_string(i) + ".0/24 via 10.1.0.2")).ok());
  }
  ASSERT_TRUE(fib_->ReplaceRoute(*id, R("10.5.0.0/16 via 10.1.0.7 dev v0 metric 9")).ok());
  ASSERT_TRUE(fib_->ReplaceRoute(*id, R("10.6.0.0/16 via 10.1.0.7 dev v0")).ok());
  ASSERT_TRUE(fib_->DeleteRoute(*id, P("2001:db8:5::/48")).ok());
  FibRoute refused = RefusedRoute();
  ASSERT_TRUE(fib_->AddRoute(*id, refused).ok()) << "valid for the FEA; only the plane refuses";
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(fib_->AddRoute(*id, R("2001:db8:20:" + std::to_string(i) +
                                      "::/64 via 2001:db8:1::2 dev v0"))
                    .ok());
  }
  std::vector<std::string> heard;
  fib_->AddWatcher([&](std::span<const FibChange> changes) {
    for (const FibChange& c : changes) heard.push_back(c.ToString());
  });
  auto done = fib_->Commit(*id);
  ASSERT_FALSE(done.ok());
  EXPECT_THAT(Message(done.status()), HasSubstr("refused add " + refused.ToString()));
  EXPECT_THAT(Message(done.status()), HasSubstr(RefusalReason()));
  EXPECT_THAT(Message(done.status()), HasSubstr("undone"));
  EXPECT_THAT(Message(done.status()), HasSubstr("FIB unchanged"));
  EXPECT_EQ(Snapshot(), before);
  EXPECT_EQ(ForwardingPlane(), plane_before);
  EXPECT_TRUE(heard.empty()) << "watchers hear of nothing: nothing changed";
  EXPECT_EQ(Lookup("10.5.0.1"), "10.5.0.0/16 via 10.1.0.2 dev v0");
}

TEST_P(FibTest, CommitChecksRoutesAgainstInterfacesChangedSinceTheyWereQueued) {
  auto id = fib_->StartTransaction();
  ASSERT_TRUE(fib_->AddRoute(*id, R("10.5.0.0/16 via 10.1.0.2")).ok());
  ASSERT_TRUE(fib_->AddRoute(*id, R("10.6.0.0/16 via 10.1.0.2 dev v0")).ok());
  // 10.1.0.0/24 leaves v0 before the commit.
  if (netlink()) {
    MustRun("ip addr del 10.1.0.1/24 dev v0");
    for (int i = 0; i < 200 && ifmgr_->tree().FindConnected(Ip("10.1.0.2")); ++i) {
      io_.restart();
      io_.run_for(std::chrono::milliseconds(50));
    }
  } else {
    ASSERT_TRUE(dummy_ifmgr_->RemoveAddress("v0", Ip("10.1.0.1")).ok());
  }
  ASSERT_EQ(ifmgr_->tree().FindConnected(Ip("10.1.0.2")), nullptr);
  auto done = fib_->Commit(*id);
  ASSERT_FALSE(done.ok());
  EXPECT_THAT(Message(done.status()),
              HasSubstr("route 10.5.0.0/16 via 10.1.0.2: gateway 10.1.0.2 is on no connected "
                        "network"));
  EXPECT_EQ(fib_->size(), 0u);
  EXPECT_TRUE(ForwardingPlane().empty());
}

TEST_P(FibTest, ConcurrentTransactionsFirstCommitWins) {
  auto a = fib_->StartTransaction("a");
  auto b = fib_->StartTransaction("b");
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(fib_->AddRoute(*a, R("10.5.0.0/16 via 10.1.0.2")).ok());
  ASSERT_TRUE(fib_->AddRoute(*b, R("10.5.0.0/16 via 10.1.0.3")).ok());
  ASSERT_TRUE(fib_->AddRoute(*b, R("10.6.0.0/16 via 10.1.0.3")).ok());
  EXPECT_EQ(fib_->open_transactions(), 2u);
  ASSERT_TRUE(fib_->Commit(*a).ok());
  auto done = fib_->Commit(*b);
  EXPECT_EQ(done.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(Message(done.status()),
              HasSubstr("10.5.0.0/16 was added to the FIB by a transaction committed since"));
  EXPECT_EQ(Lookup("10.5.0.1"), "10.5.0.0/16 via 10.1.0.2");
  EXPECT_EQ(Lookup("10.6.0.1"), "none");
  EXPECT_EQ(ForwardingPlane(), std::set<std::string>{"10.5.0.0/16"});
  EXPECT_EQ(fib_->open_transactions(), 0u);
}

TEST_P(FibTest, ASetDependsOnNoEarlierCommit) {
  // A set leaves its prefix present either way: a transaction committed meanwhile that added
  // the prefix does not fail it, and its route replaces the one that transaction added.
  auto a = fib_->StartTransaction("a");
  auto b = fib_->StartTransaction("b");
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(fib_->SetRoute(*b, R("10.5.0.0/16 via 10.1.0.3")).ok());
  ASSERT_TRUE(fib_->AddRoute(*a, R("10.5.0.0/16 via 10.1.0.2")).ok());
  ASSERT_TRUE(fib_->Commit(*a).ok());
  auto done = fib_->Commit(*b);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->replaced, 1u);
  EXPECT_EQ(done->added, 0u);
  EXPECT_EQ(Lookup("10.5.0.1"), "10.5.0.0/16 via 10.1.0.3");
  EXPECT_EQ(ForwardingPlane(), std::set<std::string>{"10.5.0.0/16"});
}

TEST_P(FibTest, WatchersHearTheNetChangesOfEachCommit) {
  std::vector<std::vector<std::string>> heard;
  WatcherId w = fib_->AddWatcher([&](std::span<const FibChange> changes) {
    heard.emplace_back();
    for (const FibChange& c : changes) heard.back().push_back(c.ToString());
  });
  ASSERT_TRUE(Commit({"10.5.0.0/16 via 10.1.0.2", "10.6.0.0/16 via 10.1.0.2"}).ok());
  auto id = fib_->StartTransaction();
  ASSERT_TRUE(fib_->AddRoute(*id, R("10.7.0.0/16 via 10.1.0.2")).ok());
  ASSERT_TRUE(fib_->DeleteRoute(*id, P("10.7.0.0/16")).ok());  // nets to nothing
  ASSERT_TRUE(fib_->ReplaceRoute(*id, R("10.5.0.0/16 via 10.1.0.3")).ok());
  ASSERT_TRUE(fib_->ReplaceRoute(*id, R("10.6.0.0/16 via 10.1.0.2")).ok());  // no change
  ASSERT_TRUE(fib_->DeleteRoute(*id, P("10.6.0.0/16")).ok());
  ASSERT_TRUE(fib_->Commit(*id).ok());
  EXPECT_THAT(
      heard,
      ElementsAre(
          ElementsAre("add 10.5.0.0/16 via 10.1.0.2", "add 10.6.0.0/16 via 10.1.0.2"),
          ElementsAre("replace 10.5.0.0/16 via 10.1.0.3", "delete 10.6.0.0/16 via 10.1.0.2")));
  EXPECT_TRUE(fib_->RemoveWatcher(w));
  ASSERT_TRUE(Commit({"10.8.0.0/16 via 10.1.0.2"}).ok());
  EXPECT_EQ(heard.size(), 2u);
  EXPECT_EQ(ForwardingPlane(), (std::set<std::string>{"10.5.0.0/16", "10.8.0.0/16"}));
}

TEST_P(FibTest, AbortAndDeleteAll) {
  ASSERT_TRUE(Commit({"10.5.0.0/16 via 10.1.0.2", "2001:db8:5::/48 via 2001:db8:1::2"}).ok());
  auto id = fib_->StartTransaction("rib");
  ASSERT_TRUE(fib_->AddRoute(*id, R("10.6.0.0/16 via 10.1.0.2")).ok());
  ASSERT_TRUE(fib_->Abort(*id).ok());
  EXPECT_EQ(fib_->size(), 2u);
  id = fib_->StartTransaction("rib");
  auto other = fib_->StartTransaction("bgp");
  EXPECT_EQ(fib_->AbortTransactionsOf("rib"), 1u);
  EXPECT_EQ(fib_->AddRoute(*id, R("10.6.0.0/16 via 10.1.0.2")).code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(fib_->DeleteAllRoutes(*other).ok());
  ASSERT_TRUE(fib_->AddRoute(*other, R("10.5.0.0/16 via 10.1.0.3")).ok()) << "absent after all";
  auto done = fib_->Commit(*other);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->deleted, 1u);
  EXPECT_EQ(done->replaced, 1u);
  EXPECT_EQ(ForwardingPlane(), std::set<std::string>{"10.5.0.0/16"});
  EXPECT_EQ(Lookup("10.5.0.1"), "10.5.0.0/16 via 10.1.0.3");
}

TEST_P(FibTest, ShutdownEmptiesTheForwardingPlane) {
  ASSERT_TRUE(Commit({"10.5.0.0/16 via 10.1.0.2", "2001:db8:5::/48 via 2001:db8:1::2"}).ok());
  ASSERT_TRUE(fib_->Shutdown().ok());
  EXPECT_EQ(fib_->size(), 0u);
  EXPECT_EQ(fib_->StartTransaction().status().code(), absl::StatusCode::kFailedPrecondition);
  if (netlink()) {
    EXPECT_TRUE(KernelPrefixes(kTable, kSluiceRouteProtocol).empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, FibTest, ::testing::Values(Backend::kDummy, Backend::kNetlink),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return info.param == Backend::kDummy ? "dummy" : "netlink";
                         });

}  // namespace
}  // namespace sluice::fea

int main(int argc, char** argv) {
  sluice::fea::testing::EnterPrivateNetworkNamespace();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
