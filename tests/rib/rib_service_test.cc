// The RIB's RPC adapters (rib/service/) with a real Finder and real routers in one process:
// rib/1.0 as a protocol sees it, a fake FEA (fea_fib/1.0 and fea_ifmgr/1.0 in memory) that the
// RIB feeds and follows, and a client component receiving rib_client/1.0 calls.

#include "rib/service/rib_service.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>

#include "ipc/methods/rib.h"
#include "ipc/proto/fea_fib.pb.h"
#include "ipc/proto/fea_ifmgr.pb.h"
#include "ipc/proto/fea_ifmgr_client.pb.h"
#include "ipc/proto/rib.pb.h"
#include "ipc/proto/rib_client.pb.h"
#include "ipc/types_convert.h"
#include "ipc/xrl_router.h"
#include "rib/fea_out_stage.h"
#include "rib/rib.h"
#include "rib/service/fea_feeds.h"
#include "rib/service/rib_clients.h"
#include "rib/service/xrl_fib_client.h"
#include "rib/service/xrl_interface_source.h"
#include "tests/ipc/finder_thread.h"

namespace sluice::rib {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
namespace pb = rib::v1;
namespace fpb = fea_fib::v1;
namespace ipb = fea_ifmgr::v1;
namespace icpb = fea_ifmgr_client::v1;
namespace cpb = rib_client::v1;

const ipc::Method<fpb::ApplyBatchRequest, fpb::CommitTransactionReply> kApplyBatch{
    "fea_fib/1.0/apply_batch"};
const ipc::Method<fpb::ApplyBatchPackedRequest, fpb::CommitTransactionReply> kApplyBatchPacked{
    "fea_fib/1.0/apply_batch_packed"};
const ipc::Method<fpb::StartFullPushRequest, fpb::StartFullPushReply> kStartFullPush{
    "fea_fib/1.0/start_full_push"};
const ipc::Method<fpb::CompleteFullPushRequest, fpb::CompleteFullPushReply> kCompleteFullPush{
    "fea_fib/1.0/complete_full_push"};
const ipc::Method<ipb::SubscribeRequest, ipb::SubscribeReply> kSubscribe{"fea_ifmgr/1.0/subscribe"};
const ipc::Method<icpb::InterfaceEventsRequest, icpb::InterfaceEventsReply> kInterfaceEvents{
    "fea_ifmgr_client/1.0/interface_events"};
const ipc::Method<pb::RegisterProtocolRequest, pb::RegisterProtocolReply> kRegisterProtocol{
    "rib/1.0/register_protocol"};
const ipc::Method<pb::AddRoute4Request, pb::RouteReply> kAddRoute4{"rib/1.0/add_route4"};
const ipc::Method<pb::DeleteRoute4Request, pb::RouteReply> kDeleteRoute4{"rib/1.0/delete_route4"};
const ipc::Method<pb::RoutesRequest, pb::RoutesReply> kAddRoutes{"rib/1.0/add_routes"};
const ipc::Method<pb::DeleteRoutesRequest, pb::RoutesReply> kDeleteRoutes{"rib/1.0/delete_routes"};
const ipc::Method<pb::AddRoutesPackedRequest, pb::RoutesReply> kAddRoutesPacked{
    "rib/1.0/add_routes_packed"};
const ipc::Method<pb::LookupRouteByDest4Request, pb::LookupRouteReply> kLookupDest4{
    "rib/1.0/lookup_route_by_dest4"};
const ipc::Method<pb::ListRoutesRequest, pb::ListRoutesReply> kListRoutes{"rib/1.0/list_routes"};
const ipc::Method<pb::RegisterInterestRequest, pb::RegisterInterestReply> kRegisterInterest{
    "rib/1.0/register_interest"};
const ipc::Method<pb::RedistSubscribeRequest, pb::RedistSubscribeReply> kRedistSubscribe{
    "rib/1.0/redist_subscribe"};
const ipc::Method<pb::SetAdminDistanceRequest, pb::SetAdminDistanceReply> kSetAdminDistance{
    "rib/1.0/set_admin_distance"};
const ipc::Method<pb::ListFeasRequest, pb::ListFeasReply> kListFeas{"rib/1.0/list_feas"};
const ipc::Method<pb::ListProtocolsRequest, pb::ListProtocolsReply> kListProtocols{
    "rib/1.0/list_protocols"};
const ipc::Method<cpb::RouteInfoInvalidRequest, cpb::RouteInfoInvalidReply> kRouteInfoInvalid{
    "rib_client/1.0/route_info_invalid"};
const ipc::Method<cpb::RedistRoutesRequest, cpb::RedistRoutesReply> kRedistRoutes{
    "rib_client/1.0/redist_routes"};

net::Prefix P(const char* text) { return *net::Prefix::Parse(text); }
std::string Text(const types::v1::IPPrefix& p) { return ipc::FromProto(p)->ToString(); }

pb::RouteEntry Entry(const char* network, const char* nexthop) {
  pb::RouteEntry e;
  ipc::ToProto(P(network), e.mutable_network());
  ipc::ToProto(*net::IPAddress::Parse(nexthop), e.mutable_nexthop());
  return e;
}

// An FEA in memory: the FIB as "prefix via gateway dev ifname proto protocol" by prefix, the
// calls it got, and an interface tree it dumps to subscribers.
class FakeFea {
 public:
  FakeFea(boost::asio::io_context& io, ipc::RouterOptions options, std::string instance = "fea") {
    router = std::make_unique<ipc::XrlRouter>(io, "fea", std::move(instance), options);
    EXPECT_TRUE(router
                    ->Handle(kApplyBatch,
                             [this](const fpb::ApplyBatchRequest& r)
                                 -> absl::StatusOr<fpb::CommitTransactionReply> {
                               calls.push_back("apply_batch " + std::to_string(r.changes_size()));
                               for (const fpb::FibChange& c : r.changes()) Apply(c);
                               return fpb::CommitTransactionReply();
                             })
                    .ok());
    // The columns as fea_fib.proto lays them out, back into one FibChange each.
    EXPECT_TRUE(
        router
            ->Handle(kApplyBatchPacked,
                     [this](const fpb::ApplyBatchPackedRequest& r)
                         -> absl::StatusOr<fpb::CommitTransactionReply> {
                       calls.push_back("apply_batch_packed " + std::to_string(r.lengths_size()));
                       const net::Family family =
                           r.ipv6() ? net::Family::kIPv6 : net::Family::kIPv4;
                       const int w = ipc::AddressWords(family);
                       for (int i = 0; i < r.lengths_size(); ++i) {
                         fpb::FibChange c;
                         c.set_op(static_cast<fpb::FibChange::Op>(r.ops(i)));
                         ipc::ToProto(
                             net::Prefix(ipc::AddressFromWords(family, r.networks().data() + i * w),
                                         static_cast<int>(r.lengths(i))),
                             c.mutable_route()->mutable_network());
                         fpb::Nexthop* nh = c.mutable_route()->add_nexthops();
                         net::IPAddress gateway =
                             ipc::AddressFromWords(family, r.gateways().data() + i * w);
                         if (!gateway.is_unspecified()) {
                           ipc::ToProto(gateway, nh->mutable_gateway());
                         }
                         if (r.ifname_indexes(i) != 0) {
                           nh->set_ifname(r.ifnames(r.ifname_indexes(i) - 1));
                         }
                         if (r.protocol_indexes(i) != 0) {
                           c.mutable_route()->set_protocol(r.protocols(r.protocol_indexes(i) - 1));
                         }
                         Apply(c);
                       }
                       return fpb::CommitTransactionReply();
                     })
            .ok());
    EXPECT_TRUE(router
                    ->Handle(kStartFullPush,
                             [this](const fpb::StartFullPushRequest&)
                                 -> absl::StatusOr<fpb::StartFullPushReply> {
                               calls.push_back("start_full_push");
                               stale.clear();
                               for (const auto& [p, r] : fib) stale.insert(p);
                               return fpb::StartFullPushReply();
                             })
                    .ok());
    EXPECT_TRUE(router
                    ->Handle(kCompleteFullPush,
                             [this](const fpb::CompleteFullPushRequest&)
                                 -> absl::StatusOr<fpb::CompleteFullPushReply> {
                               calls.push_back("complete_full_push");
                               for (const std::string& p : stale) fib.erase(p);
                               stale.clear();
                               return fpb::CompleteFullPushReply();
                             })
                    .ok());
    EXPECT_TRUE(
        router
            ->Handle(kSubscribe,
                     [this](const ipb::SubscribeRequest& r) -> absl::StatusOr<ipb::SubscribeReply> {
                       calls.push_back("subscribe " + r.target());
                       if (refuse_subscribes > 0) {
                         --refuse_subscribes;
                         return absl::UnavailableError("not serving yet");
                       }
                       router->Call(r.target(), kInterfaceEvents, dump,
                                    [](absl::StatusOr<icpb::InterfaceEventsReply>) {});
                       return ipb::SubscribeReply();
                     })
            .ok());
    // eth0 with 192.0.2.1/24.
    dump.add_events()->set_kind(icpb::InterfaceEvent::SYNC_START);
    icpb::InterfaceEvent* e = dump.add_events();
    e->set_kind(icpb::InterfaceEvent::INTERFACE_ADDED);
    e->mutable_interface()->set_name("eth0");
    e->mutable_interface()->set_enabled(true);
    e->mutable_interface()->set_carrier(true);
    icpb::InterfaceEvent* a = dump.add_events();
    *a = *e;
    a->set_kind(icpb::InterfaceEvent::ADDRESS_ADDED);
    ipc::ToProto(*net::IPAddress::Parse("192.0.2.1"), a->mutable_address()->mutable_address());
    a->mutable_address()->set_prefix_length(24);
    dump.add_events()->set_kind(icpb::InterfaceEvent::SYNC_DONE);
    EXPECT_TRUE(router->Start().ok());
  }

  void Apply(const fpb::FibChange& c) {
    const std::string prefix = Text(c.route().network());
    stale.erase(prefix);
    if (c.op() == fpb::FibChange::DELETE) {
      fib.erase(prefix);
      return;
    }
    std::string text = prefix;
    for (const fpb::Nexthop& nh : c.route().nexthops()) {
      if (nh.has_gateway()) text += " via " + ipc::FromProto(nh.gateway())->ToString();
      if (!nh.ifname().empty()) text += " dev " + nh.ifname();
    }
    text += " proto " + c.route().protocol();
    fib[prefix] = text;
  }
  std::vector<std::string> Routes() const {
    std::vector<std::string> out;
    for (const auto& [p, r] : fib) out.push_back(r);
    return out;
  }
  // Its one interface is `ifname` with `address`/24 instead (before the RIB subscribes).
  void SetInterface(const std::string& ifname, const char* address) {
    dump.mutable_events(1)->mutable_interface()->set_name(ifname);
    dump.mutable_events(2)->mutable_interface()->set_name(ifname);
    ipc::ToProto(*net::IPAddress::Parse(address),
                 dump.mutable_events(2)->mutable_address()->mutable_address());
  }

  std::unique_ptr<ipc::XrlRouter> router;
  std::map<std::string, std::string> fib;
  std::set<std::string> stale;
  std::vector<std::string> calls;
  icpb::InterfaceEventsRequest dump;
  int refuse_subscribes = 0;  // fails this many subscribes, as an FEA not serving yet
};

class RibServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/sluice-rib-service-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    rundir_ = dir;
    setenv("SLUICE_RUNDIR", rundir_.c_str(), 1);
    finder::FinderOptions finder_options;
    finder_options.listen = {"unix:" + rundir_ + "/finder.sock"};
    finder_ = std::make_unique<testing::FinderThread>(finder_options);
    ASSERT_TRUE(finder_->status().ok()) << finder_->status();
    StartRib();
    client_ = std::make_unique<ipc::XrlRouter>(io_, "bgp", "bgp", Options());
    ASSERT_TRUE(client_
                    ->Handle(kRouteInfoInvalid,
                             [this](const cpb::RouteInfoInvalidRequest& r)
                                 -> absl::StatusOr<cpb::RouteInfoInvalidReply> {
                               if (lose_invalidations_ > 0) {
                                 --lose_invalidations_;
                                 return absl::UnavailableError("lost by the test");
                               }
                               client_calls_.push_back("invalid " + Text(r.valid_subnet()));
                               return cpb::RouteInfoInvalidReply();
                             })
                    .ok());
    ASSERT_TRUE(
        client_
            ->Handle(kRedistRoutes,
                     [this](const cpb::RedistRoutesRequest& r)
                         -> absl::StatusOr<cpb::RedistRoutesReply> {
                       if (lose_redist_ > 0) {
                         --lose_redist_;
                         return absl::UnavailableError("lost by the test");
                       }
                       if (r.dump_start()) {
                         client_calls_.push_back("dump_start " + r.family() + " " + r.protocol());
                       }
                       for (const cpb::RedistChange& c : r.changes()) {
                         client_calls_.push_back("redist " + r.family() + " " + r.protocol() + " " +
                                                 cpb::RedistChange::Op_Name(c.op()) + " " +
                                                 Text(c.route().network()));
                       }
                       if (r.dump_done()) {
                         client_calls_.push_back("dump_done " + r.family() + " " + r.protocol());
                       }
                       return cpb::RedistRoutesReply();
                     })
            .ok());
    ASSERT_TRUE(client_->Start().ok());
    ASSERT_TRUE(RunUntil([&] { return client_->registered() && rib_router_->registered(); }));
  }
  void TearDown() override {
    client_.reset();
    fea_.reset();
    StopRib();
    finder_.reset();
    std::filesystem::remove_all(rundir_);
  }

  ipc::RouterOptions Options() {
    ipc::RouterOptions options;
    options.finder_address = "unix:" + rundir_ + "/finder.sock";
    options.finder_wait_ms = 2000;
    return options;
  }

  // The RIB's parts as sluice-rib wires them.
  void StartRib() {
    rib_router_ = std::make_unique<ipc::XrlRouter>(io_, "rib", "rib", Options());
    gate_ = std::make_unique<FullPushGate>(io_, std::chrono::seconds(60),
                                           std::vector<std::string>{}, nullptr);
    RibOptions options;
    options.profiler = &profiler_;
    options.on_end_of_rib = [this](std::string_view protocol) { gate_->EndOfRib(protocol); };
    rib_ = std::make_unique<Rib>(io_, nullptr, options);
    interfaces_ = std::make_unique<XrlInterfaceSource>(*rib_router_);
    rib_->AttachInterfaceSource(interfaces_.get());
    clients_ = std::make_unique<RibClients>(io_, *rib_router_, *rib_);
    service_ = std::make_unique<RibService>(*rib_router_, *rib_, *clients_);
    ASSERT_TRUE(service_->Register().ok());
    ASSERT_TRUE(interfaces_->Register().ok());
    feeds_ = std::make_unique<FeaFeeds>(io_, *rib_router_, *rib_, *gate_, *interfaces_,
                                        FeaFeeds::Options{});
    feeds_->Start();
    ASSERT_TRUE(rib_router_->Start().ok());
  }
  void StopRib() {
    if (interfaces_) interfaces_->Stop();
    rib_router_.reset();
    feeds_.reset();
    service_.reset();
    clients_.reset();
    rib_.reset();
    interfaces_.reset();
    gate_.reset();
  }
  void StartFea() {
    fea_ = std::make_unique<FakeFea>(io_, Options());
    ASSERT_TRUE(RunUntil([&] { return fea_->router->registered(); }));
  }

  template <typename P>
  bool RunUntil(P done, int ms = 20000) {  // generous: a loaded CI machine is slow, not wrong
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      io_.run_one_for(std::chrono::milliseconds(5));
    }
    return done();
  }
  // A call to the RIB from `from` (default: the client, class bgp).
  template <typename Request, typename Reply>
  absl::StatusOr<Reply> Call(const ipc::Method<Request, Reply>& method, Request request,
                             ipc::XrlRouter* from = nullptr) {
    std::optional<absl::StatusOr<Reply>> result;
    (from != nullptr ? from : client_.get())
        ->Call("rib", method, std::move(request),
               [&](absl::StatusOr<Reply> reply) { result = std::move(reply); });
    EXPECT_TRUE(RunUntil([&] { return result.has_value(); }));
    if (!result) return absl::DeadlineExceededError("no answer");
    return *result;
  }
  absl::Status AddRoutes(const std::string& protocol, std::vector<pb::RouteEntry> entries,
                         ipc::XrlRouter* from = nullptr) {
    pb::RoutesRequest request;
    request.set_protocol(protocol);
    for (auto& e : entries) *request.add_routes() = e;
    return Call(kAddRoutes, request, from).status();
  }
  // A component of class static that owns protocol "static" and sent 10.0.0.0/8.
  std::unique_ptr<ipc::XrlRouter> StaticOwner() {
    auto owner = std::make_unique<ipc::XrlRouter>(io_, "static", "static-1", Options());
    EXPECT_TRUE(owner->Start().ok());
    EXPECT_TRUE(RunUntil([&] { return owner->registered(); }));
    pb::RegisterProtocolRequest reg;
    reg.set_protocol("static");
    EXPECT_TRUE(Call(kRegisterProtocol, reg, owner.get()).ok());
    EXPECT_TRUE(AddRoutes("static", {Entry("10.0.0.0/8", "192.0.2.2")}, owner.get()).ok());
    return owner;
  }
  // `owner`, whose stale routes are 10.0.0.0/8 (StaticOwner's) and 10.1.0.0/16, re-sends only
  // 10.0.0.0/8 and says end-of-RIB: 10.1.0.0/16 is swept from the FIB.
  void ResendTheFirstRouteThenEndOfRib(ipc::XrlRouter* owner) {
    ASSERT_TRUE(AddRoutes("static", {Entry("10.0.0.0/8", "192.0.2.2")}, owner).ok());
    pb::EndOfRibRequest eor;
    eor.set_protocol("static");
    auto swept = Call(ipc::methods::rib::kEndOfRib, eor, owner);
    ASSERT_TRUE(swept.ok()) << swept.status();
    EXPECT_EQ(swept->swept(), 1u);
    EXPECT_TRUE(
        FibIs({"10.0.0.0/8 via 192.0.2.2 proto static", "192.0.2.0/24 dev eth0 proto connected"}))
        << ::testing::PrintToString(fea_->Routes());
  }
  // The client (bgp) subscribes to the IPv4 routes of protocol static.
  static pb::RedistSubscribeRequest StaticToBgp() {
    pb::RedistSubscribeRequest sub;
    sub.set_target("bgp");
    sub.set_family("ipv4");
    sub.set_protocol("static");
    return sub;
  }
  bool FibIs(const std::vector<std::string>& expected) {
    return RunUntil([&] { return fea_ && fea_->Routes() == expected && rib_->Idle(); });
  }

  std::string rundir_;
  std::unique_ptr<testing::FinderThread> finder_;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_ =
      boost::asio::make_work_guard(io_);
  stage::Profiler profiler_;
  std::unique_ptr<ipc::XrlRouter> rib_router_;
  std::unique_ptr<FullPushGate> gate_;
  std::unique_ptr<Rib> rib_;
  std::unique_ptr<XrlInterfaceSource> interfaces_;
  std::unique_ptr<RibClients> clients_;
  std::unique_ptr<RibService> service_;
  std::unique_ptr<FeaFeeds> feeds_;
  std::unique_ptr<FakeFea> fea_;
  std::unique_ptr<ipc::XrlRouter> client_;
  std::vector<std::string> client_calls_;
  int lose_invalidations_ = 0;  // the next route_info_invalid calls answer UNAVAILABLE
  int lose_redist_ = 0;         // and the next redist_routes calls
};

TEST_F(RibServiceTest, WinnersReachTheFeaWithConnectedRoutesFromItsInterfaces) {
  StartFea();
  ASSERT_TRUE(
      AddRoutes("ebgp", {Entry("10.0.0.0/8", "192.0.2.7"), Entry("172.16.0.0/12", "192.0.2.8")})
          .ok());
  pb::AddRoute4Request stat;
  stat.set_protocol("static");
  ipc::ToProto(P("10.0.0.0/8"), stat.mutable_network());
  ipc::ToProto(*net::IPv4Address::Parse("192.0.2.2"), stat.mutable_nexthop());
  ASSERT_TRUE(Call(kAddRoute4, stat).ok());
  // static (1) beats ebgp (20); ebgp nexthops resolve through the connected subnet of eth0.
  EXPECT_TRUE(FibIs({"10.0.0.0/8 via 192.0.2.2 proto static",
                     "172.16.0.0/12 via 192.0.2.8 dev eth0 proto ebgp",
                     "192.0.2.0/24 dev eth0 proto connected"}))
      << ::testing::PrintToString(fea_->Routes());

  pb::LookupRouteByDest4Request lookup;
  ipc::ToProto(*net::IPv4Address::Parse("10.1.2.3"), lookup.mutable_dest());
  auto found = Call(kLookupDest4, lookup);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->route().protocol(), "static");
  EXPECT_EQ(found->route().admin_distance(), 1u);

  // The static route leaves: ebgp wins 10/8.
  pb::DeleteRoute4Request del;
  del.set_protocol("static");
  ipc::ToProto(P("10.0.0.0/8"), del.mutable_network());
  auto deleted = Call(kDeleteRoute4, del);
  ASSERT_TRUE(deleted.ok());
  EXPECT_TRUE(deleted->found());
  EXPECT_TRUE(FibIs({"10.0.0.0/8 via 192.0.2.7 dev eth0 proto ebgp",
                     "172.16.0.0/12 via 192.0.2.8 dev eth0 proto ebgp",
                     "192.0.2.0/24 dev eth0 proto connected"}))
      << ::testing::PrintToString(fea_->Routes());

  // A protocol's own routes, and the winners with how EGP nexthops were resolved.
  pb::ListRoutesRequest list;
  list.set_family("ipv4");
  list.set_protocol("ebgp");
  auto listed = Call(kListRoutes, list);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->routes_size(), 2);
  EXPECT_EQ(Text(listed->routes(1).network()), "172.16.0.0/12");
  list.set_protocol("");
  listed = Call(kListRoutes, list);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->routes_size(), 3);
  EXPECT_EQ(Text(listed->routes(1).network()), "172.16.0.0/12");
  EXPECT_TRUE(listed->routes(1).resolved());
  EXPECT_EQ(listed->routes(1).resolved_ifname(), "eth0");
  EXPECT_EQ(listed->routes(2).protocol(), "connected");
}

// An FEA that refuses the first subscribes to its interfaces (it registered before it serves,
// or the call was lost): the RIB subscribes again while it lives, and gets its connected routes.
TEST_F(RibServiceTest, AFailedInterfaceSubscribeIsMadeAgain) {
  fea_ = std::make_unique<FakeFea>(io_, Options());
  fea_->refuse_subscribes = 2;
  EXPECT_TRUE(FibIs({"192.0.2.0/24 dev eth0 proto connected"}))
      << ::testing::PrintToString(fea_->calls);
  EXPECT_EQ(std::count(fea_->calls.begin(), fea_->calls.end(), "subscribe rib"), 3)
      << ::testing::PrintToString(fea_->calls);
}

TEST_F(RibServiceTest, PackedBatchesAddRoutesOfEitherFamily) {
  StartFea();
  pb::AddRoutesPackedRequest v4;
  v4.set_protocol("ebgp");
  for (const char* p : {"10.0.0.0/8", "172.16.0.0/12"}) {
    v4.add_lengths(static_cast<uint32_t>(P(p).length()));
    ipc::AppendWords(P(p).address(), v4.mutable_networks());
  }
  ipc::AppendWords(*net::IPAddress::Parse("192.0.2.7"), v4.mutable_nexthops());
  ipc::AppendWords(*net::IPAddress::Parse("192.0.2.8"), v4.mutable_nexthops());
  v4.add_metrics(5);
  v4.add_metrics(6);
  auto added = Call(kAddRoutesPacked, v4);
  ASSERT_TRUE(added.ok()) << added.status();
  EXPECT_EQ(added->applied(), 2u);

  pb::AddRoutesPackedRequest v6;  // interface routes: no nexthops column
  v6.set_protocol("static");
  v6.set_ipv6(true);
  v6.add_lengths(32);
  ipc::AppendWords(P("2001:db8::/32").address(), v6.mutable_networks());
  v6.add_ifnames("eth0");
  v6.add_ifname_indexes(1);
  ASSERT_TRUE(Call(kAddRoutesPacked, v6).ok());

  EXPECT_TRUE(
      FibIs({"10.0.0.0/8 via 192.0.2.7 dev eth0 proto ebgp",
             "172.16.0.0/12 via 192.0.2.8 dev eth0 proto ebgp",
             "192.0.2.0/24 dev eth0 proto connected", "2001:db8::/32 dev eth0 proto static"}))
      << ::testing::PrintToString(fea_->Routes());
  pb::LookupRouteByDest4Request lookup;
  ipc::ToProto(*net::IPv4Address::Parse("172.16.1.1"), lookup.mutable_dest());
  auto found = Call(kLookupDest4, lookup);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->route().metric(), 6u);
  bool packed = false;
  for (const std::string& c : fea_->calls) packed |= c.rfind("apply_batch_packed", 0) == 0;
  EXPECT_TRUE(packed) << "the RIB sends its FIB batches in columns";
}

TEST_F(RibServiceTest, APackedBatchWithBadColumnsIsRefusedWhole) {
  StartFea();
  pb::AddRoutesPackedRequest request;
  request.set_protocol("ebgp");
  request.add_lengths(8);
  request.add_lengths(16);
  ipc::AppendWords(P("10.0.0.0/8").address(), request.mutable_networks());
  ipc::AppendWords(P("10.1.0.0/16").address(), request.mutable_networks());
  request.add_metrics(1);  // one metric for two routes
  auto refused = Call(kAddRoutesPacked, request);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("metrics"));

  request.clear_metrics();
  request.set_lengths(1, 33);
  refused = Call(kAddRoutesPacked, request);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("route #1"));

  request.set_lengths(1, 16);
  request.add_ifname_indexes(0);
  request.add_ifname_indexes(2);  // past the (empty) table
  refused = Call(kAddRoutesPacked, request);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("route #1"));

  request.clear_ifname_indexes();  // no nexthops, no interfaces: refused by the RIB
  refused = Call(kAddRoutesPacked, request);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(FibIs({"192.0.2.0/24 dev eth0 proto connected"}));
}

TEST_F(RibServiceTest, ABadRouteRefusesTheBatchNamingIt) {
  StartFea();
  pb::RoutesRequest request;
  request.set_protocol("static");
  *request.add_routes() = Entry("10.0.0.0/8", "192.0.2.2");
  pb::RouteEntry none;  // neither nexthop nor interface
  ipc::ToProto(P("10.1.0.0/16"), none.mutable_network());
  *request.add_routes() = none;
  auto refused = Call(kAddRoutes, request);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("route #1"));
  request.set_protocol("Not A Protocol");
  EXPECT_EQ(Call(kAddRoutes, request).status().code(), absl::StatusCode::kInvalidArgument);
  pb::SetAdminDistanceRequest distance;
  distance.set_protocol("static");
  distance.set_admin_distance(300);
  EXPECT_EQ(Call(kSetAdminDistance, distance).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(FibIs({"192.0.2.0/24 dev eth0 proto connected"}));
}

TEST_F(RibServiceTest, AReBornFeaGetsTheWholeFibBetweenStartAndCompleteFullPush) {
  StartFea();
  // Two full batches and a part.
  const size_t batch = FeaOutOptions{}.batch_size;
  const size_t total = 2 * batch + 501;  // with the connected route
  std::vector<pb::RouteEntry> routes;
  for (size_t i = 0; i + 1 < total; ++i) {
    std::string network = "10." + std::to_string(i / 256) + "." + std::to_string(i % 256) + ".0/24";
    routes.push_back(Entry(network.c_str(), "192.0.2.9"));
  }
  ASSERT_TRUE(AddRoutes("static", routes).ok());
  ASSERT_TRUE(RunUntil([&] { return fea_->fib.size() == total && rib_->Idle(); }));
  EXPECT_EQ(fea_->calls.front(), "start_full_push");

  // The FEA dies (its Finder session closes) and a new one is born, empty.
  fea_.reset();
  ASSERT_TRUE(RunUntil(
      [&] { return !rib_->network(net::Family::kIPv4).fea_out(Rib::kDefaultFea)->fea_up(); }));
  StartFea();
  ASSERT_TRUE(
      RunUntil([&] { return !fea_->calls.empty() && fea_->calls.back() == "complete_full_push"; }));
  EXPECT_EQ(fea_->fib.size(), total);
  EXPECT_EQ(fea_->calls.front(), "start_full_push");
  EXPECT_EQ(fea_->calls[1], "subscribe rib");
  // In batches of at most `batch` (three when nothing else runs; a loaded machine may cut one
  // more, the push being time-sliced).
  size_t batches = 0, changes = 0, largest = 0;
  for (const std::string& c : fea_->calls) {
    if (c.rfind("apply_batch", 0) != 0) continue;
    const size_t n = std::stoul(c.substr(c.rfind(' ') + 1));
    ++batches;
    changes += n;
    largest = std::max(largest, n);
  }
  EXPECT_GE(batches, 3u) << total << " routes in batches of " << batch;
  EXPECT_LE(largest, batch);
  EXPECT_EQ(changes, total);
}

TEST_F(RibServiceTest, TheDeathOfAProtocolOwnerWithdrawsItsRoutesUntilItReturns) {
  StartFea();
  auto owner = StaticOwner();
  ASSERT_TRUE(AddRoutes("ebgp", {Entry("172.16.0.0/12", "192.0.2.8")}).ok());
  EXPECT_TRUE(FibIs({"10.0.0.0/8 via 192.0.2.2 proto static",
                     "172.16.0.0/12 via 192.0.2.8 dev eth0 proto ebgp",
                     "192.0.2.0/24 dev eth0 proto connected"}));
  auto protocols = Call(kListProtocols, pb::ListProtocolsRequest());
  ASSERT_TRUE(protocols.ok());
  bool owned = false;
  for (const auto& p : protocols->protocols())
    owned |= p.protocol() == "static" && p.owner() == "static-1";
  EXPECT_TRUE(owned);

  owner.reset();  // dies
  EXPECT_TRUE(FibIs(
      {"172.16.0.0/12 via 192.0.2.8 dev eth0 proto ebgp", "192.0.2.0/24 dev eth0 proto connected"}))
      << ::testing::PrintToString(fea_->Routes());

  // It comes back and re-sends.
  owner = StaticOwner();
  EXPECT_TRUE(FibIs({"10.0.0.0/8 via 192.0.2.2 proto static",
                     "172.16.0.0/12 via 192.0.2.8 dev eth0 proto ebgp",
                     "192.0.2.0/24 dev eth0 proto connected"}));
}

// An owner that lost a call on the way (a deletion, say) registers again with `resync` and sends
// every route again: what it held stays in the FIB meanwhile, and its end-of-RIB withdraws what
// it did not send again. Registering again without `resync` leaves its routes as they are.
TEST_F(RibServiceTest, AResyncKeepsTheRoutesUntilEndOfRibThenWithdrawsThoseNotSentAgain) {
  StartFea();
  auto owner = StaticOwner();
  ASSERT_TRUE(AddRoutes("static", {Entry("10.1.0.0/16", "192.0.2.3")}, owner.get()).ok());
  const std::vector<std::string> both = {"10.0.0.0/8 via 192.0.2.2 proto static",
                                         "10.1.0.0/16 via 192.0.2.3 proto static",
                                         "192.0.2.0/24 dev eth0 proto connected"};
  ASSERT_TRUE(FibIs(both)) << ::testing::PrintToString(fea_->Routes());
  pb::RegisterProtocolRequest reg;
  reg.set_protocol("static");
  auto again = Call(kRegisterProtocol, reg, owner.get());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->stale_routes(), 0u);

  // The delete of 10.1.0.0/16 was lost; the owner re-synchronises.
  reg.set_resync(true);
  auto resync = Call(kRegisterProtocol, reg, owner.get());
  ASSERT_TRUE(resync.ok()) << resync.status();
  EXPECT_EQ(resync->stale_routes(), 2u);
  EXPECT_TRUE(FibIs(both)) << ::testing::PrintToString(fea_->Routes());
  ResendTheFirstRouteThenEndOfRib(owner.get());
}

// A restarted owner's register_protocol can reach the RIB before the Finder's word that its
// predecessor died (they travel on different connections). Its new incarnation says so: the
// predecessor's routes are stale for the successor to re-send, as after an announced death,
// rather than live and kept whatever the successor sends (which would tell it "a fresh start",
// and it would send End-of-RIB to its peers before their routes). The same incarnation again is
// not a successor.
TEST_F(RibServiceTest, ANewIncarnationRegisteringBeforeItsPredecessorsDeathFindsItsRoutesStale) {
  StartFea();
  auto owner = StaticOwner();
  ASSERT_TRUE(AddRoutes("static", {Entry("10.1.0.0/16", "192.0.2.3")}, owner.get()).ok());
  pb::RegisterProtocolRequest reg;
  reg.set_protocol("static");
  reg.set_restart_time(60);
  reg.set_incarnation("predecessor");
  auto first = Call(kRegisterProtocol, reg, owner.get());
  ASSERT_TRUE(first.ok()) << first.status();
  auto same = Call(kRegisterProtocol, reg, owner.get());
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ(same->stale_routes(), 0u);

  // The RIB sees the same authenticated caller, static/static-1, as another incarnation.
  reg.set_incarnation("successor");
  auto successor = Call(kRegisterProtocol, reg, owner.get());
  ASSERT_TRUE(successor.ok()) << successor.status();
  EXPECT_EQ(successor->stale_routes(), 2u);
  const std::vector<std::string> both = {"10.0.0.0/8 via 192.0.2.2 proto static",
                                         "10.1.0.0/16 via 192.0.2.3 proto static",
                                         "192.0.2.0/24 dev eth0 proto connected"};
  EXPECT_TRUE(FibIs(both)) << ::testing::PrintToString(fea_->Routes());
  ResendTheFirstRouteThenEndOfRib(owner.get());
}

TEST_F(RibServiceTest, ProtocolOwnershipFollowsTheCallersIdentityNotTheRequest) {
  StartFea();
  auto owner = StaticOwner();
  pb::RegisterProtocolRequest reg;
  reg.set_protocol("static");

  // The client (class bgp) names static-1 as the owner: the request field is not believed.
  pb::RegisterProtocolRequest spoof;
  spoof.set_protocol("ebgp");
  spoof.set_target("static-1");
  auto spoofed = Call(kRegisterProtocol, spoof);
  EXPECT_EQ(spoofed.status().code(), absl::StatusCode::kPermissionDenied) << spoofed.status();
  // Nor may another class take over, or feed, a protocol that has an owner.
  auto taken = Call(kRegisterProtocol, reg);
  EXPECT_EQ(taken.status().code(), absl::StatusCode::kPermissionDenied) << taken.status();
  EXPECT_THAT(std::string(taken.status().message()), ::testing::HasSubstr("belongs to static-1"));
  EXPECT_EQ(AddRoutes("static", {Entry("10.9.0.0/16", "192.0.2.2")}).code(),
            absl::StatusCode::kPermissionDenied);
  pb::DeleteRoutesRequest wipe;
  wipe.set_protocol("static");
  ipc::ToProto(P("10.0.0.0/8"), wipe.add_networks());
  EXPECT_EQ(Call(kDeleteRoutes, wipe).status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(
      FibIs({"10.0.0.0/8 via 192.0.2.2 proto static", "192.0.2.0/24 dev eth0 proto connected"}));

  // A subscription for somebody else is refused too.
  pb::RedistSubscribeRequest sub;
  sub.set_target("static-1");
  sub.set_family("ipv4");
  EXPECT_EQ(Call(kRedistSubscribe, sub).status().code(), absl::StatusCode::kPermissionDenied);
}

TEST_F(RibServiceTest, InterestRegistrationsAreInvalidatedThroughTheClient) {
  StartFea();
  ASSERT_TRUE(AddRoutes("static", {Entry("10.0.0.0/8", "192.0.2.2")}).ok());
  pb::RegisterInterestRequest reg;
  reg.set_client("bgp");
  ipc::ToProto(*net::IPAddress::Parse("10.1.2.3"), reg.mutable_address());
  auto answer = Call(kRegisterInterest, reg);
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_TRUE(answer->resolvable());
  EXPECT_EQ(Text(answer->covering_network()), "10.0.0.0/8");
  EXPECT_EQ(Text(answer->valid_subnet()), "10.0.0.0/8");
  EXPECT_EQ(answer->protocol(), "static");

  // A more specific route inside the valid subnet: the answer no longer holds.
  ASSERT_TRUE(AddRoutes("static", {Entry("10.1.0.0/16", "192.0.2.3")}).ok());
  ASSERT_TRUE(RunUntil([&] { return !client_calls_.empty(); }));
  EXPECT_THAT(client_calls_, ElementsAre("invalid 10.0.0.0/8"));
  // Registering again gives the new answer.
  answer = Call(kRegisterInterest, reg);
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(Text(answer->covering_network()), "10.1.0.0/16");

  // A change in place (another nexthop) also invalidates (rib_client/1.0 has no "changed").
  client_calls_.clear();
  ASSERT_TRUE(AddRoutes("static", {Entry("10.1.0.0/16", "192.0.2.4")}).ok());
  ASSERT_TRUE(RunUntil([&] { return !client_calls_.empty(); }));
  EXPECT_THAT(client_calls_, ElementsAre("invalid 10.1.0.0/16"));
}

// An invalidation lost on its way to a client that is still up: about 1 s later the RIB drops
// the client's registrations and tells it that everything is invalid, so it asks again.
TEST_F(RibServiceTest, AnInvalidationLostOnTheWayIsRepairedByInvalidatingEverything) {
  StartFea();
  ASSERT_TRUE(AddRoutes("static", {Entry("10.0.0.0/8", "192.0.2.2")}).ok());
  pb::RegisterInterestRequest reg;
  reg.set_client("bgp");
  ipc::ToProto(*net::IPAddress::Parse("10.1.2.3"), reg.mutable_address());
  ASSERT_TRUE(Call(kRegisterInterest, reg).ok());
  lose_invalidations_ = 1;
  ASSERT_TRUE(AddRoutes("static", {Entry("10.1.0.0/16", "192.0.2.3")}).ok());
  ASSERT_TRUE(RunUntil([&] { return client_calls_.size() == 2; }))
      << ::testing::PrintToString(client_calls_);
  EXPECT_THAT(client_calls_, ElementsAre("invalid 0.0.0.0/0", "invalid ::/0"));
  EXPECT_EQ(lose_invalidations_, 0);
  auto answer = Call(kRegisterInterest, reg);
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(Text(answer->covering_network()), "10.1.0.0/16");
}

TEST_F(RibServiceTest, RedistributionStreamsAProtocolsWinners) {
  StartFea();
  ASSERT_TRUE(AddRoutes("static", {Entry("10.0.0.0/8", "192.0.2.2")}).ok());
  pb::RedistSubscribeRequest sub = StaticToBgp();
  ASSERT_TRUE(Call(kRedistSubscribe, sub).ok());
  ASSERT_TRUE(RunUntil([&] { return client_calls_.size() == 3; }));
  ASSERT_TRUE(AddRoutes("static", {Entry("10.1.0.0/16", "192.0.2.2")}).ok());
  ASSERT_TRUE(AddRoutes("ebgp", {Entry("172.16.0.0/12", "192.0.2.2")}).ok());  // not static
  ASSERT_TRUE(RunUntil([&] { return client_calls_.size() == 4; }));
  EXPECT_THAT(client_calls_,
              ElementsAre("dump_start ipv4 static", "redist ipv4 static ADD 10.0.0.0/8",
                          "dump_done ipv4 static", "redist ipv4 static ADD 10.1.0.0/16"));
  sub.set_family("ipv5");
  EXPECT_EQ(Call(kRedistSubscribe, sub).status().code(), absl::StatusCode::kInvalidArgument);
}

// A redist_routes lost on its way to a subscriber that stays up (here the deletion of a route):
// after a backoff the RIB sends the stream again from a dump, whose end withdraws the route.
TEST_F(RibServiceTest, ARedistributionBatchLostOnTheWayIsRepairedByADumpAgain) {
  StartFea();
  ASSERT_TRUE(AddRoutes("static", {Entry("10.0.0.0/8", "192.0.2.2")}).ok());
  ASSERT_TRUE(AddRoutes("static", {Entry("10.1.0.0/16", "192.0.2.2")}).ok());
  ASSERT_TRUE(Call(kRedistSubscribe, StaticToBgp()).ok());
  ASSERT_TRUE(RunUntil([&] { return client_calls_.size() == 4; }));
  client_calls_.clear();

  lose_redist_ = 1;
  pb::DeleteRoute4Request del;
  del.set_protocol("static");
  ipc::ToProto(P("10.0.0.0/8"), del.mutable_network());
  ASSERT_TRUE(Call(kDeleteRoute4, del).ok());
  ASSERT_TRUE(RunUntil([&] { return client_calls_.size() == 3; }))
      << ::testing::PrintToString(client_calls_);
  EXPECT_THAT(client_calls_,
              ElementsAre("dump_start ipv4 static", "redist ipv4 static ADD 10.1.0.0/16",
                          "dump_done ipv4 static"));
  EXPECT_EQ(lose_redist_, 0);

  // The stream goes on as before.
  ASSERT_TRUE(AddRoutes("static", {Entry("10.2.0.0/16", "192.0.2.2")}).ok());
  ASSERT_TRUE(RunUntil([&] { return client_calls_.size() == 4; }));
  EXPECT_EQ(client_calls_.back(), "redist ipv4 static ADD 10.2.0.0/16");
}

// Every FEA the Finder announces is fed the FIB through its own stream; one that dies and comes
// back is re-sent the FIB alone.
TEST_F(RibServiceTest, EveryFeaIsFedAndOneThatRestartsAloneIsReSentTheFib) {
  StartFea();
  auto second = std::make_unique<FakeFea>(io_, Options(), "fea-2");
  ASSERT_TRUE(AddRoutes("static", {Entry("10.0.0.0/8", "192.0.2.2")}).ok());
  const std::vector<std::string> fib = {"10.0.0.0/8 via 192.0.2.2 proto static",
                                        "192.0.2.0/24 dev eth0 proto connected"};
  ASSERT_TRUE(FibIs(fib));
  ASSERT_TRUE(RunUntil([&] { return second->Routes() == fib; }));
  EXPECT_EQ(rib_->Feas(), (std::vector<std::string>{"fea", "fea-2"}));
  EXPECT_EQ(feeds_->interfaces_from(), "fea");
  EXPECT_EQ(std::count(second->calls.begin(), second->calls.end(), "subscribe rib"), 1)
      << "each FEA's own interfaces decide what it is sent";

  // fea-2 dies; a route changes meanwhile; a new fea-2, empty, gets the whole FIB.
  second.reset();
  ASSERT_TRUE(RunUntil([&] { return feeds_->live() == 1; }));
  ASSERT_TRUE(AddRoutes("static", {Entry("10.1.0.0/16", "192.0.2.3")}).ok());
  const std::vector<std::string> fib2 = {"10.0.0.0/8 via 192.0.2.2 proto static",
                                         "10.1.0.0/16 via 192.0.2.3 proto static",
                                         "192.0.2.0/24 dev eth0 proto connected"};
  ASSERT_TRUE(FibIs(fib2));
  second = std::make_unique<FakeFea>(io_, Options(), "fea-2");
  ASSERT_TRUE(RunUntil([&] { return second->Routes() == fib2 && rib_->Idle(); }));
  EXPECT_EQ(second->calls.front(), "start_full_push");
  EXPECT_EQ(std::count(fea_->calls.begin(), fea_->calls.end(), "start_full_push"), 1)
      << "the other FEA is not re-sent anything";

  // The FEA the interfaces came from dies: they come from fea-2 now.
  const auto subscribed = std::count(second->calls.begin(), second->calls.end(), "subscribe rib");
  fea_.reset();
  ASSERT_TRUE(RunUntil([&] { return feeds_->interfaces_from() == "fea-2"; }));
  ASSERT_TRUE(RunUntil([&] {
    return std::count(second->calls.begin(), second->calls.end(), "subscribe rib") ==
           subscribed + 1;
  }));
  second.reset();
  ASSERT_TRUE(RunUntil([&] { return feeds_->live() == 0; }));
  EXPECT_TRUE(feeds_->interfaces_from().empty());
}

TEST_F(RibServiceTest, EachFeaIsSentOnlyWhatItsOwnInterfacesReach) {
  StartFea();  // eth0 192.0.2.1/24
  // vc 198.51.100.1/24: its subnet joins the RIB's connected routes, and goes to fea-2 alone.
  auto second = std::make_unique<FakeFea>(io_, Options(), "fea-2");
  second->SetInterface("vc", "198.51.100.1");
  ASSERT_TRUE(
      AddRoutes("static", {Entry("10.0.0.0/8", "192.0.2.2"), Entry("10.1.0.0/16", "198.51.100.9")})
          .ok());
  ASSERT_TRUE(AddRoutes("ebgp", {Entry("172.16.0.0/12", "192.0.2.8")}).ok());
  ASSERT_TRUE(FibIs({"10.0.0.0/8 via 192.0.2.2 proto static",
                     "172.16.0.0/12 via 192.0.2.8 dev eth0 proto ebgp",
                     "192.0.2.0/24 dev eth0 proto connected"}))
      << ::testing::PrintToString(fea_->Routes());
  ASSERT_TRUE(RunUntil([&] {
    return second->Routes() == std::vector<std::string>{"10.1.0.0/16 via 198.51.100.9 proto static",
                                                        "198.51.100.0/24 dev vc proto connected"};
  })) << ::testing::PrintToString(second->Routes());
  auto feas = Call(kListFeas, pb::ListFeasRequest());
  ASSERT_TRUE(feas.ok()) << feas.status();
  ASSERT_EQ(feas->feas_size(), 2);
  EXPECT_TRUE(feas->feas(0).interfaces_known());
  EXPECT_TRUE(feas->feas(1).interfaces_known());
  EXPECT_EQ(feas->feas(1).batches_failed(), 0u);

  // Interface events are an FEA's word: another component's are refused.
  icpb::InterfaceEventsRequest events;
  events.add_events()->set_kind(icpb::InterfaceEvent::SYNC_START);
  auto refused = Call(kInterfaceEvents, events);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied) << refused.status();
}

TEST_F(RibServiceTest, NothingIsSentWithoutAnFea) {
  ASSERT_TRUE(AddRoutes("static", {Entry("10.0.0.0/8", "192.0.2.2")}).ok());
  EXPECT_EQ(feeds_->client("fea"), nullptr);
  EXPECT_TRUE(rib_->Feas().empty());
  StartFea();
  EXPECT_TRUE(
      FibIs({"10.0.0.0/8 via 192.0.2.2 proto static", "192.0.2.0/24 dev eth0 proto connected"}));
  ASSERT_NE(feeds_->client("fea"), nullptr);
  EXPECT_EQ(feeds_->client("fea")->fea(), "fea");
}

}  // namespace
}  // namespace sluice::rib
