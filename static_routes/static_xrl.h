#pragma once
// The IPC side of sluice-static: the RIB reached through rib/1.0 only, and the
// methods it serves. Nothing here keeps routing state; StaticRoutes (static_routes.h) does.
//
//   XrlRibClient: RibSink       → rib/1.0 add_route4/6 (adds or replaces), delete_route4/6,
//                                 protocol "static"
//                 NexthopTracker → rib/1.0 register_interest / deregister_interest (client = our
//                                 instance, which the RIB calls back on rib_client/1.0)
//                 RegisterProtocol() → rib/1.0 register_protocol("static", our instance, restart
//                                 time): when the Finder reports our death the RIB keeps our
//                                 routes, stale, for the restart time (0: drops them); with
//                                 `resync` (after a lost call) it holds them stale until our
//                                 end-of-RIB
//                 lost calls     → set_on_lost_call's callback: a call of the current session
//                                 that may not have reached the RIB (IsLostCall,
//                                 base/lost_call.h) while it
//                                 is up; the owner re-synchronises (ipc/resync.h)
//                 EndOfRib()     → rib/1.0 end_of_rib("static") once every nexthop question
//                                 asked so far is answered (tracked routes are in): the RIB
//                                 withdraws the stale routes we did not send again
//                 DeregisterProtocol() → rib/1.0 deregister_protocol: a deliberate stop
//   ServeStatic: static_routes/1.0 add_route, delete_route, list_routes → StaticRoutes;
//                synced → `on_synced`
//                rib_client/1.0 route_info_invalid → StaticRoutes::RouteInfoInvalid;
//                redist_routes → UNIMPLEMENTED (we subscribe to nothing)
//
// Calls to the RIB travel on the router's ordered stream to it, so adds and deletes arrive in
// the order made. Everything on the router's event loop.

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "ipc/xrl_router.h"
#include "static_routes/static_routes.h"

namespace sluice::static_routes {

class XrlRibClient : public RibSink, public NexthopTracker {
 public:
  // `router` outlives the client; `rib_target`: the RIB's class or instance.
  XrlRibClient(ipc::XrlRouter* router, std::string rib_target,
               std::chrono::seconds restart_time = std::chrono::seconds(60));
  ~XrlRibClient() override;

  void Add(const StaticRoute& route) override;
  void Delete(const net::Prefix& network) override;
  void Register(const net::IPAddress& nexthop, Answer answer) override;
  void Deregister(const net::Prefix& valid_subnet) override;
  // A re-synchronisation begins (registration, then every route): losses of earlier calls are
  // no longer reported.
  void NewSession() { ++session_; }
  void RegisterProtocol(bool resync = false);
  // Sends end_of_rib once the nexthop questions in flight are answered.
  void EndOfRib();
  // Calls `done` when the RIB has answered (or failed).
  void DeregisterProtocol(std::function<void()> done);

  uint64_t failed_calls() const { return failed_calls_; }
  // Runs on the loop for each call of the current session lost on its way to the RIB.
  void set_on_lost_call(std::function<void()> on_lost_call) {
    on_lost_call_ = std::move(on_lost_call);
  }

 private:
  ipc::XrlRouter* router_;
  std::string rib_target_;
  std::chrono::seconds restart_time_;
  uint64_t failed_calls_ = 0;
  uint64_t session_ = 0;
  std::function<void()> on_lost_call_;
  size_t asking_ = 0;  // register_interest calls not answered yet
  bool end_of_rib_pending_ = false;
  void MaybeEndOfRib();
  // A call of `session` failed: counted, and reported when lost in the current session.
  void Failed(uint64_t session, const absl::Status& status);
  // The callback of a call whose only answer that matters is a failure, logged as `what`.
  template <typename Reply>
  std::function<void(absl::StatusOr<Reply>)> OnFailure(std::string what);
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

// Registers the handlers (before router.Start()). Errors: those of XrlRouter::Handle.
absl::Status ServeStatic(ipc::XrlRouter& router, StaticRoutes& routes,
                         std::function<void()> on_synced);

}  // namespace sluice::static_routes
