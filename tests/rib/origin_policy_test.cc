// Policy on static and connected routes as they enter the RIB (rib/origin_policy.h):
// tags set and routes rejected by policy, a new policy re-applied to the routes already there in
// the background, a bad policy never installed.
#include <gtest/gtest.h>

#include "policy/filter_request.h"
#include "rib/rib.h"
#include "tests/rib/rib_test_util.h"

namespace sluice::rib {
namespace {

using testing::A;
using testing::FakeFib;
using testing::In;
using testing::P;

struct Fixture {
  boost::asio::io_context io;
  FakeFib fib{io};
  std::vector<std::string> violations;
  std::unique_ptr<Rib> rib;

  Fixture() {
    RibOptions options;
    options.insert_cache_stages = true;
    options.on_violation = [this](const std::string& v) { violations.push_back(v); };
    rib = std::make_unique<Rib>(io, &fib, options);
    rib->FeaBorn();
    InterfaceEvents* ev = rib->interface_events();
    ev->OnInterfaceAdded("eth0", true);
    ev->OnAddressAdded("eth0", A("10.0.0.1"), 24);
    ev->OnInterfaceAdded("eth1", true);
    ev->OnAddressAdded("eth1", A("10.0.1.1"), 24);
  }
  void Run() {
    io.run();
    io.restart();
  }
  std::string Fib() const {
    std::string out;
    for (const auto& [p, r] : fib.fib) out += r.ToString() + "\n";
    return out;
  }
  // protocol's routes as "prefix tags" lines.
  std::string Routes(const char* protocol) {
    std::string out;
    auto routes = rib->ListProtocolRoutes(protocol, net::Family::kIPv4, std::nullopt, 100);
    EXPECT_TRUE(routes.ok());
    for (const RibRoute& r : *routes) out += r.ToString() + "\n";
    return out;
  }
  absl::StatusOr<std::shared_ptr<const policy::Filter>> Compile(const std::string& text,
                                                                const std::string& name) {
    policy::FilterRequest r;
    r.source = text;
    r.policies = {name};
    r.start.file = "rib.conf";
    return policy::CompileFilterRequest(r, policy::Verdict::kAccept, OriginPolicy::Options());
  }
  void ExpectConsistent() {
    EXPECT_EQ(rib->network(net::Family::kIPv4).VerifyCaches(), 0u);
    for (const auto& v : violations) ADD_FAILURE() << v;
    EXPECT_EQ(fib.errors, 0u);
  }
};

constexpr const char* kStaticPolicy = R"(policy-statement statics {
  term blackholes { from { network4 192.0.2.0/24 orlonger; } then { reject; } }
  term customers { from { network4 198.51.100.0/24 orlonger; } then { tag 5; med 10; accept; } }
}
)";

TEST(OriginPolicy, TagsAndRejectsStaticRoutesAndReappliesANewPolicy) {
  Fixture f;
  const RouteInput statics[] = {In("192.0.2.0/25", "10.0.0.2"), In("198.51.100.0/24", "10.0.0.2"),
                                In("203.0.113.0/24", "10.0.1.2")};
  ASSERT_TRUE(f.rib->AddRoutes("static", statics).ok());
  f.Run();
  EXPECT_EQ(f.Routes("static"),
            "192.0.2.0/25 static/1 via 10.0.0.2 metric 0\n"
            "198.51.100.0/24 static/1 via 10.0.0.2 metric 0\n"
            "203.0.113.0/24 static/1 via 10.0.1.2 metric 0\n");

  auto filter = f.Compile(kStaticPolicy, "statics");
  ASSERT_TRUE(filter.ok()) << filter.status();
  ASSERT_TRUE(f.rib->SetOriginPolicy("static", *filter).ok());
  EXPECT_TRUE(f.rib->origin_policy().refiltering("static"));
  f.Run();  // the background walk
  EXPECT_FALSE(f.rib->origin_policy().refiltering("static"));
  EXPECT_EQ(f.Routes("static"),
            "198.51.100.0/24 static/1 via 10.0.0.2 metric 10 tags 5\n"
            "203.0.113.0/24 static/1 via 10.0.1.2 metric 0\n");
  EXPECT_FALSE(f.fib.fib.contains(P("192.0.2.0/25")));

  // New routes go through it at once; deleting a rejected one is no error.
  const RouteInput more[] = {In("192.0.2.128/25", "10.0.0.2"), In("198.51.100.128/25", "10.0.0.3")};
  ASSERT_TRUE(f.rib->AddRoutes("static", more).ok());
  f.Run();
  EXPECT_FALSE(f.fib.fib.contains(P("192.0.2.128/25")));
  EXPECT_TRUE(f.fib.fib.contains(P("198.51.100.128/25")));
  const net::Prefix gone[] = {P("192.0.2.128/25")};
  auto del = f.rib->DeleteRoutes("static", gone);
  ASSERT_TRUE(del.ok());
  EXPECT_TRUE(del->not_found.empty());

  // Reset: the routes as the protocol gave them come back.
  ASSERT_TRUE(f.rib->SetOriginPolicy("static", nullptr).ok());
  f.Run();
  EXPECT_EQ(f.Routes("static"),
            "192.0.2.0/25 static/1 via 10.0.0.2 metric 0\n"
            "198.51.100.0/24 static/1 via 10.0.0.2 metric 0\n"
            "198.51.100.128/25 static/1 via 10.0.0.3 metric 0\n"
            "203.0.113.0/24 static/1 via 10.0.1.2 metric 0\n");
  f.ExpectConsistent();
}

TEST(OriginPolicy, ConnectedRoutesToo) {
  Fixture f;
  auto filter = f.Compile(
      "policy-statement c { term t { from { network4 10.0.1.0/24; } then { reject; } } }", "c");
  ASSERT_TRUE(filter.ok()) << filter.status();
  ASSERT_TRUE(f.rib->SetOriginPolicy("connected", *filter).ok());
  f.Run();
  EXPECT_EQ(f.Fib(), "10.0.0.0/24 dev eth0 metric 0 connected/0\n");
  ASSERT_TRUE(f.rib->SetOriginPolicy("connected", nullptr).ok());
  f.Run();
  EXPECT_TRUE(f.fib.fib.contains(P("10.0.1.0/24")));
  EXPECT_EQ(f.rib->SetOriginPolicy("ebgp", nullptr).code(), absl::StatusCode::kInvalidArgument);
  f.ExpectConsistent();
}

TEST(OriginPolicy, WhatTheRibCannotDoIsACompileErrorWithItsLocation) {
  Fixture f;
  // Communities are BGP attributes: line 2, in the `then` block.
  auto filter = f.Compile(
      "policy-statement c {\n  term t { then { community add [ 65000:1 ]; accept; } }\n}\n", "c");
  ASSERT_FALSE(filter.ok());
  EXPECT_NE(filter.status().message().find("rib.conf:2:"), std::string::npos)
      << filter.status().message();
}

}  // namespace
}  // namespace sluice::rib
