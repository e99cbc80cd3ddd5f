// SyncClient (the `sluice show` commands' blocking calls) against a real Finder and a component
// serving test_echo/1.0 on its own thread, all in one process.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <filesystem>
#include <future>
#include <memory>
#include <thread>

#include "ipc/xrl_router.h"
#include "rtrmgr/cli/sync_client.h"
#include "tests/ipc/finder_thread.h"
#include "tests/ipc/test_echo_service.h"

namespace sluice::rtrmgr::cli {
namespace {

namespace tv1 = test_echo::v1;

// The test_echo/1.0 component "echo", on a thread and event loop of its own.
class EchoThread {
 public:
  explicit EchoThread(const std::string& finder_address) {
    std::future<bool> ready = started_.get_future();
    thread_ = std::thread([this, finder_address] {
      ipc::RouterOptions options;
      options.finder_address = finder_address;
      router_ = std::make_unique<ipc::XrlRouter>(io_, "test_echo", "echo", options);
      service_ = std::make_unique<test_echo::TestEchoService>(io_, *router_);
      bool ok = service_->Register().ok() && router_->Start().ok();
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (ok && !router_->registered() && std::chrono::steady_clock::now() < deadline) {
        io_.run_one_for(std::chrono::milliseconds(5));
      }
      started_.set_value(ok && router_->registered());
      io_.run();
      router_.reset();
    });
    registered_ = ready.get();
  }
  ~EchoThread() {
    guard_.reset();
    boost::asio::post(io_, [this] { io_.stop(); });
    thread_.join();
  }
  bool registered() const { return registered_; }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_ =
      boost::asio::make_work_guard(io_);
  std::unique_ptr<ipc::XrlRouter> router_;
  std::unique_ptr<test_echo::TestEchoService> service_;
  std::promise<bool> started_;
  std::thread thread_;
  bool registered_ = false;
};

class SyncClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/sluice-sync-client-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    rundir_ = dir;
    setenv("SLUICE_RUNDIR", rundir_.c_str(), 1);
    finder::FinderOptions options;
    options.listen = {finder_address()};
    options.recovery_grace = {};
    finder_ = std::make_unique<testing::FinderThread>(std::move(options));
    ASSERT_TRUE(finder_->status().ok()) << finder_->status();
  }
  void TearDown() override {
    finder_.reset();
    std::filesystem::remove_all(rundir_);
  }

  std::string finder_address() const { return "unix:" + rundir_ + "/finder.sock"; }

  static tv1::DelayRequest Delay(int ms, const std::string& tag) {
    tv1::DelayRequest request;
    request.set_delay_ms(ms);
    request.set_tag(tag);
    return request;
  }

  std::string rundir_;
  std::unique_ptr<testing::FinderThread> finder_;
};

// A query that timed out must not answer the next one: its late reply arrives while the client
// waits for the next call, and is not that call's answer.
TEST_F(SyncClientTest, ALateReplyIsNotTheNextCallsAnswer) {
  EchoThread echo(finder_address());
  ASSERT_TRUE(echo.registered());
  constexpr int kTimeoutMs = 2000;
  SyncClient client(finder_address(), kTimeoutMs);

  auto first = client.Call("echo", test_echo::kDelay, Delay(kTimeoutMs + 600, "first"));
  EXPECT_EQ(first.status().code(), absl::StatusCode::kDeadlineExceeded) << first.status();

  // The first reply comes about 600 ms into this call, this call's own about 600 ms later.
  auto second = client.Call("echo", test_echo::kDelay, Delay(1200, "second"));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->tag(), "second");
}

}  // namespace
}  // namespace sluice::rtrmgr::cli
