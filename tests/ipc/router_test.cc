// XrlRouter with a real Finder and real gRPC over Unix sockets and TCP, all in one process.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <filesystem>
#include <future>
#include <optional>
#include <thread>

#include "finder/registry.h"
#include "ipc/rundir.h"
#include "ipc/transport.h"
#include "ipc/types_convert.h"
#include "ipc/xrl_router.h"
#include "tests/ipc/finder_thread.h"
#include "tests/ipc/test_echo_service.h"

namespace sluice::ipc {
namespace {

using test_echo::kAdd;
using test_echo::kDelay;
using test_echo::kEcho;
using test_echo::kFail;
using test_echo::kRecord;
using test_echo::TestEchoService;
using ::testing::HasSubstr;
namespace tv1 = test_echo::v1;

class RouterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/sluice-router-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    rundir_ = dir;
    setenv("SLUICE_RUNDIR", rundir_.c_str(), 1);
    StartFinder();
  }
  void TearDown() override {
    finder_.reset();
    std::filesystem::remove_all(rundir_);
  }

  void StartFinder(finder::AccessList access_list = {}, int grace_ms = 0) {
    finder::FinderOptions options;
    options.listen = {finder_address()};
    options.access_list = std::move(access_list);
    options.recovery_grace = std::chrono::milliseconds(grace_ms);
    finder_ = std::make_unique<testing::FinderThread>(std::move(options));
    ASSERT_TRUE(finder_->status().ok()) << finder_->status();
  }

  // The Finder on TCP only, instead of the Unix socket (plain TCP: an InsecureTcp first).
  void StartTcpFinder() {
    finder_.reset();
    finder::FinderOptions options;
    options.listen = {"tcp:127.0.0.1:0"};
    options.recovery_grace = {};
    finder_ = std::make_unique<testing::FinderThread>(std::move(options));
    ASSERT_TRUE(finder_->status().ok()) << finder_->status();
  }

  std::string finder_address() const { return "unix:" + rundir_ + "/finder.sock"; }

  RouterOptions Options(bool allow_inproc = false) {
    RouterOptions options;
    options.finder_address = finder_address();
    options.allow_inproc = allow_inproc;
    options.finder_wait_ms = 2000;
    return options;
  }

  // Runs the loop until `done()` or `ms` pass; returns done().
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

  // A started router serving test_echo/1.0, registered.
  std::unique_ptr<XrlRouter> MakeServer(const std::string& instance,
                                        std::optional<RouterOptions> options = std::nullopt) {
    auto router =
        std::make_unique<XrlRouter>(io_, "test_echo", instance, options ? *options : Options());
    services_.push_back(std::make_unique<TestEchoService>(io_, *router));
    EXPECT_TRUE(services_.back()->Register().ok());
    EXPECT_TRUE(router->Start().ok());
    EXPECT_TRUE(RunUntil([&] { return router->registered(); })) << instance;
    return router;
  }
  std::unique_ptr<XrlRouter> MakeClient(const std::string& class_name,
                                        std::optional<RouterOptions> options = std::nullopt) {
    auto router = std::make_unique<XrlRouter>(io_, class_name, "", options ? *options : Options());
    EXPECT_TRUE(router->Start().ok());
    EXPECT_TRUE(RunUntil([&] { return router->registered(); })) << class_name;
    return router;
  }

  // Makes one call and runs the loop until it is answered.
  template <typename Request, typename Reply>
  absl::StatusOr<Reply> CallSync(XrlRouter& router, const std::string& target,
                                 const Method<Request, Reply>& method, Request request) {
    std::optional<absl::StatusOr<Reply>> result;
    router.Call(target, method, std::move(request),
                [&](absl::StatusOr<Reply> reply) { result = std::move(reply); });
    EXPECT_TRUE(RunUntil([&] { return result.has_value(); }));
    if (!result) return absl::DeadlineExceededError("no answer");
    return *result;
  }

  absl::StatusOr<int64_t> Add(XrlRouter& router, const std::string& target, int64_t a, int64_t b) {
    tv1::AddRequest request;
    request.set_a(a);
    request.set_b(b);
    auto reply = CallSync(router, target, kAdd, request);
    if (!reply.ok()) return reply.status();
    return reply->sum();
  }

  std::string rundir_;
  std::unique_ptr<testing::FinderThread> finder_;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_ =
      boost::asio::make_work_guard(io_);
  std::vector<std::unique_ptr<TestEchoService>> services_;
};

TEST_F(RouterTest, CallsOverAUnixSocket) {
  auto server = MakeServer("echo");
  EXPECT_THAT(server->endpoints()[0], HasSubstr(rundir_ + "/echo."));
  auto client = MakeClient("caller");
  EXPECT_EQ(*Add(*client, "echo", 2, 40), 42);
  EXPECT_EQ(*Add(*client, "test_echo", -1, 1), 0);  // by class name

  tv1::EchoRequest echo;
  echo.set_note("hello & goodbye");
  echo.mutable_atoms()->set_u32(7);
  ToProto(*net::Prefix::Parse("10.0.0.0/8"), echo.mutable_atoms()->mutable_ipv4net());
  auto reply = CallSync(*client, "echo", kEcho, echo);
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->note(), "hello & goodbye");
  EXPECT_EQ(reply->atoms().u32(), 7u);
  EXPECT_EQ(FromProto(reply->atoms().ipv4net())->ToString(), "10.0.0.0/8");
  EXPECT_EQ(reply->served_by(), "echo");
}

// Plain TCP: only where the configuration says `insecure;` (TLS is tests/system's).
class InsecureTcp {
 public:
  InsecureTcp() { SetTransportSecurity(TransportSecurity{.tls = {}, .insecure = true}); }
  ~InsecureTcp() { SetTransportSecurity(TransportSecurity()); }
};

TEST_F(RouterTest, TcpWithoutTlsIsRefusedUnlessInsecure) {
  SetTransportSecurity(TransportSecurity());
  RouterOptions server_options = Options();
  server_options.listen = {"tcp:127.0.0.1:0"};
  XrlRouter server(io_, "test_echo", "echo", server_options);
  absl::Status started = server.Start();
  EXPECT_EQ(started.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(started.message()), HasSubstr("TCP needs mutual TLS"));
}

TEST_F(RouterTest, CallsOverTcp) {
  InsecureTcp insecure;
  RouterOptions server_options = Options();
  server_options.listen = {"unix:" + rundir_ + "/echo.sock", "tcp:127.0.0.1:0"};
  auto server = MakeServer("echo", server_options);
  ASSERT_EQ(server->endpoints().size(), 2u);
  EXPECT_THAT(server->endpoints()[1], HasSubstr("tcp:127.0.0.1:"));
  EXPECT_THAT(server->endpoints()[1], Not(HasSubstr(":0")));
  RouterOptions client_options = Options();
  client_options.prefer_tcp = true;
  auto client = MakeClient("caller", client_options);
  EXPECT_EQ(*Add(*client, "echo", 1, 2), 3);
}

TEST_F(RouterTest, FinderOverTcp) {
  InsecureTcp insecure;
  ASSERT_NO_FATAL_FAILURE(StartTcpFinder());
  ASSERT_THAT(finder_->endpoints()[0], HasSubstr("tcp:127.0.0.1:"));
  RouterOptions options = Options();
  options.finder_address = finder_->endpoints()[0];
  auto server = MakeServer("echo", options);
  auto client = MakeClient("caller", options);
  EXPECT_EQ(*Add(*client, "echo", 5, 5), 10);
}

// A router that reaches the Finder over TCP may be on another host, where a Unix socket path
// names nothing: it calls a component that serves both (`unix:default` beside TCP) over TCP.
TEST_F(RouterTest, AClientOfATcpFinderCallsOverTcpWhereUnixIsAlsoServed) {
  InsecureTcp insecure;
  ASSERT_NO_FATAL_FAILURE(StartTcpFinder());
  RouterOptions options = Options();
  options.finder_address = finder_->endpoints()[0];
  RouterOptions server_options = options;
  server_options.listen = {std::string(kDefaultUnixEndpoint), "tcp:127.0.0.1:0"};
  auto server = MakeServer("echo", server_options);
  ASSERT_EQ(server->endpoints().size(), 2u);
  EXPECT_THAT(server->endpoints()[0], HasSubstr("unix:" + rundir_ + "/echo."));
  EXPECT_THAT(server->endpoints()[1], HasSubstr("tcp:127.0.0.1:"));
  // The socket file gone, only TCP answers.
  ASSERT_EQ(unlink(server->endpoints()[0].substr(5).c_str()), 0);
  auto client = MakeClient("caller", options);
  absl::StatusOr<int64_t> sum = Add(*client, "echo", 5, 6);
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(*sum, 11);
}

TEST_F(RouterTest, CallsInProcessWithoutGrpc) {
  RouterOptions server_options = Options(/*allow_inproc=*/true);
  server_options.serve = false;  // no gRPC server at all: only the in-process path can answer
  auto server = MakeServer("echo", server_options);
  auto client = MakeClient("caller", Options(/*allow_inproc=*/true));
  EXPECT_EQ(*Add(*client, "echo", 20, 22), 42);
  // A router can call itself.
  EXPECT_EQ(*Add(*server, "echo", 1, 1), 2);
}

// A handler that answers at once, in a router of this process running on another loop: the
// answer travels back to the caller's loop (under ASan this once read a freed call).
TEST_F(RouterTest, CallsInProcessToARouterOnAnotherLoop) {
  boost::asio::io_context server_io;
  auto server_guard = boost::asio::make_work_guard(server_io);
  std::unique_ptr<XrlRouter> server;
  std::unique_ptr<TestEchoService> service;
  std::promise<void> started;
  std::thread server_thread([&] {
    RouterOptions options = Options(/*allow_inproc=*/true);
    options.serve = false;  // only the in-process path can answer
    server = std::make_unique<XrlRouter>(server_io, "test_echo", "echo-far", options);
    service = std::make_unique<TestEchoService>(server_io, *server);
    EXPECT_TRUE(service->Register().ok());
    EXPECT_TRUE(server->Start().ok());
    started.set_value();
    server_io.run();
    service.reset();
    server.reset();
  });
  started.get_future().wait();
  auto client = MakeClient("caller", Options(/*allow_inproc=*/true));
  ASSERT_TRUE(RunUntil([&] { return Add(*client, "echo-far", 0, 0).ok(); }));
  for (int i = 0; i < 200; ++i) EXPECT_EQ(*Add(*client, "echo-far", i, 1), i + 1);
  client.reset();
  boost::asio::post(server_io, [&] { server_io.stop(); });
  server_thread.join();
}

TEST_F(RouterTest, TextMethodNamesAndDynamicMessages) {
  auto server = MakeServer("echo");
  auto client = MakeClient("caller");
  tv1::AddRequest request;
  request.set_a(5);
  request.set_b(6);
  std::optional<absl::StatusOr<tv1::AddReply>> result;
  client->Call<tv1::AddReply>("echo", "sluice.test_echo.v1.TestEcho.Add", request,
                              [&](absl::StatusOr<tv1::AddReply> r) { result = std::move(r); });
  ASSERT_TRUE(RunUntil([&] { return result.has_value(); }));
  EXPECT_EQ((*result)->sum(), 11);

  // Wrong types for the method are refused before anything is sent.
  result.reset();
  client->Call<tv1::AddReply>("echo", "test_echo/1.0/echo", request,
                              [&](absl::StatusOr<tv1::AddReply> r) { result = std::move(r); });
  ASSERT_TRUE(RunUntil([&] { return result.has_value(); }));
  EXPECT_EQ(result->status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(result->status().message()),
              HasSubstr("request is sluice.test_echo.v1.EchoRequest"));

  std::optional<absl::Status> dynamic_status;
  std::unique_ptr<google::protobuf::Message> dynamic_reply;
  client->CallDynamic("echo", "test_echo/1.0/add", std::make_unique<tv1::AddRequest>(request),
                      std::make_unique<tv1::AddReply>(),
                      [&](absl::Status s, std::unique_ptr<google::protobuf::Message> reply) {
                        dynamic_status = s;
                        dynamic_reply = std::move(reply);
                      });
  ASSERT_TRUE(RunUntil([&] { return dynamic_status.has_value(); }));
  ASSERT_TRUE(dynamic_status->ok()) << *dynamic_status;
  EXPECT_EQ(static_cast<tv1::AddReply&>(*dynamic_reply).sum(), 11);
}

TEST_F(RouterTest, UnaryTransportWorks) {
  auto server = MakeServer("echo");
  RouterOptions options = Options();
  options.unary_calls = true;
  auto client = MakeClient("caller", options);
  EXPECT_EQ(*Add(*client, "echo", 3, 4), 7);
  auto failed = CallSync(*client, "echo", kFail, [] {
    tv1::FailRequest r;
    r.set_code(static_cast<int>(absl::StatusCode::kOutOfRange));
    r.set_message("too far");
    return r;
  }());
  EXPECT_EQ(failed.status(), absl::OutOfRangeError("too far"));
}

// A caller that wants to try again (the router manager's configuration pushes) can tell a call
// that got no answer from a target that answered UNAVAILABLE itself.
TEST_F(RouterTest, OnlyACallWithoutAnAnswerIsUnreached) {
  auto server = MakeServer("echo");
  RouterOptions hidden = Options();
  const std::string socket = rundir_ + "/hidden.sock";
  hidden.listen = {"unix:" + socket};
  auto unreachable = MakeServer("hidden", hidden);
  std::filesystem::rename(socket, socket + ".away");
  auto client = MakeClient("caller");
  auto answered = CallSync(*client, "echo", kFail, [] {
    tv1::FailRequest r;
    r.set_code(static_cast<int>(absl::StatusCode::kUnavailable));
    r.set_message("busy");
    return r;
  }());
  EXPECT_EQ(answered.status(), absl::UnavailableError("busy"));
  EXPECT_FALSE(IsUnreached(answered.status()));
  auto unanswered = CallSync(*client, "hidden", kEcho, tv1::EchoRequest());
  EXPECT_EQ(unanswered.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(IsUnreached(unanswered.status())) << unanswered.status();
  std::filesystem::rename(socket + ".away", socket);
  EXPECT_TRUE(CallSync(*client, "hidden", kEcho, tv1::EchoRequest()).ok());
}

TEST_F(RouterTest, UnaryTransportUnderLoad) {
  auto server = MakeServer("echo");
  RouterOptions options = Options();
  options.unary_calls = true;
  auto client = MakeClient("caller", options);
  constexpr int kCalls = 20000;
  int sent = 0, answered = 0, failed = 0;
  std::function<void()> send = [&] {
    tv1::AddRequest request;
    request.set_a(sent++);
    client->Call("echo", kAdd, request, [&](absl::StatusOr<tv1::AddReply> reply) {
      ++answered;
      failed += !reply.ok();
      if (sent < kCalls) send();
    });
  };
  for (int i = 0; i < 100; ++i) send();
  EXPECT_TRUE(RunUntil([&] { return answered == kCalls; }, 60000)) << answered;
  EXPECT_EQ(failed, 0);
}

TEST_F(RouterTest, ErrorsAreClear) {
  auto server = MakeServer("echo");
  auto client = MakeClient("caller");
  auto missing = Add(*client, "nobody", 1, 1);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("no such target: nobody"));

  // The caller serves only common/1.0.
  auto unimplemented = Add(*server, client->instance_name(), 1, 1);
  EXPECT_EQ(unimplemented.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(unimplemented.status().message()),
              HasSubstr("does not implement test_echo/1.0"));

  tv1::FailRequest fail;
  fail.set_code(static_cast<int>(absl::StatusCode::kFailedPrecondition));
  fail.set_message("not now");
  EXPECT_EQ(CallSync(*client, "echo", kFail, fail).status(),
            absl::FailedPreconditionError("not now"));

  // common/1.0 is served by every router.
  Method<common::v1::GetTargetNameRequest, common::v1::GetTargetNameReply> get_name(
      "common/1.0/get_target_name");
  auto name = CallSync(*client, "echo", get_name, {});
  ASSERT_TRUE(name.ok()) << name.status();
  EXPECT_EQ(name->name(), "echo");
  Method<common::v1::GetStatusRequest, common::v1::GetStatusReply> get_status(
      "common/1.0/get_status");
  EXPECT_EQ(CallSync(*client, "echo", get_status, {})->status(), common::v1::READY);
}

TEST_F(RouterTest, HandlerRegistrationIsChecked) {
  XrlRouter router(io_, "x", "x", Options());
  Method<tv1::AddRequest, tv1::AddReply> wrong("test_echo/1.0/echo");
  auto status = router.Handle(wrong, [](const tv1::AddRequest&) -> absl::StatusOr<tv1::AddReply> {
    return tv1::AddReply();
  });
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("takes sluice.test_echo.v1.EchoRequest"));
  auto add = [](const tv1::AddRequest&) -> absl::StatusOr<tv1::AddReply> {
    return tv1::AddReply();
  };
  EXPECT_TRUE(router.Handle(kAdd, add).ok());
  EXPECT_EQ(router.Handle(kAdd, add).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_FALSE(
      router.Handle(Method<tv1::AddRequest, tv1::AddReply>("test_echo/1.0/nope"), add).ok());
  ASSERT_TRUE(router.Start().ok());
  EXPECT_EQ(router
                .Handle(kFail,
                        [](const tv1::FailRequest&) -> absl::StatusOr<tv1::FailReply> {
                          return tv1::FailReply();
                        })
                .code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(RouterTest, AsynchronousHandlersAnswerLater) {
  auto server = MakeServer("echo");
  auto client = MakeClient("caller");
  std::vector<std::string> order;
  for (auto [tag, ms] : {std::pair{"slow", 200}, {"fast", 10}}) {
    tv1::DelayRequest request;
    request.set_tag(tag);
    request.set_delay_ms(ms);
    client->Call("echo", kDelay, request, [&](absl::StatusOr<tv1::DelayReply> reply) {
      ASSERT_TRUE(reply.ok()) << reply.status();
      order.push_back(reply->tag());
    });
  }
  ASSERT_TRUE(RunUntil([&] { return order.size() == 2; }));
  EXPECT_EQ(order, (std::vector<std::string>{"fast", "slow"}));
}

// Calls from one router to one target reach the handler in the order they were made, with many
// in flight, replies coming back out of order, and the first calls waiting for a resolution.
TEST_F(RouterTest, OrderedUnderLoadOverGrpc) {
  auto server = MakeServer("echo");
  auto client = MakeClient("caller");
  constexpr int kCalls = 20000;
  int answered = 0, in_order = 0;
  for (int i = 1; i <= kCalls; ++i) {
    tv1::RecordRequest request;
    request.set_stream(1);
    request.set_seq(i);
    request.set_delay_ms(i % 97 == 0 ? 5 : 0);  // some answers come back late
    client->Call("echo", kRecord, request, [&](absl::StatusOr<tv1::RecordReply> reply) {
      ASSERT_TRUE(reply.ok()) << reply.status();
      ++answered;
      in_order += reply->in_order();
    });
    if (i % 5000 == 0) RunFor(1);  // interleave sending with the loop running
  }
  ASSERT_TRUE(RunUntil([&] { return answered == kCalls; }, 60000)) << answered;
  EXPECT_EQ(in_order, kCalls);
  EXPECT_EQ(services_[0]->out_of_order(), 0u);
  EXPECT_EQ(services_[0]->records(), static_cast<uint64_t>(kCalls));
}

TEST_F(RouterTest, OrderedUnderLoadInProcessAcrossInterfaces) {
  auto server = MakeServer("echo", Options(true));
  auto client = MakeClient("caller", Options(true));
  constexpr int kCalls = 20000;
  int answered = 0, in_order = 0;
  for (int i = 1; i <= kCalls; ++i) {
    if (i % 1000 == 0) {
      // A call on another interface of the same target in the middle of the stream.
      Method<common::v1::GetVersionRequest, common::v1::GetVersionReply> get_version(
          "common/1.0/get_version");
      client->Call("echo", get_version, {}, [](auto) {});
    }
    tv1::RecordRequest request;
    request.set_stream(2);
    request.set_seq(i);
    request.set_delay_ms(i % 89 == 0 ? 3 : 0);
    client->Call("echo", kRecord, request, [&](absl::StatusOr<tv1::RecordReply> reply) {
      ASSERT_TRUE(reply.ok()) << reply.status();
      ++answered;
      in_order += reply->in_order();
    });
  }
  ASSERT_TRUE(RunUntil([&] { return answered == kCalls; }, 60000)) << answered;
  EXPECT_EQ(in_order, kCalls);
}

TEST_F(RouterTest, WatchersSeeBirthAndDeath) {
  auto watcher = MakeClient("watcher");
  std::vector<std::string> events;
  watcher->WatchClass("test_echo", [&](const TargetEvent& e) {
    events.push_back((e.kind == TargetEvent::kBirth ? "birth " : "death ") + e.instance_name);
  });
  auto first = MakeServer("echo-1");
  ASSERT_TRUE(RunUntil([&] { return events.size() == 1; }));
  auto second = MakeServer("echo-2");
  ASSERT_TRUE(RunUntil([&] { return events.size() == 2; }));
  first.reset();
  ASSERT_TRUE(RunUntil([&] { return events.size() == 3; }));
  EXPECT_EQ(events, (std::vector<std::string>{"birth echo-1", "birth echo-2", "death echo-1"}));

  // A watch made later first reports who is alive.
  std::vector<std::string> late;
  watcher->WatchInstance("echo-2", [&](const TargetEvent& e) { late.push_back(e.instance_name); });
  ASSERT_TRUE(RunUntil([&] { return late.size() == 1; }));
  EXPECT_EQ(late[0], "echo-2");

  // An instance already gone (or never there) is reported absent, so that a watcher that
  // counts on it being alive learns otherwise.
  std::vector<TargetEvent::Kind> gone;
  watcher->WatchInstance("echo-1", [&](const TargetEvent& e) { gone.push_back(e.kind); });
  ASSERT_TRUE(RunUntil([&] { return gone.size() == 1; }));
  EXPECT_EQ(gone[0], TargetEvent::kAbsent);
}

TEST_F(RouterTest, DeadTargetIsNoSuchTargetThenRestartedOneAnswers) {
  auto client = MakeClient("caller");
  auto server = MakeServer("echo");
  ASSERT_EQ(*Add(*client, "echo", 1, 1), 2);
  server.reset();
  services_.clear();
  // The Finder's invalidation reaches the caller; then the target is unknown.
  ASSERT_TRUE(RunUntil([&] {
    auto r = Add(*client, "echo", 1, 1);
    return r.status().code() == absl::StatusCode::kNotFound;
  }));
  server = MakeServer("echo");
  EXPECT_EQ(*Add(*client, "echo", 2, 2), 4);
}

TEST_F(RouterTest, AccessListDeniesResolution) {
  finder::AccessList acl;
  ASSERT_TRUE(acl.AddRule("deny intruder * test_echo/1.0").ok());
  ASSERT_TRUE(acl.AddRule("allow * * *").ok());
  finder_.reset();
  StartFinder(std::move(acl));
  auto server = MakeServer("echo");
  auto friendly = MakeClient("caller");
  auto intruder = MakeClient("intruder");
  EXPECT_EQ(*Add(*friendly, "echo", 1, 2), 3);
  auto denied = Add(*intruder, "echo", 1, 2);
  EXPECT_EQ(denied.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(denied.status().message()), HasSubstr("access list does not allow"));
}

TEST_F(RouterTest, SurvivesAFinderRestart) {
  auto server = MakeServer("echo");
  auto doomed = MakeServer("doomed");
  auto client = MakeClient("caller");
  std::vector<std::string> events;
  client->WatchClass("test_echo", [&](const TargetEvent& e) {
    events.push_back((e.kind == TargetEvent::kBirth ? "birth " : "death ") + e.instance_name);
  });
  ASSERT_TRUE(RunUntil([&] { return events.size() == 2; }));
  ASSERT_EQ(*Add(*client, "echo", 1, 1), 2);

  finder_.reset();  // the Finder goes away
  ASSERT_TRUE(RunUntil([&] { return !client->registered() && !server->registered(); }));
  // The open stream to "echo" keeps working without the Finder.
  EXPECT_EQ(*Add(*client, "echo", 2, 2), 4);
  // What needs a new resolution fails clearly.
  auto unresolved = Add(*client, "nobody", 1, 1);
  EXPECT_EQ(unresolved.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(unresolved.status().message()), HasSubstr("Finder"));
  doomed.reset();  // dies while the Finder is away

  StartFinder({}, /*grace_ms=*/300);
  ASSERT_TRUE(RunUntil([&] { return client->registered() && server->registered(); }));
  EXPECT_EQ(*Add(*client, "echo", 3, 3), 6);
  // After the grace period the watcher hears of the death it missed, and no duplicate births.
  ASSERT_TRUE(RunUntil([&] { return events.size() == 3; }));
  RunFor(100);
  EXPECT_EQ(events, (std::vector<std::string>{"birth echo", "birth doomed", "death doomed"}));
  EXPECT_EQ(server->instance_name(), "echo");
}

TEST_F(RouterTest, CallsWaitForTheFinderThenFailClearly) {
  finder_.reset();
  RouterOptions options = Options();
  options.finder_wait_ms = 300;
  XrlRouter client(io_, "caller", "", options);
  std::optional<absl::Status> ready;
  client.OnReady([&](absl::Status s) { ready = s; });
  ASSERT_TRUE(client.Start().ok());
  auto result = Add(client, "echo", 1, 1);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(result.status().message()),
              HasSubstr("cannot reach the Finder at unix:"));
  ASSERT_TRUE(ready.has_value());
  EXPECT_FALSE(ready->ok());
  // When a Finder appears the router registers by itself.
  StartFinder();
  EXPECT_TRUE(RunUntil([&] { return client.registered(); }));
}

TEST_F(RouterTest, SoleInstanceAndTakenNamesAreRefused) {
  RouterOptions sole = Options();
  sole.sole_instance = true;
  auto first = MakeServer("echo-a", sole);
  XrlRouter second(io_, "test_echo", "echo-b", Options());
  std::optional<absl::Status> ready;
  second.OnReady([&](absl::Status s) { ready = s; });
  ASSERT_TRUE(second.Start().ok());
  ASSERT_TRUE(RunUntil([&] { return ready.has_value(); }));
  EXPECT_EQ(ready->code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(ready->message()), HasSubstr("allows one instance"));

  RouterOptions elsewhere = Options();
  elsewhere.listen = {"unix:" + rundir_ + "/same-name.sock"};
  XrlRouter same_name(io_, "test_echo", "echo-a", elsewhere);
  ready.reset();
  same_name.OnReady([&](absl::Status s) { ready = s; });
  ASSERT_TRUE(same_name.Start().ok());
  ASSERT_TRUE(RunUntil([&] { return ready.has_value(); }));
  EXPECT_EQ(ready->code(), absl::StatusCode::kAlreadyExists);

  // An instance name belongs to the class that registered it first.
  elsewhere.listen = {"unix:" + rundir_ + "/other-class.sock"};
  XrlRouter other_class(io_, "other", "echo-a", elsewhere);
  ready.reset();
  other_class.OnReady([&](absl::Status s) { ready = s; });
  ASSERT_TRUE(other_class.Start().ok());
  ASSERT_TRUE(RunUntil([&] { return ready.has_value(); }));
  EXPECT_EQ(ready->code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(ready->message()), HasSubstr("belongs to class test_echo"));
}

}  // namespace
}  // namespace sluice::ipc
