#include "ipc/rpc_server.h"

#include <set>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/log.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/impl/codegen/proto_utils.h"
#include "ipc/call_metadata.h"
#include "ipc/grpc_status.h"
#include "ipc/proto/channel.pb.h"
#include "ipc/rundir.h"
#include "ipc/transport.h"
#include "ipc/unix_listener.h"

namespace sluice::ipc::internal {
namespace {

using grpc::ByteBuffer;
using Traits = grpc::SerializationTraits<google::protobuf::Message>;

bool ParseBuffer(ByteBuffer* buffer, google::protobuf::Message* message) {
  return Traits::Deserialize(buffer, message).ok();
}

void SerializeToBuffer(const google::protobuf::Message& message, ByteBuffer* buffer) {
  bool own = false;
  Traits::Serialize(message, buffer, &own);
}

// --- unary calls

// What a unary call's reactor and its completion share; Finish happens once.
class UnaryState {
 public:
  explicit UnaryState(grpc::ServerGenericBidiReactor* reactor) : reactor_(reactor) {}

  void Finish(const grpc::Status& status) {
    std::lock_guard lock(mu_);
    if (finished_) return;
    finished_ = true;
    reactor_->Finish(status);
  }
  void FinishWithReply(ByteBuffer reply) {
    std::lock_guard lock(mu_);
    if (finished_) return;
    finished_ = true;
    reply_ = std::move(reply);
    reactor_->StartWriteAndFinish(&reply_, grpc::WriteOptions(), grpc::Status::OK);
  }

 private:
  std::mutex mu_;
  grpc::ServerGenericBidiReactor* reactor_;
  bool finished_ = false;
  ByteBuffer reply_;  // alive until OnDone: the reactor keeps the state
};

class UnaryCall final : public CallCompletion {
 public:
  UnaryCall(std::shared_ptr<UnaryState> state, Handler* handler, Caller caller)
      : state_(std::move(state)),
        handler_(handler),
        caller_(std::move(caller)),
        request_(handler->request_prototype().New()),
        reply_(handler->reply_prototype().New()) {}

  google::protobuf::Message* request() { return request_.get(); }
  void Run() { handler_->Run(*request_, reply_.get(), caller_, this); }

  void Complete(absl::Status status) override {
    if (status.ok()) {
      ByteBuffer buffer;
      SerializeToBuffer(*reply_, &buffer);
      state_->FinishWithReply(std::move(buffer));
    } else {
      state_->Finish(ToGrpcStatus(status));
    }
    delete this;
  }

 private:
  std::shared_ptr<UnaryState> state_;
  Handler* handler_;
  Caller caller_;
  std::unique_ptr<google::protobuf::Message> request_;
  std::unique_ptr<google::protobuf::Message> reply_;
};

// --- the ordered stream

class StreamState {
 public:
  explicit StreamState(grpc::ServerGenericBidiReactor* reactor) : reactor_(reactor) {}

  // Calls about to be posted to the loop (each will AddReply once).
  void AddOutstanding(size_t n) {
    std::lock_guard lock(mu_);
    outstanding_ += n;
  }

  // Any thread: one call's answer.
  void AddReply(uint64_t seq, const absl::Status& status, const google::protobuf::Message* reply) {
    std::string payload;
    if (status.ok() && reply != nullptr) payload = reply->SerializeAsString();
    std::lock_guard lock(mu_);
    --outstanding_;
    if (finished_) return;
    auto* out = pending_.add_replies();
    out->set_seq(seq);
    if (!status.ok()) {
      out->set_code(StatusCodeToWire(status.code()));
      out->set_message(std::string(status.message()));
    } else {
      out->set_payload(std::move(payload));
    }
    if (!writing_) StartWriteLocked();
  }

  void WriteDone(bool ok) {
    std::lock_guard lock(mu_);
    writing_ = false;
    if (finished_) return;
    if (!ok) {
      FinishLocked(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the caller went away"));
      return;
    }
    if (pending_.replies_size() > 0) {
      StartWriteLocked();
    } else {
      MaybeFinishLocked();
    }
  }

  // The caller closed its side (or went away): finish once every call is answered.
  void ReadDone() {
    std::lock_guard lock(mu_);
    read_done_ = true;
    MaybeFinishLocked();
  }

  void Finish(const grpc::Status& status) {
    std::lock_guard lock(mu_);
    FinishLocked(status);
  }

 private:
  void StartWriteLocked() {
    out_.Clear();
    SerializeToBuffer(pending_, &out_);
    pending_.Clear();
    writing_ = true;
    reactor_->StartWrite(&out_);
  }
  void MaybeFinishLocked() {
    if (read_done_ && outstanding_ == 0 && !writing_ && pending_.replies_size() == 0) {
      FinishLocked(grpc::Status::OK);
    }
  }
  void FinishLocked(const grpc::Status& status) {
    if (finished_) return;
    finished_ = true;
    reactor_->Finish(status);
  }

  std::mutex mu_;
  grpc::ServerGenericBidiReactor* reactor_;
  v1::ReplyFrame pending_;
  ByteBuffer out_;  // being written while writing_
  size_t outstanding_ = 0;
  bool writing_ = false;
  bool read_done_ = false;
  bool finished_ = false;
};

class StreamCall final : public CallCompletion {
 public:
  StreamCall(std::shared_ptr<StreamState> stream, uint64_t seq, Handler* handler,
             std::shared_ptr<const Caller> caller)
      : stream_(std::move(stream)),
        seq_(seq),
        handler_(handler),
        caller_(std::move(caller)),
        request_(handler->request_prototype().New()),
        reply_(handler->reply_prototype().New()) {}

  google::protobuf::Message* request() { return request_.get(); }
  void Run() { handler_->Run(*request_, reply_.get(), *caller_, this); }
  void Complete(absl::Status status) override {
    stream_->AddReply(seq_, status, reply_.get());
    delete this;
  }

 private:
  std::shared_ptr<StreamState> stream_;
  uint64_t seq_;
  Handler* handler_;
  std::shared_ptr<const Caller> caller_;  // the bind's
  std::unique_ptr<google::protobuf::Message> request_;
  std::unique_ptr<google::protobuf::Message> reply_;
};

}  // namespace

class RpcServer::Impl final : public grpc::CallbackGenericService {
 public:
  Impl(const MethodTable* methods, std::shared_ptr<LoopRef> loop)
      : methods_(methods), loop_(std::move(loop)) {}

  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* context) override;

  // Registration of open calls, so that Stop() can finish them.
  template <typename State>
  bool Track(std::set<std::shared_ptr<State>>& set, const std::shared_ptr<State>& state) {
    std::lock_guard lock(mu_);
    if (stopping_) return false;
    set.insert(state);
    return true;
  }
  template <typename State>
  void Untrack(std::set<std::shared_ptr<State>>& set, const std::shared_ptr<State>& state) {
    std::lock_guard lock(mu_);
    set.erase(state);
  }

  const MethodTable* methods_;
  std::shared_ptr<LoopRef> loop_;
  std::unique_ptr<grpc::Server> server_;
  std::vector<std::unique_ptr<UnixListener>> listeners_;
  std::mutex mu_;
  bool stopping_ = false;
  std::set<std::shared_ptr<UnaryState>> unaries_;
  std::set<std::shared_ptr<StreamState>> streams_;
};

namespace {

grpc::Status Unavailable() {
  return grpc::Status(grpc::StatusCode::UNAVAILABLE, "the component is shutting down");
}

class UnaryReactor final : public grpc::ServerGenericBidiReactor {
 public:
  UnaryReactor(RpcServer::Impl* impl, grpc::GenericCallbackServerContext* context)
      : impl_(impl), context_(context), state_(std::make_shared<UnaryState>(this)) {
    if (!impl_->Track(impl_->unaries_, state_)) {
      state_->Finish(Unavailable());
      return;
    }
    StartRead(&request_);
  }

  // A gRPC thread: an exception (out of memory parsing a request) fails this call only.
  void OnReadDone(bool ok) override {
    try {
      Read(ok);
    } catch (const std::exception& e) {
      state_->Finish(grpc::Status(grpc::StatusCode::INTERNAL, e.what()));
    }
  }

  void Read(bool ok) {
    if (!ok) {
      state_->Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no request message"));
      return;
    }
    const std::string_view caller_id = MetadataValue(*context_, kCallerMetadata);
    auto handler = impl_->methods_->Authorize(
        context_->method(), KeyFromHex(MetadataValue(*context_, kKeyMetadata)), caller_id);
    if (!handler.ok()) {
      state_->Finish(ToGrpcStatus(handler.status()));
      return;
    }
    auto call = std::make_unique<UnaryCall>(state_, *handler, Caller::FromId(caller_id));
    if (!ParseBuffer(&request_, call->request())) {
      state_->Finish(grpc::Status(
          grpc::StatusCode::INVALID_ARGUMENT,
          absl::StrFormat("cannot parse the request as %s",
                          (*handler)->request_prototype().GetDescriptor()->full_name())));
      return;
    }
    impl_->loop_->Post([call = std::move(call)]() mutable { call.release()->Run(); });
  }

  void OnDone() override {
    impl_->Untrack(impl_->unaries_, state_);
    delete this;
  }

 private:
  RpcServer::Impl* impl_;
  grpc::GenericCallbackServerContext* context_;
  std::shared_ptr<UnaryState> state_;
  ByteBuffer request_;
};

class StreamReactor final : public grpc::ServerGenericBidiReactor {
 public:
  explicit StreamReactor(RpcServer::Impl* impl)
      : impl_(impl), state_(std::make_shared<StreamState>(this)) {
    if (!impl_->Track(impl_->streams_, state_)) {
      state_->Finish(Unavailable());
      return;
    }
    StartRead(&buffer_);
  }

  // A gRPC thread: an exception (out of memory parsing a frame) ends this stream only.
  void OnReadDone(bool ok) override {
    try {
      Read(ok);
    } catch (const std::exception& e) {
      state_->Finish(grpc::Status(grpc::StatusCode::INTERNAL, e.what()));
    }
  }

  void Read(bool ok) {
    if (!ok) {
      state_->ReadDone();
      return;
    }
    frame_.Clear();
    if (!ParseBuffer(&buffer_, &frame_)) {
      state_->Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "malformed call frame"));
      return;
    }
    for (const auto& bind : frame_.binds()) {
      auto handler = impl_->methods_->Authorize(bind.method(), bind.key(), bind.caller());
      binds_[bind.id()] = handler.ok()
                              ? Bound{*handler, absl::OkStatus(),
                                      std::make_shared<const Caller>(Caller::FromId(bind.caller()))}
                              : Bound{nullptr, handler.status(), nullptr};
    }
    std::vector<std::unique_ptr<StreamCall>> batch;
    batch.reserve(frame_.calls_size());
    state_->AddOutstanding(frame_.calls_size());
    for (const auto& request : frame_.calls()) {
      auto bind = binds_.find(request.bind());
      if (bind == binds_.end()) {
        state_->AddReply(request.seq(), absl::InvalidArgumentError("call through an unknown bind"),
                         nullptr);
        continue;
      }
      if (bind->second.handler == nullptr) {
        state_->AddReply(request.seq(), bind->second.status, nullptr);
        continue;
      }
      auto call = std::make_unique<StreamCall>(state_, request.seq(), bind->second.handler,
                                               bind->second.caller);
      if (!call->request()->ParseFromString(request.payload())) {
        state_->AddReply(
            request.seq(),
            absl::InvalidArgumentError(absl::StrFormat(
                "cannot parse the request as %s", call->request()->GetDescriptor()->full_name())),
            nullptr);
        continue;
      }
      batch.push_back(std::move(call));
    }
    if (!batch.empty()) {
      // One loop task per frame, in stream order: the calls run in the order they were made.
      impl_->loop_->Post([batch = std::move(batch)]() mutable {
        for (auto& call : batch) call.release()->Run();
      });
    }
    StartRead(&buffer_);
  }

  void OnWriteDone(bool ok) override { state_->WriteDone(ok); }

  void OnDone() override {
    impl_->Untrack(impl_->streams_, state_);
    delete this;
  }

 private:
  RpcServer::Impl* impl_;
  std::shared_ptr<StreamState> state_;
  ByteBuffer buffer_;
  v1::RequestFrame frame_;
  struct Bound {
    Handler* handler;     // null when refused
    absl::Status status;  // why
    std::shared_ptr<const Caller> caller;
  };
  absl::flat_hash_map<uint32_t, Bound> binds_;  // gRPC reads are serial
};

}  // namespace

grpc::ServerGenericBidiReactor* RpcServer::Impl::CreateReactor(
    grpc::GenericCallbackServerContext* context) {
  if (context->method() == kChannelPath) return new StreamReactor(this);
  return new UnaryReactor(this, context);
}

RpcServer::RpcServer(const MethodTable* methods, std::shared_ptr<LoopRef> loop)
    : impl_(std::make_unique<Impl>(methods, std::move(loop))) {}

RpcServer::~RpcServer() { Stop(); }

absl::Status RpcServer::Start(const std::vector<std::string>& listen, SocketAccess access,
                              std::vector<std::string>* endpoints) {
  grpc::ServerBuilder builder;
  std::vector<std::unique_ptr<int>> ports;  // per endpoint; null for a Unix socket
  for (const std::string& endpoint : listen) {
    auto address = GrpcListenAddress(endpoint);
    if (!address.ok()) return address.status();
    if (endpoint.rfind("unix:", 0) == 0) {
      // Accepted by us, so that each call's peer credentials can be read (ipc/unix_listener.h).
      auto listener = UnixListener::Bind(endpoint.substr(5), access);
      if (!listener.ok()) return listener.status();
      impl_->listeners_.push_back(*std::move(listener));
      ports.push_back(nullptr);
      continue;
    }
    auto credentials = ServerCredentialsFor(endpoint);
    if (!credentials.ok()) return credentials.status();
    ports.push_back(std::make_unique<int>(0));
    builder.AddListeningPort(*address, *credentials, ports.back().get());
  }
  builder.RegisterCallbackGenericService(impl_.get());
  builder.SetMaxReceiveMessageSize(64 << 20);
  impl_->server_ = builder.BuildAndStart();
  if (impl_->server_ == nullptr) {
    impl_->listeners_.clear();
    return absl::UnavailableError(
        absl::StrFormat("cannot serve on %s", absl::StrJoin(listen, ", ")));
  }
  for (size_t i = 0; i < listen.size(); ++i) {
    if (ports[i] != nullptr && *ports[i] == 0) {
      Stop();
      return absl::UnavailableError(absl::StrFormat("cannot listen on %s", listen[i]));
    }
    std::string endpoint = listen[i];
    if (endpoint.rfind("tcp:", 0) == 0) {
      endpoint = endpoint.substr(0, endpoint.rfind(':') + 1) + std::to_string(*ports[i]);
    }
    endpoints->push_back(endpoint);
  }
  for (auto& listener : impl_->listeners_) listener->Start(impl_->server_.get());
  return absl::OkStatus();
}

void RpcServer::Stop() {
  if (impl_->server_ == nullptr) return;
  // No new connections first: a listener must not hand a descriptor to a stopped server.
  for (auto& listener : impl_->listeners_) listener->Stop();
  std::set<std::shared_ptr<UnaryState>> unaries;
  std::set<std::shared_ptr<StreamState>> streams;
  {
    std::lock_guard lock(impl_->mu_);
    impl_->stopping_ = true;
    unaries = impl_->unaries_;
    streams = impl_->streams_;
  }
  for (const auto& unary : unaries) unary->Finish(Unavailable());
  for (const auto& stream : streams) stream->Finish(Unavailable());
  impl_->server_->Shutdown();
  impl_->server_.reset();
  impl_->listeners_.clear();
}

}  // namespace sluice::ipc::internal
