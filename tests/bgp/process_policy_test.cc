// policy_backend/1.0 in sluice-bgp without IPC (bgp/process/policy_service.h, bgp_redist.h):
// two BgpProcesses on loopback, A (AS 65001, 127.0.0.1) originating routes to B (AS 65002,
// 127.0.0.2). Import policy at B, export policy at A, redistribution at A; a bad policy refused
// with its line and column while the running one keeps filtering.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "bgp/process/bgp_process.h"
#include "bgp/process/bgp_redist.h"
#include "bgp/process/policy_service.h"
#include "tests/bgp/session_test_util.h"

namespace sluice::bgp::process {
namespace {

using testing::Addr;

constexpr uint32_t kAsA = 65001, kAsB = 65002;

net::Prefix P(const std::string& text) { return *net::Prefix::Parse(text); }

constexpr const char* kImportPolicy = R"(prefix-list bogons {
    10.0.0.0/8 orlonger; 192.168.0.0/16 orlonger; 0.0.0.0/0 prefix-length 25-32;
}
prefix-list customers { 198.51.0.0/16 orlonger; }
policy-statement upstream-in {
    term no-bogons { from { prefix-list bogons; } then { reject; } }
    term customers { from { prefix-list customers; } then { local-pref 200; accept; } }
    term rest { then { accept; } }
}
)";

class ProcessPolicyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    a_ = std::make_unique<BgpProcess>(io_, BgpProcessOptions());
    b_ = std::make_unique<BgpProcess>(io_, BgpProcessOptions());
    redist_ = std::make_unique<BgpRedist>(
        a_.get(), [this](net::Family f, const std::string& protocol, bool on) {
          subscriptions_[{f, protocol}] = on;
        });
    policy_a_ = std::make_unique<BgpPolicyBackend>(a_.get(), redist_.get());
    policy_b_ = std::make_unique<BgpPolicyBackend>(b_.get(), nullptr);
  }
  void TearDown() override {
    policy_a_.reset();
    redist_.reset();
    a_.reset();
    b_.reset();
  }

  // A listens on 127.0.0.1; B connects from 127.0.0.2. RFC 8212 off unless a test sets policies.
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
    ASSERT_TRUE(
        Run([&] { return Established(*a_, "127.0.0.2") && Established(*b_, "127.0.0.1"); }));
  }
  static bool Established(BgpProcess& p, const std::string& peer) {
    absl::StatusOr<PeerView> v = p.GetPeer(Addr(peer));
    return v.ok() && v->session.state == FsmState::kEstablished;
  }
  bool Run(const std::function<bool()>& condition, double seconds = 10) {
    return testing::RunUntil(io_, condition, seconds);
  }
  // B's Loc-RIB: prefix -> route.
  std::map<net::Prefix, BgpRoute> LocRib(BgpProcess& p) {
    RouteQuery q;
    q.view = RibView::kLocRib;
    std::map<net::Prefix, BgpRoute> out;
    absl::StatusOr<std::vector<BgpRoute>> r = p.ReadRoutes(q);
    EXPECT_TRUE(r.ok()) << r.status();
    if (r.ok()) {
      for (const BgpRoute& route : *r) out[route.net] = route;
    }
    return out;
  }
  std::set<net::Prefix> Prefixes(BgpProcess& p) {
    std::set<net::Prefix> out;
    for (const auto& [prefix, route] : LocRib(p)) out.insert(prefix);
    return out;
  }
  void Originate(const std::string& prefix) {
    PathAttributes a;
    a.next_hop = *net::IPv4Address::Parse("192.0.2.1");
    ASSERT_TRUE(a_->Originate(P(prefix), a).ok());
  }
  static policy::FilterRequest Request(std::string source, std::vector<std::string> chain,
                                       std::string default_action = "") {
    policy::FilterRequest r;
    r.source = std::move(source);
    r.policies = std::move(chain);
    r.default_action = std::move(default_action);
    r.start.file = "test.conf";
    return r;
  }

  boost::asio::io_context io_;
  std::unique_ptr<BgpProcess> a_, b_;
  std::unique_ptr<BgpRedist> redist_;
  std::unique_ptr<BgpPolicyBackend> policy_a_, policy_b_;
  std::map<std::pair<net::Family, std::string>, bool> subscriptions_;
};

TEST_F(ProcessPolicyTest, ImportPolicySetsLocalPrefAndRejectsBogons) {
  ASSERT_TRUE(
      policy_b_->Configure("import:127.0.0.1", Request(kImportPolicy, {"upstream-in"})).ok());
  Connect();
  for (const char* p : {"10.1.0.0/16", "192.168.5.0/24", "203.0.113.128/26", "198.51.100.0/24",
                        "198.51.7.0/24", "203.0.113.0/24"}) {
    Originate(p);
  }
  const std::set<net::Prefix> want = {P("198.51.100.0/24"), P("198.51.7.0/24"),
                                      P("203.0.113.0/24")};
  ASSERT_TRUE(Run([&] { return Prefixes(*b_) == want; }));
  std::map<net::Prefix, BgpRoute> rib = LocRib(*b_);
  EXPECT_EQ(rib[P("198.51.100.0/24")].attrs->local_pref, 200u);
  EXPECT_EQ(rib[P("198.51.7.0/24")].attrs->local_pref, 200u);
  EXPECT_NE(rib[P("203.0.113.0/24")].attrs->local_pref, std::optional<uint32_t>(200));
  ASSERT_EQ(policy_b_->List().size(), 1u);
  EXPECT_EQ(policy_b_->List()[0].filter, "import:127.0.0.1");
  EXPECT_EQ(policy_b_->List()[0].policies, std::vector<std::string>{"upstream-in"});
}

TEST_F(ProcessPolicyTest, ABadPolicyIsRefusedWithLineAndColumnAndTheRunningOneStays) {
  ASSERT_TRUE(
      policy_b_->Configure("import:127.0.0.1", Request(kImportPolicy, {"upstream-in"})).ok());
  Connect();
  Originate("10.1.0.0/16");
  Originate("203.0.113.0/24");
  ASSERT_TRUE(Run([&] { return Prefixes(*b_) == std::set<net::Prefix>{P("203.0.113.0/24")}; }));
  const std::shared_ptr<const policy::Filter> running =
      b_->PolicySlots(Addr("127.0.0.1")).import_slot.Get();

  // A syntax error on line 2, column 26 (the misspelt action), and an unknown set.
  const std::string bad = "policy-statement all {\n    term t { then { acept; } }\n}\n";
  absl::Status st = policy_b_->Configure("import:127.0.0.1", Request(bad, {"all"}));
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("test.conf:2:21"), std::string::npos) << st.message();
  const std::string unknown_set =
      "policy-statement all {\n  term t {\n    from { prefix-list nowhere; }\n"
      "    then { accept; }\n  }\n}\n";
  st = policy_b_->Configure("import:127.0.0.1", Request(unknown_set, {"all"}));
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("test.conf:3:"), std::string::npos) << st.message();
  st = policy_b_->Configure("import:127.0.0.1", Request(kImportPolicy, {"missing"}));
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(policy_b_->Configure("import:not-an-address", Request(kImportPolicy, {})).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(policy_b_->Configure("elsewhere:1", Request(kImportPolicy, {})).code(),
            absl::StatusCode::kInvalidArgument);

  // Nothing changed: same filter, the bogon still rejected, even for a route sent now.
  EXPECT_EQ(b_->PolicySlots(Addr("127.0.0.1")).import_slot.Get(), running);
  Originate("10.2.0.0/16");
  Originate("198.18.0.0/24");  // after the bogon: once it is there, both were filtered
  ASSERT_TRUE(Run([&] { return Prefixes(*b_).count(P("198.18.0.0/24")) == 1; }));
  EXPECT_EQ(Prefixes(*b_), (std::set<net::Prefix>{P("203.0.113.0/24"), P("198.18.0.0/24")}));

  // A good new policy takes over, the routes already there are re-filtered in the background.
  ASSERT_TRUE(
      policy_b_
          ->Configure("import:127.0.0.1",
                      Request("policy-statement all { term t { then { accept; } } }", {"all"}))
          .ok());
  ASSERT_TRUE(Run([&] { return Prefixes(*b_).size() == 4; }));
  // Reset: no policy again; RFC 8212 is off for this peer, so everything stays.
  ASSERT_TRUE(policy_b_->Reset("import:127.0.0.1").ok());
  EXPECT_EQ(b_->PolicySlots(Addr("127.0.0.1")).import_slot.Get(), nullptr);
  EXPECT_TRUE(policy_b_->List().empty());
}

TEST_F(ProcessPolicyTest, ExportPolicyPrependsTwiceAndAddsACommunity) {
  const std::string out =
      "policy-statement to-b {\n"
      "  term t { then { as-path prepend local-as 2; community add [ 65001:300 ]; accept; } }\n"
      "}\n";
  ASSERT_TRUE(policy_a_->Configure("export:127.0.0.2", Request(out, {"to-b"})).ok());
  Connect();
  Originate("203.0.113.0/24");
  ASSERT_TRUE(Run([&] { return Prefixes(*b_).size() == 1; }));
  const BgpRoute r = LocRib(*b_).begin()->second;
  EXPECT_EQ(r.attrs->as_path->ToString(), "65001 65001 65001");
  EXPECT_EQ(r.attrs->communities, std::vector<uint32_t>{(65001u << 16) | 300});

  // A new export policy moves the route over without a session reset.
  ASSERT_TRUE(
      policy_a_
          ->Configure("export:127.0.0.2",
                      Request("policy-statement plain { term t { then { accept; } } }", {"plain"}))
          .ok());
  ASSERT_TRUE(Run([&] {
    auto rib = LocRib(*b_);
    return rib.size() == 1 && rib.begin()->second.attrs->as_path->ToString() == "65001";
  }));
  EXPECT_TRUE(LocRib(*b_).begin()->second.attrs->communities.empty());
}

TEST_F(ProcessPolicyTest, RedistributedStaticRoutesCarryTheCommunityOfTheirTag) {
  const std::string redist =
      "policy-statement static-to-bgp {\n"
      "  term t5 { from { protocol static; tag 5; } then { community add [ 65001:5 ]; accept; } }\n"
      "  term t6 { from { protocol static; tag 6; } then { community add [ 65001:6 ]; med 60; "
      "accept; } }\n"
      "}\n";
  ASSERT_TRUE(policy_a_->Configure("redist:static", Request(redist, {"static-to-bgp"})).ok());
  EXPECT_TRUE((subscriptions_[{net::Family::kIPv4, "static"}]));
  EXPECT_TRUE((subscriptions_[{net::Family::kIPv6, "static"}]));
  Connect();
  auto route = [](const std::string& prefix, std::vector<uint32_t> tags, bool deleted = false) {
    RedistRoute r;
    r.network = P(prefix);
    r.nexthop = Addr("192.0.2.9");
    r.tags = std::move(tags);
    r.deleted = deleted;
    return r;
  };
  std::vector<RedistRoute> dump = {route("198.18.5.0/24", {5}), route("198.18.6.0/24", {6}),
                                   route("198.18.7.0/24", {7}), route("198.18.8.0/24", {})};
  redist_->OnChanges(net::Family::kIPv4, "static", dump, true);
  redist_->OnChanges(net::Family::kIPv4, "other", dump, true);  // not subscribed: ignored
  const std::set<net::Prefix> want = {P("198.18.5.0/24"), P("198.18.6.0/24")};
  ASSERT_TRUE(Run([&] { return Prefixes(*b_) == want; }));
  EXPECT_EQ(redist_->Originated("static"), want);
  std::map<net::Prefix, BgpRoute> rib = LocRib(*b_);
  EXPECT_EQ(rib[P("198.18.5.0/24")].attrs->communities, std::vector<uint32_t>{(65001u << 16) | 5});
  EXPECT_EQ(rib[P("198.18.6.0/24")].attrs->communities, std::vector<uint32_t>{(65001u << 16) | 6});
  EXPECT_EQ(rib[P("198.18.6.0/24")].attrs->origin, Origin::kIncomplete);

  // The tag changes (a replace from the RIB), then the route is deleted.
  std::vector<RedistRoute> retag = {route("198.18.5.0/24", {6}),
                                    route("198.18.6.0/24", {}, /*deleted=*/true)};
  redist_->OnChanges(net::Family::kIPv4, "static", retag, false);
  ASSERT_TRUE(Run([&] {
    auto r = LocRib(*b_);
    return r.size() == 1 &&
           r.begin()->second.attrs->communities == std::vector<uint32_t>{(65001u << 16) | 6};
  }));
  // The RIB sends the stream again from a dump (a redist_routes call to us failed): what the
  // dump does not carry is withdrawn at its end, not before.
  std::vector<RedistRoute> again = {route("198.18.6.0/24", {6})};
  redist_->OnChanges(net::Family::kIPv4, "static", again, false, /*dump_start=*/true);
  ASSERT_TRUE(Run([&] { return Prefixes(*b_).size() == 2; }));
  redist_->OnChanges(net::Family::kIPv4, "static", {}, /*dump_done=*/true);
  ASSERT_TRUE(Run([&] { return Prefixes(*b_) == std::set<net::Prefix>{P("198.18.6.0/24")}; }))
      << Prefixes(*b_).size();
  EXPECT_EQ(redist_->Originated("static"), std::set<net::Prefix>{P("198.18.6.0/24")});

  // Reset: unsubscribed, the routes withdrawn.
  ASSERT_TRUE(policy_a_->Reset("redist:static").ok());
  EXPECT_FALSE((subscriptions_[{net::Family::kIPv4, "static"}]));
  ASSERT_TRUE(Run([&] { return Prefixes(*b_).empty(); }));
  EXPECT_EQ(policy_a_->Reset("redist:static").code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace sluice::bgp::process
