#include "finder/relay.h"

#include "absl/strings/str_format.h"
#include "base/log.h"
#include "ipc/call_metadata.h"
#include "ipc/transport.h"

namespace sluice::finder {
namespace {

constexpr size_t kMaxStubs = 256;

// A Unix socket when the target has one (same host), else TCP.
std::string PickEndpoint(const Registry::RelayTarget& target) {
  std::string tcp;
  for (const std::string& endpoint : target.endpoints) {
    if (endpoint.rfind("unix:", 0) == 0) return endpoint;
    if (endpoint.rfind("tcp:", 0) == 0 && tcp.empty()) tcp = endpoint;
  }
  return tcp;
}

grpc::Status ToGrpc(const absl::Status& status) {
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

}  // namespace

class RelayService::Call final : public grpc::ServerGenericBidiReactor {
 public:
  Call(RelayService* service, grpc::GenericCallbackServerContext* context)
      : service_(service), context_(context) {
    if (!service_->Track(this)) {
      Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the Finder is shutting down"));
      return;
    }
    StartRead(&request_);
  }

  // A gRPC thread: an exception fails this call only.
  void OnReadDone(bool ok) override {
    try {
      Read(ok);
    } catch (const std::exception& e) {
      Finish(grpc::Status(grpc::StatusCode::INTERNAL, e.what()));
    }
  }

  void Read(bool ok) {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no request message"));
      return;
    }
    const std::string target(ipc::MetadataValue(*context_, ipc::kTargetMetadata));
    if (target.empty()) {
      Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                          absl::StrFormat("the Finder has no method %s (to relay a call, name "
                                          "the target in %s)",
                                          context_->method(), ipc::kTargetMetadata)));
      return;
    }
    service_->decide_(ipc::IdentifyPeer(*context_), target, context_->method(),
                      [this](absl::StatusOr<Registry::RelayTarget> relay) { Forward(relay); });
  }

  void OnCancel() override {
    std::lock_guard lock(mu_);
    cancelled_ = true;
    if (forward_ != nullptr) forward_->TryCancel();
  }

  void OnDone() override {
    service_->Untrack(this);
    Release();
  }

  // Once, from any thread.
  void Finish(const grpc::Status& status) {
    std::lock_guard lock(mu_);
    if (finished_) return;
    finished_ = true;
    if (status.ok()) {
      StartWriteAndFinish(&reply_, grpc::WriteOptions(), status);
    } else {
      grpc::ServerGenericBidiReactor::Finish(status);
    }
  }

 private:
  void Forward(const absl::StatusOr<Registry::RelayTarget>& relay) {
    if (!relay.ok()) return Finish(ToGrpc(relay.status()));
    const std::string endpoint = PickEndpoint(*relay);
    if (endpoint.empty()) {
      return Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                 absl::StrFormat("%s has no endpoint", relay->instance)));
    }
    auto stub = service_->StubFor(
        endpoint, relay->certificate.empty() ? relay->instance : relay->certificate);
    if (!stub.ok()) return Finish(ToGrpc(stub.status()));
    {
      std::lock_guard lock(mu_);
      if (cancelled_ || finished_) return;
      forward_ = std::make_unique<grpc::ClientContext>();
      forward_->AddMetadata(ipc::kKeyMetadata, ipc::HexKey(relay->key));
      forward_->AddMetadata(ipc::kCallerMetadata, relay->caller_id);
      ++refs_;  // the forwarded call holds us until its callback
    }
    (*stub)->UnaryCall(forward_.get(), context_->method(), grpc::StubOptions(), &request_, &reply_,
                       [this, endpoint](grpc::Status status) {
                         if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
                           service_->ForgetStub(endpoint);
                         }
                         Finish(status);
                         Release();
                       });
  }

  // The reactor (OnDone) and a forwarded call in flight each hold a reference.
  void Release() {
    bool last = false;
    {
      std::lock_guard lock(mu_);
      last = --refs_ == 0;
    }
    if (last) delete this;
  }

  RelayService* service_;
  grpc::GenericCallbackServerContext* context_;
  grpc::ByteBuffer request_;
  grpc::ByteBuffer reply_;
  std::mutex mu_;
  std::unique_ptr<grpc::ClientContext> forward_;
  bool cancelled_ = false;
  bool finished_ = false;
  int refs_ = 1;
};

RelayService::RelayService(Decide decide) : decide_(std::move(decide)) {}

RelayService::~RelayService() { Stop(); }

grpc::ServerGenericBidiReactor* RelayService::CreateReactor(
    grpc::GenericCallbackServerContext* context) {
  return new Call(this, context);
}

bool RelayService::Track(Call* call) {
  std::lock_guard lock(mu_);
  if (stopping_) return false;
  calls_.insert(call);
  return true;
}

void RelayService::Untrack(Call* call) {
  std::lock_guard lock(mu_);
  calls_.erase(call);
}

void RelayService::Stop() {
  std::set<Call*> calls;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    calls = calls_;
  }
  for (Call* call : calls) {
    call->Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the Finder is shutting down"));
  }
}

absl::StatusOr<std::shared_ptr<grpc::GenericStub>> RelayService::StubFor(
    const std::string& endpoint, const std::string& tls_name) {
  std::lock_guard lock(mu_);
  auto it = stubs_.find(endpoint);
  if (it != stubs_.end()) return it->second;
  if (stubs_.size() >= kMaxStubs) stubs_.clear();  // endpoints of components long gone
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  auto channel = ipc::OpenChannel(endpoint, tls_name, args);
  if (!channel.ok()) return channel.status();
  auto stub = std::make_shared<grpc::GenericStub>(*channel);
  stubs_.emplace(endpoint, stub);
  return stub;
}

void RelayService::ForgetStub(const std::string& endpoint) {
  std::lock_guard lock(mu_);
  stubs_.erase(endpoint);
}

}  // namespace sluice::finder
