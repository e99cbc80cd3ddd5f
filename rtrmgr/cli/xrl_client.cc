#include "rtrmgr/cli/xrl_client.h"

#include <unistd.h>

#include <chrono>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "google/protobuf/descriptor.pb.h"
#include "grpcpp/grpcpp.h"
#include "ipc/proto/finder.grpc.pb.h"
#include "ipc/proto_codec.h"
#include "ipc/rundir.h"
#include "ipc/transport.h"
#include "rtrmgr/cli/run_until.h"

namespace sluice::rtrmgr::cli {
namespace {

using google::protobuf::Message;
using google::protobuf::MethodDescriptor;

absl::Status FinderError(const std::string& address, const grpc::Status& status) {
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE ||
      status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    return absl::UnavailableError(
        absl::StrFormat("cannot reach the Finder at %s: %s", address, status.error_message()));
  }
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

std::string Interface(const ipc::Xrl& xrl) { return xrl.interface + "/" + xrl.version; }

}  // namespace

XrlClient::XrlClient(std::string finder_address, int timeout_ms)
    : finder_address_(std::move(finder_address)), timeout_ms_(timeout_ms) {}

XrlClient::~XrlClient() { router_.reset(); }

absl::StatusOr<finder::v1::ListTargetsReply> XrlClient::ListTargets() {
  ASSIGN_OR_RETURN(auto channel,
                   ipc::OpenChannel(finder_address_, "finder", grpc::ChannelArguments()));
  auto stub = finder::v1::Finder::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms_));
  finder::v1::ListTargetsReply reply;
  grpc::Status status = stub->ListTargets(&context, finder::v1::ListTargetsRequest(), &reply);
  if (!status.ok()) return FinderError(finder_address_, status);
  return reply;
}

// Why the Finder has no descriptors for `service`: the target is missing, or does not serve it.
absl::Status XrlClient::TargetStatus(const ipc::Xrl& xrl, const std::string& service) {
  ASSIGN_OR_RETURN(auto targets, ListTargets());
  for (const auto& target : targets.targets()) {
    if (target.class_name() == xrl.target || target.instance_name() == xrl.target) {
      return absl::NotFoundError(
          absl::StrFormat("target %s does not implement %s", xrl.target, Interface(xrl)));
    }
  }
  return absl::NotFoundError(absl::StrFormat("no such target: %s", xrl.target));
}

absl::Status XrlClient::LoadDescriptors(const ipc::Xrl& xrl, const std::string& service) {
  ASSIGN_OR_RETURN(auto channel,
                   ipc::OpenChannel(finder_address_, "finder", grpc::ChannelArguments()));
  auto stub = finder::v1::Finder::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms_));
  finder::v1::GetDescriptorsRequest request;
  request.set_service(service);
  finder::v1::GetDescriptorsReply reply;
  grpc::Status status = stub->GetDescriptors(&context, request, &reply);
  if (status.error_code() == grpc::StatusCode::NOT_FOUND) return TargetStatus(xrl, service);
  if (!status.ok()) return FinderError(finder_address_, status);
  for (const std::string& bytes : reply.file_descriptors()) {
    google::protobuf::FileDescriptorProto file;
    if (!file.ParseFromString(bytes)) {
      return absl::InternalError(
          absl::StrFormat("the Finder sent a malformed descriptor for %s", service));
    }
    if (pool_.FindFileByName(file.name()) != nullptr) continue;
    if (pool_.BuildFile(file) == nullptr) {
      return absl::InternalError(
          absl::StrFormat("cannot use the descriptor of %s from the Finder", file.name()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<const MethodDescriptor*> XrlClient::FindMethod(const ipc::Xrl& xrl) {
  ASSIGN_OR_RETURN(ipc::MethodName name, xrl.method_name());
  const auto* generated = google::protobuf::DescriptorPool::generated_pool();
  const google::protobuf::ServiceDescriptor* service = generated->FindServiceByName(name.service());
  if (service == nullptr) service = pool_.FindServiceByName(name.service());
  if (service == nullptr) {
    RETURN_IF_ERROR(LoadDescriptors(xrl, name.service()));
    service = pool_.FindServiceByName(name.service());
    if (service == nullptr) return TargetStatus(xrl, name.service());
  }
  const MethodDescriptor* method = service->FindMethodByName(name.rpc());
  if (method == nullptr) {
    std::vector<std::string> methods;
    for (int i = 0; i < service->method_count(); ++i) {
      auto snake = ipc::CamelToSnake(service->method(i)->name());
      methods.push_back(snake.ok() ? *snake : service->method(i)->name());
    }
    return absl::UnimplementedError(absl::StrFormat("interface %s has no method %s (methods: %s)",
                                                    Interface(xrl), xrl.method,
                                                    absl::StrJoin(methods, ", ")));
  }
  return method;
}

absl::StatusOr<std::unique_ptr<Message>> XrlClient::CallMessage(const ipc::Xrl& xrl) {
  ASSIGN_OR_RETURN(const MethodDescriptor* method, FindMethod(xrl));
  const Message* request_prototype;
  const Message* reply_prototype;
  if (method->file()->pool() == google::protobuf::DescriptorPool::generated_pool()) {
    auto* factory = google::protobuf::MessageFactory::generated_factory();
    request_prototype = factory->GetPrototype(method->input_type());
    reply_prototype = factory->GetPrototype(method->output_type());
  } else {
    request_prototype = factory_.GetPrototype(method->input_type());
    reply_prototype = factory_.GetPrototype(method->output_type());
  }
  std::unique_ptr<Message> request(request_prototype->New());
  RETURN_IF_ERROR(ipc::ArgsToMessage(xrl.args, request.get()));

  if (router_ == nullptr) {
    ipc::RouterOptions options;
    options.finder_address = finder_address_;
    options.serve = false;
    options.allow_inproc = false;
    options.unary_calls = true;
    options.finder_wait_ms = timeout_ms_;
    router_ =
        std::make_unique<ipc::XrlRouter>(io_, "sluice", absl::StrCat("sluice-", getpid()), options);
    RETURN_IF_ERROR(router_->Start());
  }
  // Shared with the callback: a reply after the deadline arrives during a later call, and
  // must not write into this call's stack.
  struct Outcome {
    std::optional<absl::Status> status;
    std::unique_ptr<Message> reply;
  };
  auto outcome = std::make_shared<Outcome>();
  router_->CallDynamic(xrl.target, method->full_name(), std::move(request),
                       std::unique_ptr<Message>(reply_prototype->New()),
                       [outcome](absl::Status s, std::unique_ptr<Message> r) {
                         outcome->status = std::move(s);
                         outcome->reply = std::move(r);
                       });
  if (!RunUntil(io_, timeout_ms_, [&] { return outcome->status.has_value(); })) {
    return absl::DeadlineExceededError(
        absl::StrFormat("no answer from %s within %d ms", xrl.target, timeout_ms_));
  }
  if (!outcome->status->ok()) return *outcome->status;
  return std::move(outcome->reply);
}

absl::StatusOr<ipc::XrlArgs> XrlClient::Call(const ipc::Xrl& xrl) {
  ASSIGN_OR_RETURN(std::unique_ptr<Message> reply, CallMessage(xrl));
  return ipc::MessageToArgs(*reply);
}

}  // namespace sluice::rtrmgr::cli
