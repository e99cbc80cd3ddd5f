#include "ipc/router_core.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <boost/asio/steady_timer.hpp>
#include <cerrno>

#include "absl/strings/str_format.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "ipc/channel_client.h"
#include "ipc/finder_session.h"
#include "ipc/grpc_init.h"
#include "ipc/inproc.h"
#include "ipc/methods/common.h"
#include "ipc/random.h"
#include "ipc/rpc_server.h"
#include "ipc/rundir.h"

namespace sluice::ipc::internal {
namespace {

namespace cv1 = common::v1;

// Removes INSTANCE.PID.sock files in `dir` left by dead processes (kill -9 leaves them).
void RemoveStaleSockets(const std::string& dir, const std::string& instance) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  std::string prefix = instance + ".";
  while (dirent* entry = readdir(d)) {
    std::string name = entry->d_name;
    if (name.rfind(prefix, 0) != 0 || name.size() < prefix.size() + 6 ||
        name.substr(name.size() - 5) != ".sock") {
      continue;
    }
    std::string pid_text = name.substr(prefix.size(), name.size() - prefix.size() - 5);
    int pid = 0;
    if (!absl::SimpleAtoi(pid_text, &pid) || pid <= 0) continue;
    if (kill(pid, 0) != 0 && errno == ESRCH) unlink((dir + "/" + name).c_str());
  }
  closedir(d);
}

}  // namespace

RouterCore::RouterCore(boost::asio::io_context& io, std::string class_name,
                       std::string instance_name, RouterOptions options)
    : io_(io),
      class_name_(std::move(class_name)),
      instance_name_(std::move(instance_name)),
      caller_(std::make_shared<const Caller>(Caller{class_name_, instance_name_})),
      options_(std::move(options)),
      finder_address_(options_.finder_address.empty() ? DefaultFinderAddress()
                                                      : options_.finder_address),
      loop_(LoopRef::Create(io)),
      reactors_(std::make_shared<ReactorCount>()),
      incarnation_(RandomOctets(16)),
      shutdown_handler_([&io] { io.stop(); }) {
  HoldGrpcForProcessLifetime();
  AddCommonHandlers();
}

RouterCore::~RouterCore() { Shutdown(); }

namespace {

absl::StatusOr<cv1::SetLogReply> SetLog(const cv1::SetLogRequest& request) {
  base::LogLevel level = base::GetLogLevel();
  if (!request.level().empty() && !base::ParseLogLevel(request.level(), &level)) {
    return absl::InvalidArgumentError("unknown log level " + request.level() +
                                      " (debug, info, warning, error)");
  }
  base::LogDestination destination = base::LogDestination::kStderr;
  if (!request.destination().empty()) {
    if (!base::ParseLogDestination(request.destination(), &destination)) {
      return absl::InvalidArgumentError("unknown log destination " + request.destination() +
                                        " (stderr, syslog, journal)");
    }
    RETURN_IF_ERROR(base::SetLogDestination(destination, request.syslog_socket()));
  }
  const base::LogLevel before = base::GetLogLevel();
  if (level != before) {
    // On record under the lower of the two thresholds: logged after lowering, before raising.
    if (level < before) base::SetLogLevel(level);
    SLUICE_LOG(kInfo) << "log level " << base::LogLevelName(before) << " -> "
                      << base::LogLevelName(level);
    base::SetLogLevel(level);
  }
  cv1::SetLogReply reply;
  reply.set_level(std::string(base::LogLevelName(level)));
  return reply;
}

}  // namespace

void RouterCore::AddCommonHandlers() {
  auto add = [this](std::unique_ptr<Handler> handler) {
    absl::Status status = methods_.Add(std::move(handler));
    (void)status;  // the table is empty: cannot fail
  };
  auto get_target_name =
      [this](const cv1::GetTargetNameRequest&) -> absl::StatusOr<cv1::GetTargetNameReply> {
    cv1::GetTargetNameReply reply;
    reply.set_name(instance_name_);
    return reply;
  };
  add(std::make_unique<
      SyncHandler<cv1::GetTargetNameRequest, cv1::GetTargetNameReply, decltype(get_target_name)>>(
      methods::common::kGetTargetName.name(), get_target_name));
  auto get_version = [this](const cv1::GetVersionRequest&) -> absl::StatusOr<cv1::GetVersionReply> {
    cv1::GetVersionReply reply;
    reply.set_version(options_.version);
    return reply;
  };
  add(std::make_unique<
      SyncHandler<cv1::GetVersionRequest, cv1::GetVersionReply, decltype(get_version)>>(
      methods::common::kGetVersion.name(), get_version));
  auto get_status = [this](const cv1::GetStatusRequest&) -> absl::StatusOr<cv1::GetStatusReply> {
    cv1::GetStatusReply reply;
    reply.set_status(status_);
    reply.set_reason(status_reason_);
    return reply;
  };
  add(std::make_unique<
      SyncHandler<cv1::GetStatusRequest, cv1::GetStatusReply, decltype(get_status)>>(
      methods::common::kGetStatus.name(), get_status));
  auto shutdown = [this](const cv1::ShutdownRequest&) -> absl::StatusOr<cv1::ShutdownReply> {
    SLUICE_LOG(kInfo) << instance_name_ << ": shutdown requested through common/1.0";
    if (!status_set_) status_ = cv1::SHUTDOWN;
    // After this task, so that the reply goes out first.
    loop_->PostFromLoop([this] {
      if (shutdown_handler_) shutdown_handler_();
    });
    return cv1::ShutdownReply();
  };
  add(std::make_unique<SyncHandler<cv1::ShutdownRequest, cv1::ShutdownReply, decltype(shutdown)>>(
      methods::common::kShutdown.name(), shutdown));
  add(std::make_unique<SyncHandler<cv1::SetLogRequest, cv1::SetLogReply, decltype(&SetLog)>>(
      methods::common::kSetLog.name(), &SetLog));
}

void RouterCore::SetStatus(common::v1::ProcessStatus status, std::string reason) {
  status_ = status;
  status_reason_ = std::move(reason);
  status_set_ = true;
}

std::vector<std::string> RouterCore::DefaultListen() const {
  std::string name = instance_name_.empty() ? class_name_ : instance_name_;
  const std::string dir = SocketDir();
  RemoveStaleSockets(dir, name);
  return {absl::StrFormat("unix:%s/%s.%d.sock", dir, name, static_cast<int>(getpid()))};
}

absl::Status RouterCore::Start() {
  if (started_) return absl::FailedPreconditionError("the router is already started");
  if (shut_down_) return absl::FailedPreconditionError("the router is shut down");
  methods_.Freeze();
  if (options_.serve) {
    std::vector<std::string> listen = options_.listen;
    if (listen.empty()) listen.emplace_back(kDefaultUnixEndpoint);
    for (std::string& endpoint : listen) {
      if (endpoint != kDefaultUnixEndpoint) continue;
      absl::Status status = EnsureSocketDir();
      if (!status.ok()) return status;
      endpoint = DefaultListen().front();
    }
    server_ = std::make_unique<RpcServer>(&methods_, loop_);
    absl::Status status = server_->Start(listen, options_.socket_access, &endpoints_);
    if (!status.ok()) {
      server_.reset();
      return status;
    }
  }
  if (options_.allow_inproc) inproc_endpoint_ = AddInprocRouter(weak_from_this());
  started_ = true;
  work_.emplace(io_.get_executor());
  if (!status_set_) status_ = common::v1::READY;
  retry_timer_ = std::make_unique<boost::asio::steady_timer>(io_);
  wait_timer_ = std::make_unique<boost::asio::steady_timer>(io_);
  wait_timer_->expires_after(std::chrono::milliseconds(options_.finder_wait_ms));
  wait_timer_->async_wait([loop = loop_, this](const boost::system::error_code& error) {
    if (error || !loop->open() || ever_registered_) return;
    waited_out_ = true;
    absl::Status status = absl::UnavailableError(absl::StrFormat(
        "cannot reach the Finder at %s%s", finder_address_,
        finder_error_.ok() ? "" : absl::StrFormat(": %s", finder_error_.message())));
    SLUICE_LOG(kWarning) << class_name_ << ": " << status.message() << " (still trying)";
    FailUnresolved(status);
    ReportReady(status);
  });
  Connect();
  return absl::OkStatus();
}

void RouterCore::Shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  loop_->Close();
  if (!inproc_endpoint_.empty()) RemoveInprocRouter(inproc_endpoint_);
  if (retry_timer_) retry_timer_->cancel();
  if (wait_timer_) wait_timer_->cancel();
  if (session_ != nullptr) session_->Cancel();
  retired_.push_back(std::move(session_));
  session_.reset();
  for (auto& [endpoint, channel] : channels_) {
    channel->Cancel();
    retired_.push_back(std::move(channel));
  }
  channels_.clear();
  targets_.clear();
  if (server_ != nullptr) server_->Stop();
  // Every gRPC client has seen OnDone; only now are they freed, on this thread.
  reactors_->WaitForZero();
  retired_.clear();
  server_.reset();
  retry_timer_.reset();
  wait_timer_.reset();
  work_.reset();
}

}  // namespace sluice::ipc::internal

namespace sluice::ipc {

XrlRouter::XrlRouter(boost::asio::io_context& io, std::string class_name, std::string instance_name,
                     RouterOptions options)
    : core_(std::make_shared<internal::RouterCore>(io, std::move(class_name),
                                                   std::move(instance_name), std::move(options))) {}

XrlRouter::~XrlRouter() { core_->Shutdown(); }

absl::Status XrlRouter::AddHandler(std::unique_ptr<internal::Handler> handler) {
  const MethodName& name = handler->name();
  if (name.xrl().empty()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "method %s has no XRL name (service names follow sluice.INTERFACE.vN.Interface; see "
        "ipc/method_name.h)",
        name.full_name()));
  }
  const auto* method =
      google::protobuf::DescriptorPool::generated_pool()->FindMethodByName(name.full_name());
  if (method == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrFormat("no method %s in the linked protos", name.full_name()));
  }
  if (method->input_type() != handler->request_prototype().GetDescriptor() ||
      method->output_type() != handler->reply_prototype().GetDescriptor()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "method %s takes %s and returns %s, but the handler is for %s -> %s", name.full_name(),
        method->input_type()->full_name(), method->output_type()->full_name(),
        handler->request_prototype().GetDescriptor()->full_name(),
        handler->reply_prototype().GetDescriptor()->full_name()));
  }
  return core_->AddHandler(std::move(handler));
}

void XrlRouter::SetStatus(common::v1::ProcessStatus status, std::string reason) {
  core_->SetStatus(status, std::move(reason));
}
void XrlRouter::SetShutdownHandler(std::function<void()> fn) {
  core_->SetShutdownHandler(std::move(fn));
}
absl::Status XrlRouter::Start() { return core_->Start(); }
void XrlRouter::OnReady(std::function<void(absl::Status)> fn) { core_->OnReady(std::move(fn)); }

void XrlRouter::CallMethod(std::string_view target, const MethodName& method,
                           std::unique_ptr<internal::OutgoingCall> call) {
  core_->Call(target, method, std::move(call));
}
void XrlRouter::CallText(std::string_view target, std::string_view method,
                         std::unique_ptr<internal::OutgoingCall> call) {
  core_->CallText(target, method, std::move(call));
}
void XrlRouter::FailCall(std::unique_ptr<internal::OutgoingCall> call, absl::Status status) {
  core_->FailLater(std::move(call), std::move(status));
}

void XrlRouter::CallDynamic(std::string_view target, std::string_view method,
                            std::unique_ptr<google::protobuf::Message> request,
                            std::unique_ptr<google::protobuf::Message> reply,
                            DynamicCallback callback) {
  CallText(target, method,
           std::make_unique<internal::DynamicCall<DynamicCallback>>(
               std::move(request), std::move(reply), std::move(callback)));
}

WatchId XrlRouter::WatchClass(std::string class_name, std::function<void(const TargetEvent&)> fn) {
  return core_->Watch(true, std::move(class_name), std::move(fn));
}
WatchId XrlRouter::WatchInstance(std::string instance_name,
                                 std::function<void(const TargetEvent&)> fn) {
  return core_->Watch(false, std::move(instance_name), std::move(fn));
}
void XrlRouter::Unwatch(WatchId id) { core_->Unwatch(id); }

const std::string& XrlRouter::class_name() const { return core_->class_name(); }
const std::string& XrlRouter::instance_name() const { return core_->instance_name(); }
const std::string& XrlRouter::incarnation() const { return core_->incarnation(); }
bool XrlRouter::registered() const { return core_->registered(); }
const std::vector<std::string>& XrlRouter::endpoints() const { return core_->endpoints(); }

}  // namespace sluice::ipc
