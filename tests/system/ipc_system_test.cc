// The IPC layer with real processes: sluice-finder, sluice-test-component and the sluice CLI, each
// test in a private SLUICE_RUNDIR.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>

#include "grpcpp/grpcpp.h"
#include "ipc/proto/finder.grpc.pb.h"
#include "ipc/xrl_router.h"
#include "tests/ipc/proto/test_echo.grpc.pb.h"
#include "tests/system/child_process.h"

namespace sluice {
namespace {

using testing::BuildPath;
using testing::ChildProcess;
using testing::CommandResult;
using ::testing::HasSubstr;
using testing::RunCommand;

class IpcSystemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/sluice-system-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    rundir_ = dir;
    setenv("SLUICE_RUNDIR", rundir_.c_str(), 1);
  }
  void TearDown() override {
    watcher_.reset();
    components_.clear();
    finder_.reset();
    std::filesystem::remove_all(rundir_);
  }

  std::vector<std::string> Env() const { return {"SLUICE_RUNDIR=" + rundir_}; }

  void StartFinder(std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {BuildPath("finder/sluice-finder"), "--grace-ms", "200"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    finder_ = ChildProcess::Start(argv, Env());
    ASSERT_NE(finder_, nullptr);
    // Ready when its socket accepts: a CLI call to the Finder succeeds.
    for (int i = 0; i < 200; ++i) {
      if (RunCommand({BuildPath("rtrmgr/cli/sluice"), "targets"}, Env()).exit_code == 0) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    FAIL() << "the Finder did not start";
  }

  ChildProcess* StartComponent(const std::string& instance) {
    components_.push_back(ChildProcess::Start(
        {BuildPath("tests/ipc/sluice-test-component"), "--instance", instance}, Env()));
    EXPECT_TRUE(components_.back()->WaitForOutput("ready " + instance, 10000))
        << components_.back()->Output();
    return components_.back().get();
  }

  CommandResult Sluice(std::vector<std::string> args) {
    args.insert(args.begin(), BuildPath("rtrmgr/cli/sluice"));
    return RunCommand(args, Env());
  }

  // A watcher in this test process: an XrlRouter of class "watcher" watching test_echo.
  void StartWatcher() {
    ipc::RouterOptions options;
    options.serve = false;
    watcher_ = std::make_unique<ipc::XrlRouter>(io_, "watcher", "watcher", options);
    watcher_->WatchClass("test_echo", [this](const ipc::TargetEvent& e) {
      events_.push_back({e.kind, e.instance_name, std::chrono::steady_clock::now()});
    });
    ASSERT_TRUE(watcher_->Start().ok());
    ASSERT_TRUE(RunUntil([&] { return watcher_->registered(); }, 5000));
  }

  template <typename P>
  bool RunUntil(P done, int ms) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      io_.run_one_for(std::chrono::milliseconds(5));
    }
    return done();
  }

  struct Event {
    ipc::TargetEvent::Kind kind;
    std::string instance;
    std::chrono::steady_clock::time_point when;
  };

  std::string rundir_;
  std::unique_ptr<ChildProcess> finder_;
  std::vector<std::unique_ptr<ChildProcess>> components_;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_ =
      boost::asio::make_work_guard(io_);
  std::unique_ptr<ipc::XrlRouter> watcher_;
  std::vector<Event> events_;
};

constexpr char kAdd[] = "finder://echo/test_echo/1.0/add?a:i64=2&b:i64=40";

TEST_F(IpcSystemTest, CallKillRestart) {
  StartFinder();
  StartWatcher();
  ChildProcess* component = StartComponent("echo");
  ASSERT_TRUE(RunUntil([&] { return events_.size() == 1; }, 5000));
  EXPECT_EQ(events_[0].kind, ipc::TargetEvent::kBirth);
  EXPECT_EQ(events_[0].instance, "echo");

  CommandResult call = Sluice({"call", kAdd});
  EXPECT_EQ(call.exit_code, 0) << call.err;
  EXPECT_EQ(call.out, "sum:i64=42\n");

  // kill -9: the Finder sees the stream close; the watcher hears of the death within 1 s.
  auto killed = std::chrono::steady_clock::now();
  component->Signal(SIGKILL);
  ASSERT_TRUE(RunUntil([&] { return events_.size() == 2; }, 5000));
  EXPECT_EQ(events_[1].kind, ipc::TargetEvent::kDeath);
  EXPECT_EQ(events_[1].instance, "echo");
  auto latency = std::chrono::duration_cast<std::chrono::milliseconds>(events_[1].when - killed);
  std::cout << "death reported " << latency.count() << " ms after kill -9\n";
  EXPECT_LT(latency.count(), 1000);

  call = Sluice({"call", kAdd});
  EXPECT_EQ(call.exit_code, 1);
  EXPECT_THAT(call.err, HasSubstr("NOT_FOUND: no such target: echo"));

  // Restart: a birth, and calls work again.
  StartComponent("echo");
  ASSERT_TRUE(RunUntil([&] { return events_.size() == 3; }, 5000));
  EXPECT_EQ(events_[2].kind, ipc::TargetEvent::kBirth);
  call = Sluice({"call", kAdd});
  EXPECT_EQ(call.exit_code, 0) << call.err;
  EXPECT_EQ(call.out, "sum:i64=42\n");
}

TEST_F(IpcSystemTest, CallerCacheIsInvalidatedWhenTheTargetRestarts) {
  StartFinder();
  StartWatcher();
  ChildProcess* component = StartComponent("echo");
  // The watcher's router calls, caching the resolution.
  auto add = [&]() -> absl::StatusOr<std::string> {
    std::optional<absl::Status> status;
    std::string served_by;
    test_echo::v1::EchoRequest request;
    watcher_->Call<test_echo::v1::EchoReply>("echo", "test_echo/1.0/echo", request,
                                             [&](absl::StatusOr<test_echo::v1::EchoReply> reply) {
                                               status = reply.status();
                                               if (reply.ok()) served_by = reply->served_by();
                                             });
    if (!RunUntil([&] { return status.has_value(); }, 5000)) return absl::DeadlineExceededError("");
    if (!status->ok()) return *status;
    return served_by;
  };
  ASSERT_EQ(*add(), "echo");
  component->Signal(SIGKILL);
  ASSERT_TRUE(RunUntil([&] { return events_.size() == 2; }, 5000));
  StartComponent("echo");
  ASSERT_TRUE(RunUntil([&] { return events_.size() == 3; }, 5000));
  EXPECT_EQ(*add(), "echo");
}

// A target that stalls (stopped, starved of CPU, swapped out) while a caller first connects to
// it answers once it runs again: the call waits instead of failing on a connection that took
// longer than a scheduler tick to set up.
TEST_F(IpcSystemTest, ACallWaitsForAStalledTarget) {
  StartFinder();
  StartWatcher();
  ChildProcess* component = StartComponent("echo");
  component->Signal(SIGSTOP);
  std::optional<absl::StatusOr<test_echo::v1::EchoReply>> reply;
  watcher_->Call<test_echo::v1::EchoReply>(
      "echo", "test_echo/1.0/echo", test_echo::v1::EchoRequest(),
      [&](absl::StatusOr<test_echo::v1::EchoReply> r) { reply = std::move(r); });
  RunUntil([&] { return reply.has_value(); }, 1500);
  component->Signal(SIGCONT);
  ASSERT_TRUE(RunUntil([&] { return reply.has_value(); }, 10000));
  ASSERT_TRUE(reply->ok()) << reply->status();
  EXPECT_EQ((*reply)->served_by(), "echo");
}

TEST_F(IpcSystemTest, TargetsAndEveryAtomTypeFromTheShell) {
  StartFinder();
  StartComponent("echo");
  CommandResult targets = Sluice({"targets"});
  ASSERT_EQ(targets.exit_code, 0) << targets.err;
  EXPECT_THAT(targets.out, HasSubstr("echo (class test_echo)  unix:" + rundir_ + "/echo."));
  EXPECT_THAT(targets.out, HasSubstr("\n  test_echo/1.0/add_routes\n"));
  EXPECT_THAT(targets.out, HasSubstr("\n  common/1.0/get_status\n"));

  const std::string atoms =
      "atoms:msg=(i32:i32=-5&u32:u32=7&i64:i64=-9000000000&u64:u64=18000000000000000000"
      "&flag:bool=true&text:txt=a%20b%26c&data:binary=00ff&ipv4:ipv4=192.0.2.1"
      "&ipv6:ipv6=2001:db8::1&ipv4net:ipv4net=10.0.0.0/8&ipv6net:ipv6net=2001:db8::/32"
      "&mac:mac=00:11:22:aa:bb:cc&numbers:list<u32>=1,2,3&words:list<txt>=x,%2C,\"\")";
  CommandResult echo =
      Sluice({"call", "finder://echo/test_echo/1.0/echo?" + atoms + "&note:txt=hi"});
  ASSERT_EQ(echo.exit_code, 0) << echo.err;
  EXPECT_EQ(echo.out, atoms + "&note:txt=hi&served_by:txt=echo\n");

  // A batch of nested messages, as route batches will be.
  CommandResult routes =
      Sluice({"call",
              "finder://echo/test_echo/1.0/add_routes?protocol:txt=static&routes:list<msg>="
              "(network:ipv4net=10.0.0.0/"
              "8&nexthop:ipv4=192.0.2.1&metric:u32=5&as_path:list<u32>=65001,65002),"
              "(network:ipv6net=2001:db8::/32&nexthop:ipv6=fe80::1)"});
  ASSERT_EQ(routes.exit_code, 0) << routes.err;
  EXPECT_EQ(routes.out, "count:u32=2&networks:list<ipvxnet>=10.0.0.0/8,2001:db8::/32\n");
}

TEST_F(IpcSystemTest, CallFileAndErrors) {
  StartFinder();
  StartComponent("echo");
  std::string file = rundir_ + "/calls.txt";
  std::ofstream(file) << "# a comment\n"
                      << "finder://echo/test_echo/1.0/add?a:i64=1&b:i64=2\n\n"
                      << "finder://echo/common/1.0/get_target_name\n"
                      << "finder://echo/test_echo/1.0/add?a:i64=1&b:ipv4=1.2.3.4\n"
                      << "finder://echo/test_echo/1.0/add?a:i64=5&b:i64=5\n";
  CommandResult result = Sluice({"call", "-f", file});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.out, "sum:i64=3\nname:txt=echo\n");
  EXPECT_THAT(result.err, HasSubstr(file + ":5: "));
  EXPECT_THAT(result.err, HasSubstr("argument 2 \"b\" (column 41): field b of "
                                    "sluice.test_echo.v1.AddRequest is i64, not ipv4"));

  result = Sluice({"call", "finder://echo/test_echo/1.0/add?a:i64=1&b:i64=x"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("bad XRL: column 47: argument 2 \"b\": bad i64 value \"x\""));
  result = Sluice({"call", "finder://echo/test_echo/1.0/nothing"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err,
              HasSubstr("interface test_echo/1.0 has no method nothing (methods: echo, add,"));
  result = Sluice({"call", "finder://echo/nope/1.0/x"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("target echo does not implement nope/1.0"));
  result = Sluice({"call", "finder://echo/test_echo/1.0/fail?code:i32=9&message:txt=not%20yet"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("FAILED_PRECONDITION: not yet"));
  result = Sluice({"call"});
  EXPECT_EQ(result.exit_code, 2);
  result = Sluice({"frobnicate"});
  EXPECT_EQ(result.exit_code, 2);
}

// An XRL nested far deeper than the parser allows (as a runaway generator would write) is a
// parse error on its line: the calls before it are made, the ones after it are not.
TEST_F(IpcSystemTest, DeeplyNestedXrlIsRefused) {
  StartFinder();
  StartComponent("echo");
  std::string deep = "finder://echo/test_echo/1.0/add?";
  for (int i = 0; i < 100000; ++i) deep += "a:msg=(";
  const std::string file = rundir_ + "/deep.txt";
  std::ofstream(file) << "finder://echo/test_echo/1.0/add?a:i64=1&b:i64=2\n"
                      << deep << "\n"
                      << "finder://echo/test_echo/1.0/add?a:i64=5&b:i64=5\n";
  CommandResult result = Sluice({"call", "-f", file});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.out, "sum:i64=3\n");
  EXPECT_THAT(result.err, HasSubstr(file + ":2: bad XRL: column 487: argument a.a.a."));
  EXPECT_THAT(result.err, HasSubstr("nesting too deep (more than 64 nested msg values)"));
  // The line is echoed only in part.
  EXPECT_THAT(result.err, HasSubstr("... (" + std::to_string(deep.size()) + " characters)"));
  EXPECT_LT(result.err.size(), 1000u);
}

TEST_F(IpcSystemTest, NoFinderIsAClearError) {
  CommandResult result = Sluice({"--timeout", "500", "call", kAdd});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("cannot reach the Finder at unix:" + rundir_ + "/finder.sock"));
  result = Sluice({"targets"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("cannot reach the Finder"));
}

// Method keys: a plain gRPC client that skips the Finder is refused.
TEST_F(IpcSystemTest, CallsWithoutTheRightKeyAreRefused) {
  StartFinder();
  StartComponent("echo");
  auto finder = finder::v1::Finder::NewStub(
      grpc::CreateChannel("unix:" + rundir_ + "/finder.sock", grpc::InsecureChannelCredentials()));
  grpc::ClientContext list_context;
  finder::v1::ListTargetsReply targets;
  ASSERT_TRUE(finder->ListTargets(&list_context, {}, &targets).ok());
  std::string endpoint;
  for (const auto& target : targets.targets()) {
    for (const auto& e : target.endpoints()) {
      if (target.instance_name() == "echo" && e.rfind("unix:", 0) == 0) endpoint = e;
    }
  }
  ASSERT_FALSE(endpoint.empty());
  auto echo = test_echo::v1::TestEcho::NewStub(
      grpc::CreateChannel(endpoint, grpc::InsecureChannelCredentials()));
  test_echo::v1::AddRequest request;
  test_echo::v1::AddReply reply;
  {
    grpc::ClientContext context;
    grpc::Status status = echo->Add(&context, request, &reply);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
    EXPECT_THAT(status.error_message(), HasSubstr("has no method key"));
  }
  {
    grpc::ClientContext context;
    context.AddMetadata("sluice-key", "00112233445566778899aabbccddeeff");
    grpc::Status status = echo->Add(&context, request, &reply);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
    EXPECT_THAT(status.error_message(), HasSubstr("does not say who calls"));
  }
  {
    grpc::ClientContext context;
    context.AddMetadata("sluice-key", "00112233445566778899aabbccddeeff");
    context.AddMetadata("sluice-caller", "rtrmgr/rtrmgr");
    grpc::Status status = echo->Add(&context, request, &reply);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
    EXPECT_THAT(status.error_message(), HasSubstr("wrong method key"));
  }
  {
    grpc::ClientContext context;
    context.AddMetadata("sluice-key", "not hex");
    EXPECT_EQ(echo->Add(&context, request, &reply).error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
  }
  // Through the Finder it works.
  CommandResult call = Sluice({"call", kAdd});
  EXPECT_EQ(call.exit_code, 0) << call.err;
}

TEST_F(IpcSystemTest, AccessListDeniesResolution) {
  std::string acl = rundir_ + "/acl";
  std::ofstream(acl) << "deny sluice echo test_echo/1.0   # the CLI may not call test_echo\n"
                     << "allow * * *\n";
  StartFinder({"--acl", acl});
  StartComponent("echo");
  CommandResult denied = Sluice({"call", kAdd});
  EXPECT_EQ(denied.exit_code, 1);
  EXPECT_THAT(denied.err,
              HasSubstr("PERMISSION_DENIED: the Finder's access list does not allow sluice-"));
  CommandResult allowed = Sluice({"call", "finder://echo/common/1.0/get_target_name"});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_EQ(allowed.out, "name:txt=echo\n");
}

TEST_F(IpcSystemTest, ComponentsSurviveAFinderRestart) {
  StartFinder();
  ChildProcess* component = StartComponent("echo");
  ASSERT_EQ(Sluice({"call", kAdd}).exit_code, 0);
  finder_->Signal(SIGKILL);
  ASSERT_TRUE(finder_->Wait(5000).has_value());
  EXPECT_TRUE(component->Wait(300) == std::nullopt) << "the component must keep running";
  StartFinder();
  // The component re-registers by itself.
  bool registered = false;
  for (int i = 0; i < 100 && !registered; ++i) {
    registered = Sluice({"call", kAdd}).out == "sum:i64=42\n";
    if (!registered) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(registered);
}

TEST_F(IpcSystemTest, ShutdownThroughCommon) {
  StartFinder();
  ChildProcess* component = StartComponent("echo");
  CommandResult result = Sluice({"call", "finder://echo/common/1.0/get_status"});
  EXPECT_EQ(result.out, "status:txt=READY&reason:txt=\n");
  result = Sluice({"call", "finder://echo/common/1.0/shutdown"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(component->Wait(5000), 0);
}

}  // namespace
}  // namespace sluice
