#include "ipc/channel_client.h"

#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/impl/codegen/proto_utils.h"
#include "ipc/call_metadata.h"
#include "ipc/grpc_status.h"
#include "ipc/proto/channel.pb.h"
#include "ipc/rpc_server.h"
#include "ipc/rundir.h"
#include "ipc/transport.h"

namespace sluice::ipc::internal {
namespace {

using grpc::ByteBuffer;
using Traits = grpc::SerializationTraits<google::protobuf::Message>;

class ChannelClientImpl final : public ChannelClient,
                                public grpc::ClientBidiReactor<ByteBuffer, ByteBuffer>,
                                public std::enable_shared_from_this<ChannelClientImpl> {
 public:
  ChannelClientImpl(ChannelPeer peer, std::shared_ptr<LoopRef> loop,
                    std::shared_ptr<ReactorCount> reactors,
                    std::function<void(absl::Status)> on_failure)
      : peer_(std::move(peer)),
        endpoint_(peer_.endpoint),
        target_(peer_.target),
        loop_(std::move(loop)),
        reactors_(std::move(reactors)),
        on_failure_(std::move(on_failure)) {}

  // Makes the gRPC channel (or fails every later call when the endpoint is malformed).
  void Open() {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(64 << 20);
    SetReconnect(args, 1000);
    auto channel = OpenChannel(endpoint_, peer_.tls_name, args);
    if (!channel.ok()) {
      failed_ = true;
      failure_ = channel.status();
      return;
    }
    channel_ = *std::move(channel);
    stub_ = std::make_unique<grpc::GenericStub>(channel_);
  }

  void Send(const std::string& path, const std::string& key,
            std::unique_ptr<OutgoingCall> call) override {
    if (failed_) {
      FailLater(std::move(call));
      return;
    }
    if (!stream_started_) StartStream();
    uint64_t seq = next_seq_++;
    std::string payload = call->request().SerializeAsString();
    pending_.emplace(seq, std::move(call));
    std::string bind_key = absl::StrCat(path, "\n", key);
    auto bind = binds_.find(bind_key);
    bool new_bind = bind == binds_.end();
    if (new_bind) bind = binds_.emplace(bind_key, next_bind_++).first;
    std::lock_guard lock(mu_);
    if (broken_) return;  // the failure on its way to the loop fails this call too
    if (new_bind) {
      auto* b = next_.add_binds();
      b->set_id(bind->second);
      b->set_method(path);
      b->set_key(key);
      b->set_caller(peer_.caller_id);
    }
    auto* c = next_.add_calls();
    c->set_seq(seq);
    c->set_bind(bind->second);
    c->set_payload(std::move(payload));
    if (!writing_) StartWriteLocked();
  }

  void SendUnary(const std::string& path, const std::string& key, const std::string& relay_to,
                 std::unique_ptr<OutgoingCall> call) override;

  void Cancel() override {
    failed_ = true;
    pending_.clear();
    context_.TryCancel();
    std::lock_guard lock(mu_);
    for (grpc::ClientContext* context : unary_contexts_) context->TryCancel();
  }

  const std::string& endpoint() const override { return endpoint_; }

  // --- gRPC reactions (gRPC threads)

  void OnWriteDone(bool ok) override {
    std::lock_guard lock(mu_);
    writing_ = false;
    if (!ok) {
      broken_ = true;
      return;
    }
    if (next_.calls_size() > 0 || next_.binds_size() > 0) StartWriteLocked();
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      {
        std::lock_guard lock(mu_);
        broken_ = true;
      }
      RemoveHold();
      return;
    }
    auto frame = std::make_unique<v1::ReplyFrame>();
    bool parsed = Traits::Deserialize(&in_, frame.get()).ok();
    if (!parsed) {
      context_.TryCancel();
      return;
    }
    loop_->Post([self = self_, frame = std::move(frame)] { self->Deliver(*frame); });
    StartRead(&in_);
  }

  void OnDone(const grpc::Status& status) override {
    auto reactors = reactors_;
    loop_->Post([self = self_, status] { self->Fail(FromGrpcStatus(status)); });
    self_.reset();  // may delete this
    reactors->Done();
  }

 private:
  // The ordered stream opens with the first call.
  void StartStream() {
    stream_started_ = true;
    self_ = shared_from_this();
    reactors_->Add();
    stub_->PrepareBidiStreamingCall(&context_, kChannelPath, grpc::StubOptions(), this);
    AddHold();  // writes start outside reactions
    StartRead(&in_);
    StartCall();
  }

  void StartWriteLocked() {
    out_.Clear();
    bool own = false;
    Traits::Serialize(next_, &out_, &own);
    next_.Clear();
    writing_ = true;
    StartWrite(&out_);
  }

  // Loop thread.
  void Deliver(const v1::ReplyFrame& frame) {
    for (const auto& reply : frame.replies()) {
      auto it = pending_.find(reply.seq());
      if (it == pending_.end()) continue;
      std::unique_ptr<OutgoingCall> call = std::move(it->second);
      pending_.erase(it);
      absl::Status status = StatusFromWire(reply.code(), reply.message());
      if (status.ok() && !call->reply()->ParseFromString(reply.payload())) {
        status =
            absl::InternalError(absl::StrFormat("cannot parse the reply from %s as %s", target_,
                                                call->reply()->GetDescriptor()->full_name()));
      }
      call->Finish(status);
    }
  }

  absl::Status Failure(const absl::Status& status) const {
    return MarkUnreached(absl::UnavailableError(
        absl::StrFormat("lost the connection to %s (%s): %s", target_, endpoint_,
                        status.ok() ? "the stream ended" : std::string(status.message()))));
  }

  // Loop thread: the stream is over.
  void Fail(const absl::Status& status) {
    failed_ = true;
    failure_ = Failure(status);
    auto pending = std::move(pending_);
    pending_.clear();
    for (auto& [seq, call] : pending) call->Finish(failure_);
    if (on_failure_) on_failure_(failure_);
  }

  void FailLater(std::unique_ptr<OutgoingCall> call) {
    loop_->PostFromLoop(
        [call = std::move(call), status = failure_]() mutable { call->Finish(status); });
  }

  const ChannelPeer peer_;
  const std::string& endpoint_;
  const std::string& target_;
  std::shared_ptr<LoopRef> loop_;
  std::shared_ptr<ReactorCount> reactors_;
  std::function<void(absl::Status)> on_failure_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<grpc::GenericStub> stub_;
  std::shared_ptr<ChannelClientImpl> self_;  // until OnDone

  // Loop thread.
  uint64_t next_seq_ = 1;
  uint32_t next_bind_ = 1;
  absl::flat_hash_map<uint64_t, std::unique_ptr<OutgoingCall>> pending_;
  absl::flat_hash_map<std::string, uint32_t> binds_;
  bool failed_ = false;
  bool stream_started_ = false;
  absl::Status failure_;

  // Shared with gRPC threads.
  std::mutex mu_;
  v1::RequestFrame next_;  // binds and calls waiting for the next write
  ByteBuffer out_;         // being written while writing_
  bool writing_ = false;
  bool broken_ = false;
  std::set<grpc::ClientContext*> unary_contexts_;

  grpc::ClientContext context_;
  ByteBuffer in_;
};

// One unary call in flight.
struct UnaryClientCall {
  std::unique_ptr<OutgoingCall> call;
  grpc::ClientContext context;
  ByteBuffer request;
  ByteBuffer reply;
};

void ChannelClientImpl::SendUnary(const std::string& path, const std::string& key,
                                  const std::string& relay_to, std::unique_ptr<OutgoingCall> call) {
  if (failed_) {
    FailLater(std::move(call));
    return;
  }
  auto unary = std::make_unique<UnaryClientCall>();
  if (!key.empty()) unary->context.AddMetadata(kKeyMetadata, HexKey(key));
  unary->context.AddMetadata(kCallerMetadata, peer_.caller_id);
  if (!relay_to.empty()) unary->context.AddMetadata(kTargetMetadata, relay_to);
  bool own = false;
  Traits::Serialize(call->request(), &unary->request, &own);
  unary->call = std::move(call);
  UnaryClientCall* raw = unary.release();
  {
    std::lock_guard lock(mu_);
    unary_contexts_.insert(&raw->context);
  }
  reactors_->Add();
  stub_->UnaryCall(
      &raw->context, path, grpc::StubOptions(), &raw->request, &raw->reply,
      [raw, self = shared_from_this(), loop = loop_, reactors = reactors_, target = target_,
       endpoint = endpoint_](grpc::Status status) mutable {
        {
          std::lock_guard lock(self->mu_);
          self->unary_contexts_.erase(&raw->context);
        }
        // Let go of the channel before Done(): gRPC destroys this callback only after its own
        // last unref of the call, when Shutdown() may have returned and dropped the router's
        // references. The channel must not die on this thread: the teardown of a process's last
        // gRPC channel joins gRPC's callback threads, this one included, and a process that
        // exits while this thread still tears it down aborts in gRPC.
        self.reset();
        std::unique_ptr<UnaryClientCall> unary(raw);
        loop->Post([unary = std::move(unary), status, target, endpoint]() mutable {
          absl::Status result = FromGrpcStatus(status);
          if (result.code() == absl::StatusCode::kUnavailable) {
            result = absl::UnavailableError(
                absl::StrFormat("cannot reach %s (%s): %s", target, endpoint, result.message()));
          }
          if (result.ok() && !Traits::Deserialize(&unary->reply, unary->call->reply()).ok()) {
            result = absl::InternalError(absl::StrFormat("cannot parse the reply from %s", target));
          }
          unary->call->Finish(result);
        });
        reactors->Done();
      });
}

}  // namespace

std::shared_ptr<ChannelClient> ChannelClient::Create(ChannelPeer peer,
                                                     std::shared_ptr<LoopRef> loop,
                                                     std::shared_ptr<ReactorCount> reactors,
                                                     std::function<void(absl::Status)> on_failure) {
  auto channel = std::make_shared<ChannelClientImpl>(std::move(peer), std::move(loop),
                                                     std::move(reactors), std::move(on_failure));
  channel->Open();
  return channel;
}

}  // namespace sluice::ipc::internal
