// The router manager's pushes when a process cannot be reached for a while: a real Finder and
// real gRPC over Unix sockets in one process. The process "rib" stays registered and alive, but
// its socket is moved away, so every connection to it fails at once (UNAVAILABLE), as it does
// for a process too busy to finish a connection in time.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <optional>
#include <utility>

#include "ipc/methods/rib.h"
#include "ipc/proto/rib.pb.h"
#include "ipc/xrl_router.h"
#include "rtrmgr/process/configurator.h"
#include "tests/ipc/finder_thread.h"

namespace sluice::rtrmgr {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::SizeIs;
namespace rib_v1 = ::sluice::rib::v1;

class ConfiguratorResendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/sluice-configurator-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    rundir_ = dir;
    setenv("SLUICE_RUNDIR", rundir_.c_str(), 1);
    finder::FinderOptions options;
    options.listen = {"unix:" + rundir_ + "/finder.sock"};
    options.recovery_grace = {};
    finder_ = std::make_unique<testing::FinderThread>(std::move(options));
    ASSERT_TRUE(finder_->status().ok()) << finder_->status();
    StartRib();
    rtrmgr_ = std::make_unique<ipc::XrlRouter>(io_, "rtrmgr", "rtrmgr", Options());
    ASSERT_TRUE(rtrmgr_->Start().ok());
    ASSERT_TRUE(RunUntil([&] { return rtrmgr_->registered(); }));
    configurator_ = std::make_unique<Configurator>(*rtrmgr_, io_);
    config_.rib.admin_distances["ebgp"].distance = 30;
    config_.rib.admin_distances["ibgp"].distance = 190;
  }
  void TearDown() override {
    configurator_.reset();
    rtrmgr_.reset();
    rib_.reset();
    finder_.reset();
    std::filesystem::remove_all(rundir_);
  }

  ipc::RouterOptions Options() {
    ipc::RouterOptions options;
    options.finder_address = "unix:" + rundir_ + "/finder.sock";
    options.allow_inproc = false;  // over gRPC, as between processes
    options.finder_wait_ms = 2000;
    return options;
  }

  // A "rib" that records the admin distances it is given.
  void StartRib() {
    ipc::RouterOptions options = Options();
    options.listen = {"unix:" + socket()};
    rib_ = std::make_unique<ipc::XrlRouter>(io_, "rib", "rib", options);
    absl::Status s = rib_->Handle(ipc::methods::rib::kSetAdminDistance,
                                  [this](const rib_v1::SetAdminDistanceRequest& r)
                                      -> absl::StatusOr<rib_v1::SetAdminDistanceReply> {
                                    distances_.emplace_back(r.protocol(), r.admin_distance());
                                    return rib_v1::SetAdminDistanceReply();
                                  });
    ASSERT_TRUE(s.ok()) << s;
    ASSERT_TRUE(rib_->Start().ok());
    ASSERT_TRUE(RunUntil([&] { return rib_->registered(); }));
  }

  std::string socket() const { return rundir_ + "/rib.sock"; }
  void HideSocket() { std::filesystem::rename(socket(), socket() + ".away"); }
  void RestoreSocket() { std::filesystem::rename(socket() + ".away", socket()); }

  template <typename P>
  bool RunUntil(P done, int ms = 5000) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      io_.run_one_for(std::chrono::milliseconds(5));
    }
    return done();
  }
  void RunFor(int ms) {
    RunUntil([] { return false; }, ms);
  }

  // Pushes the rib part of config_; the errors land in `*out` when the push is done.
  void Push(std::optional<std::vector<std::string>>* out) {
    configurator_->ConfigureRib(
        config_, [out](std::vector<std::string> errors) { *out = std::move(errors); });
  }

  std::string rundir_;
  boost::asio::io_context io_;
  std::unique_ptr<testing::FinderThread> finder_;
  std::unique_ptr<ipc::XrlRouter> rib_;
  std::unique_ptr<ipc::XrlRouter> rtrmgr_;
  std::unique_ptr<Configurator> configurator_;
  Config config_;
  std::vector<std::pair<std::string, uint32_t>> distances_;
};

TEST_F(ConfiguratorResendTest, CallsThatCannotReachTheProcessGoAgainInOrderOnceTheyCan) {
  HideSocket();
  std::optional<std::vector<std::string>> errors;
  Push(&errors);
  RunFor(1500);  // the first attempt and one resend fail
  EXPECT_FALSE(errors.has_value()) << "the push gave up while the process was still registered";
  EXPECT_THAT(distances_, IsEmpty());
  RestoreSocket();
  ASSERT_TRUE(RunUntil([&] { return errors.has_value(); }, 5000));
  EXPECT_THAT(*errors, IsEmpty());
  EXPECT_THAT(distances_, ElementsAre(Pair("ebgp", 30), Pair("ibgp", 190)));
}

TEST_F(ConfiguratorResendTest, AProcessThatNeverAnswersIsReportedAfterTheLastRound) {
  HideSocket();
  std::optional<std::vector<std::string>> errors;
  Push(&errors);
  const int rounds_ms = Configurator::kResendRounds * 1000;
  ASSERT_TRUE(RunUntil([&] { return errors.has_value(); }, rounds_ms + 5000));
  ASSERT_THAT(*errors, SizeIs(2));
  EXPECT_THAT((*errors)[0], HasSubstr("sluice-rib"));
  EXPECT_THAT((*errors)[0], HasSubstr("admin-distance ebgp"));
  EXPECT_THAT(distances_, IsEmpty());
}

TEST_F(ConfiguratorResendTest, AProcessThatRegisteredAnewGetsTheNewPushNotTheOldCalls) {
  HideSocket();
  std::optional<std::vector<std::string>> first, second;
  Push(&first);
  RunFor(300);    // the first attempt fails; its resend waits
  Push(&second);  // what the router manager does when the process registers again
  RestoreSocket();
  ASSERT_TRUE(RunUntil([&] { return first.has_value() && second.has_value(); }, 5000));
  ASSERT_THAT(*first, SizeIs(2));
  EXPECT_THAT((*first)[0], HasSubstr("registered anew"));
  EXPECT_THAT(*second, IsEmpty());
  EXPECT_THAT(distances_, ElementsAre(Pair("ebgp", 30), Pair("ibgp", 190)));
}

}  // namespace
}  // namespace sluice::rtrmgr
