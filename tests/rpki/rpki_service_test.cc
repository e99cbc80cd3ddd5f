// sluice-rpki's parts as its main wires them, with a real Finder, real routers and fake RTR
// caches on loopback, in one process: rpki/1.0 as the router manager and the CLI use it, and a
// subscriber (class bgp) receiving rpki_client/1.0/vrp_changes.

#include "rpki/rpki_service.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>

#include "bgp/process/rpki_ipc_client.h"
#include "ipc/proto/rpki.pb.h"
#include "ipc/proto/rpki_client.pb.h"
#include "ipc/types_convert.h"
#include "ipc/xrl_router.h"
#include "tests/ipc/finder_thread.h"
#include "tests/rpki/fake_cache.h"

namespace sluice::rpki {
namespace {

using ::testing::HasSubstr;
namespace pb = rpki::v1;
namespace cpb = rpki_client::v1;

const ipc::Method<pb::AddCacheRequest, pb::AddCacheReply> kAddCache{"rpki/1.0/add_cache"};
const ipc::Method<pb::DeleteCacheRequest, pb::DeleteCacheReply> kDeleteCache{
    "rpki/1.0/delete_cache"};
const ipc::Method<pb::GetStatusRequest, pb::GetStatusReply> kGetStatus{"rpki/1.0/get_status"};
const ipc::Method<pb::ListVrpsRequest, pb::ListVrpsReply> kListVrps{"rpki/1.0/list_vrps"};
const ipc::Method<pb::SubscribeRequest, pb::SubscribeReply> kSubscribe{"rpki/1.0/subscribe"};
const ipc::Method<cpb::VrpChangesRequest, cpb::VrpChangesReply> kVrpChanges{
    "rpki_client/1.0/vrp_changes"};

Vrp V(const char* prefix, int max_length, uint32_t asn) {
  return Vrp{*net::Prefix::Parse(prefix), static_cast<uint8_t>(max_length), asn};
}

std::string Text(const pb::Vrp& v) {
  return ipc::FromProto(v.prefix())->ToString() + "-" + std::to_string(v.max_length()) + " AS" +
         std::to_string(v.asn());
}

class RpkiServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/sluice-rpki-service-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    rundir_ = dir;
    setenv("SLUICE_RUNDIR", rundir_.c_str(), 1);
    finder::FinderOptions finder_options;
    finder_options.listen = {"unix:" + rundir_ + "/finder.sock"};
    finder_ = std::make_unique<sluice::testing::FinderThread>(finder_options);
    ASSERT_TRUE(finder_->status().ok()) << finder_->status();
    StartRpki(7);
    // The subscriber.
    bgp_ = std::make_unique<ipc::XrlRouter>(io_, "bgp", "bgp", Options());
    ASSERT_TRUE(
        bgp_->Handle(
                kVrpChanges,
                [this](const cpb::VrpChangesRequest& r) -> absl::StatusOr<cpb::VrpChangesReply> {
                  if (lose_ > 0) {
                    --lose_;
                    return absl::UnavailableError("connection reset");
                  }
                  batches_.push_back(r);
                  return cpb::VrpChangesReply();
                })
            .ok());
    bgp_->WatchClass("rpki", [this](const ipc::TargetEvent& e) {
      if (e.kind == ipc::TargetEvent::kBirth) {
        rpki_live_.insert(e.instance_name);
      } else {
        rpki_live_.erase(e.instance_name);
      }
    });
    ASSERT_TRUE(bgp_->Start().ok());
    ASSERT_TRUE(RunUntil([&] { return bgp_->registered() && rpki_live_.contains("rpki"); }));
  }
  void TearDown() override {
    bgp_.reset();
    StopRpki();
    finder_.reset();
    std::filesystem::remove_all(rundir_);
  }

  // sluice-rpki as its main wires it, with a fresh store (a new process).
  void StartRpki(uint64_t epoch, std::chrono::seconds expire = std::chrono::seconds(7200)) {
    rpki_router_ = std::make_unique<ipc::XrlRouter>(io_, "rpki", "rpki", Options());
    service_ = std::make_unique<RpkiService>(io_, rpki_router_.get(), epoch, expire);
    ASSERT_TRUE(service_->Start().ok());
    store_ = &service_->store();
    ASSERT_TRUE(rpki_router_->Start().ok());
    if (bgp_ == nullptr) return;  // SetUp waits once the subscriber exists
    ASSERT_TRUE(RunUntil([&] { return rpki_live_.contains("rpki"); }));
  }
  // Returns once the Finder has seen it go, so that the next one can take its name.
  void StopRpki() {
    service_.reset();
    store_ = nullptr;
    rpki_router_.reset();
    if (bgp_ == nullptr) return;  // TearDown
    ASSERT_TRUE(RunUntil([&] { return rpki_live_.empty(); }));
  }

  ipc::RouterOptions Options() {
    ipc::RouterOptions options;
    options.finder_address = "unix:" + rundir_ + "/finder.sock";
    options.finder_wait_ms = 2000;
    return options;
  }
  template <typename P>
  bool RunUntil(P done, int ms = 20000) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      io_.run_one_for(std::chrono::milliseconds(5));
    }
    return done();
  }
  template <typename Request, typename Reply>
  absl::StatusOr<Reply> Call(const ipc::Method<Request, Reply>& method, Request request) {
    std::optional<absl::StatusOr<Reply>> result;
    bgp_->Call("rpki", method, std::move(request),
               [&](absl::StatusOr<Reply> reply) { result = std::move(reply); });
    EXPECT_TRUE(RunUntil([&] { return result.has_value(); }));
    if (!result) return absl::DeadlineExceededError("no answer");
    return *result;
  }
  absl::Status AddCache(const testing::FakeCache& cache, uint32_t preference) {
    pb::AddCacheRequest r;
    ipc::ToProto(*net::IPAddress::Parse("127.0.0.1"), r.mutable_address());
    r.set_port(cache.port());
    r.set_preference(preference);
    return Call(kAddCache, r).status();
  }
  pb::GetStatusReply Status() { return Call(kGetStatus, pb::GetStatusRequest()).value(); }
  // What the subscriber holds after applying every batch so far (once the last dump is done).
  std::set<std::string> Held() {
    std::set<std::string> held;
    for (const auto& b : batches_) {
      if (b.full() && (b.dump_start() || &b == &batches_.front())) held.clear();
      for (const auto& v : b.withdrawn()) held.erase(Text(v));
      for (const auto& v : b.announced()) held.insert(Text(v));
    }
    return held;
  }
  // `cache` serves 192.0.2.0/24-24 AS64496 and 2001:db8::/32-48 AS64497; the subscriber has
  // their dump.
  void SubscribeWithTwoVrps(testing::FakeCache& cache) {
    cache.Set({V("192.0.2.0/24", 24, 64496), V("2001:db8::/32", 48, 64497)});
    ASSERT_TRUE(AddCache(cache, 1).ok());
    ASSERT_TRUE(RunUntil([&] { return store_->size() == 2; }));
    ASSERT_TRUE(Call(kSubscribe, pb::SubscribeRequest()).ok());
    ASSERT_TRUE(RunUntil([&] { return DumpDone(); }));
  }
  bool DumpDone() {
    for (const auto& b : batches_) {
      if (b.dump_done()) return true;
    }
    return false;
  }

  boost::asio::io_context io_;
  std::string rundir_;
  std::unique_ptr<sluice::testing::FinderThread> finder_;
  std::unique_ptr<ipc::XrlRouter> rpki_router_;
  std::unique_ptr<RpkiService> service_;
  VrpStore* store_ = nullptr;
  std::unique_ptr<ipc::XrlRouter> bgp_;
  std::vector<cpb::VrpChangesRequest> batches_;
  int lose_ = 0;  // the subscriber fails this many of the next calls, as if they were lost
  std::set<std::string> rpki_live_;  // the rpki instances the Finder announces to bgp_
};

TEST_F(RpkiServiceTest, ASubscriberGetsTheWholeSetThenOnlyWhatChanged) {
  testing::FakeCache cache(io_);
  SubscribeWithTwoVrps(cache);
  EXPECT_TRUE(batches_.front().full());
  EXPECT_EQ(batches_.front().epoch(), 7u);
  EXPECT_EQ(Held(), (std::set<std::string>{"192.0.2.0/24-24 AS64496", "2001:db8::/32-48 AS64497"}));
  const size_t dump_batches = batches_.size();

  cache.Set({V("192.0.2.0/24", 25, 64496), V("2001:db8::/32", 48, 64497)});
  ASSERT_TRUE(RunUntil([&] { return Held().contains("192.0.2.0/24-25 AS64496"); }));
  EXPECT_EQ(Held(), (std::set<std::string>{"192.0.2.0/24-25 AS64496", "2001:db8::/32-48 AS64497"}));
  int sent_again = 0;  // the unchanged IPv6 VRP is not sent again
  for (size_t i = dump_batches; i < batches_.size(); ++i) {
    EXPECT_FALSE(batches_[i].full());
    sent_again += batches_[i].announced_size() + batches_[i].withdrawn_size();
  }
  EXPECT_EQ(sent_again, 2);

  pb::GetStatusReply s = Status();
  ASSERT_EQ(s.caches_size(), 1);
  EXPECT_EQ(s.caches(0).state(), "established");
  EXPECT_EQ(s.caches(0).serial(), 2u);
  EXPECT_EQ(s.vrps_ipv4(), 1u);
  EXPECT_EQ(s.vrps_ipv6(), 1u);
  EXPECT_EQ(s.subscribers(), 1u);
}

// A batch of changes lost on its way to a subscriber that stays up: sluice-rpki sends it the
// whole set again after a backoff, then changes as before.
TEST_F(RpkiServiceTest, ABatchLostOnTheWayIsRepairedByTheWholeSetAgain) {
  testing::FakeCache cache(io_);
  SubscribeWithTwoVrps(cache);
  const size_t first_dump = batches_.size();

  lose_ = 1;  // the withdrawal of 192.0.2.0/24-24; its announcement of -25 arrives
  cache.Set({V("192.0.2.0/24", 25, 64496), V("2001:db8::/32", 48, 64497)});
  const std::set<std::string> want = {"192.0.2.0/24-25 AS64496", "2001:db8::/32-48 AS64497"};
  const auto started = std::chrono::steady_clock::now();
  ASSERT_TRUE(RunUntil([&] { return Held() == want; }, 10000)) << ::testing::PrintToString(Held());
  const double repaired_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  int dumps = 0;
  for (size_t i = first_dump; i < batches_.size(); ++i) dumps += batches_[i].dump_start();
  EXPECT_EQ(dumps, 1) << "repaired after " << repaired_s << " s";
  EXPECT_TRUE(batches_.back().dump_done());
  EXPECT_EQ(Status().subscribers(), 1u);

  // Still a subscriber: the next change comes as a change.
  cache.Set({V("192.0.2.0/24", 25, 64496)});
  ASSERT_TRUE(RunUntil([&] { return Held() == std::set<std::string>{"192.0.2.0/24-25 AS64496"}; }))
      << ::testing::PrintToString(Held());
  EXPECT_FALSE(batches_.back().full());
  EXPECT_EQ(Status().subscriber_redumps(), 1u);
}

TEST_F(RpkiServiceTest, VrpsStayWhenTheCacheGoes) {
  testing::FakeCache cache(io_);
  cache.Set({V("192.0.2.0/24", 24, 64496)});
  ASSERT_TRUE(AddCache(cache, 1).ok());
  ASSERT_TRUE(RunUntil([&] { return store_->size() == 1; }));
  cache.Stop();
  ASSERT_TRUE(RunUntil([&] { return !Status().caches(0).connected(); }));
  EXPECT_EQ(store_->size(), 1u);  // until the expire interval (7200 s here)
  EXPECT_THAT(Status().caches(0).last_error(), HasSubstr("closed"));
}

TEST_F(RpkiServiceTest, TheMostPreferredCacheInSyncServes) {
  testing::FakeCache first(io_), second(io_);
  first.Set({V("192.0.2.0/24", 24, 1)});
  second.Set({V("198.51.100.0/24", 24, 2)});
  ASSERT_TRUE(AddCache(first, 1).ok());
  ASSERT_TRUE(AddCache(second, 2).ok());
  // The preferred one answers; the other is stopped and its VRPs are not in the union.
  ASSERT_TRUE(RunUntil([&] {
    pb::GetStatusReply s = Status();
    return s.caches(0).state() == "established" && s.caches(1).state() == "stopped";
  }));
  ASSERT_TRUE(RunUntil([&] { return store_->size() == 1; }));
  EXPECT_TRUE(store_->Contains(V("192.0.2.0/24", 24, 1)));
  // The preferred cache goes: the next one takes over; the first one's VRPs stay until expiry.
  first.Stop();
  ASSERT_TRUE(RunUntil([&] { return Status().caches(1).state() == "established"; }));
  ASSERT_TRUE(RunUntil([&] { return store_->size() == 2; }));
  // It comes back: the second is stopped again and its VRPs go.
  first.Start();
  ASSERT_TRUE(RunUntil([&] { return Status().caches(1).state() == "stopped"; }, 30000));
  ASSERT_TRUE(RunUntil([&] { return store_->size() == 1; }));
  EXPECT_TRUE(store_->Contains(V("192.0.2.0/24", 24, 1)));
}

TEST_F(RpkiServiceTest, BadRequestsNameTheField) {
  pb::AddCacheRequest r;
  EXPECT_THAT(Call(kAddCache, r).status().message(), HasSubstr("address"));
  ipc::ToProto(*net::IPAddress::Parse("127.0.0.1"), r.mutable_address());
  r.set_port(70000);
  EXPECT_THAT(Call(kAddCache, r).status().message(), HasSubstr("port"));
  r.set_port(8323);
  r.set_expire(100);
  EXPECT_THAT(Call(kAddCache, r).status().message(), HasSubstr("expire"));
  r.set_expire(0);
  ASSERT_TRUE(Call(kAddCache, r).ok());
  EXPECT_EQ(Call(kAddCache, r).status().code(), absl::StatusCode::kAlreadyExists);
  pb::DeleteCacheRequest d;
  ipc::ToProto(*net::IPAddress::Parse("127.0.0.1"), d.mutable_address());
  d.set_port(8324);
  EXPECT_EQ(Call(kDeleteCache, d).status().code(), absl::StatusCode::kNotFound);
  d.set_port(8323);
  EXPECT_TRUE(Call(kDeleteCache, d).ok());
  EXPECT_EQ(Status().caches_size(), 0);
}

TEST_F(RpkiServiceTest, ListVrpsFiltersAndPages) {
  testing::FakeCache cache(io_);
  cache.Set({V("10.0.0.0/8", 8, 1), V("10.1.0.0/16", 24, 2), V("10.1.2.0/24", 24, 3),
             V("11.0.0.0/8", 8, 4)});
  ASSERT_TRUE(AddCache(cache, 1).ok());
  ASSERT_TRUE(RunUntil([&] { return store_->size() == 4; }));
  pb::ListVrpsRequest r;
  ipc::ToProto(*net::Prefix::Parse("10.1.0.0/16"), r.mutable_within());
  pb::ListVrpsReply within = Call(kListVrps, r).value();
  ASSERT_EQ(within.vrps_size(), 2);
  EXPECT_EQ(Text(within.vrps(0)), "10.1.0.0/16-24 AS2");
  r.clear_within();
  ipc::ToProto(*net::Prefix::Parse("10.1.2.0/24"), r.mutable_covering());
  EXPECT_EQ(Call(kListVrps, r).value().vrps_size(), 3);
  r.clear_covering();
  r.set_max_vrps(3);
  pb::ListVrpsReply page = Call(kListVrps, r).value();
  ASSERT_EQ(page.vrps_size(), 3);
  EXPECT_TRUE(page.more());
  *r.mutable_start_after() = page.vrps(2);
  page = Call(kListVrps, r).value();
  ASSERT_EQ(page.vrps_size(), 1);
  EXPECT_EQ(Text(page.vrps(0)), "11.0.0.0/8-8 AS4");
  EXPECT_FALSE(page.more());
}

// sluice-bgp's client: subscribes when sluice-rpki is born, holds the VRPs while it is gone, and
// after a new sluice-rpki's dump withdraws only what the new one did not carry.
TEST_F(RpkiServiceTest, BgpKeepsItsVrpsAcrossAnRpkiRestart) {
  ipc::XrlRouter bgp(io_, "bgp", "bgp-rpki", Options());
  // Ready later, as a sharded BGP is: the client applies each batch only then, in order.
  struct Listener : bgp::process::VrpListener {
    explicit Listener(boost::asio::io_context& io) : io(io) {}
    void BeforeChange(const bgp::rpki::VrpDelta& d, std::function<void()> ready) override {
      changed.insert(changed.end(), d.added.begin(), d.added.end());
      changed.insert(changed.end(), d.removed.begin(), d.removed.end());
      boost::asio::post(io, std::move(ready));
    }
    void AfterChange() override { ++changes; }
    boost::asio::io_context& io;
    std::vector<bgp::rpki::Vrp> changed;
    int changes = 0;
  } listener(io_);
  std::vector<bgp::rpki::Vrp>& changed = listener.changed;
  bgp::rpki::OriginValidator set;
  bgp::process::RpkiIpcClient client(io_, &bgp, "rpki", &set, &listener);
  ASSERT_TRUE(client.Start().ok());
  ASSERT_TRUE(bgp.Start().ok());
  auto cache = std::make_unique<testing::FakeCache>(io_);
  cache->Set({V("192.0.2.0/24", 24, 64496), V("198.51.100.0/24", 24, 64497)});
  ASSERT_TRUE(AddCache(*cache, 1).ok());
  ASSERT_TRUE(RunUntil([&] { return client.table().size() == 2; }));
  const auto valid = [&] {
    return client.table().Validate(*net::Prefix::Parse("198.51.100.0/24"), 64497);
  };
  EXPECT_EQ(valid(), bgp::rpki::RpkiState::kValid);

  // sluice-rpki dies: the VRPs stay.
  StopRpki();
  cache.reset();
  ASSERT_TRUE(RunUntil([&] { return !client.subscribed(); }));
  for (int i = 0; i < 20; ++i) io_.run_one_for(std::chrono::milliseconds(5));
  EXPECT_EQ(client.table().size(), 2u);
  EXPECT_EQ(valid(), bgp::rpki::RpkiState::kValid);

  // A new one: bgp subscribes at once, but no cache has answered yet, so nothing changes.
  changed.clear();
  StartRpki(8);
  ASSERT_TRUE(RunUntil([&] { return client.subscribed(); }));
  for (int i = 0; i < 20; ++i) io_.run_one_for(std::chrono::milliseconds(5));
  EXPECT_EQ(client.table().size(), 2u);
  EXPECT_TRUE(changed.empty());

  // Its cache no longer has 198.51.100.0/24: after the dump, only that one goes.
  cache = std::make_unique<testing::FakeCache>(io_);
  cache->Set({V("192.0.2.0/24", 24, 64496)});
  ASSERT_TRUE(AddCache(*cache, 1).ok());
  ASSERT_TRUE(RunUntil([&] { return client.table().size() == 1; })) << client.table().size();
  EXPECT_EQ(valid(), bgp::rpki::RpkiState::kNotFound);
  EXPECT_EQ(client.feed().epoch(), 8u);
  ASSERT_EQ(changed.size(), 1u);  // 192.0.2.0/24 never left
  EXPECT_EQ(changed[0].prefix.ToString(), "198.51.100.0/24");
  EXPECT_EQ(listener.changes, 2);  // each dump ended one change
}

// A sluice-rpki that registers before it serves refuses the first subscribes: sluice-bgp tries
// again while it lives.
TEST_F(RpkiServiceTest, AFailedSubscribeIsTriedAgain) {
  StopRpki();
  ipc::XrlRouter stand_in(io_, "rpki", "rpki", Options());
  int calls = 0;
  ASSERT_TRUE(stand_in
                  .Handle(kSubscribe,
                          [&](const pb::SubscribeRequest&) -> absl::StatusOr<pb::SubscribeReply> {
                            if (++calls < 3) return absl::UnavailableError("not serving yet");
                            return pb::SubscribeReply();
                          })
                  .ok());
  ipc::XrlRouter bgp(io_, "bgp", "bgp-rpki", Options());
  bgp::rpki::OriginValidator set;
  bgp::process::RpkiIpcClient client(io_, &bgp, "rpki", &set);
  ASSERT_TRUE(client.Start().ok());
  ASSERT_TRUE(bgp.Start().ok());
  ASSERT_TRUE(stand_in.Start().ok());
  ASSERT_TRUE(RunUntil([&] { return client.subscribed(); }, 10000)) << calls;
  EXPECT_EQ(calls, 3);
}

// A second rpki instance is born while a subscribe is in flight: the subscribe it starts
// replaces the first, whose late failure starts no second chain of retries.
TEST_F(RpkiServiceTest, ALateFailureOfAnEarlierSubscribeIsNotTriedAgain) {
  StopRpki();
  using SubscribeResponder = ipc::Responder<pb::SubscribeReply>;
  std::vector<SubscribeResponder> held;
  const auto hold = [&](const pb::SubscribeRequest&, SubscribeResponder r) {
    held.push_back(std::move(r));
  };
  ipc::XrlRouter first(io_, "rpki", "rpki", Options());
  ASSERT_TRUE(first.HandleAsync(kSubscribe, hold).ok());
  ipc::XrlRouter bgp(io_, "bgp", "bgp-rpki", Options());
  bgp::rpki::OriginValidator set;
  bgp::process::RpkiIpcClient client(io_, &bgp, "rpki", &set);
  ASSERT_TRUE(client.Start().ok());
  ASSERT_TRUE(bgp.Start().ok());
  ASSERT_TRUE(first.Start().ok());
  ASSERT_TRUE(RunUntil([&] { return held.size() == 1; }));
  // The second instance's birth: its subscribe reaches the oldest instance, `first`, too.
  ipc::XrlRouter second(io_, "rpki", "rpki-2", Options());
  ASSERT_TRUE(second.HandleAsync(kSubscribe, hold).ok());
  ASSERT_TRUE(second.Start().ok());
  ASSERT_TRUE(RunUntil([&] { return held.size() == 2; }));
  held[1].Fail(absl::UnavailableError("not serving yet"));
  ASSERT_TRUE(RunUntil([&] { return held.size() == 3; }));  // its retry
  held[0].Fail(absl::UnavailableError("not serving yet"));  // the first, late
  EXPECT_FALSE(RunUntil([&] { return held.size() > 3; }, 1500)) << "a second chain of retries";
  held[2].Send(pb::SubscribeReply());
  ASSERT_TRUE(RunUntil([&] { return client.subscribed(); }));
}

// No cache ever answers: after the expire interval the empty set counts, and every route is
// not-found (RFC 8210 §6).
TEST_F(RpkiServiceTest, WithoutAnyAnswerTheSetEmptiesAfterTheExpireInterval) {
  StopRpki();
  const auto started = std::chrono::steady_clock::now();
  StartRpki(9, std::chrono::seconds(1));
  ASSERT_TRUE(Call(kSubscribe, pb::SubscribeRequest()).ok());
  ASSERT_TRUE(RunUntil([&] { return DumpDone(); }, 5000));
  EXPECT_GE(std::chrono::steady_clock::now() - started, std::chrono::seconds(1));
  EXPECT_TRUE(Held().empty());
}

}  // namespace
}  // namespace sluice::rpki
