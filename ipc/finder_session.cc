#include "ipc/finder_session.h"

#include <deque>

#include "absl/strings/str_format.h"
#include "grpcpp/grpcpp.h"
#include "ipc/grpc_status.h"
#include "ipc/proto/finder.grpc.pb.h"
#include "ipc/transport.h"

namespace sluice::ipc::internal {
namespace {

using finder::v1::SessionEvent;
using finder::v1::SessionRequest;

class FinderSessionImpl final : public FinderSession,
                                public grpc::ClientBidiReactor<SessionRequest, SessionEvent>,
                                public std::enable_shared_from_this<FinderSessionImpl> {
 public:
  FinderSessionImpl(std::string address, std::shared_ptr<LoopRef> loop,
                    std::shared_ptr<ReactorCount> reactors,
                    std::function<void(SessionEvent)> on_event,
                    std::function<void(absl::Status)> on_closed)
      : address_(std::move(address)),
        loop_(std::move(loop)),
        reactors_(std::move(reactors)),
        on_event_(std::move(on_event)),
        on_closed_(std::move(on_closed)) {}

  void Open(const finder::v1::Registration& registration) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(64 << 20);
    SetReconnect(args, 500);
    // A private connection per session, so a new session after a Finder restart does not
    // wait out the backoff of the old one.
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    // A Finder on another host that becomes unreachable without closing the connection (a
    // partition; its close is lost with it) is noticed by keepalive pings within about 15 s,
    // and the session is opened again once it answers (finder/finder_server.cc accepts them).
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
    args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
    auto channel = OpenChannel(address_, "finder", args);
    if (!channel.ok()) {
      loop_->PostFromLoop(
          [self = shared_from_this(), status = channel.status()] { self->Closed(status); });
      return;
    }
    stub_ = finder::v1::Finder::NewStub(*channel);
    self_ = shared_from_this();
    reactors_->Add();
    stub_->async()->Session(&context_, this);
    AddHold();
    SessionRequest first;
    *first.mutable_registration() = registration;
    Send(std::move(first));
    StartRead(&event_);
    StartCall();
  }

  void Send(SessionRequest request) override {
    std::lock_guard lock(mu_);
    if (broken_) return;
    queue_.push_back(std::move(request));
    if (!writing_) {
      writing_ = true;
      StartWrite(&queue_.front());
    }
  }

  void Cancel() override {
    cancelled_ = true;
    context_.TryCancel();
  }

  void OnWriteDone(bool ok) override {
    std::lock_guard lock(mu_);
    queue_.pop_front();
    if (!ok) broken_ = true;
    if (!broken_ && !queue_.empty()) {
      StartWrite(&queue_.front());
    } else {
      writing_ = false;
    }
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
    loop_->Post([self = self_, event = std::move(event_)]() mutable {
      if (!self->cancelled_) self->on_event_(std::move(event));
    });
    event_.Clear();
    StartRead(&event_);
  }

  void OnDone(const grpc::Status& status) override {
    auto reactors = reactors_;
    loop_->Post([self = self_, status] { self->Closed(FromGrpcStatus(status)); });
    self_.reset();  // may delete this
    reactors->Done();
  }

 private:
  // Loop thread.
  void Closed(absl::Status status) {
    if (cancelled_) return;
    cancelled_ = true;
    if (status.ok()) status = absl::UnavailableError("the Finder ended the session");
    on_closed_(std::move(status));
  }

  const std::string address_;
  std::shared_ptr<LoopRef> loop_;
  std::shared_ptr<ReactorCount> reactors_;
  std::function<void(SessionEvent)> on_event_;
  std::function<void(absl::Status)> on_closed_;
  std::unique_ptr<finder::v1::Finder::Stub> stub_;
  std::shared_ptr<FinderSessionImpl> self_;
  bool cancelled_ = false;  // loop thread

  std::mutex mu_;
  std::deque<SessionRequest> queue_;  // front() is being written while writing_
  bool writing_ = false;
  bool broken_ = false;

  grpc::ClientContext context_;
  SessionEvent event_;
};

}  // namespace

std::shared_ptr<FinderSession> FinderSession::Start(
    const std::string& finder_address, const finder::v1::Registration& registration,
    std::shared_ptr<LoopRef> loop, std::shared_ptr<ReactorCount> reactors,
    std::function<void(finder::v1::SessionEvent)> on_event,
    std::function<void(absl::Status)> on_closed) {
  auto session =
      std::make_shared<FinderSessionImpl>(finder_address, std::move(loop), std::move(reactors),
                                          std::move(on_event), std::move(on_closed));
  session->Open(registration);
  return session;
}

}  // namespace sluice::ipc::internal
