// RouterCore: calls — per-target ordered queues, the resolution cache, and dispatch in-process or
// over gRPC.

#include "absl/strings/str_format.h"
#include "base/log.h"
#include "google/protobuf/descriptor.h"
#include "ipc/channel_client.h"
#include "ipc/inproc.h"
#include "ipc/router_core.h"

namespace sluice::ipc::internal {
namespace {

// An in-process call on its way to the target's loop and back. Owned by the task that carries
// it until Run(); then it deletes itself when answered. Destroyed unrun (the target shut
// down), it fails the call.
class InprocCall final : public CallCompletion {
 public:
  InprocCall(std::shared_ptr<LoopRef> caller_loop, std::shared_ptr<const Caller> caller,
             bool same_loop, std::unique_ptr<OutgoingCall> call, Handler* handler,
             std::shared_ptr<RouterCore> target)
      : caller_loop_(std::move(caller_loop)),
        caller_(std::move(caller)),
        same_loop_(same_loop),
        call_(std::move(call)),
        handler_(handler),
        target_(std::move(target)) {}

  ~InprocCall() {
    if (!ran_ && call_ != nullptr) {
      Return(absl::UnavailableError(
          absl::StrFormat("%s shut down before the call ran", target_->instance_name())));
    }
  }

  // The request and reply types differ from the handler's (a dynamic message): convert.
  void Convert() {
    request_copy_.reset(handler_->request_prototype().New());
    request_copy_->ParseFromString(call_->request().SerializeAsString());
    reply_copy_.reset(handler_->reply_prototype().New());
  }

  // On the target's loop.
  void Run() {
    ran_ = true;
    in_run_ = true;
    const google::protobuf::Message& request = request_copy_ ? *request_copy_ : call_->request();
    google::protobuf::Message* reply = reply_copy_ ? reply_copy_.get() : call_->reply();
    handler_->Run(request, reply, *caller_, this);
    in_run_ = false;
    if (answered_in_run_) {
      // Answered at once: on the caller's own loop, finish without another trip through it.
      if (same_loop_) {
        call_->Finish(status_);
      } else {
        Return(std::move(status_));
      }
      delete this;
    }
  }

  void Complete(absl::Status status) override {
    if (status.ok() && reply_copy_ != nullptr &&
        !call_->reply()->ParseFromString(reply_copy_->SerializeAsString())) {
      status = absl::InternalError("cannot convert the in-process reply");
    }
    if (in_run_) {
      // Run() is still on the stack: it finishes the call when the handler returns.
      answered_in_run_ = true;
      status_ = std::move(status);
      return;
    }
    Return(std::move(status));
    delete this;
  }

 private:
  void Return(absl::Status status) {
    auto task = [call = std::move(call_), status = std::move(status)]() mutable {
      call->Finish(status);
    };
    caller_loop_->Post(std::move(task));
  }

  std::shared_ptr<LoopRef> caller_loop_;
  std::shared_ptr<const Caller> caller_;
  bool same_loop_;
  std::unique_ptr<OutgoingCall> call_;
  Handler* handler_;
  std::shared_ptr<RouterCore> target_;
  std::unique_ptr<google::protobuf::Message> request_copy_;
  std::unique_ptr<google::protobuf::Message> reply_copy_;
  bool ran_ = false;
  bool in_run_ = false;
  bool answered_in_run_ = false;
  absl::Status status_;
};

absl::Status TypeMismatch(const MethodName& method, const char* what,
                          const google::protobuf::Descriptor* want,
                          const google::protobuf::Descriptor* given) {
  return absl::InvalidArgumentError(absl::StrFormat("%s %s is %s, but the call gives %s",
                                                    method.full_name(), what, want->full_name(),
                                                    given->full_name()));
}

}  // namespace

void RouterCore::FailLater(std::unique_ptr<OutgoingCall> call, absl::Status status) {
  loop_->PostFromLoop(
      [call = std::move(call), status = std::move(status)]() mutable { call->Finish(status); });
}

void RouterCore::CallText(std::string_view target, std::string_view method,
                          std::unique_ptr<OutgoingCall> call) {
  absl::string_view key(method.data(), method.size());
  auto it = text_methods_.find(key);
  if (it == text_methods_.end()) it = text_methods_.emplace(key, MethodName::Parse(method)).first;
  if (!it->second.ok()) return FailLater(std::move(call), it->second.status());
  Call(target, *it->second, std::move(call));
}

absl::Status RouterCore::CheckTypes(const MethodName& method, MethodEntry& entry,
                                    Resolution& resolution, OutgoingCall& call) {
  const void* tag = call.type_tag();
  if (tag != nullptr && tag == entry.checked_tag) return absl::OkStatus();
  const auto* request = call.request().GetDescriptor();
  const auto* reply = call.reply()->GetDescriptor();
  const google::protobuf::Descriptor* want_request = nullptr;
  const google::protobuf::Descriptor* want_reply = nullptr;
  if (resolution.inproc != nullptr) {
    if (entry.handler == nullptr && entry.handler_status.ok()) {
      auto handler =
          resolution.inproc->methods().Authorize(method.path(), entry.key, caller_->id());
      if (handler.ok()) {
        entry.handler = *handler;
      } else {
        entry.handler_status = handler.status();
      }
    }
    if (entry.handler == nullptr) return entry.handler_status;
    want_request = entry.handler->request_prototype().GetDescriptor();
    want_reply = entry.handler->reply_prototype().GetDescriptor();
  } else {
    auto it = method_types_.find(method.path());
    if (it == method_types_.end()) {
      it = method_types_
               .emplace(method.path(),
                        google::protobuf::DescriptorPool::generated_pool()->FindMethodByName(
                            method.full_name()))
               .first;
    }
    if (it->second == nullptr) return absl::OkStatus();  // not linked in: the receiver checks
    want_request = it->second->input_type();
    want_reply = it->second->output_type();
  }
  if (request != want_request && request->full_name() != want_request->full_name()) {
    return TypeMismatch(method, "request", want_request, request);
  }
  if (reply != want_reply && reply->full_name() != want_reply->full_name()) {
    return TypeMismatch(method, "reply", want_reply, reply);
  }
  // Same names but other descriptors: a dynamic message meeting a generated handler.
  bool convert = request != want_request || reply != want_reply;
  if (tag != nullptr) {
    entry.checked_tag = tag;
    entry.convert = convert;
  } else {
    entry.convert = convert;  // rechecked on every dynamic call
  }
  return absl::OkStatus();
}

void RouterCore::Call(std::string_view target_name, const MethodName& method,
                      std::unique_ptr<OutgoingCall> call) {
  if (shut_down_) return;
  absl::string_view key(target_name.data(), target_name.size());
  auto it = targets_.find(key);
  if (it == targets_.end()) it = targets_.emplace(key, Target()).first;
  Target& target = it->second;
  if (target.queue.empty()) {
    auto resolution = target.services.find(method.service());
    if (resolution != target.services.end()) {
      Dispatch(*resolution->second, method, std::move(call));
      return;
    }
  }
  bool cached = target.services.contains(method.service());
  target.queue.push_back(QueuedCall{method, std::move(call)});
  if (!cached) RequestResolution(it->first, method.service());
}

void RouterCore::Drain(const std::string& name, Target& target) {
  while (!target.queue.empty()) {
    QueuedCall& front = target.queue.front();
    auto resolution = target.services.find(front.method.service());
    if (resolution != target.services.end()) {
      Dispatch(*resolution->second, front.method, std::move(front.call));
      target.queue.pop_front();
      continue;
    }
    auto failed = failed_.find(TargetService(name, front.method.service()));
    if (failed != failed_.end()) {
      FailLater(std::move(front.call), failed->second);
      target.queue.pop_front();
      continue;
    }
    // Waiting for this resolution; ask for it if nobody has.
    RequestResolution(name, front.method.service());
    return;
  }
}

void RouterCore::Dispatch(Resolution& resolution, const MethodName& method,
                          std::unique_ptr<OutgoingCall> call) {
  auto entry = resolution.methods.find(method.path());
  if (entry == resolution.methods.end()) {
    return FailLater(std::move(call),
                     absl::UnimplementedError(absl::StrFormat(
                         "%s has no method %s", resolution.instance,
                         method.xrl().empty() ? method.full_name() : method.xrl())));
  }
  if (absl::Status status = CheckTypes(method, entry->second, resolution, *call); !status.ok()) {
    return FailLater(std::move(call), std::move(status));
  }
  if (resolution.inproc != nullptr) {
    return DispatchInproc(resolution, entry->second, method, std::move(call));
  }
  if (resolution.relay) {
    resolution.channel->SendUnary(method.path(), entry->second.key, resolution.instance,
                                  std::move(call));
  } else if (options_.unary_calls) {
    resolution.channel->SendUnary(method.path(), entry->second.key, "", std::move(call));
  } else {
    resolution.channel->Send(method.path(), entry->second.key, std::move(call));
  }
}

void RouterCore::DispatchInproc(Resolution& resolution, MethodEntry& entry,
                                const MethodName& method, std::unique_ptr<OutgoingCall> call) {
  RouterCore& target = *resolution.inproc;
  bool same_loop = &target.io() == &io_;
  auto inproc = std::make_unique<InprocCall>(loop_, caller(), same_loop, std::move(call),
                                             entry.handler, resolution.inproc);
  if (entry.convert) inproc->Convert();
  auto task = [inproc = std::move(inproc)]() mutable { inproc.release()->Run(); };
  if (same_loop) {
    target.loop()->PostFromLoop(std::move(task));
  } else {
    target.loop()->Post(std::move(task));
  }
}

std::shared_ptr<ChannelClient> RouterCore::ChannelTo(const std::string& endpoint,
                                                     const std::string& target,
                                                     const std::string& tls_name) {
  auto it = channels_.find(endpoint);
  if (it != channels_.end()) return it->second;
  auto channel = ChannelClient::Create(
      ChannelPeer{endpoint, target, tls_name, caller_->id()}, loop_, reactors_,
      [this, endpoint](absl::Status status) { ChannelFailed(endpoint); });
  channels_.emplace(endpoint, channel);
  return channel;
}

void RouterCore::Retire(std::shared_ptr<void> client) {
  if (client != nullptr) retired_.push_back(std::move(client));
  std::erase_if(retired_, [](const std::shared_ptr<void>& c) { return c.use_count() == 1; });
}

void RouterCore::ChannelFailed(const std::string& endpoint) {
  auto it = channels_.find(endpoint);
  if (it != channels_.end()) {
    Retire(std::move(it->second));
    channels_.erase(it);
  }
  for (auto& [name, target] : targets_) {
    absl::erase_if(target.services,
                   [&](const auto& entry) { return entry.second->endpoint == endpoint; });
  }
}

void RouterCore::Invalidate(const std::string& instance) {
  for (auto& [name, target] : targets_) {
    absl::erase_if(target.services,
                   [&](const auto& entry) { return entry.second->instance == instance; });
  }
}

}  // namespace sluice::ipc::internal
