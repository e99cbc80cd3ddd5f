// The sluice-bgp adapters over real IPC, in one process: an in-process Finder, a BgpDaemon (the
// same wiring as sluice-bgp), a client router calling bgp/1.0 and profile/1.0 over gRPC, a fake
// RIB serving rib/1.0 (process_fake_rib.h), and a second BgpProcess as the daemon's BGP peer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bgp/process/bgp_daemon.h"
#include "bgp/process/bgp_redist.h"
#include "ipc/methods/bgp.h"
#include "ipc/methods/profile.h"
#include "ipc/profile_service.h"
#include "ipc/types_convert.h"
#include "policy/filter.h"
#include "tests/bgp/process_fake_rib.h"
#include "tests/bgp/process_harness.h"
#include "tests/bgp/session_test_util.h"

namespace sluice::bgp::process {
namespace {

using ipc::methods::bgp::kAddPeer;
using ipc::methods::bgp::kDisablePeer;
using ipc::methods::bgp::kEnablePeer;
using ipc::methods::bgp::kGetLocalConfig;
using ipc::methods::bgp::kGetPeer;
using ipc::methods::bgp::kListen;
using ipc::methods::bgp::kListPeers;
using ipc::methods::bgp::kListRoutes;
using ipc::methods::bgp::kOriginateRoute;
using ipc::methods::bgp::kRemovePeer;
using ipc::methods::bgp::kResetPeer;
using ipc::methods::bgp::kSetPeerImportPolicy;
using ipc::methods::bgp::kWithdrawRoute;

using testing::Addr;
using testing::FakeRib;
using ::testing::HasSubstr;
namespace profile_v1 = ::sluice::profile::v1;

constexpr uint32_t kOurAs = 4200000001u, kPeerAs = 4200000002u;

net::Prefix P(const std::string& text) { return *net::Prefix::Parse(text); }

class ProcessServiceTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(h_.Start(DaemonOptions()).ok()); }
  virtual process::BgpDaemonOptions DaemonOptions() const { return {}; }
  void TearDown() override {
    peer_.reset();
    rib_.reset();
  }

  ipc::RouterOptions Options() const { return h_.Options(); }
  bool Run(const std::function<bool()>& condition, double seconds = 10) {
    return h_.Run(condition, seconds);
  }
  template <typename Request, typename Reply>
  absl::StatusOr<Reply> Call(const ipc::Method<Request, Reply>& method, Request request) {
    return h_.Call(method, std::move(request));
  }

  void SetIdentity() { ASSERT_TRUE(h_.SetIdentity(kOurAs, net::IPv4Address(0x0aff0001)).ok()); }

  // A RIB whose first `lost_calls` calls are lost (FakeRib::FailNextCalls).
  void StartRib(int lost_calls = 0) {
    rib_ = std::make_unique<FakeRib>(io_, Options());
    rib_->FailNextCalls(lost_calls);
    ASSERT_TRUE(rib_->Start().ok());
    ASSERT_TRUE(Run([&] { return rib_->router().registered(); }));
  }

  // A BGP peer (plain BgpProcess at 127.0.0.2) of the daemon (listening on 127.0.0.1) that
  // originates `routes` with NEXT_HOP 127.0.0.2.
  void StartPeer(int routes) {
    v1::ListenRequest listen;
    ipc::ToProto(Addr("127.0.0.1"), listen.mutable_address());
    absl::StatusOr<v1::ListenReply> port = Call(kListen, listen);
    ASSERT_TRUE(port.ok()) << port.status();
    v1::AddPeerRequest add;
    ipc::ToProto(Addr("127.0.0.2"), add.mutable_address());
    add.set_remote_as(kPeerAs);
    add.set_passive(true);
    add.set_hold_time(9);
    add.set_ebgp_requires_policy(false);
    add.set_description("the test's peer");
    ASSERT_TRUE(Call(kAddPeer, add).ok());

    peer_ = std::make_unique<BgpProcess>(io_, BgpProcessOptions());
    ASSERT_TRUE(peer_->SetLocalAs(kPeerAs).ok());
    ASSERT_TRUE(peer_->SetBgpId(net::IPv4Address(0x0aff0002)).ok());
    PeerConfig c;
    c.address = Addr("127.0.0.1");
    c.port = uint16_t(port->port());
    c.remote_as = kOurAs;
    c.local_address = Addr("127.0.0.2");
    c.hold_time_s = 9;
    c.connect_retry_s = 1;
    RoutingPeerConfig r;
    r.ebgp_requires_policy = false;
    ASSERT_TRUE(peer_->AddPeer(c, r).ok());
    for (int i = 0; i < routes; ++i) {
      PathAttributes a;
      a.next_hop = net::IPv4Address(0x7f000002);
      a.med = uint32_t(i);
      ASSERT_TRUE(peer_->Originate(P(absl::StrCat("10.", i / 256, ".", i % 256, ".0/24")), a).ok());
    }
  }

  absl::StatusOr<v1::PeerInfo> Peer(const std::string& address) {
    v1::PeerRequest r;
    ipc::ToProto(Addr(address), r.mutable_address());
    absl::StatusOr<v1::GetPeerReply> reply = Call(kGetPeer, r);
    if (!reply.ok()) return reply.status();
    return reply->peer();
  }

  testing::BgpDaemonHarness h_;  // first in, last out: its loop runs everything below
  boost::asio::io_context& io_ = h_.io();
  std::unique_ptr<FakeRib> rib_;
  std::unique_ptr<BgpProcess> peer_;
};

TEST_F(ProcessServiceTest, IdentityListenersAndPeerConfiguration) {
  // add_peer before the identity: the error says what comes first.
  v1::AddPeerRequest add;
  ipc::ToProto(Addr("127.0.0.9"), add.mutable_address());
  add.set_remote_as(65009);
  add.set_enabled(false);
  absl::StatusOr<v1::AddPeerReply> early = Call(kAddPeer, add);
  EXPECT_EQ(early.status().code(), absl::StatusCode::kFailedPrecondition) << early.status();

  SetIdentity();
  absl::StatusOr<v1::GetLocalConfigReply> local =
      Call(kGetLocalConfig, v1::GetLocalConfigRequest());
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(local->as(), kOurAs);
  EXPECT_EQ(ipc::FromProto(local->id()), net::IPv4Address(0x0aff0001));
  EXPECT_TRUE(local->rib());

  // Bad settings are refused naming the field.
  v1::AddPeerRequest bad = add;
  bad.set_hold_time(2);
  absl::StatusOr<v1::AddPeerReply> r = Call(kAddPeer, bad);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("hold"));
  bad = add;
  bad.set_max_prefix_action("explode");
  r = Call(kAddPeer, bad);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("max_prefix_action"));
  bad = add;
  bad.clear_address();
  r = Call(kAddPeer, bad);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("address is required"));

  // Every PeerConfig setting goes through and shows in get_peer.
  add.set_port(1179);
  ipc::ToProto(Addr("127.0.0.1"), add.mutable_local_address());
  add.set_hold_time(30);
  add.set_passive(true);
  add.set_md5_password("secret");
  add.set_next_hop_self(true);
  add.set_route_reflector_client(true);
  add.set_max_prefix(1000);
  add.set_max_prefix_action("warn");
  add.set_ttl_security(1);
  add.set_description("a disabled peer");
  ASSERT_TRUE(Call(kAddPeer, add).ok());
  EXPECT_EQ(Call(kAddPeer, add).status().code(), absl::StatusCode::kAlreadyExists);
  absl::StatusOr<v1::PeerInfo> info = Peer("127.0.0.9");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->port(), 1179u);
  EXPECT_EQ(info->remote_as(), 65009u);
  EXPECT_EQ(info->description(), "a disabled peer");
  EXPECT_FALSE(info->enabled());
  EXPECT_EQ(info->state(), "Idle");
  EXPECT_TRUE(info->passive());
  EXPECT_TRUE(info->md5());
  EXPECT_EQ(info->ttl_security(), 1u);
  EXPECT_TRUE(info->next_hop_self());
  EXPECT_TRUE(info->route_reflector_client());
  EXPECT_EQ(info->max_prefix(), 1000u);
  EXPECT_EQ(info->max_prefix_action(), "warn");
  EXPECT_EQ(info->hold_time_configured(), 30u);
  EXPECT_FALSE(info->internal());

  absl::StatusOr<v1::ListPeersReply> list = Call(kListPeers, v1::ListPeersRequest());
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->peers_size(), 1);

  v1::PeerRequest pr;
  ipc::ToProto(Addr("127.0.0.9"), pr.mutable_address());
  EXPECT_TRUE(Call(kEnablePeer, pr).ok());
  EXPECT_TRUE(Peer("127.0.0.9")->enabled());
  EXPECT_TRUE(Call(kDisablePeer, pr).ok());
  EXPECT_TRUE(Call(kResetPeer, pr).ok());
  EXPECT_TRUE(Call(kRemovePeer, pr).ok());
  EXPECT_EQ(Call(kRemovePeer, pr).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Peer("127.0.0.9").status().code(), absl::StatusCode::kNotFound);

  // Policy assignment is a stub that says why.
  v1::SetPeerPolicyRequest policy;
  ipc::ToProto(Addr("127.0.0.9"), policy.mutable_address());
  absl::StatusOr<v1::SetPeerPolicyReply> p = Call(kSetPeerImportPolicy, policy);
  EXPECT_EQ(p.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("policy_backend"));
}

TEST_F(ProcessServiceTest, OriginatedRoutesReadPageByPageByPrefixAndWithin) {
  SetIdentity();
  for (int i = 0; i < 25; ++i) {
    v1::OriginateRouteRequest o;
    ipc::ToProto(P(absl::StrCat("10.", i, ".0.0/16")), o.mutable_network());
    ipc::ToProto(Addr("192.0.2.1"), o.mutable_nexthop());
    o.add_as_path(65010);
    o.add_as_path(65011);
    o.set_med(5);
    o.add_communities("65000:100");
    o.add_communities("no-export");
    o.add_large_communities("4200000001:1:2");
    ASSERT_TRUE(Call(kOriginateRoute, o).ok());
  }
  // Bad attributes name what is wrong.
  v1::OriginateRouteRequest bad;
  ipc::ToProto(P("10.99.0.0/16"), bad.mutable_network());
  ipc::ToProto(Addr("2001:db8::1"), bad.mutable_nexthop());
  EXPECT_THAT(std::string(Call(kOriginateRoute, bad).status().message()),
              HasSubstr("not of the family"));
  ipc::ToProto(Addr("192.0.2.1"), bad.mutable_nexthop());
  bad.add_communities("65536:1");
  EXPECT_THAT(std::string(Call(kOriginateRoute, bad).status().message()),
              HasSubstr("bad community"));

  // The Loc-RIB, 10 at a time: 10, 10, 5.
  std::vector<std::string> seen;
  v1::ListRoutesRequest q;
  q.set_max_routes(10);
  for (int page = 0; page < 4; ++page) {
    absl::StatusOr<v1::ListRoutesReply> r = Call(kListRoutes, q);
    ASSERT_TRUE(r.ok()) << r.status();
    for (const v1::Route& route : r->routes()) {
      seen.push_back(ipc::FromProto(route.network())->ToString());
    }
    if (!r->more()) break;
    *q.mutable_start_after() = r->routes(r->routes_size() - 1).network();
  }
  ASSERT_EQ(seen.size(), 25u);
  EXPECT_EQ(seen.front(), "10.0.0.0/16");
  EXPECT_EQ(seen.back(), "10.24.0.0/16");

  // One prefix, with its attributes.
  v1::ListRoutesRequest one;
  ipc::ToProto(P("10.7.0.0/16"), one.mutable_prefix());
  absl::StatusOr<v1::ListRoutesReply> r = Call(kListRoutes, one);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->routes_size(), 1);
  const v1::Route& route = r->routes(0);
  EXPECT_EQ(route.as_path(), "65010 65011");
  EXPECT_EQ(route.origin(), "IGP");
  EXPECT_EQ(route.med(), 5u);
  EXPECT_THAT(route.communities(), ::testing::ElementsAre("65000:100", "no-export"));
  EXPECT_THAT(route.large_communities(), ::testing::ElementsAre("4200000001:1:2"));
  EXPECT_EQ(*ipc::FromProto(route.nexthop()), Addr("192.0.2.1"));
  EXPECT_FALSE(route.has_peer());

  // Within 10.16.0.0/12: 10.16 .. 10.24.
  v1::ListRoutesRequest within;
  ipc::ToProto(P("10.16.0.0/12"), within.mutable_within());
  r = Call(kListRoutes, within);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->routes_size(), 9);

  // A peer's view needs a peer.
  v1::ListRoutesRequest in;
  in.set_view(v1::ADJ_RIB_IN);
  EXPECT_EQ(Call(kListRoutes, in).status().code(), absl::StatusCode::kInvalidArgument);
  ipc::ToProto(Addr("127.0.0.77"), in.mutable_peer());
  EXPECT_EQ(Call(kListRoutes, in).status().code(), absl::StatusCode::kNotFound);

  // Withdrawn.
  v1::WithdrawRouteRequest w;
  ipc::ToProto(P("10.7.0.0/16"), w.mutable_network());
  ASSERT_TRUE(Call(kWithdrawRoute, w).ok());
  EXPECT_EQ(Call(kWithdrawRoute, w).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Call(kListRoutes, one)->routes_size(), 0);
}

TEST_F(ProcessServiceTest, PeerRoutesReachTheRibWhichIsRefedWhenBornAgain) {
  SetIdentity();
  StartRib();
  StartPeer(300);
  ASSERT_TRUE(Run([&] { return rib_->size("ebgp") == 300; }, 20))
      << "RIB has " << rib_->size("ebgp");
  EXPECT_EQ(rib_->protocols(), (std::set<std::string>{"ebgp", "ibgp"}));
  EXPECT_EQ(rib_->routes("ebgp").begin()->second.nexthop, Addr("127.0.0.2"));
  EXPECT_EQ(rib_->routes("ebgp").at(P("10.0.5.0/24")).metric, 5u);  // the MED
  EXPECT_THAT(rib_->interests(), ::testing::Contains(Addr("127.0.0.2")));

  // The Adj-RIB-In through bgp/1.0, and the counters.
  v1::ListRoutesRequest in;
  in.set_view(v1::ADJ_RIB_IN);
  ipc::ToProto(Addr("127.0.0.2"), in.mutable_peer());
  in.set_max_routes(1000);
  absl::StatusOr<v1::ListRoutesReply> adj = Call(kListRoutes, in);
  ASSERT_TRUE(adj.ok()) << adj.status();
  EXPECT_EQ(adj->routes_size(), 300);
  EXPECT_EQ(adj->routes(0).as_path(), "4200000002");
  EXPECT_EQ(*ipc::FromProto(adj->routes(0).peer()), Addr("127.0.0.2"));
  absl::StatusOr<v1::PeerInfo> info = Peer("127.0.0.2");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->state(), "Established");
  EXPECT_EQ(info->prefixes_received(), 300u);
  EXPECT_EQ(info->prefixes_accepted(), 300u);
  EXPECT_GT(info->updates_in(), 0u);
  EXPECT_EQ(info->hold_time(), 9u);
  EXPECT_TRUE(info->four_octet_as());
  ASSERT_GE(info->family_counts_size(), 1);
  EXPECT_EQ(info->family_counts(0).family(), "ipv4");

  // The RIB dies and a new one is born: it gets every route again.
  rib_.reset();
  Run([] { return false; }, 0.5);  // the Finder tells BGP of the death
  StartRib();
  ASSERT_TRUE(Run([&] { return rib_->size("ebgp") == 300; }, 20))
      << "new RIB has " << rib_->size("ebgp");
  EXPECT_EQ(rib_->protocols(), (std::set<std::string>{"ebgp", "ibgp"}));

  // route_info_invalid: the nexthop no longer resolves → the routes leave the Loc-RIB and the RIB.
  rib_->SetResolvable(Addr("127.0.0.2"), false);
  rib_->Invalidate("bgp", Addr("127.0.0.2"));
  ASSERT_TRUE(Run([&] { return rib_->size("ebgp") == 0; }, 20)) << rib_->size("ebgp");
  v1::ListRoutesRequest loc;
  EXPECT_EQ(Call(kListRoutes, loc)->routes_size(), 0);
  // ... and back.
  rib_->SetResolvable(Addr("127.0.0.2"), true);
  rib_->Invalidate("bgp", Addr("127.0.0.2"));
  ASSERT_TRUE(Run([&] { return rib_->size("ebgp") == 300; }, 20));

  // The peer goes: its routes leave the RIB.
  v1::PeerRequest pr;
  ipc::ToProto(Addr("127.0.0.2"), pr.mutable_address());
  ASSERT_TRUE(Call(kDisablePeer, pr).ok());
  ASSERT_TRUE(Run([&] { return rib_->size("ebgp") == 0; }, 20));
}

// Calls lost on the way to a RIB that stays up (its connection failed, say while a restarted RIB's
// listener came up) leave it without our registration or routes, and no birth comes to repair
// that: sluice-bgp registers and sends every route again, after a backoff.
TEST_F(ProcessServiceTest, CallsLostOnTheWayToALiveRibAreMadeAgain) {
  SetIdentity();
  StartRib(/*lost_calls=*/2);  // both register_protocol calls of its birth
  ASSERT_TRUE(Run([&] { return rib_->protocols().size() == 2; }, 20))
      << "registered: " << rib_->protocols().size();
  rib_->FailNextCalls(1);  // the first batch of routes
  StartPeer(300);
  ASSERT_TRUE(Run([&] { return rib_->size("ebgp") == 300; }, 30))
      << "RIB has " << rib_->size("ebgp");
  EXPECT_GE(h_.daemon().rib()->counters().failed_calls, 3u);
}

// A withdrawal lost on its way to a live RIB: the re-synchronisation asks the RIB to hold our
// routes as stale, sends every route again and says end-of-RIB, which sweeps the withdrawn ones.
TEST_F(ProcessServiceTest, AWithdrawalLostOnTheWayIsSweptByTheResync) {
  SetIdentity();
  StartRib();
  StartPeer(300);
  ASSERT_TRUE(Run([&] { return rib_->size("ebgp") == 300; }, 20))
      << "RIB has " << rib_->size("ebgp");
  const uint64_t end_of_ribs = rib_->end_of_ribs();
  rib_->FailNextCalls(1);  // the batch of withdrawals below
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(peer_->WithdrawOriginated(P(absl::StrCat("10.0.", i, ".0/24"))).ok());
  }
  EXPECT_TRUE(
      Run([&] { return rib_->size("ebgp") == 290 && rib_->end_of_ribs() > end_of_ribs; }, 30))
      << "RIB has " << rib_->size("ebgp") << ", end-of-RIBs " << rib_->end_of_ribs();
  EXPECT_EQ(rib_->routes("ebgp").count(P("10.0.3.0/24")), 0u);
  EXPECT_GE(h_.daemon().rib()->counters().failed_calls, 1u);
}

// A redist_subscribe lost on its way to a live RIB: the re-synchronisation subscribes again.
TEST_F(ProcessServiceTest, ARedistSubscribeLostOnTheWayIsMadeAgain) {
  SetIdentity();
  StartRib();
  ASSERT_TRUE(Run([&] { return rib_->protocols().size() == 2; }, 20));
  rib_->FailNextCalls(1);  // the IPv4 subscribe
  h_.daemon().redist()->Configure("static", policy::Filter::Default(policy::Verdict::kAccept));
  EXPECT_TRUE(Run([&] { return rib_->redist_subscriptions().size() == 2; }, 20))
      << absl::StrJoin(rib_->redist_subscriptions(), ", ");
}

TEST_F(ProcessServiceTest, ProfilingPointsAndPlumbing) {
  SetIdentity();
  StartRib();
  std::optional<absl::StatusOr<profile_v1::ListPointsReply>> points;
  h_.client().Call("bgp", ipc::methods::profile::kListPoints, profile_v1::ListPointsRequest(),
                   [&](absl::StatusOr<profile_v1::ListPointsReply> r) { points = std::move(r); });
  ASSERT_TRUE(Run([&] { return points.has_value(); }));
  ASSERT_TRUE(points->ok());
  std::vector<std::string> names;
  for (const auto& p : (*points)->points()) names.push_back(p.name());
  EXPECT_THAT(names,
              ::testing::IsSupersetOf({"bgp_route_in", "bgp_queued_to_rib", "bgp_sent_to_rib"}));

  profile_v1::EnableRequest enable;
  enable.set_point("bgp_route_in");
  enable.set_enable(true);
  std::optional<absl::Status> enabled;
  h_.client().Call("bgp", ipc::methods::profile::kEnable, enable,
                   [&](absl::StatusOr<profile_v1::EnableReply> r) { enabled = r.status(); });
  ASSERT_TRUE(Run([&] { return enabled.has_value(); }));
  ASSERT_TRUE(enabled->ok()) << *enabled;
  enable.set_point("no_such_point");
  enabled.reset();
  h_.client().Call("bgp", ipc::methods::profile::kEnable, enable,
                   [&](absl::StatusOr<profile_v1::EnableReply> r) { enabled = r.status(); });
  ASSERT_TRUE(Run([&] { return enabled.has_value(); }));
  EXPECT_EQ(enabled->code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(enabled->message()), HasSubstr("bgp_route_in"));

  StartPeer(3);
  ASSERT_TRUE(Run([&] { return rib_->size("ebgp") == 3; }, 20));
  std::optional<absl::StatusOr<profile_v1::GetEntriesReply>> entries;
  profile_v1::GetEntriesRequest get;
  get.set_point("bgp_route_in");
  h_.client().Call("bgp", ipc::methods::profile::kGetEntries, get,
                   [&](absl::StatusOr<profile_v1::GetEntriesReply> r) { entries = std::move(r); });
  ASSERT_TRUE(Run([&] { return entries.has_value(); }));
  ASSERT_TRUE(entries->ok());
  EXPECT_GE((*entries)->entries_size(), 3);

  std::optional<absl::StatusOr<profile_v1::DescribePlumbingReply>> plumbing;
  h_.client().Call(
      "bgp", ipc::methods::profile::kDescribePlumbing, profile_v1::DescribePlumbingRequest(),
      [&](absl::StatusOr<profile_v1::DescribePlumbingReply> r) { plumbing = std::move(r); });
  ASSERT_TRUE(Run([&] { return plumbing.has_value(); }));
  ASSERT_TRUE(plumbing->ok());
  EXPECT_THAT((*plumbing)->text(), HasSubstr("RibOut"));
  EXPECT_THAT((*plumbing)->text(), HasSubstr("PeerIn(127.0.0.2)"));
}

// The same daemon with two shard threads: the stages of each shard are described too, answered
// on the loop once each shard has answered.
class ShardedProcessServiceTest : public ProcessServiceTest {
 protected:
  process::BgpDaemonOptions DaemonOptions() const override {
    process::BgpDaemonOptions o;
    o.threads = 2;
    return o;
  }
};

TEST_F(ShardedProcessServiceTest, PlumbingDescribesEveryShard) {
  SetIdentity();
  StartRib();
  StartPeer(3);
  ASSERT_TRUE(Run([&] { return rib_->size("ebgp") == 3; }, 20));
  std::optional<absl::StatusOr<profile_v1::DescribePlumbingReply>> plumbing;
  h_.client().Call(
      "bgp", ipc::methods::profile::kDescribePlumbing, profile_v1::DescribePlumbingRequest(),
      [&](absl::StatusOr<profile_v1::DescribePlumbingReply> r) { plumbing = std::move(r); });
  ASSERT_TRUE(Run([&] { return plumbing.has_value(); }));
  ASSERT_TRUE(plumbing->ok()) << plumbing->status();
  const std::string& text = (*plumbing)->text();
  const size_t shard0 = text.find("shard 0:\n");
  const size_t shard1 = text.find("shard 1:\n");
  ASSERT_NE(shard0, std::string::npos) << text;
  ASSERT_NE(shard1, std::string::npos) << text;
  // Each shard holds its own copy of the peer's input.
  EXPECT_NE(text.substr(shard0, shard1 - shard0).find("PeerIn(127.0.0.2)"), std::string::npos)
      << text;
  EXPECT_NE(text.substr(shard1).find("PeerIn(127.0.0.2)"), std::string::npos) << text;
}

}  // namespace
}  // namespace sluice::bgp::process
