#pragma once
// RibIpcClient: BGP's side of the RIB process over rib/1.0 — the
// NexthopInterestClient and RibRouteClient of bgp/stages/rib_client.h, as XRL calls.
//
//   RegisterInterest(nh)    → rib/1.0/register_interest(client = our instance, address = nh);
//                             the answer's resolvable, metric and valid_subnet go back to the
//                             NexthopCache. An error (no RIB) answers "unresolvable" through the
//                             error; the cache asks again when a RIB is born.
//   DeregisterInterest(s)   → rib/1.0/deregister_interest
//   SendRoutes(batch)       → the batch cut into runs of one operation and one protocol, each
//                             run one call: rib/1.0/add_routes_packed (adds whose prefixes and
//                             nexthops are all of the batch's family; else add_routes) or
//                             delete_routes with protocol "ebgp" or "ibgp" (a route's metric
//                             is its MED). The calls travel
//                             on the router's ordered stream to the RIB, so batches are applied
//                             in the order sent, several in flight. `done` runs once every
//                             call of the batch answered: OK, or the first error.
//   RegisterProtocols(t, r) → rib/1.0/register_protocol for "ebgp" and "ibgp", owned by our
//                             instance, with restart time `t` s: the RIB keeps their routes, stale,
//                             that long when we die (RFC 4724 applied to the RIB). `r` gets the
//                             stale routes the RIB still holds from our predecessor (> 0: this
//                             process is restarting). Called on each RIB birth, before the re-feed.
//   EndOfRib()              → rib/1.0/end_of_rib for both: every route was re-sent; the RIB
//                             withdraws what our predecessor left and we did not send again.
//   DeregisterProtocols()   → rib/1.0/deregister_protocol for both: a deliberate stop; the RIB
//                             withdraws our routes at once. Route calls after it are dropped.
//
// A registration, route, interest, redist_subscribe or End-of-RIB call that does not reach the
// RIB (UNAVAILABLE or DEADLINE_EXCEEDED: the connection failed or timed out) is lost:
// set_on_lost_call's callback runs (the owner re-synchronises, ipc/resync.h, unless the RIB
// died). Calls made before the last NewSession() do not count: the re-synchronisation that began
// with it repairs them.
//
// The RIB's callbacks (rib_client/1.0/route_info_invalid) are served by the adapter
// (bgp_service.h), which hands them to NexthopCache::OnInvalid.
//
// Everything on the router's event loop. Callbacks never outlive the client.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bgp/stages/rib_client.h"
#include "ipc/xrl_router.h"

namespace sluice::bgp::process {

class RibIpcClient : public NexthopInterestClient, public RibRouteClient {
 public:
  struct Counters {
    uint64_t interest_calls = 0;
    uint64_t route_calls = 0;
    uint64_t routes_sent = 0;
    uint64_t failed_calls = 0;
  };

  // `router`: this process's router (not owned, outlives the client). `rib_target`: the RIB's
  // class or instance name. `client_name`: our instance name, which the RIB calls back.
  RibIpcClient(boost::asio::io_context& io, ipc::XrlRouter* router, std::string rib_target,
               std::string client_name);
  ~RibIpcClient() override;
  RibIpcClient(const RibIpcClient&) = delete;
  RibIpcClient& operator=(const RibIpcClient&) = delete;

  // NexthopInterestClient.
  void RegisterInterest(const net::IPAddress& nexthop, Answer answer) override;
  void DeregisterInterest(const net::Prefix& valid_subnet) override;
  // RibRouteClient.
  void SendRoutes(net::Family family, std::vector<RibRouteChange> batch, Done done) override;

  // `registered(stale_routes)` runs once both answered (stale routes of both protocols; an error
  // counts as 0), unless one was lost (the re-synchronisation registers again). `resync`: every
  // route follows again because a call was lost; the RIB holds what it has of ours as stale
  // until our EndOfRib (rib/1.0 register_protocol's `resync`).
  void RegisterProtocols(uint32_t restart_time_s, bool resync,
                         std::function<void(uint32_t stale_routes)> registered = nullptr);
  void EndOfRib();
  void DeregisterProtocols();
  // The process exits for a restart: from now on nothing reaches the RIB (route changes are
  // dropped, reported done), so that it keeps our routes, stale, for the new process.
  void Detach() { deregistered_ = true; }
  // rib/1.0/redist_subscribe (subscribe) or redist_unsubscribe for `protocol`'s winning routes of
  // `family`, delivered to our instance's rib_client/1.0/redist_routes (BgpRedist). Errors are
  // logged (the RIB's birth makes the subscriptions again).
  void RedistSubscribe(net::Family family, const std::string& protocol, bool subscribe);
  // Runs on the loop for each call of the current session lost on its way to the RIB.
  void set_on_lost_call(std::function<void()> on_lost_call) {
    on_lost_call_ = std::move(on_lost_call);
  }
  // A re-synchronisation begins (registration, then every route): losses of earlier calls are
  // no longer reported.
  void NewSession() { ++session_; }
  const std::string& rib_target() const { return rib_target_; }
  const Counters& counters() const { return counters_; }

 private:
  // Counts a failed call of session `session` and reports it when it was lost.
  void Failed(uint64_t session, const absl::Status& status);

  boost::asio::io_context& io_;
  ipc::XrlRouter* router_;
  std::string rib_target_;
  std::string client_name_;
  Counters counters_;
  bool deregistered_ = false;
  uint64_t session_ = 0;  // NewSession calls so far
  std::function<void()> on_lost_call_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace sluice::bgp::process
