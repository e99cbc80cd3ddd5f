#pragma once
// RouterCore: the XrlRouter's machinery (internal to ipc/; processes use ipc/xrl_router.h).
//
// Loop-thread state only, apart from what it shares through MethodTable (handlers and keys,
// read by gRPC threads) and LoopRef (how other threads post to the loop). The pieces:
//   router_core.cc    setup, start, shutdown, common/1.0
//   router_calls.cc   calls: per-target ordered queues, resolution cache, dispatch in-process
//                     or over gRPC
//   router_finder.cc  the Finder session: registration, reconnection, resolutions, watches

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/steady_timer.hpp>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "ipc/handler.h"
#include "ipc/loop_ref.h"
#include "ipc/method_table.h"
#include "ipc/proto/common.pb.h"
#include "ipc/proto/finder.pb.h"
#include "ipc/xrl_router.h"

namespace sluice::ipc::internal {

class ChannelClient;
class FinderSession;
class RpcServer;

class RouterCore : public std::enable_shared_from_this<RouterCore> {
 public:
  RouterCore(boost::asio::io_context& io, std::string class_name, std::string instance_name,
             RouterOptions options);
  ~RouterCore();

  // --- setup (router_core.cc)
  absl::Status AddHandler(std::unique_ptr<Handler> handler) {
    return methods_.Add(std::move(handler));
  }
  void SetStatus(common::v1::ProcessStatus status, std::string reason);
  void SetShutdownHandler(std::function<void()> fn) { shutdown_handler_ = std::move(fn); }
  void OnReady(std::function<void(absl::Status)> fn) { on_ready_ = std::move(fn); }
  absl::Status Start();
  // Stops everything; the core stays as an inert shell for tasks still queued.
  void Shutdown();

  // --- calls (router_calls.cc)
  void Call(std::string_view target, const MethodName& method, std::unique_ptr<OutgoingCall> call);
  void CallText(std::string_view target, std::string_view method,
                std::unique_ptr<OutgoingCall> call);
  // Finishes `call` with `status` from a later loop task.
  void FailLater(std::unique_ptr<OutgoingCall> call, absl::Status status);

  // --- watches (router_finder.cc)
  WatchId Watch(bool by_class, std::string name, std::function<void(const TargetEvent&)> fn);
  void Unwatch(WatchId id);

  // --- for other routers of this process
  const std::shared_ptr<LoopRef>& loop() const { return loop_; }
  boost::asio::io_context& io() const { return io_; }
  const MethodTable& methods() const { return methods_; }

  const std::string& class_name() const { return class_name_; }
  const std::string& instance_name() const { return instance_name_; }
  const std::string& incarnation() const { return incarnation_; }
  // Who we are to the routers we call: "CLASS/INSTANCE" (ipc/caller.h). Shared, so that an
  // in-process call holds it without copying it.
  const std::shared_ptr<const Caller>& caller() const { return caller_; }
  bool registered() const { return visible_; }
  const std::vector<std::string>& endpoints() const { return endpoints_; }

 private:
  // A cached answer of the Finder for (target, service).
  // One method of a resolved service; what a call needs, found with one lookup.
  struct MethodEntry {
    std::string key;
    const void* checked_tag = nullptr;  // call types already checked against the method
    bool convert = false;               // in-process: request/reply types differ (dynamic)
    Handler* handler = nullptr;         // in-process: authorized handler, once looked up
    absl::Status handler_status;        // in-process: why there is no handler
  };
  struct Resolution {
    std::string instance;
    std::string endpoint;
    bool relay = false;  // we are a person: calls go through the Finder's relay
    absl::flat_hash_map<std::string, MethodEntry> methods;  // by method path
    std::shared_ptr<RouterCore> inproc;                     // the target, when in this process
    std::shared_ptr<ChannelClient> channel;                 // else
  };
  struct QueuedCall {
    MethodName method;
    std::unique_ptr<OutgoingCall> call;
  };
  // Calls to one target name: while the oldest waits for a resolution, later ones queue
  // behind it, so they leave in the order they were made.
  struct Target {
    absl::flat_hash_map<std::string, std::shared_ptr<Resolution>> services;
    std::deque<QueuedCall> queue;
  };
  using TargetService = std::pair<std::string, std::string>;

  enum class FinderState { kIdle, kConnecting, kRegistered, kDown };

  struct WatchState {
    bool by_class;
    std::string name;
    std::function<void(const TargetEvent&)> fn;
    absl::flat_hash_map<std::string, std::pair<std::string, std::string>>
        live;                               // instance -> (incarnation, class)
    bool resyncing = false;                 // after a Finder reconnect
    bool synced = false;                    // the Finder answered the watch once
    absl::flat_hash_set<std::string> seen;  // births since the resync began
  };

  // router_core.cc
  void AddCommonHandlers();
  std::vector<std::string> DefaultListen() const;

  // router_calls.cc
  void Dispatch(Resolution& resolution, const MethodName& method,
                std::unique_ptr<OutgoingCall> call);
  void DispatchInproc(Resolution& resolution, MethodEntry& entry, const MethodName& method,
                      std::unique_ptr<OutgoingCall> call);
  // Checks the call's request and reply types against the method (once per type pair).
  absl::Status CheckTypes(const MethodName& method, MethodEntry& entry, Resolution& resolution,
                          OutgoingCall& call);
  void Drain(const std::string& name, Target& target);
  // `tls_name`: over TLS, the name the peer's certificate must carry.
  std::shared_ptr<ChannelClient> ChannelTo(const std::string& endpoint, const std::string& target,
                                           const std::string& tls_name);
  // Keeps an ended gRPC client (session or channel) until no gRPC thread holds it, and frees it
  // on the loop: a gRPC thread must never drop the last reference to a grpc::Channel, or gRPC
  // shuts its callback queue down from that queue's own thread (abort or deadlock).
  void Retire(std::shared_ptr<void> client);
  void ChannelFailed(const std::string& endpoint);
  void Invalidate(const std::string& instance);

  // router_finder.cc
  void Connect();
  finder::v1::Registration BuildRegistration();
  void OnSessionEvent(uint64_t generation, finder::v1::SessionEvent event);
  void OnSessionClosed(uint64_t generation, absl::Status status);
  void OnRegistered(const finder::v1::Registered& registered);
  void OnVisible();
  void OnResolved(const finder::v1::ResolveReply& reply);
  void OnLifetime(const finder::v1::LifetimeEvent& event);
  void OnSynced(uint64_t watch_id);
  void RequestResolution(const std::string& target, const std::string& service);
  void SendWatch(WatchId id, const WatchState& watch);
  void FailUnresolved(const absl::Status& status);
  void ReportReady(const absl::Status& status);

  boost::asio::io_context& io_;
  const std::string class_name_;
  std::string instance_name_;
  std::shared_ptr<const Caller> caller_;  // class_name_ and instance_name_
  const RouterOptions options_;
  std::string finder_address_;
  std::shared_ptr<LoopRef> loop_;
  std::shared_ptr<ReactorCount> reactors_;
  MethodTable methods_;
  std::unique_ptr<RpcServer> server_;
  std::vector<std::string> endpoints_;
  std::string inproc_endpoint_;
  const std::string incarnation_;
  bool started_ = false;
  bool shut_down_ = false;

  // common/1.0
  common::v1::ProcessStatus status_ = common::v1::STARTUP;
  std::string status_reason_;
  bool status_set_ = false;
  std::function<void()> shutdown_handler_;

  // Calls.
  absl::flat_hash_map<std::string, Target> targets_;
  absl::flat_hash_map<std::string, std::shared_ptr<ChannelClient>> channels_;  // by endpoint
  std::vector<std::shared_ptr<void>> retired_;
  absl::flat_hash_map<std::string, absl::StatusOr<MethodName>> text_methods_;
  absl::flat_hash_map<std::string, const google::protobuf::MethodDescriptor*> method_types_;

  // The Finder.
  FinderState finder_state_ = FinderState::kIdle;
  std::shared_ptr<FinderSession> session_;
  uint64_t session_generation_ = 0;
  bool ever_registered_ = false;
  bool visible_ = false;     // the Finder confirmed `ready`: others can resolve us
  bool waited_out_ = false;  // finder_wait_ms passed without a registration
  absl::Status finder_error_;
  // While started: io_context::run() does not return while calls are inside gRPC.
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  std::unique_ptr<boost::asio::steady_timer> retry_timer_;
  std::unique_ptr<boost::asio::steady_timer> wait_timer_;
  int retry_delay_ms_ = 50;
  std::vector<std::pair<std::string, std::string>> keys_;  // as last registered
  std::function<void(absl::Status)> on_ready_;
  uint64_t next_resolve_id_ = 1;
  absl::flat_hash_map<uint64_t, TargetService> resolving_;
  absl::flat_hash_set<TargetService> in_flight_;
  absl::flat_hash_map<TargetService, absl::Status> failed_;  // during Drain

  // Watches.
  WatchId next_watch_id_ = 1;
  absl::flat_hash_map<WatchId, WatchState> watches_;
};

}  // namespace sluice::ipc::internal
