// What a peer's input can do to sluice-bgp, seen as an operator sees it: a fake peer speaks BGP
// over TCP on loopback to a BgpDaemon (the wiring of sluice-bgp: sessions, the staged pipeline,
// bgp/1.0 over gRPC through an in-process Finder, a fake RIB resolving nexthops), and the test
// reads the peer list and the routes through the same bgp/1.0 calls `sluice show bgp peers` and
// `sluice show bgp routes` make.
//
//   - RFC 7606 §3(j): an attribute overrun that hides the MP_UNREACH_NLRI withdrawing two IPv6
//     prefixes resets the session (NOTIFICATION 3/5) instead of treat-as-withdraw, so the two
//     prefixes leave the Adj-RIB-In and the Loc-RIB; session_resets counts "update-error".
//   - AFI/SAFI disable (RFC 4760 §7): a malformed MP_UNREACH_NLRI takes IPv6 away from the session
//     (its routes withdrawn, later IPv6 NLRI ignored) while IPv4 carries on; treat-as-withdraw is
//     counted.
//   - enforce-first-as (RFC 4271 §6.3), on by default for eBGP, off with the knob.
//   - max-prefix counting received routes (before import policy) or accepted ones; the Adj-RIB-In
//     ceiling; both tear down with Cease / Maximum Number of Prefixes Reached (RFC 4486).
//
// The serial pipeline and the sharded one (threads 2, UPDATEs parsed off the loop) both run the
// scenarios that depend on the routing side's counts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "bgp/process/bgp_daemon.h"
#include "ipc/methods/bgp.h"
#include "ipc/types_convert.h"
#include "tests/bgp/fake_peer.h"
#include "tests/bgp/process_fake_rib.h"
#include "tests/bgp/process_harness.h"
#include "tests/bgp/session_test_util.h"

namespace sluice::bgp::process {
namespace {

using ipc::methods::bgp::kAddPeer;
using ipc::methods::bgp::kListen;
using ipc::methods::bgp::kListPeers;
using ipc::methods::bgp::kListRoutes;

using testing::Addr;
using testing::FakePeer;
using testing::FakeRib;
using ::testing::HasSubstr;
using testing::RawUpdate;
using Bytes8 = std::vector<uint8_t>;

constexpr uint32_t kOurAs = 4200000001u, kPeerAs = 4200000002u;

// ---- Wire pieces -------------------------------------------------------------------------------

SessionParams Params() {
  SessionParams p;
  p.families.Add(kIPv6Unicast);
  return p;
}

// An UPDATE announcing IPv4 `prefixes` with AS_PATH `path` and NEXT_HOP `next_hop`.
Bytes8 AnnouncePath(const std::vector<std::string>& prefixes, std::initializer_list<uint32_t> path,
                    const std::string& next_hop = "127.0.0.2") {
  PathAttributes a;
  a.origin = Origin::kIgp;
  a.as_path = AsPath::Sequence(path);
  a.next_hop = Addr(next_hop).v4();
  std::vector<Nlri> nlri;
  for (const std::string& p : prefixes) nlri.push_back(Nlri{*net::Prefix::Parse(p)});
  Bytes8 out;
  EXPECT_TRUE(UpdateEncoder(Params()).Announce(a, nlri, &out).ok());
  return out;
}

// ---- The daemon and its bgp/1.0 ----------------------------------------------------------------

class ProcessInputTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    BgpDaemonOptions o;
    o.threads = GetParam();
    o.parse_threads = GetParam() > 1 ? GetParam() : 0;
    ASSERT_TRUE(h_.Start(o).ok());
    rib_ = std::make_unique<FakeRib>(h_.io(), h_.Options());
    ASSERT_TRUE(rib_->Start().ok());
    ASSERT_TRUE(Run([&] { return rib_->router().registered(); }));
    ASSERT_TRUE(h_.SetIdentity(kOurAs, net::IPv4Address(0x0aff0001)).ok());
    v1::ListenRequest listen;
    ipc::ToProto(Addr("127.0.0.1"), listen.mutable_address());
    absl::StatusOr<v1::ListenReply> port = Call(kListen, listen);
    ASSERT_TRUE(port.ok()) << port.status();
    port_ = uint16_t(port->port());
  }

  bool Run(const std::function<bool()>& condition, double seconds = 10) {
    return h_.Run(condition, seconds);
  }
  template <typename Request, typename Reply>
  absl::StatusOr<Reply> Call(const ipc::Method<Request, Reply>& method, Request request) {
    absl::StatusOr<Reply> reply = h_.Call(method, std::move(request));
    EXPECT_TRUE(reply.ok()) << reply.status();
    return reply;
  }
  // Runs the daemon until `f` (fake peer work on another thread) is done.
  template <typename T>
  T Await(std::future<T> f) {
    EXPECT_TRUE(
        Run([&] { return f.wait_for(std::chrono::seconds(0)) == std::future_status::ready; }, 20));
    return f.get();
  }

  // A passive eBGP peer at `address` (AS kPeerAs), accepting everything unless `tweak` says
  // otherwise; then its fake peer connects and the session comes up.
  FakePeer& AddPeer(const std::string& address,
                    const std::function<void(v1::AddPeerRequest&)>& tweak = nullptr) {
    v1::AddPeerRequest add;
    ipc::ToProto(Addr(address), add.mutable_address());
    add.set_remote_as(kPeerAs);
    add.set_passive(true);
    add.set_ebgp_requires_policy(false);
    add.set_idle_hold_s(0.2);
    if (tweak) tweak(add);
    EXPECT_TRUE(Call(kAddPeer, add).ok());
    auto peer = std::make_unique<FakePeer>(address, "127.0.0.1", port_);
    EXPECT_TRUE(peer->connected()) << address;
    FakePeer* p = peer.get();
    EXPECT_TRUE(
        Await(std::async(std::launch::async, [p] { return p->Handshake(kPeerAs, 0x0aff0002); })));
    EXPECT_TRUE(Run([&] { return Info(address).state() == "Established"; }));
    peers_.push_back(std::move(peer));
    return *p;
  }

  // The peer as `sluice show bgp peers` shows it (bgp/1.0/list_peers).
  v1::PeerInfo Info(const std::string& address) {
    absl::StatusOr<v1::ListPeersReply> list = Call(kListPeers, v1::ListPeersRequest());
    if (!list.ok()) return v1::PeerInfo();
    for (const v1::PeerInfo& p : list->peers()) {
      if (ipc::FromProto(p.address()).value_or(net::IPAddress()) == Addr(address)) return p;
    }
    ADD_FAILURE() << "no peer " << address;
    return v1::PeerInfo();
  }
  uint64_t Resets(const std::string& address, const std::string& cause) {
    const v1::PeerInfo p = Info(address);
    auto it = p.session_resets().find(cause);
    return it == p.session_resets().end() ? 0 : it->second;
  }

  // The prefixes of a view (`sluice show bgp routes [peer ADDR in] [ipv6]`).
  std::set<std::string> Routes(v1::RibView view, const std::string& family,
                               const std::string& peer = "") {
    v1::ListRoutesRequest q;
    q.set_view(view);
    q.set_family(family);
    q.set_max_routes(1000);
    if (!peer.empty()) ipc::ToProto(Addr(peer), q.mutable_peer());
    absl::StatusOr<v1::ListRoutesReply> r = Call(kListRoutes, q);
    std::set<std::string> out;
    if (!r.ok()) return out;
    for (const v1::Route& route : r->routes()) {
      out.insert(ipc::FromProto(route.network())->ToString());
    }
    return out;
  }
  std::set<std::string> AdjRibIn(const std::string& peer, const std::string& family = "ipv4") {
    return Routes(v1::ADJ_RIB_IN, family, peer);
  }
  std::set<std::string> LocRib(const std::string& family = "ipv4") {
    return Routes(v1::LOC_RIB, family);
  }

  testing::BgpDaemonHarness h_;  // first in, last out: its loop runs everything below
  std::unique_ptr<FakeRib> rib_;
  std::vector<std::unique_ptr<FakePeer>> peers_;
  uint16_t port_ = 0;
};

const std::set<std::string> kTwoV6 = {"2001:db8:1::/48", "2001:db8:2::/48"};

// ORIGIN, an AS_PATH (kPeerAs) whose Attribute Length overruns the attribute list, and behind it
// the MP_UNREACH_NLRI that withdraws the two IPv6 prefixes: the overrun hides it.
Bytes8 OverrunHidingMpUnreach() {
  return RawUpdate({0x40, 1,    1,    0,                                   // ORIGIN IGP
                    0x40, 2,    200,  2,    1,    0xfa, 0x56, 0xea, 0x02,  // AS_PATH, length 200
                    0x80, 15,   17,   0,    2,    1,                       // MP_UNREACH_NLRI IPv6
                    48,   0x20, 0x01, 0x0d, 0xb8, 0,    1,                 // 2001:db8:1::/48
                    48,   0x20, 0x01, 0x0d, 0xb8, 0,    2});               // 2001:db8:2::/48
}

TEST_P(ProcessInputTest, OverrunHidingMpUnreachResetsTheSessionAndWithdrawsItsRoutes) {
  FakePeer& peer = AddPeer("127.0.0.2");
  peer.Write(
      testing::Announce({"2001:db8:1::/48", "2001:db8:2::/48"}, kPeerAs, "2001:db8::2", Params()));
  peer.Write(testing::Announce({"10.1.0.0/24"}, kPeerAs, "127.0.0.2", Params()));
  ASSERT_TRUE(Run([&] { return LocRib("ipv6") == kTwoV6 && LocRib().size() == 1; }));
  EXPECT_EQ(AdjRibIn("127.0.0.2", "ipv6"), kTwoV6);
  EXPECT_EQ(Resets("127.0.0.2", "update-error"), 0u);

  peer.Write(OverrunHidingMpUnreach());
  std::optional<Notification> n =
      Await(std::async(std::launch::async, [&peer] { return peer.AwaitNotification(10); }));
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->code, uint8_t(ErrorCode::kUpdateMessage));
  EXPECT_EQ(n->subcode, update_error::kAttributeLengthError);

  // The counters, through list_peers; the withdrawn prefixes gone from both views.
  ASSERT_TRUE(Run([&] { return Resets("127.0.0.2", "update-error") == 1; }));
  const v1::PeerInfo info = Info("127.0.0.2");
  EXPECT_NE(info.state(), "Established");
  EXPECT_THAT(info.last_error(), HasSubstr("MP_REACH_NLRI or MP_UNREACH_NLRI"));
  EXPECT_EQ(info.updates_treat_as_withdraw(), 0u);  // a reset, not treat-as-withdraw
  EXPECT_TRUE(AdjRibIn("127.0.0.2", "ipv6").empty());
  ASSERT_TRUE(Run([&] { return LocRib("ipv6").empty() && LocRib().empty(); }));
}

TEST_P(ProcessInputTest, AfiSafiDisableTakesIpv6AwayAndKeepsIpv4) {
  FakePeer& peer = AddPeer("127.0.0.2");
  peer.Write(
      testing::Announce({"2001:db8:1::/48", "2001:db8:2::/48"}, kPeerAs, "2001:db8::2", Params()));
  peer.Write(testing::Announce({"10.1.0.0/24", "10.2.0.0/24"}, kPeerAs, "127.0.0.2", Params()));
  ASSERT_TRUE(Run([&] { return LocRib("ipv6") == kTwoV6 && LocRib().size() == 2; }));

  // MP_UNREACH_NLRI for IPv6 whose prefix is cut short: the NLRI cannot be read.
  peer.Write(RawUpdate({0x80, 15, 6, 0, 2, 1, 64, 0x20, 0x01}));
  ASSERT_TRUE(Run([&] { return Info("127.0.0.2").afi_safi_disables() == 1; }));
  v1::PeerInfo info = Info("127.0.0.2");
  EXPECT_EQ(info.state(), "Established");
  EXPECT_THAT(info.disabled_families(), ::testing::ElementsAre("ipv6"));
  EXPECT_TRUE(info.session_resets().empty());
  for (const v1::PeerFamily& f : info.family_counts()) {
    EXPECT_EQ(f.disabled(), f.family() == "ipv6") << f.family();
  }
  EXPECT_TRUE(AdjRibIn("127.0.0.2", "ipv6").empty());
  ASSERT_TRUE(Run([&] { return LocRib("ipv6").empty(); }));
  EXPECT_EQ(LocRib().size(), 2u);

  // Further IPv6 NLRI are ignored; IPv4 still flows (its last route is the barrier). A malformed
  // ORIGIN is treat-as-withdraw (10.1.0.0/24 goes), counted.
  peer.Write(testing::Announce({"2001:db8:3::/48"}, kPeerAs, "2001:db8::2", Params()));
  Bytes8 bad_origin = testing::Announce({"10.1.0.0/24"}, kPeerAs, "127.0.0.2", Params());
  bad_origin[19 + 4 + 3] = 7;  // the ORIGIN value: the first attribute, after the lengths
  peer.Write(bad_origin);
  peer.Write(testing::Announce({"10.3.0.0/24"}, kPeerAs, "127.0.0.2", Params()));
  ASSERT_TRUE(Run([&] {
    return AdjRibIn("127.0.0.2") == std::set<std::string>{"10.2.0.0/24", "10.3.0.0/24"};
  }));
  EXPECT_TRUE(AdjRibIn("127.0.0.2", "ipv6").empty());
  info = Info("127.0.0.2");
  EXPECT_EQ(info.updates_treat_as_withdraw(), 1u);
  EXPECT_EQ(info.state(), "Established");
}

TEST_P(ProcessInputTest, EnforceFirstAsOnByDefaultForEbgpOffWithTheKnob) {
  FakePeer& strict = AddPeer("127.0.0.2");
  FakePeer& lax =
      AddPeer("127.0.0.3", [](v1::AddPeerRequest& r) { r.set_enforce_first_as(false); });
  EXPECT_TRUE(Info("127.0.0.2").enforce_first_as());
  EXPECT_FALSE(Info("127.0.0.3").enforce_first_as());
  // A route server's path: it does not start with the peer's AS.
  strict.Write(AnnouncePath({"10.9.0.0/24"}, {65010, 65011}));
  strict.Write(AnnouncePath({"10.1.0.0/24"}, {kPeerAs, 65011}));
  lax.Write(AnnouncePath({"10.9.0.0/24"}, {65010, 65011}, "127.0.0.3"));
  ASSERT_TRUE(Run([&] { return !AdjRibIn("127.0.0.3").empty(); }));
  ASSERT_TRUE(Run([&] { return !AdjRibIn("127.0.0.2").empty(); }));
  EXPECT_EQ(AdjRibIn("127.0.0.2"), std::set<std::string>{"10.1.0.0/24"});
  EXPECT_EQ(AdjRibIn("127.0.0.3"), std::set<std::string>{"10.9.0.0/24"});
  EXPECT_EQ(Info("127.0.0.2").updates_treat_as_withdraw(), 1u);
  EXPECT_EQ(Info("127.0.0.3").updates_treat_as_withdraw(), 0u);
  EXPECT_EQ(Info("127.0.0.2").state(), "Established");
}

TEST_P(ProcessInputTest, MaxPrefixCountsReceivedRoutesUnlessToldAccepted) {
  // RFC 8212 without import policy: nothing is accepted, everything stays in the Adj-RIB-In.
  FakePeer& received = AddPeer("127.0.0.2", [](v1::AddPeerRequest& r) {
    r.set_ebgp_requires_policy(true);
    r.set_max_prefix(2);
  });
  FakePeer& accepted = AddPeer("127.0.0.3", [](v1::AddPeerRequest& r) {
    r.set_ebgp_requires_policy(true);
    r.set_max_prefix(2);
    r.set_max_prefix_count("accepted");
  });
  EXPECT_EQ(Info("127.0.0.2").max_prefix_count(), "received");
  EXPECT_EQ(Info("127.0.0.3").max_prefix_count(), "accepted");
  const std::vector<std::string> three = {"10.1.0.0/24", "10.2.0.0/24", "10.3.0.0/24"};
  accepted.Write(testing::Announce(three, kPeerAs, "127.0.0.3", Params()));
  received.Write(testing::Announce(three, kPeerAs, "127.0.0.2", Params()));
  std::optional<Notification> n =
      Await(std::async(std::launch::async, [&received] { return received.AwaitNotification(10); }));
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(*n, (Notification{uint8_t(ErrorCode::kCease), cease::kMaxPrefixes, {}}));
  ASSERT_TRUE(Run([&] { return Resets("127.0.0.2", "max-prefix") == 1; }));

  ASSERT_TRUE(Run([&] { return Info("127.0.0.3").prefixes_received() == 3; }));
  const v1::PeerInfo info = Info("127.0.0.3");
  EXPECT_EQ(info.prefixes_accepted(), 0u);
  EXPECT_EQ(info.state(), "Established");
  EXPECT_FALSE(info.max_prefix_exceeded());
  EXPECT_TRUE(info.session_resets().empty());
}

TEST_P(ProcessInputTest, AdjRibInCeilingTearsTheSessionDown) {
  FakePeer& peer = AddPeer("127.0.0.2", [](v1::AddPeerRequest& r) {
    r.set_ebgp_requires_policy(true);  // rejected routes count too
    r.set_adj_rib_in_limit(3);
  });
  EXPECT_EQ(Info("127.0.0.2").adj_rib_in_limit(), 3u);
  peer.Write(testing::Announce({"10.1.0.0/24", "10.2.0.0/24", "10.3.0.0/24"}, kPeerAs, "127.0.0.2",
                               Params()));
  ASSERT_TRUE(Run([&] { return Info("127.0.0.2").prefixes_received() == 3; }));
  EXPECT_EQ(Info("127.0.0.2").state(), "Established");  // at the ceiling, not above
  peer.Write(testing::Announce({"10.4.0.0/24"}, kPeerAs, "127.0.0.2", Params()));
  std::optional<Notification> n =
      Await(std::async(std::launch::async, [&peer] { return peer.AwaitNotification(10); }));
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(*n, (Notification{uint8_t(ErrorCode::kCease), cease::kMaxPrefixes, {}}));
  ASSERT_TRUE(Run([&] { return Resets("127.0.0.2", "adj-rib-in-limit") == 1; }));
  EXPECT_THAT(Info("127.0.0.2").last_error(), HasSubstr("Adj-RIB-In ceiling"));
  EXPECT_TRUE(AdjRibIn("127.0.0.2").empty());
}

INSTANTIATE_TEST_SUITE_P(Threads, ProcessInputTest, ::testing::Values(1, 2),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return info.param == 1 ? std::string("Serial")
                                                  : absl::StrCat("Sharded", info.param);
                         });

}  // namespace
}  // namespace sluice::bgp::process
