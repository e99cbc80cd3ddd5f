#include "finder/finder_server.h"

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <deque>
#include <mutex>
#include <set>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "finder/registry.h"
#include "finder/relay.h"
#include "grpcpp/grpcpp.h"
#include "ipc/grpc_init.h"
#include "ipc/grpc_status.h"
#include "ipc/peer_identity.h"
#include "ipc/proto/finder.grpc.pb.h"
#include "ipc/random.h"
#include "ipc/rundir.h"
#include "ipc/transport.h"

namespace sluice::finder {
// Lets gRPC threads run code on the loop while the FinderServer lives (loop-thread flag).
struct LoopLink {
  boost::asio::io_context* io;
  FinderServer::Impl* impl;  // null once the server is gone (set on the loop thread)
};

// One Session stream's write side, shared by its reactor (gRPC threads) and the Registry's
// sink pointer (loop thread); outlives whichever goes first.
class SessionLink final : public SessionSink {
 public:
  explicit SessionLink(grpc::ServerBidiReactor<v1::SessionRequest, v1::SessionEvent>* reactor)
      : reactor_(reactor) {}

  void Send(v1::SessionEvent event) override {
    std::lock_guard lock(mu_);
    if (reactor_ == nullptr || finished_) return;
    queue_.push_back(std::move(event));
    if (!writing_) {
      writing_ = true;
      reactor_->StartWrite(&queue_.front());
    }
  }

  // From OnWriteDone.
  void WriteDone(bool ok) {
    std::lock_guard lock(mu_);
    queue_.pop_front();
    if (!ok) finished_write_side_ = true;
    if (!queue_.empty() && !finished_ && !finished_write_side_) {
      reactor_->StartWrite(&queue_.front());
    } else {
      writing_ = false;
    }
  }

  // Ends the stream with `status` (once).
  void Finish(const grpc::Status& status) {
    std::lock_guard lock(mu_);
    if (reactor_ == nullptr || finished_) return;
    finished_ = true;
    reactor_->Finish(status);
  }

  // From OnDone: the reactor is about to be deleted.
  void Detach() {
    std::lock_guard lock(mu_);
    reactor_ = nullptr;
  }

  SessionId id = 0;  // loop thread only

 private:
  std::mutex mu_;
  grpc::ServerBidiReactor<v1::SessionRequest, v1::SessionEvent>* reactor_;
  std::deque<v1::SessionEvent> queue_;  // front() is being written while writing_
  bool writing_ = false;
  bool finished_ = false;
  bool finished_write_side_ = false;
};

class FinderServer::Impl final : public v1::Finder::CallbackService {
 public:
  Impl(boost::asio::io_context& io, FinderOptions options)
      : io_(io),
        options_(std::move(options)),
        registry_(
            options_.access_list, [] { return ipc::RandomOctets(16); },
            options_.recovery_grace.count() > 0, Authority(options_.authority)),
        grace_timer_(io),
        link_(std::make_shared<LoopLink>(LoopLink{&io, this})),
        relay_([this](ipc::PeerIdentity who, std::string target, std::string method,
                      RelayService::Answer answer) {
          DecideRelay(std::move(who), std::move(target), std::move(method), std::move(answer));
        }) {
    ipc::HoldGrpcForProcessLifetime();
  }

  // gRPC thread: posts the decision to the loop; answers UNAVAILABLE if the Finder is gone.
  void DecideRelay(ipc::PeerIdentity who, std::string target, std::string method,
                   RelayService::Answer answer) {
    auto shared = std::make_shared<RelayService::Answer>(std::move(answer));
    auto fail = std::shared_ptr<void>(nullptr, [shared](void*) {
      if (*shared) (*shared)(absl::UnavailableError("the Finder is shutting down"));
    });
    OnLoop([shared, fail, who = std::move(who), target = std::move(target),
            method = std::move(method)](Impl& impl) {
      RelayService::Answer answer = std::exchange(*shared, nullptr);
      auto principal = impl.registry_.authority().Identify(who);
      if (!principal.ok()) return answer(principal.status());
      if (!principal->person) {
        return answer(absl::PermissionDeniedError(
            "the Finder relays people's calls only; a component calls its targets itself"));
      }
      answer(impl.registry_.Relay(*principal, target, method));
    });
  }

  // gRPC thread: whether the caller of a unary Finder method may have an answer.
  absl::Status Authorize(grpc::CallbackServerContext* context) {
    return registry_.authority().Identify(ipc::IdentifyPeer(*context)).status();
  }

  ~Impl() override {
    Stop();
    link_->impl = nullptr;
  }

  absl::Status Start();
  void Stop();
  absl::Status AdoptListeners();

  // Runs `f(impl)` on the loop if the server still exists then.
  template <typename F>
  void OnLoop(F f) {
    boost::asio::post(*link_->io, [link = link_, f = std::move(f)]() mutable {
      if (link->impl != nullptr) f(*link->impl);
    });
  }

  grpc::ServerBidiReactor<v1::SessionRequest, v1::SessionEvent>* Session(
      grpc::CallbackServerContext* context) override;
  grpc::ServerUnaryReactor* ListTargets(grpc::CallbackServerContext* context,
                                        const v1::ListTargetsRequest* request,
                                        v1::ListTargetsReply* reply) override;
  grpc::ServerUnaryReactor* GetDescriptors(grpc::CallbackServerContext* context,
                                           const v1::GetDescriptorsRequest* request,
                                           v1::GetDescriptorsReply* reply) override;

  // Unary calls waiting for the loop, so that Stop() can answer them.
  struct PendingUnary {
    std::mutex mu;
    grpc::ServerUnaryReactor* reactor;
    bool done = false;
    void Finish(const grpc::Status& status) {
      std::lock_guard lock(mu);
      if (done) return;
      done = true;
      reactor->Finish(status);
    }
  };
  std::shared_ptr<PendingUnary> AddPending(grpc::ServerUnaryReactor* reactor);
  void RemovePending(const std::shared_ptr<PendingUnary>& pending);
  bool AddSession(const std::shared_ptr<SessionLink>& link);
  void RemoveSession(const std::shared_ptr<SessionLink>& link);

  boost::asio::io_context& io_;
  FinderOptions options_;
  Registry registry_;
  boost::asio::steady_timer grace_timer_;
  std::shared_ptr<LoopLink> link_;
  RelayService relay_;
  std::unique_ptr<grpc::Server> server_;
  std::vector<std::string> endpoints_;
  std::vector<std::unique_ptr<ipc::UnixListener>> listeners_;

  std::mutex mu_;  // guards what gRPC threads share: the sets below and stopping_
  bool stopping_ = false;
  std::set<std::shared_ptr<SessionLink>> sessions_;
  std::set<std::shared_ptr<PendingUnary>> pending_;
};

namespace {

class SessionReactor final : public grpc::ServerBidiReactor<v1::SessionRequest, v1::SessionEvent> {
 public:
  SessionReactor(FinderServer::Impl* impl, ipc::PeerIdentity peer)
      : impl_(impl), link_(std::make_shared<SessionLink>(this)) {
    if (!impl_->AddSession(link_)) {
      link_->Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the Finder is shutting down"));
      return;
    }
    impl_->OnLoop([link = link_, peer = std::move(peer)](FinderServer::Impl& impl) mutable {
      link->id = impl.registry_.Open(link.get(), std::move(peer));
    });
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      // The component went away (exit, crash, kill -9) or half-closed: it is dead.
      Closed(grpc::Status::OK);
      return;
    }
    try {
      impl_->OnLoop([link = link_, request = std::move(request_)](FinderServer::Impl& impl) {
        Handle(impl, *link, request);
      });
      request_.Clear();
    } catch (const std::exception& e) {
      // Out of memory, say: this session ends, the Finder goes on.
      Closed(grpc::Status(grpc::StatusCode::INTERNAL, e.what()));
      return;
    }
    StartRead(&request_);
  }

  void Closed(const grpc::Status& status) {
    link_->Finish(status);
    impl_->OnLoop([link = link_](FinderServer::Impl& impl) { impl.registry_.Close(link->id); });
  }

  void OnWriteDone(bool ok) override { link_->WriteDone(ok); }

  void OnDone() override {
    link_->Detach();
    impl_->RemoveSession(link_);
    delete this;
  }

 private:
  static void Handle(FinderServer::Impl& impl, SessionLink& link,
                     const v1::SessionRequest& request) {
    switch (request.kind_case()) {
      case v1::SessionRequest::kRegistration: {
        auto registered = impl.registry_.Register(link.id, request.registration());
        if (!registered.ok()) {
          SLUICE_LOG(kWarning) << "refused registration of " << request.registration().class_name()
                               << ": " << registered.status();
          link.Finish(ipc::ToGrpcStatus(registered.status()));
          return;
        }
        v1::SessionEvent event;
        *event.mutable_registered() = *std::move(registered);
        link.Send(std::move(event));
        return;
      }
      case v1::SessionRequest::kResolve: {
        std::optional<v1::ResolveReply> reply =
            impl.registry_.ResolveOrDefer(link.id, request.resolve());
        if (!reply) return;  // answered once the target re-registers (recovery grace)
        v1::SessionEvent event;
        *event.mutable_resolved() = *std::move(reply);
        link.Send(std::move(event));
        return;
      }
      case v1::SessionRequest::kWatch:
        impl.registry_.Watch(link.id, request.watch());
        return;
      case v1::SessionRequest::kUnwatch:
        impl.registry_.Unwatch(link.id, request.unwatch().watch_id());
        return;
      case v1::SessionRequest::kReady:
        impl.registry_.Ready(link.id);
        return;
      case v1::SessionRequest::KIND_NOT_SET:
        link.Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "empty session request"));
        return;
    }
  }

  FinderServer::Impl* impl_;
  std::shared_ptr<SessionLink> link_;
  v1::SessionRequest request_;
};

}  // namespace

bool FinderServer::Impl::AddSession(const std::shared_ptr<SessionLink>& link) {
  std::lock_guard lock(mu_);
  if (stopping_) return false;
  sessions_.insert(link);
  return true;
}

void FinderServer::Impl::RemoveSession(const std::shared_ptr<SessionLink>& link) {
  std::lock_guard lock(mu_);
  sessions_.erase(link);
}

std::shared_ptr<FinderServer::Impl::PendingUnary> FinderServer::Impl::AddPending(
    grpc::ServerUnaryReactor* reactor) {
  auto pending = std::make_shared<PendingUnary>();
  pending->reactor = reactor;
  std::lock_guard lock(mu_);
  if (stopping_) {
    pending->Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the Finder is shutting down"));
    return nullptr;
  }
  pending_.insert(pending);
  return pending;
}

void FinderServer::Impl::RemovePending(const std::shared_ptr<PendingUnary>& pending) {
  std::lock_guard lock(mu_);
  pending_.erase(pending);
}

grpc::ServerBidiReactor<v1::SessionRequest, v1::SessionEvent>* FinderServer::Impl::Session(
    grpc::CallbackServerContext* context) {
  return new SessionReactor(this, ipc::IdentifyPeer(*context));
}

grpc::ServerUnaryReactor* FinderServer::Impl::ListTargets(grpc::CallbackServerContext* context,
                                                          const v1::ListTargetsRequest* request,
                                                          v1::ListTargetsReply* reply) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (absl::Status status = Authorize(context); !status.ok()) {
    reactor->Finish(ipc::ToGrpcStatus(status));
    return reactor;
  }
  auto pending = AddPending(reactor);
  if (pending == nullptr) return reactor;
  OnLoop([pending, reply](Impl& impl) {
    {
      std::lock_guard lock(pending->mu);
      if (pending->done) return;
      *reply = impl.registry_.ListTargets();
    }
    pending->Finish(grpc::Status::OK);
    impl.RemovePending(pending);
  });
  return reactor;
}

grpc::ServerUnaryReactor* FinderServer::Impl::GetDescriptors(
    grpc::CallbackServerContext* context, const v1::GetDescriptorsRequest* request,
    v1::GetDescriptorsReply* reply) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (absl::Status status = Authorize(context); !status.ok()) {
    reactor->Finish(ipc::ToGrpcStatus(status));
    return reactor;
  }
  auto pending = AddPending(reactor);
  if (pending == nullptr) return reactor;
  OnLoop([pending, reply, service = request->service()](Impl& impl) {
    grpc::Status status;
    {
      std::lock_guard lock(pending->mu);
      if (pending->done) return;
      auto descriptors = impl.registry_.GetDescriptors(service);
      if (descriptors.ok()) {
        *reply = *std::move(descriptors);
      } else {
        status = ipc::ToGrpcStatus(descriptors.status());
      }
    }
    pending->Finish(status);
    impl.RemovePending(pending);
  });
  return reactor;
}

absl::Status FinderServer::Impl::Start() {
  if (server_ != nullptr) return absl::FailedPreconditionError("the Finder is already started");
  std::vector<std::string> listen = options_.listen;
  if (listen.empty() && options_.listen_fds.empty()) {
    absl::Status status = ipc::EnsureRunDir(ipc::RunDir());
    if (!status.ok()) return status;
    listen.push_back(ipc::DefaultFinderAddress());
  }
  RETURN_IF_ERROR(AdoptListeners());
  grpc::ServerBuilder builder;
  std::vector<std::unique_ptr<int>> ports;  // per endpoint; null for a Unix socket
  for (const std::string& endpoint : listen) {
    auto address = ipc::GrpcListenAddress(endpoint);
    if (!address.ok()) return address.status();
    if (endpoint.rfind("unix:", 0) == 0) {
      auto listener = ipc::UnixListener::Bind(endpoint.substr(5), options_.socket_access);
      if (!listener.ok()) return listener.status();
      listeners_.push_back(*std::move(listener));
      ports.push_back(nullptr);
      continue;
    }
    auto credentials = ipc::ServerCredentialsFor(endpoint);
    if (!credentials.ok()) return credentials.status();
    ports.push_back(std::make_unique<int>(0));
    builder.AddListeningPort(*address, *credentials, ports.back().get());
  }
  builder.RegisterService(this);
  builder.RegisterCallbackGenericService(&relay_);
  builder.SetMaxReceiveMessageSize(64 << 20);
  // A component on another host that dies without closing its connection (power loss, cable)
  // is noticed by keepalive pings within about 15 s.
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  // Components ping the same way (ipc/finder_session.cc): accepted every 5 s and more rarely.
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 5000);
  server_ = builder.BuildAndStart();
  if (server_ == nullptr) {
    listeners_.clear();
    return absl::UnavailableError(
        absl::StrFormat("the Finder cannot listen on %s (in use?)", absl::StrJoin(listen, ", ")));
  }
  for (const auto& listener : listeners_) {
    if (std::find(listen.begin(), listen.end(), "unix:" + listener->path()) == listen.end()) {
      endpoints_.push_back("unix:" + listener->path());  // inherited
    }
  }
  for (size_t i = 0; i < listen.size(); ++i) {
    if (ports[i] != nullptr && *ports[i] == 0) {
      return absl::UnavailableError(absl::StrFormat("the Finder cannot listen on %s", listen[i]));
    }
    std::string endpoint = listen[i];
    if (endpoint.rfind("tcp:", 0) == 0) {
      endpoint = endpoint.substr(0, endpoint.rfind(':') + 1) + std::to_string(*ports[i]);
    }
    endpoints_.push_back(endpoint);
  }
  for (auto& listener : listeners_) listener->Start(server_.get());
  if (options_.recovery_grace.count() > 0) {
    grace_timer_.expires_after(options_.recovery_grace);
    grace_timer_.async_wait([link = link_](const boost::system::error_code& error) {
      if (!error && link->impl != nullptr) link->impl->registry_.EndGrace();
    });
  }
  SLUICE_LOG(kInfo) << "Finder listening on " << absl::StrJoin(endpoints_, ", ");
  return absl::OkStatus();
}

void FinderServer::Impl::Stop() {
  if (server_ == nullptr) return;
  std::set<std::shared_ptr<SessionLink>> sessions;
  std::set<std::shared_ptr<PendingUnary>> pending;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    sessions = sessions_;
    pending = pending_;
  }
  for (auto& listener : listeners_) listener->Stop();
  grpc::Status bye(grpc::StatusCode::UNAVAILABLE, "the Finder is shutting down");
  for (const auto& session : sessions) session->Finish(bye);
  for (const auto& call : pending) call->Finish(bye);
  relay_.Stop();
  server_->Shutdown();
  server_.reset();
  listeners_.clear();
  grace_timer_.cancel();
}

absl::Status FinderServer::Impl::AdoptListeners() {
  for (int fd : options_.listen_fds) {
    auto listener = ipc::UnixListener::Adopt(fd);
    if (!listener.ok()) return listener.status();
    listeners_.push_back(*std::move(listener));
  }
  return absl::OkStatus();
}

FinderServer::FinderServer(boost::asio::io_context& io, FinderOptions options)
    : impl_(std::make_unique<Impl>(io, std::move(options))) {}
FinderServer::~FinderServer() = default;
absl::Status FinderServer::Start() { return impl_->Start(); }
void FinderServer::Stop() { impl_->Stop(); }
const std::vector<std::string>& FinderServer::endpoints() const { return impl_->endpoints_; }
Registry& FinderServer::registry() { return impl_->registry_; }

}  // namespace sluice::finder
