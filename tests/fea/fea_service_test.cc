// The FEA's RPC adapters (fea/service/) with a real Finder and real routers in one process:
// fea_fib/1.0, fea_ifmgr/1.0 and profile/1.0 as a client sees them, over the dummy backends.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <optional>

#include "fea/dummy_fib_backend.h"
#include "fea/dummy_ifmgr.h"
#include "fea/fib.h"
#include "fea/service/fea_fib_service.h"
#include "fea/service/fea_ifmgr_service.h"
#include "ipc/profile_service.h"
#include "ipc/proto/fea_fib.pb.h"
#include "ipc/proto/fea_fib_client.pb.h"
#include "ipc/proto/fea_ifmgr.pb.h"
#include "ipc/proto/fea_ifmgr_client.pb.h"
#include "ipc/proto/profile.pb.h"
#include "ipc/types_convert.h"
#include "ipc/xrl_router.h"
#include "stage/route_arrival.h"
#include "tests/ipc/finder_thread.h"

namespace sluice::fea {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
namespace pb = fea_fib::v1;
namespace ipb = fea_ifmgr::v1;
namespace cpb = fea_ifmgr_client::v1;

const ipc::Method<pb::StartTransactionRequest, pb::StartTransactionReply> kStart{
    "fea_fib/1.0/start_transaction"};
const ipc::Method<pb::CommitTransactionRequest, pb::CommitTransactionReply> kCommit{
    "fea_fib/1.0/commit_transaction"};
const ipc::Method<pb::AbortTransactionRequest, pb::AbortTransactionReply> kAbort{
    "fea_fib/1.0/abort_transaction"};
const ipc::Method<pb::AddRoute4Request, pb::ChangeReply> kAdd4{"fea_fib/1.0/add_route4"};
const ipc::Method<pb::AddRoute6Request, pb::ChangeReply> kAdd6{"fea_fib/1.0/add_route6"};
const ipc::Method<pb::DeleteRoute4Request, pb::ChangeReply> kDelete4{"fea_fib/1.0/delete_route4"};
const ipc::Method<pb::ApplyBatchRequest, pb::CommitTransactionReply> kApplyBatch{
    "fea_fib/1.0/apply_batch"};
const ipc::Method<pb::ApplyBatchPackedRequest, pb::CommitTransactionReply> kApplyBatchPacked{
    "fea_fib/1.0/apply_batch_packed"};
const ipc::Method<pb::StartFullPushRequest, pb::StartFullPushReply> kStartFullPush{
    "fea_fib/1.0/start_full_push"};
const ipc::Method<pb::CompleteFullPushRequest, pb::CompleteFullPushReply> kCompleteFullPush{
    "fea_fib/1.0/complete_full_push"};
const ipc::Method<pb::LookupRouteByDest4Request, pb::LookupRouteReply> kLookupDest4{
    "fea_fib/1.0/lookup_route_by_dest4"};
const ipc::Method<pb::GetStatsRequest, pb::GetStatsReply> kGetStats{"fea_fib/1.0/get_stats"};
const ipc::Method<pb::ListRoutesRequest, pb::ListRoutesReply> kListRoutes{
    "fea_fib/1.0/list_routes"};
const ipc::Method<pb::SubscribeChangesRequest, pb::SubscribeChangesReply> kSubscribeChanges{
    "fea_fib/1.0/subscribe_changes"};
const ipc::Method<fea_fib_client::v1::FibChangesRequest, fea_fib_client::v1::FibChangesReply>
    kFibChanges{"fea_fib_client/1.0/fib_changes"};
const ipc::Method<ipb::ListInterfacesRequest, ipb::ListInterfacesReply> kListInterfaces{
    "fea_ifmgr/1.0/list_interfaces"};
const ipc::Method<ipb::AddInterfaceRequest, ipb::AddInterfaceReply> kAddInterface{
    "fea_ifmgr/1.0/add_interface"};
const ipc::Method<ipb::AddAddressRequest, ipb::AddAddressReply> kAddAddress{
    "fea_ifmgr/1.0/add_address"};
const ipc::Method<ipb::SetEnabledRequest, ipb::SetEnabledReply> kSetEnabled{
    "fea_ifmgr/1.0/set_enabled"};
const ipc::Method<ipb::SubscribeRequest, ipb::SubscribeReply> kSubscribe{"fea_ifmgr/1.0/subscribe"};
const ipc::Method<cpb::InterfaceEventsRequest, cpb::InterfaceEventsReply> kInterfaceEvents{
    "fea_ifmgr_client/1.0/interface_events"};
const ipc::Method<profile::v1::EnableRequest, profile::v1::EnableReply> kEnable{
    "profile/1.0/enable"};
const ipc::Method<profile::v1::GetEntriesRequest, profile::v1::GetEntriesReply> kGetEntries{
    "profile/1.0/get_entries"};
const ipc::Method<profile::v1::DescribePlumbingRequest, profile::v1::DescribePlumbingReply>
    kDescribe{"profile/1.0/describe_plumbing"};

net::Prefix P(const char* text) { return *net::Prefix::Parse(text); }

pb::AddRoute4Request Add4(uint32_t tid, const char* network, const char* nexthop,
                          const char* ifname = "") {
  pb::AddRoute4Request r;
  r.set_tid(tid);
  ipc::ToProto(P(network), r.mutable_network());
  if (*nexthop != '\0') ipc::ToProto(*net::IPv4Address::Parse(nexthop), r.mutable_nexthop());
  r.set_ifname(ifname);
  r.set_protocol("static");
  return r;
}

pb::FibChange Change(pb::FibChange::Op op, const char* network, const char* gateway = "") {
  pb::FibChange c;
  c.set_op(op);
  ipc::ToProto(P(network), c.mutable_route()->mutable_network());
  if (*gateway != '\0') {
    ipc::ToProto(*net::IPAddress::Parse(gateway),
                 c.mutable_route()->add_nexthops()->mutable_gateway());
  }
  c.mutable_route()->set_protocol("ebgp");
  return c;
}

class FeaServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/sluice-fea-service-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    rundir_ = dir;
    setenv("SLUICE_RUNDIR", rundir_.c_str(), 1);
    finder::FinderOptions finder_options;
    finder_options.listen = {"unix:" + rundir_ + "/finder.sock"};
    finder_ = std::make_unique<testing::FinderThread>(finder_options);
    ASSERT_TRUE(finder_->status().ok()) << finder_->status();
  }
  void TearDown() override {
    client_.reset();
    fea_router_.reset();
    ifmgr_service_.reset();
    fib_service_.reset();
    fib_.reset();
    finder_.reset();
    std::filesystem::remove_all(rundir_);
  }

  ipc::RouterOptions Options() {
    ipc::RouterOptions options;
    options.finder_address = "unix:" + rundir_ + "/finder.sock";
    options.finder_wait_ms = 2000;
    return options;
  }

  // The FEA's parts as sluice-fea wires them, on the dummy backends, with eth0 192.0.2.1/24.
  void StartFea(FeaFibServiceOptions options = {}, bool dummy_config = true) {
    DummyInterfaceConfig eth0;
    eth0.name = "eth0";
    ASSERT_TRUE(ifmgr_.AddInterface(eth0).ok());
    ASSERT_TRUE(ifmgr_.AddAddress("eth0", *net::IPAddress::Parse("192.0.2.1"), 24).ok());
    auto backend = std::make_unique<DummyFibBackend>();
    backend_ = backend.get();
    fib_ = std::make_unique<fea::Fib>(ifmgr_, std::move(backend));
    ASSERT_TRUE(fib_->Start().ok());
    fea_router_ = std::make_unique<ipc::XrlRouter>(io_, "fea", "fea", Options());
    fib_service_ = std::make_unique<FeaFibService>(io_, *fea_router_, *fib_, profiler_, options);
    ifmgr_service_ = std::make_unique<FeaIfmgrService>(io_, *fea_router_, ifmgr_,
                                                       dummy_config ? &ifmgr_ : nullptr);
    ASSERT_TRUE(fib_service_->Register().ok());
    ASSERT_TRUE(ifmgr_service_->Register().ok());
    ASSERT_TRUE(ipc::ServeProfile(*fea_router_, profiler_, ipc::DescribeNow([this] {
                  return fib_service_->Describe();
                })).ok());
    ASSERT_TRUE(fea_router_->Start().ok());
    ASSERT_TRUE(RunUntil([&] { return fea_router_->registered(); }));
  }

  // A client component "tester" that records what the FEA sends it.
  void StartClient() {
    client_ = std::make_unique<ipc::XrlRouter>(io_, "tester", "tester", Options());
    ASSERT_TRUE(client_
                    ->Handle(kFibChanges,
                             [this](const fea_fib_client::v1::FibChangesRequest& r)
                                 -> absl::StatusOr<fea_fib_client::v1::FibChangesReply> {
                               for (const pb::FibChange& c : r.changes()) {
                                 fib_changes_.push_back(
                                     pb::FibChange::Op_Name(c.op()) + " " +
                                     ipc::FromProto(c.route().network())->ToString());
                               }
                               return fea_fib_client::v1::FibChangesReply();
                             })
                    .ok());
    ASSERT_TRUE(client_
                    ->Handle(kInterfaceEvents,
                             [this](const cpb::InterfaceEventsRequest& r)
                                 -> absl::StatusOr<cpb::InterfaceEventsReply> {
                               if (lose_interface_events_ > 0) {
                                 --lose_interface_events_;
                                 return absl::UnavailableError("connection reset");
                               }
                               for (const cpb::InterfaceEvent& e : r.events()) {
                                 std::string text = cpb::InterfaceEvent::Kind_Name(e.kind());
                                 if (!e.interface().name().empty()) {
                                   text += " " + e.interface().name();
                                   text += e.interface().enabled() ? " enabled" : " disabled";
                                 }
                                 if (e.has_address()) {
                                   text += " " + ipc::FromProto(e.address().address())->ToString() +
                                           "/" + std::to_string(e.address().prefix_length());
                                 }
                                 interface_events_.push_back(text);
                               }
                               return cpb::InterfaceEventsReply();
                             })
                    .ok());
    ASSERT_TRUE(client_->Start().ok());
    ASSERT_TRUE(RunUntil([&] { return client_->registered(); }));
  }

  // The client subscribes to the interfaces and has their dump.
  void SubscribeToInterfaces() {
    ipb::SubscribeRequest subscribe;
    subscribe.set_target("tester");
    ASSERT_TRUE(Call(kSubscribe, subscribe).ok());
    ASSERT_TRUE(RunUntil(
        [&] { return !interface_events_.empty() && interface_events_.back() == "SYNC_DONE"; }));
  }

  template <typename P>
  bool RunUntil(P done, int ms = 5000) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      io_.run_one_for(std::chrono::milliseconds(5));
    }
    return done();
  }

  template <typename Request, typename Reply>
  absl::StatusOr<Reply> Call(const ipc::Method<Request, Reply>& method, Request request,
                             ipc::XrlRouter* from = nullptr) {
    std::optional<absl::StatusOr<Reply>> result;
    (from != nullptr ? from : client_.get())
        ->Call("fea", method, std::move(request),
               [&](absl::StatusOr<Reply> reply) { result = std::move(reply); });
    EXPECT_TRUE(RunUntil([&] { return result.has_value(); }));
    if (!result) return absl::DeadlineExceededError("no answer");
    return *result;
  }

  uint32_t StartTransaction(const std::string& owner = "", ipc::XrlRouter* from = nullptr) {
    pb::StartTransactionRequest r;
    r.set_owner(owner);
    auto reply = Call(kStart, r, from);
    EXPECT_TRUE(reply.ok()) << reply.status();
    return reply.ok() ? reply->tid() : 0;
  }

  std::vector<std::string> FibText() const {
    std::vector<std::string> out;
    fib_->table().ForEach(std::nullopt, std::nullopt, [&](const FibRoute& r) {
      out.push_back(r.ToString());
      return true;
    });
    return out;
  }

  std::string rundir_;
  std::unique_ptr<testing::FinderThread> finder_;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_ =
      boost::asio::make_work_guard(io_);
  stage::Profiler profiler_;
  DummyIfMgr ifmgr_;
  DummyFibBackend* backend_ = nullptr;
  std::unique_ptr<fea::Fib> fib_;
  std::unique_ptr<ipc::XrlRouter> fea_router_;
  std::unique_ptr<FeaFibService> fib_service_;
  std::unique_ptr<FeaIfmgrService> ifmgr_service_;
  std::unique_ptr<ipc::XrlRouter> client_;
  std::vector<std::string> fib_changes_;
  std::vector<std::string> interface_events_;
  int lose_interface_events_ = 0;  // the client fails this many calls, as if they were lost
};

TEST_F(FeaServiceTest, TransactionsAddCommitLookupAndList) {
  StartFea();
  StartClient();
  uint32_t tid = StartTransaction();
  ASSERT_TRUE(Call(kAdd4, Add4(tid, "10.0.0.0/8", "192.0.2.2")).ok());
  ASSERT_TRUE(Call(kAdd4, Add4(tid, "192.0.2.128/25", "", "eth0")).ok());
  EXPECT_TRUE(FibText().empty()) << "nothing before the commit";
  pb::CommitTransactionRequest commit;
  commit.set_tid(tid);
  auto committed = Call(kCommit, commit);
  ASSERT_TRUE(committed.ok()) << committed.status();
  EXPECT_EQ(committed->added(), 2u);
  EXPECT_THAT(FibText(), ElementsAre("10.0.0.0/8 via 192.0.2.2 proto static",
                                     "192.0.2.128/25 dev eth0 proto static"));

  pb::LookupRouteByDest4Request lookup;
  ipc::ToProto(*net::IPv4Address::Parse("10.9.9.9"), lookup.mutable_dest());
  auto found = Call(kLookupDest4, lookup);
  ASSERT_TRUE(found.ok());
  EXPECT_TRUE(found->found());
  EXPECT_EQ(ipc::FromProto(found->route().network())->ToString(), "10.0.0.0/8");

  // Paging: one route a page.
  pb::ListRoutesRequest list;
  list.set_max_routes(1);
  auto page = Call(kListRoutes, list);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->routes_size(), 1);
  EXPECT_TRUE(page->more());
  *list.mutable_start_after() = page->routes(0).network();
  page = Call(kListRoutes, list);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->routes_size(), 1);
  EXPECT_EQ(ipc::FromProto(page->routes(0).network())->ToString(), "192.0.2.128/25");
  *list.mutable_start_after() = page->routes(0).network();
  page = Call(kListRoutes, list);
  EXPECT_EQ(page->routes_size(), 0);
  EXPECT_FALSE(page->more());
}

TEST_F(FeaServiceTest, BadRoutesAreRefusedWithAClearErrorAndTheFibIsUnchanged) {
  StartFea();
  StartClient();
  uint32_t tid = StartTransaction();
  ASSERT_TRUE(Call(kAdd4, Add4(tid, "10.0.0.0/8", "192.0.2.2")).ok());
  pb::CommitTransactionRequest commit;
  commit.set_tid(tid);
  ASSERT_TRUE(Call(kCommit, commit).ok());

  tid = StartTransaction();
  auto unknown = Call(kAdd4, Add4(tid, "10.1.0.0/16", "", "eth9"));
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(unknown.status().message(), HasSubstr("unknown interface \"eth9\""));
  commit.set_tid(tid);
  EXPECT_FALSE(Call(kCommit, commit).ok()) << "a poisoned transaction does not commit";

  tid = StartTransaction();
  auto unconnected = Call(kAdd4, Add4(tid, "10.2.0.0/16", "198.51.100.1"));
  EXPECT_EQ(unconnected.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(unconnected.status().message(), HasSubstr("198.51.100.1"));
  EXPECT_THAT(unconnected.status().message(), HasSubstr("connected"));
  pb::AbortTransactionRequest abort;
  abort.set_tid(tid);
  EXPECT_TRUE(Call(kAbort, abort).ok());

  // A prefix length out of range (what a program could send; the CLI refuses it earlier).
  tid = StartTransaction();
  pb::AddRoute4Request bad = Add4(tid, "10.3.0.0/16", "192.0.2.2");
  bad.mutable_network()->set_length(40);
  auto malformed = Call(kAdd4, bad);
  EXPECT_EQ(malformed.status().code(), absl::StatusCode::kInvalidArgument);

  // A batch with one bad change applies nothing.
  pb::ApplyBatchRequest batch;
  *batch.add_changes() = Change(pb::FibChange::ADD, "10.4.0.0/16", "192.0.2.2");
  *batch.add_changes() = Change(pb::FibChange::ADD, "10.5.0.0/16", "203.0.113.1");
  auto refused = Call(kApplyBatch, batch);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(), HasSubstr("change #1"));
  EXPECT_THAT(refused.status().message(), HasSubstr("FIB unchanged"));

  EXPECT_THAT(FibText(), ElementsAre("10.0.0.0/8 via 192.0.2.2 proto static"));
}

TEST_F(FeaServiceTest, ApplyBatchTakesAReSendAsReplacesAndSkipsAbsentDeletes) {
  StartFea();
  StartClient();
  pb::ApplyBatchRequest batch;
  *batch.add_changes() = Change(pb::FibChange::ADD, "10.0.0.0/8", "192.0.2.2");
  *batch.add_changes() = Change(pb::FibChange::ADD, "10.1.0.0/16", "192.0.2.2");
  auto first = Call(kApplyBatch, batch);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->added(), 2u);

  batch.Clear();
  *batch.add_changes() = Change(pb::FibChange::ADD, "10.0.0.0/8", "192.0.2.3");  // present
  *batch.add_changes() = Change(pb::FibChange::DELETE, "10.1.0.0/16");
  *batch.add_changes() = Change(pb::FibChange::DELETE, "10.9.0.0/16");  // absent
  auto second = Call(kApplyBatch, batch);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->replaced(), 1u);
  EXPECT_EQ(second->deleted(), 1u);
  EXPECT_EQ(second->not_found(), 1u);
  EXPECT_THAT(FibText(), ElementsAre("10.0.0.0/8 via 192.0.2.3 proto ebgp"));
}

// One change appended to the columns of a packed IPv4 batch (every column filled).
void AddPacked(pb::ApplyBatchPackedRequest* b, pb::FibChange::Op op, const char* network,
               const char* gateway, uint32_t ifname_index, uint32_t metric) {
  b->add_ops(op);
  b->add_lengths(static_cast<uint32_t>(P(network).length()));
  ipc::AppendWords(P(network).address(), b->mutable_networks());
  if (*gateway != '\0') {
    ipc::AppendWords(*net::IPAddress::Parse(gateway), b->mutable_gateways());
  } else {
    ipc::AppendZeroWords(net::Family::kIPv4, b->mutable_gateways());
  }
  b->add_ifname_indexes(ifname_index);
  b->add_metrics(metric);
  b->add_protocol_indexes(1);
}

TEST_F(FeaServiceTest, ABatchWithAnArrivalIsTimedIntoTheRouteLatencyHistogram) {
  StartFea();
  StartClient();
  pb::ApplyBatchPackedRequest batch;
  batch.add_ifnames("eth0");
  batch.add_protocols("ebgp");
  AddPacked(&batch, pb::FibChange::ADD, "10.0.0.0/8", "192.0.2.2", 0, 0);
  ASSERT_TRUE(Call(kApplyBatchPacked, batch).ok());  // no arrival (a re-send): not timed
  const int64_t before = stage::MonotonicNowNs();
  batch.set_arrival_ns(static_cast<uint64_t>(before));
  ASSERT_TRUE(Call(kApplyBatchPacked, batch).ok());
  pb::ApplyBatchRequest plain;
  plain.set_arrival_ns(static_cast<uint64_t>(before));
  ASSERT_TRUE(Call(kApplyBatch, plain).ok());
  auto stats = Call(kGetStats, pb::GetStatsRequest());
  ASSERT_TRUE(stats.ok()) << stats.status();
  const pb::LatencyHistogram& h = stats->route_latency();
  EXPECT_EQ(h.count(), 2u);
  ASSERT_EQ(h.bounds_s_size(), 16);
  ASSERT_EQ(h.cumulative_size(), 16);
  EXPECT_DOUBLE_EQ(h.bounds_s(0), 0.0001);
  for (int i = 1; i < h.cumulative_size(); ++i) EXPECT_GE(h.cumulative(i), h.cumulative(i - 1));
  // Both took less than the time since `before` (and no more than 10 s here).
  const double elapsed_s = static_cast<double>(stage::MonotonicNowNs() - before) / 1e9;
  EXPECT_GT(h.sum_s(), 0);
  EXPECT_LE(h.sum_s(), 2 * elapsed_s);
}

TEST_F(FeaServiceTest, ApplyBatchPackedAppliesColumnsAsApplyBatchDoes) {
  StartFea();
  StartClient();
  pb::ApplyBatchPackedRequest batch;
  batch.add_ifnames("eth0");
  batch.add_protocols("ebgp");
  AddPacked(&batch, pb::FibChange::ADD, "10.0.0.0/8", "192.0.2.2", 0, 0);
  AddPacked(&batch, pb::FibChange::ADD, "10.1.0.0/16", "", 1, 7);
  auto first = Call(kApplyBatchPacked, batch);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->added(), 2u);
  EXPECT_THAT(FibText(), ElementsAre("10.0.0.0/8 via 192.0.2.2 proto ebgp",
                                     "10.1.0.0/16 dev eth0 metric 7 proto ebgp"));

  batch.clear_ops();
  batch.clear_lengths();
  batch.clear_networks();
  batch.clear_gateways();
  batch.clear_ifname_indexes();
  batch.clear_metrics();
  batch.clear_protocol_indexes();
  AddPacked(&batch, pb::FibChange::ADD, "10.0.0.0/8", "192.0.2.3", 0, 0);  // present: replaced
  AddPacked(&batch, pb::FibChange::DELETE, "10.1.0.0/16", "", 0, 0);
  AddPacked(&batch, pb::FibChange::DELETE, "10.9.0.0/16", "", 0, 0);  // absent: skipped
  auto second = Call(kApplyBatchPacked, batch);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->replaced(), 1u);
  EXPECT_EQ(second->deleted(), 1u);
  EXPECT_EQ(second->not_found(), 1u);
  EXPECT_THAT(FibText(), ElementsAre("10.0.0.0/8 via 192.0.2.3 proto ebgp"));

  // Refused whole, FIB unchanged: a gateway on no connected network; a short column; an index
  // past its table; a prefix length out of range.
  pb::ApplyBatchPackedRequest bad;
  bad.add_protocols("ebgp");
  AddPacked(&bad, pb::FibChange::ADD, "10.4.0.0/16", "192.0.2.2", 0, 0);
  AddPacked(&bad, pb::FibChange::ADD, "10.5.0.0/16", "203.0.113.1", 0, 0);
  auto refused = Call(kApplyBatchPacked, bad);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(), HasSubstr("change #1"));
  EXPECT_THAT(refused.status().message(), HasSubstr("FIB unchanged"));
  pb::ApplyBatchPackedRequest shorter = bad;
  shorter.mutable_metrics()->RemoveLast();
  refused = Call(kApplyBatchPacked, shorter);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("metrics"));
  pb::ApplyBatchPackedRequest index = bad;
  index.set_ifname_indexes(0, 1);  // no ifnames
  refused = Call(kApplyBatchPacked, index);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("change #0"));
  pb::ApplyBatchPackedRequest length = bad;
  length.set_lengths(1, 33);
  refused = Call(kApplyBatchPacked, length);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("change #1"));
  EXPECT_THAT(FibText(), ElementsAre("10.0.0.0/8 via 192.0.2.3 proto ebgp"));
}

TEST_F(FeaServiceTest, FullPushRemovesWhatWasNotSentAgain) {
  StartFea();
  StartClient();
  pb::ApplyBatchRequest batch;
  for (const char* p : {"10.0.0.0/8", "10.1.0.0/16", "10.2.0.0/16"}) {
    *batch.add_changes() = Change(pb::FibChange::ADD, p, "192.0.2.2");
  }
  ASSERT_TRUE(Call(kApplyBatch, batch).ok());

  auto started = Call(kStartFullPush, pb::StartFullPushRequest());
  ASSERT_TRUE(started.ok());
  EXPECT_EQ(started->stale(), 3u);
  batch.Clear();
  *batch.add_changes() = Change(pb::FibChange::ADD, "10.0.0.0/8", "192.0.2.2");
  *batch.add_changes() = Change(pb::FibChange::ADD, "10.2.0.0/16", "192.0.2.9");
  ASSERT_TRUE(Call(kApplyBatch, batch).ok());
  auto completed = Call(kCompleteFullPush, pb::CompleteFullPushRequest());
  ASSERT_TRUE(completed.ok()) << completed.status();
  EXPECT_EQ(completed->removed(), 1u);
  EXPECT_THAT(FibText(), ElementsAre("10.0.0.0/8 via 192.0.2.2 proto ebgp",
                                     "10.2.0.0/16 via 192.0.2.9 proto ebgp"));
  // Without a start, complete removes nothing of the table.
  completed = Call(kCompleteFullPush, pb::CompleteFullPushRequest());
  ASSERT_TRUE(completed.ok());
  EXPECT_EQ(completed->removed(), 0u);
  EXPECT_EQ(FibText().size(), 2u);
}

TEST_F(FeaServiceTest, TheDeathOfATransactionOwnerAbortsItsTransactions) {
  StartFea();
  StartClient();
  auto owner = std::make_unique<ipc::XrlRouter>(io_, "script", "script-1", Options());
  ASSERT_TRUE(owner->Start().ok());
  ASSERT_TRUE(RunUntil([&] { return owner->registered(); }));
  uint32_t tid = StartTransaction("script-1", owner.get());
  ASSERT_TRUE(Call(kAdd4, Add4(tid, "10.0.0.0/8", "192.0.2.2"), owner.get()).ok());
  StartTransaction();  // someone else's stays open
  EXPECT_EQ(fib_->open_transactions(), 2u);
  owner.reset();  // its Finder session ends: a death
  ASSERT_TRUE(RunUntil([&] { return fib_->open_transactions() == 1; }));
  pb::CommitTransactionRequest commit;
  commit.set_tid(tid);
  EXPECT_EQ(Call(kCommit, commit).status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(FibText().empty());
}

TEST_F(FeaServiceTest, IdleTransactionsAreAborted) {
  StartFea({.transaction_timeout = std::chrono::milliseconds(100)});
  StartClient();
  uint32_t tid = StartTransaction();
  ASSERT_NE(tid, 0u);
  EXPECT_EQ(fib_->open_transactions(), 1u);
  ASSERT_TRUE(RunUntil([&] { return fib_->open_transactions() == 0; }));
  EXPECT_THAT(fib_service_->Describe(), HasSubstr("(idle)"));
}

TEST_F(FeaServiceTest, ChangeSubscribersHearOfEachCommit) {
  StartFea();
  StartClient();
  pb::SubscribeChangesRequest subscribe;
  subscribe.set_target("tester");
  ASSERT_TRUE(Call(kSubscribeChanges, subscribe).ok());
  pb::ApplyBatchRequest batch;
  *batch.add_changes() = Change(pb::FibChange::ADD, "10.0.0.0/8", "192.0.2.2");
  *batch.add_changes() = Change(pb::FibChange::ADD, "10.1.0.0/16", "192.0.2.2");
  ASSERT_TRUE(Call(kApplyBatch, batch).ok());
  batch.Clear();
  *batch.add_changes() = Change(pb::FibChange::DELETE, "10.0.0.0/8");
  ASSERT_TRUE(Call(kApplyBatch, batch).ok());
  ASSERT_TRUE(RunUntil([&] { return fib_changes_.size() == 3; }));
  EXPECT_THAT(fib_changes_, ElementsAre("ADD 10.0.0.0/8", "ADD 10.1.0.0/16", "DELETE 10.0.0.0/8"));
  // The subscriber dies: the FEA drops it.
  client_.reset();
  ASSERT_TRUE(RunUntil([&] { return fib_service_->subscriber_count() == 0; }));
}

TEST_F(FeaServiceTest, InterfaceSubscribersGetTheTreeThenEachChange) {
  StartFea();
  StartClient();
  SubscribeToInterfaces();
  EXPECT_THAT(interface_events_,
              ElementsAre("SYNC_START", "INTERFACE_ADDED lo enabled",
                          "ADDRESS_ADDED lo enabled 127.0.0.1/8",
                          "ADDRESS_ADDED lo enabled ::1/128", "INTERFACE_ADDED eth0 enabled",
                          "ADDRESS_ADDED eth0 enabled 192.0.2.1/24", "SYNC_DONE"));
  interface_events_.clear();

  ipb::AddInterfaceRequest add;
  add.set_ifname("eth1");
  ASSERT_TRUE(Call(kAddInterface, add).ok());
  ipb::AddAddressRequest address;
  address.set_ifname("eth1");
  ipc::ToProto(*net::IPAddress::Parse("198.51.100.1"), address.mutable_address());
  address.set_prefix_length(24);
  ASSERT_TRUE(Call(kAddAddress, address).ok());
  ipb::SetEnabledRequest down;
  down.set_ifname("eth0");
  down.set_enabled(false);
  ASSERT_TRUE(Call(kSetEnabled, down).ok());
  ASSERT_TRUE(RunUntil([&] { return interface_events_.size() == 3; }));
  EXPECT_THAT(interface_events_, ElementsAre("INTERFACE_ADDED eth1 enabled",
                                             "ADDRESS_ADDED eth1 enabled 198.51.100.1/24",
                                             "INTERFACE_ADDED eth0 disabled"));

  auto listed = Call(kListInterfaces, ipb::ListInterfacesRequest());
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->interfaces_size(), 3);
  EXPECT_EQ(listed->interfaces(2).name(), "eth1");
  EXPECT_EQ(listed->interfaces(2).addresses_size(), 1);
}

// An event lost on its way to a subscriber that stays up: after a backoff the subscriber gets the
// whole tree again, then the changes as before.
TEST_F(FeaServiceTest, AnInterfaceEventLostOnTheWayIsRepairedByAFullDump) {
  StartFea();
  StartClient();
  SubscribeToInterfaces();
  interface_events_.clear();

  lose_interface_events_ = 1;
  ipb::SetEnabledRequest down;
  down.set_ifname("eth0");
  down.set_enabled(false);
  ASSERT_TRUE(Call(kSetEnabled, down).ok());
  ASSERT_TRUE(RunUntil(
      [&] { return !interface_events_.empty() && interface_events_.back() == "SYNC_DONE"; }, 10000))
      << ::testing::PrintToString(interface_events_);
  EXPECT_THAT(interface_events_,
              ElementsAre("SYNC_START", "INTERFACE_ADDED lo enabled",
                          "ADDRESS_ADDED lo enabled 127.0.0.1/8",
                          "ADDRESS_ADDED lo enabled ::1/128", "INTERFACE_ADDED eth0 disabled",
                          "ADDRESS_ADDED eth0 disabled 192.0.2.1/24", "SYNC_DONE"));
  EXPECT_EQ(ifmgr_service_->redumps(), 1u);

  interface_events_.clear();
  down.set_enabled(true);
  ASSERT_TRUE(Call(kSetEnabled, down).ok());
  ASSERT_TRUE(RunUntil([&] { return !interface_events_.empty(); }));
  EXPECT_THAT(interface_events_, ElementsAre("INTERFACE_ADDED eth0 enabled"));
  EXPECT_EQ(ifmgr_service_->subscriber_count(), 1u);
}

TEST_F(FeaServiceTest, ConfigurationCallsNeedTheDummyBackend) {
  StartFea({}, /*dummy_config=*/false);
  StartClient();
  ipb::AddInterfaceRequest add;
  add.set_ifname("eth1");
  auto refused = Call(kAddInterface, add);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(), HasSubstr("follows the kernel"));
}

TEST_F(FeaServiceTest, ProfilingPointsRecordRoutesInAndInTheForwardingPlane) {
  StartFea();
  StartClient();
  for (const char* point : {"fea_route_in", "fea_route_in_kernel"}) {
    profile::v1::EnableRequest enable;
    enable.set_point(point);
    enable.set_enable(true);
    ASSERT_TRUE(Call(kEnable, enable).ok()) << point;
  }
  pb::ApplyBatchRequest batch;
  *batch.add_changes() = Change(pb::FibChange::ADD, "10.0.0.0/8", "192.0.2.2");
  ASSERT_TRUE(Call(kApplyBatch, batch).ok());
  uint32_t tid = StartTransaction();
  ASSERT_TRUE(Call(kAdd4, Add4(tid, "10.1.0.0/16", "192.0.2.2")).ok());
  pb::CommitTransactionRequest commit;
  commit.set_tid(tid);
  ASSERT_TRUE(Call(kCommit, commit).ok());

  for (const char* point : {"fea_route_in", "fea_route_in_kernel"}) {
    profile::v1::GetEntriesRequest get;
    get.set_point(point);
    auto entries = Call(kGetEntries, get);
    ASSERT_TRUE(entries.ok());
    std::vector<std::string> texts;
    for (const auto& e : entries->entries()) {
      texts.push_back(e.text());
      EXPECT_GT(e.time_us(), 0);
    }
    EXPECT_THAT(texts, ElementsAre("add 10.0.0.0/8", "add 10.1.0.0/16")) << point;
  }
  auto describe = Call(kDescribe, profile::v1::DescribePlumbingRequest());
  ASSERT_TRUE(describe.ok());
  EXPECT_THAT(describe->text(), HasSubstr("batches applied"));
}

}  // namespace
}  // namespace sluice::fea
