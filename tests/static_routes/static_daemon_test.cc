// StaticDaemon (sluice-static's wiring) in the test's process against a fake RIB reached over
// gRPC through an in-process Finder: a RIB's birth gets every route and end-of-RIB; a deletion
// lost on its way to the RIB, which stays up, is repaired by the re-synchronisation that
// follows (register_protocol with `resync`, every route again, end-of-RIB sweeping the rest).
#include "static_routes/static_daemon.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "ipc/methods/rib.h"
#include "ipc/methods/static_routes.h"
#include "ipc/proto/rib.pb.h"
#include "ipc/proto/static_routes.pb.h"
#include "ipc/types_convert.h"
#include "ipc/xrl_router.h"
#include "tests/ipc/finder_thread.h"

namespace sluice::static_routes {
namespace {

namespace rib_v1 = ::sluice::rib::v1;
namespace static_v1 = ::sluice::static_routes::v1;

net::Prefix P(const char* s) { return net::Prefix::Parse(s).value(); }

// The RIB as sluice-static reaches it: the "static" routes it holds (network → nexthop), stale
// ones after a register_protocol with `resync` until they are added again, swept at end_of_rib.
// FailNextCalls(n): the next n route or registration calls answer UNAVAILABLE and change
// nothing, as calls lost on the way.
class FakeRib {
 public:
  FakeRib(boost::asio::io_context& io, ipc::RouterOptions options)
      : router_(io, "rib", "rib", std::move(options)) {}

  absl::Status Start() {
    using namespace ipc::methods::rib;
    absl::Status s = router_.Handle(kRegisterProtocol,
                                    [this](const rib_v1::RegisterProtocolRequest& q)
                                        -> absl::StatusOr<rib_v1::RegisterProtocolReply> {
                                      if (Lose()) return absl::UnavailableError("lost by the test");
                                      ++registrations;
                                      rib_v1::RegisterProtocolReply reply;
                                      if (q.resync()) {
                                        for (const auto& [network, nexthop] : routes)
                                          stale.insert(network);
                                        reply.set_stale_routes(static_cast<uint32_t>(stale.size()));
                                      }
                                      return reply;
                                    });
    s.Update(router_.Handle(
        kAddRoute4,
        [this](const rib_v1::AddRoute4Request& q) -> absl::StatusOr<rib_v1::RouteReply> {
          if (Lose()) return absl::UnavailableError("lost by the test");
          const net::Prefix network = *ipc::FromProto(q.network());
          routes[network] = ipc::FromProto(q.nexthop()).ToString();
          stale.erase(network);
          return rib_v1::RouteReply();
        }));
    s.Update(router_.Handle(
        kDeleteRoute4,
        [this](const rib_v1::DeleteRoute4Request& q) -> absl::StatusOr<rib_v1::RouteReply> {
          if (Lose()) return absl::UnavailableError("lost by the test");
          if (routes.erase(*ipc::FromProto(q.network())) == 0) {
            return absl::NotFoundError("no such route");
          }
          return rib_v1::RouteReply();
        }));
    s.Update(router_.Handle(
        kEndOfRib, [this](const rib_v1::EndOfRibRequest&) -> absl::StatusOr<rib_v1::EndOfRibReply> {
          ++end_of_ribs;
          rib_v1::EndOfRibReply reply;
          for (const net::Prefix& p : stale) reply.set_swept(reply.swept() + routes.erase(p));
          stale.clear();
          return reply;
        }));
    if (!s.ok()) return s;
    return router_.Start();
  }
  void FailNextCalls(int n) { fail_next_ = n; }
  bool registered() const { return router_.registered(); }

  std::map<net::Prefix, std::string> routes;
  std::set<net::Prefix> stale;
  int registrations = 0;
  int end_of_ribs = 0;

 private:
  bool Lose() {
    if (fail_next_ == 0) return false;
    --fail_next_;
    return true;
  }
  ipc::XrlRouter router_;
  int fail_next_ = 0;
};

class StaticDaemonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/sluice-static-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    rundir_ = dir;
    setenv("SLUICE_RUNDIR", rundir_.c_str(), 1);
    finder::FinderOptions finder_options;
    finder_options.listen = {"unix:" + rundir_ + "/finder.sock"};
    finder_options.recovery_grace = std::chrono::milliseconds(0);
    finder_ = std::make_unique<sluice::testing::FinderThread>(std::move(finder_options));
    ASSERT_TRUE(finder_->status().ok()) << finder_->status();
  }
  void TearDown() override {
    daemon_.reset();
    router_.reset();
    client_.reset();
    rib_.reset();
    finder_.reset();
    std::filesystem::remove_all(rundir_);
  }
  ipc::RouterOptions Options() const {
    ipc::RouterOptions o;
    o.finder_address = "unix:" + rundir_ + "/finder.sock";
    o.allow_inproc = false;  // through gRPC, as between processes
    o.finder_wait_ms = 2000;
    return o;
  }
  bool Run(const std::function<bool()>& condition, double seconds = 10) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!condition()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      io_.run_for(std::chrono::milliseconds(10));
    }
    return true;
  }
  // The RIB, sluice-static with `routes`, and a client that calls static_routes/1.0.
  void StartAll(const std::vector<const char*>& routes) {
    rib_ = std::make_unique<FakeRib>(io_, Options());
    ASSERT_TRUE(rib_->Start().ok());
    router_ = std::make_unique<ipc::XrlRouter>(io_, "static_routes", "static_routes", Options());
    daemon_ = std::make_unique<StaticDaemon>(io_, router_.get(), StaticDaemonOptions());
    ASSERT_TRUE(daemon_->Start().ok());
    for (const char* r : routes) ASSERT_TRUE(daemon_->routes().Add(*ParseStaticRoute(r)).ok());
    ASSERT_TRUE(router_->Start().ok());
    ipc::RouterOptions co = Options();
    co.serve = false;
    client_ = std::make_unique<ipc::XrlRouter>(io_, "cli", "", co);
    ASSERT_TRUE(client_->Start().ok());
    ASSERT_TRUE(Run([&] { return router_->registered() && client_->registered(); }));
  }

  std::string rundir_;
  std::unique_ptr<sluice::testing::FinderThread> finder_;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_ =
      boost::asio::make_work_guard(io_);
  std::unique_ptr<FakeRib> rib_;
  std::unique_ptr<ipc::XrlRouter> router_;
  std::unique_ptr<StaticDaemon> daemon_;
  std::unique_ptr<ipc::XrlRouter> client_;
};

TEST_F(StaticDaemonTest, ADeletionLostOnTheWayToALiveRibIsSweptByTheResync) {
  StartAll({"10.0.0.0/8 via 192.0.2.2", "10.1.0.0/16 via 192.0.2.3"});
  ASSERT_TRUE(Run([&] { return rib_->routes.size() == 2 && rib_->end_of_ribs == 1; }))
      << "RIB holds " << rib_->routes.size() << ", end-of-RIBs " << rib_->end_of_ribs;
  EXPECT_EQ(rib_->registrations, 1);
  // Adds made before the RIB's birth may fail too (NOT_FOUND, re-sent at the birth), so the
  // loss below is counted from here.
  const uint64_t failed_before = daemon_->rib().failed_calls();

  rib_->FailNextCalls(1);  // the delete_route4 below
  static_v1::DeleteRouteRequest del;
  ipc::ToProto(P("10.1.0.0/16"), del.mutable_network());
  std::optional<absl::Status> deleted;
  client_->Call("static_routes", ipc::methods::static_routes::kDeleteRoute, del,
                [&](absl::StatusOr<static_v1::DeleteRouteReply> r) { deleted = r.status(); });
  ASSERT_TRUE(Run([&] { return deleted.has_value(); }));
  ASSERT_TRUE(deleted->ok()) << *deleted;

  // About 1 s later: registered again with `resync`, 10.0.0.0/8 sent again, end-of-RIB.
  EXPECT_TRUE(Run([&] { return rib_->end_of_ribs == 2; }, 10))
      << "end-of-RIBs " << rib_->end_of_ribs;
  EXPECT_EQ(rib_->registrations, 2);
  EXPECT_EQ(rib_->routes, (std::map<net::Prefix, std::string>{{P("10.0.0.0/8"), "192.0.2.2"}}));
  EXPECT_GE(daemon_->rib().failed_calls() - failed_before, 1u);
}

}  // namespace
}  // namespace sluice::static_routes
