// BgpProcess (bgp/process/bgp_process.h): the sessions glued to the pipeline, without IPC. Two
// processes on loopback (A on 127.0.0.1, B on 127.0.0.2) peer with each other; B's RIB is an
// in-memory fake answering asynchronously, as the IPC client does.
#include <gtest/gtest.h>

#include <boost/asio/post.hpp>
#include <map>

#include "bgp/process/bgp_process.h"
#include "tests/bgp/session_test_util.h"

namespace sluice::bgp::process {
namespace {

using testing::Addr;

constexpr uint32_t kAsA = 65001, kAsB = 65002;

net::Prefix P(const std::string& text) { return *net::Prefix::Parse(text); }

// What the RIB has from BGP, applied in order; nexthops resolve (metric 7).
class MemoryRib : public NexthopInterestClient, public RibRouteClient {
 public:
  explicit MemoryRib(boost::asio::io_context& io) : io_(io) {}
  void RegisterInterest(const net::IPAddress& nexthop, Answer answer) override {
    ++interests;
    boost::asio::post(io_, [nexthop, answer = std::move(answer)] {
      answer(NexthopInfo{true, 7, net::Prefix(nexthop, nexthop.bits())});
    });
  }
  void DeregisterInterest(const net::Prefix&) override {}
  void SendRoutes(net::Family, std::vector<RibRouteChange> batch, Done done) override {
    for (const RibRouteChange& c : batch) {
      auto& table = c.ibgp ? ibgp : ebgp;
      if (c.op == RibRouteChange::Op::kAdd) {
        table[c.prefix] = c.nexthop;
      } else {
        table.erase(c.prefix);
      }
    }
    boost::asio::post(io_, [done = std::move(done)] { done(absl::OkStatus()); });
  }

  boost::asio::io_context& io_;
  std::map<net::Prefix, net::IPAddress> ebgp, ibgp;
  int interests = 0;
};

class ProcessCoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    BgpProcessOptions ob;
    ob.interest = &rib_;
    ob.rib = &rib_;
    b_ = std::make_unique<BgpProcess>(io_, ob);
    a_ = std::make_unique<BgpProcess>(io_, BgpProcessOptions());
  }

  // A listens on 127.0.0.1 (passive towards B); B connects from 127.0.0.2.
  void Connect() {
    ASSERT_TRUE(a_->SetLocalAs(kAsA).ok());
    ASSERT_TRUE(a_->SetBgpId(net::IPv4Address(0x0a000001)).ok());
    ASSERT_TRUE(b_->SetLocalAs(kAsB).ok());
    ASSERT_TRUE(b_->SetBgpId(net::IPv4Address(0x0a000002)).ok());
    absl::StatusOr<uint16_t> port = a_->Listen(Addr("127.0.0.1"), 0);
    ASSERT_TRUE(port.ok()) << port.status();
    PeerConfig to_b;
    to_b.address = Addr("127.0.0.2");
    to_b.remote_as = kAsB;
    to_b.passive = true;
    to_b.hold_time_s = 9;
    RoutingPeerConfig open;
    open.ebgp_requires_policy = false;
    ASSERT_TRUE(a_->AddPeer(to_b, open).ok());
    PeerConfig to_a;
    to_a.address = Addr("127.0.0.1");
    to_a.port = *port;
    to_a.remote_as = kAsA;
    to_a.local_address = Addr("127.0.0.2");
    to_a.hold_time_s = 9;
    to_a.connect_retry_s = 1;
    to_a.idle_hold_s = 0.2;
    ASSERT_TRUE(b_->AddPeer(to_a, open).ok());
    ASSERT_TRUE(Run([&] { return Established(*a_, "127.0.0.2") && Established(*b_, "127.0.0.1"); }))
        << a_->GetPeer(Addr("127.0.0.2"))->session.ToString();
  }

  static bool Established(BgpProcess& p, const std::string& peer) {
    absl::StatusOr<PeerView> v = p.GetPeer(Addr(peer));
    return v.ok() && v->session.state == FsmState::kEstablished;
  }
  bool Run(const std::function<bool()>& condition, double seconds = 10) {
    return testing::RunUntil(io_, condition, seconds);
  }
  std::vector<BgpRoute> Read(BgpProcess& p, RibView view, std::optional<std::string> peer = {}) {
    RouteQuery q;
    q.view = view;
    if (peer) q.peer = Addr(*peer);
    absl::StatusOr<std::vector<BgpRoute>> r = p.ReadRoutes(q);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : std::vector<BgpRoute>();
  }
  static PathAttributes Attrs(const std::string& nexthop) {
    PathAttributes a;
    a.next_hop = *net::IPv4Address::Parse(nexthop);
    a.communities = {(65001u << 16) | 7};
    return a;
  }

  boost::asio::io_context io_;
  MemoryRib rib_{io_};
  std::unique_ptr<BgpProcess> b_, a_;  // a_ destroyed first
};

TEST_F(ProcessCoreTest, PeersNeedTheLocalAsAndBgpIdentifierFirst) {
  PeerConfig c;
  c.address = Addr("127.0.0.9");
  c.remote_as = 65009;
  EXPECT_EQ(a_->AddPeer(c).code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(a_->SetLocalAs(kAsA).ok());
  EXPECT_EQ(a_->AddPeer(c).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(a_->SetBgpId(net::IPv4Address(0)).code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(a_->SetBgpId(net::IPv4Address(0x0a000001)).ok());
  EXPECT_TRUE(a_->AddPeer(c).ok());
  EXPECT_EQ(a_->AddPeer(c).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(a_->routing().config().local_as, kAsA);
  ASSERT_EQ(a_->ListPeers().size(), 1u);
  EXPECT_EQ(a_->ListPeers()[0].config.remote_as, 65009u);
  ASSERT_TRUE(a_->ListPeers()[0].routing.has_value());
  EXPECT_FALSE(a_->ListPeers()[0].routing->ibgp);
  EXPECT_EQ(a_->RemovePeer(Addr("127.0.0.8")).code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(a_->RemovePeer(Addr("127.0.0.9")).ok());
  EXPECT_TRUE(a_->ListPeers().empty());
  EXPECT_TRUE(a_->routing().Peers().empty());
}

TEST_F(ProcessCoreTest, AnOriginatedRouteReachesThePeerItsRibAndEveryView) {
  Connect();
  ASSERT_TRUE(a_->Originate(P("10.1.0.0/16"), Attrs("192.0.2.1")).ok());
  ASSERT_TRUE(Run([&] { return rib_.ebgp.size() == 1; }));

  // B: Adj-RIB-In and Loc-RIB hold it with A's AS prepended; the RIB has it as ebgp.
  std::vector<BgpRoute> in = Read(*b_, RibView::kAdjRibIn, "127.0.0.1");
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in[0].net, P("10.1.0.0/16"));
  EXPECT_EQ(in[0].attrs->as_path->ToString(), "65001");
  EXPECT_EQ(in[0].attrs->communities, std::vector<uint32_t>{(65001u << 16) | 7});
  EXPECT_EQ(Read(*b_, RibView::kLocRib).size(), 1u);
  EXPECT_EQ(rib_.ebgp.begin()->first, P("10.1.0.0/16"));
  EXPECT_EQ(rib_.ebgp.begin()->second, Addr("127.0.0.1"));  // eBGP: A's session address
  EXPECT_GE(rib_.interests, 1);

  // A: what it sent B, through B's output branch.
  std::vector<BgpRoute> out = Read(*a_, RibView::kAdjRibOut, "127.0.0.2");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].attrs->as_path->ToString(), "65001");
  EXPECT_EQ(*out[0].nexthop(), Addr("127.0.0.1"));

  // The peer lists count it on both sides.
  ASSERT_TRUE(Run([&] {
    auto va = a_->GetPeer(Addr("127.0.0.2"));
    auto vb = b_->GetPeer(Addr("127.0.0.1"));
    return va.ok() && vb.ok() && va->routing && vb->routing &&
           va->routing->families[0].advertised == 1 && vb->routing->families[0].accepted == 1;
  }));
  const PeerView vb = *b_->GetPeer(Addr("127.0.0.1"));
  EXPECT_EQ(vb.routing->families[0].received, 1u);
  EXPECT_GE(vb.session.counters.updates_in, 1u);

  // Withdrawn at A: gone from B and from B's RIB.
  ASSERT_TRUE(a_->WithdrawOriginated(P("10.1.0.0/16")).ok());
  EXPECT_EQ(a_->WithdrawOriginated(P("10.1.0.0/16")).code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(Run([&] { return rib_.ebgp.empty() && Read(*b_, RibView::kLocRib).empty(); }));
}

TEST_F(ProcessCoreTest, RemovingAPeerWithdrawsItsRoutesFromTheRib) {
  Connect();
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(a_->Originate(P("10.2." + std::to_string(i) + ".0/24"), Attrs("192.0.2.1")).ok());
  }
  ASSERT_TRUE(Run([&] { return rib_.ebgp.size() == 50; }));
  ASSERT_TRUE(b_->RemovePeer(Addr("127.0.0.1")).ok());
  ASSERT_TRUE(Run([&] { return rib_.ebgp.empty(); }));
  EXPECT_TRUE(Read(*b_, RibView::kLocRib).empty());
  // A sees the session go (Cease / Peer De-configured).
  ASSERT_TRUE(Run([&] { return !Established(*a_, "127.0.0.2"); }));
}

TEST_F(ProcessCoreTest, ANewIdentityRestartsSessionsAndReclassifiesPeers) {
  Connect();
  ASSERT_TRUE(a_->Originate(P("10.3.0.0/16"), Attrs("192.0.2.1")).ok());
  ASSERT_TRUE(Run([&] { return rib_.ebgp.size() == 1; }));

  // A new BGP Identifier at A: the session restarts (Cease / Other Configuration Change) and the
  // route comes back.
  ASSERT_TRUE(a_->SetBgpId(net::IPv4Address(0x0a000011)).ok());
  EXPECT_EQ(a_->routing().config().router_id, net::IPv4Address(0x0a000011));
  ASSERT_TRUE(Run([&] {
    auto v = b_->GetPeer(Addr("127.0.0.1"));
    return v.ok() && v->session.counters.established_transitions == 2 &&
           v->session.state == FsmState::kEstablished && rib_.ebgp.size() == 1;
  }));
  EXPECT_EQ(b_->GetPeer(Addr("127.0.0.1"))->session.remote_bgp_id, net::IPv4Address(0x0a000011));

  // B takes A's AS: A becomes an internal peer of B's routing side (A now refuses B's OPEN: its
  // configuration says B is in AS 65002, so the session stays down).
  ASSERT_TRUE(b_->SetLocalAs(kAsA).ok());
  EXPECT_TRUE(b_->GetPeer(Addr("127.0.0.1"))->routing->ibgp);
  EXPECT_EQ(b_->routing().config().local_as, kAsA);
  ASSERT_TRUE(Run([&] { return rib_.ebgp.empty(); }));
}

TEST_F(ProcessCoreTest, RouteRefreshNeedsAnEstablishedSession) {
  ASSERT_TRUE(a_->SetLocalAs(kAsA).ok());
  ASSERT_TRUE(a_->SetBgpId(net::IPv4Address(0x0a000001)).ok());
  EXPECT_EQ(a_->RouteRefresh(Addr("127.0.0.9"), std::nullopt).code(), absl::StatusCode::kNotFound);
  PeerConfig c;
  c.address = Addr("127.0.0.9");
  c.remote_as = 65009;
  c.enabled = false;
  ASSERT_TRUE(a_->AddPeer(c).ok());
  EXPECT_EQ(a_->RouteRefresh(Addr("127.0.0.9"), std::nullopt).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(ProcessCoreTest, RouteRefreshAsksThePeerAgain) {
  Connect();
  ASSERT_TRUE(b_->RouteRefresh(Addr("127.0.0.1"), kIPv4Unicast).ok());
  ASSERT_TRUE(b_->RouteRefresh(Addr("127.0.0.1"), std::nullopt).ok());
  ASSERT_TRUE(Run([&] {
    auto v = a_->GetPeer(Addr("127.0.0.2"));
    return v.ok() && v->session.counters.route_refreshes_in >= 2;
  }));
}

}  // namespace
}  // namespace sluice::bgp::process
