// sluice-rtrmgr drives the extension interfaces: a static route goes
// through sluice-static (a supervised child) to the RIB and the FIB; the policy block and the
// peers' export chains reach sluice-bgp through policy_backend/1.0 (and are reset when a changed
// file drops them); `damping { ... }` and a peer's `damping;` reach it through the damping
// methods; `sluice show bgp damping --json` prints what list_damped answers.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <optional>

#include "absl/strings/str_cat.h"
#include "ipc/proto/bgp.pb.h"
#include "ipc/proto/policy_backend.pb.h"
#include "ipc/types_convert.h"
#include "tests/system/rtrmgr_processes.h"

namespace sluice::testing {
namespace {

using ::testing::HasSubstr;

namespace pb = ::sluice::policy_backend::v1;
namespace bgp_v1 = ::sluice::bgp::v1;

const ipc::Method<pb::ListFiltersRequest, pb::ListFiltersReply> kListFilters{
    "policy_backend/1.0/list_filters"};
const ipc::Method<bgp_v1::GetDampingRequest, bgp_v1::GetDampingReply> kGetDamping{
    "bgp/1.0/get_damping"};

net::Prefix P(const char* text) { return *net::Prefix::Parse(text); }

std::string Config(int port, bool with_export) {
  return absl::StrCat(R"(
interfaces {
    interface eth0 { address 10.1.0.1/24; }
}
fea { backend dummy; }
protocols {
    static {
        route 192.0.2.0/24 { next-hop 10.1.0.254; tag 7; }
    }
    bgp {
        local-as 4200000001;
        bgp-id 10.255.0.1;
        listen 127.0.0.1 port )",
                      port, R"(;
        damping { half-life 10m; reuse 800; suppress 3000; max-suppress 30m; }
        peer 127.0.0.2 {
            as 4200000002; local-ip 127.0.0.1; passive; damping;
            import [ accept-all ];
)",
                      with_export ? "            export [ statics-out ];\n" : "", R"(
        }
    }
}
policy {
    policy-statement accept-all { term all { then { accept; } } }
    policy-statement statics-out {
        term statics { from { protocol static; tag 7; } then { community add [ 65000:7 ]; accept; } }
    }
}
)");
}

// sluice-bgp's banks by name as list_filters shows them (a reset bank is not listed), or nullopt
// when the call failed.
std::optional<std::map<std::string, pb::FilterInfo>> Filters(RtrmgrProcess& r) {
  auto filters = r.client().Call("bgp", kListFilters, pb::ListFiltersRequest());
  if (!filters.ok()) return std::nullopt;
  std::map<std::string, pb::FilterInfo> out;
  for (const pb::FilterInfo& f : filters->filters()) out[f.filter()] = f;
  return out;
}

// The bank `name` when it is listed and configured.
std::optional<pb::FilterInfo> Filter(RtrmgrProcess& r, const std::string& name) {
  auto all = Filters(r);
  if (!all || !all->count(name) || !all->at(name).configured()) return std::nullopt;
  return all->at(name);
}

TEST(RtrmgrGlue, StaticRoutesPoliciesAndDampingGoThroughTheirProcessesInterfaces) {
  RtrmgrProcess r;
  const int port = FreeTcpPort();
  const std::string conf = r.WriteConfig("router.conf", Config(port, true));
  ASSERT_TRUE(r.Start(conf)) << r.Logs("rtrmgr") << r.process()->Output();

  // The static route: sluice-static runs under the router manager and the route reaches the RIB
  // (protocol static) and the FIB.
  EXPECT_GT(r.ChildPid("static_routes"), 0) << r.Sluice({"show", "processes"}).out;
  CommandResult route = r.Sluice({"show", "route"});
  EXPECT_EQ(route.exit_code, 0) << route.err;
  EXPECT_THAT(route.out, HasSubstr("192.0.2.0/24")) << route.out;
  EXPECT_THAT(route.out, HasSubstr("static")) << route.out;
  ASSERT_TRUE(Eventually([&] {
    auto fib = r.FibPrefixes("static");
    return fib && fib->count(P("192.0.2.0/24"));
  })) << r.Logs("static_routes");

  // The export chain and its redistribution bank are configured on sluice-bgp.
  ASSERT_TRUE(Eventually([&] {
    auto f = Filter(r, "export:127.0.0.2");
    return f && f->configured();
  })) << r.Logs("rtrmgr")
      << r.Logs("bgp");
  auto exported = Filter(r, "export:127.0.0.2");
  ASSERT_TRUE(exported);
  EXPECT_EQ(std::vector<std::string>(exported->policies().begin(), exported->policies().end()),
            std::vector<std::string>{"statics-out"});
  auto redist = Filter(r, "redist:static");
  ASSERT_TRUE(redist) << r.Logs("rtrmgr");
  EXPECT_EQ(std::vector<std::string>(redist->policies().begin(), redist->policies().end()),
            std::vector<std::string>{"statics-out"});
  EXPECT_THAT(r.Logs("rtrmgr"), ::testing::Not(HasSubstr("not applied yet")));

  // Damping: the file's parameters and the damped peer.
  auto damping = r.client().Call("bgp", kGetDamping, bgp_v1::GetDampingRequest());
  ASSERT_TRUE(damping.ok()) << damping.status();
  EXPECT_EQ(damping->parameters().half_life_s(), 600u);
  EXPECT_EQ(damping->parameters().reuse(), 800u);
  EXPECT_EQ(damping->parameters().suppress(), 3000u);
  EXPECT_EQ(damping->parameters().max_suppress_s(), 1800u);
  ASSERT_EQ(damping->damped_peers_size(), 1);
  auto damped = ipc::FromProto(damping->damped_peers(0));
  ASSERT_TRUE(damped.ok());
  EXPECT_EQ(damped->ToString(), "127.0.0.2");

  // The CLI's damping view is one document with the list in it; the table has its header.
  CommandResult json = r.Sluice({"show", "bgp", "damping", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, ::testing::StartsWith("{\"routes\":["));
  EXPECT_EQ(std::count(json.out.begin(), json.out.end(), '\n'), 1) << json.out;
  CommandResult table = r.Sluice({"show", "bgp", "damping"});
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("penalty"));
  EXPECT_THAT(table.out, HasSubstr("0 suppressed"));

  // A changed file without the export chain: that bank is reset (the import chain stays, so the
  // peer is not added again), and the redistribution bank no chain names any more is reset.
  r.WriteConfig("router.conf", Config(port, false));
  CommandResult loaded = r.Sluice({"configure", "load", conf});
  EXPECT_EQ(loaded.exit_code, 0) << loaded.err << loaded.out;
  std::optional<std::map<std::string, pb::FilterInfo>> after;
  ASSERT_TRUE(Eventually([&] {
    after = Filters(r);
    return after && !after->count("export:127.0.0.2");
  })) << r.Logs("rtrmgr");
  EXPECT_TRUE(after->count("import:127.0.0.2"));
  EXPECT_FALSE(after->count("redist:static"));
  auto damping_after = r.client().Call("bgp", kGetDamping, bgp_v1::GetDampingRequest());
  ASSERT_TRUE(damping_after.ok());
  EXPECT_EQ(damping_after->damped_peers_size(), 1);
}

}  // namespace
}  // namespace sluice::testing
