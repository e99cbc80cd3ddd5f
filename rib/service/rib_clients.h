#pragma once
// RibClients: the components the RIB serves by name — protocol owners (register_protocol),
// interest registrants (register_interest) and redistribution subscribers (redist_subscribe) —
// each followed through the Finder (XORP NSDI'05 §5.2.1, §6).
//
// One Client object per component instance implements the core's InterestRegistrant and
// RedistSubscriber (rib/interest.h, rib/redist.h) by calling the component's rib_client/1.0:
//   OnInterestInvalidated(subnet)  -> route_info_invalid(subnet)
//   OnInterestChanged(answer)      -> the registration is dropped and route_info_invalid(subnet)
//                                     is sent: the client registers again for the new answer
//   OnRedistChanges / DumpDone     -> redist_routes(family, protocol, changes, dump_start,
//                                     dump_done)
// Calls to one component are ordered (one XRL stream per target).
//
// A call that fails on its way to a component that stays up (lost, or refused) is repaired after
// a backoff (ipc/redump.h): for a route_info_invalid, every registration of the component is
// dropped and it is told that everything (0.0.0.0/0, ::/0) is invalid, so that it asks again
// about every nexthop; for a redist_routes, each of its streams starts again with a dump whose
// first batch has dump_start, so that it withdraws at dump_done what the dump did not carry.
//
// When a component dies (Finder death event), or a call finds it unknown to the Finder
// (NOT_FOUND), its interest registrations and redistribution subscriptions are dropped and the
// protocols it owns die (Rib::ProtocolDied: their routes leave in the background); it registers
// again when it comes back. A protocol registered with a restart time goes stale instead
// (Rib::ProtocolStale): its routes stay until the next owner's end-of-RIB or the restart time
// (DESIGN.md § Restarts). So does a protocol another instance of the owner's class takes over.

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ipc/caller.h"
#include "ipc/xrl_router.h"
#include "rib/rib.h"

namespace sluice::rib {

class RibClients {
 public:
  // `io`: the router's and the RIB's loop (the repair timers).
  RibClients(boost::asio::io_context& io, ipc::XrlRouter& router, Rib& rib);
  ~RibClients();
  RibClients(const RibClients&) = delete;
  RibClients& operator=(const RibClients&) = delete;

  // The calling component owns `protocol`'s routes from now on (a previous owner of its class
  // no longer does). Ownership follows the caller's authenticated identity (ipc/caller.h):
  // `target`, when given, must name the caller itself. Errors: InvalidArgument (bad protocol
  // name, "connected"); PermissionDenied (a person calls, `target` names someone else, or
  // a live component of another class owns the protocol).
  // `restart_time`: how long its routes stay, stale, when the caller dies. `resync`: the caller
  // re-sends every route of the protocol (a call of its was lost): the routes held now are stale
  // until its EndOfRib, or for ResyncStaleTime(restart_time). `incarnation` (the caller's
  // ipc::XrlRouter::incarnation, or empty): when the caller registered before as another
  // incarnation, that process died — the Finder keeps live instance names unique — though its
  // death event may still be on the way (it comes from the Finder, this call from the successor):
  // the caller is treated as gone first, its routes stale as at its death. Returns the routes
  // left stale (by a previous owner, or by `resync`): the caller should re-send, then EndOfRib.
  absl::StatusOr<size_t> RegisterProtocol(std::string_view protocol, const ipc::Caller& caller,
                                          std::string_view target = "",
                                          std::chrono::seconds restart_time = {},
                                          bool resync = false, std::string_view incarnation = "");
  // How long a resync's stale routes wait for the owner's EndOfRib: its restart time, and at
  // least 120 s (a re-send of a full table must not be cut short).
  static std::chrono::seconds ResyncStaleTime(std::chrono::seconds restart_time) {
    return std::max(restart_time, std::chrono::seconds(120));
  }
  // The owner stops for good: `protocol`'s routes are withdrawn now. Errors: as CheckWriter,
  // and NotFound when the protocol has no owner.
  absl::Status DeregisterProtocol(std::string_view protocol, const ipc::Caller& caller);
  // Whether `caller` may add or delete `protocol`'s routes: anyone with the method's key when
  // the protocol has no owner, else only the owner's class. Errors: PermissionDenied.
  absl::Status CheckWriter(std::string_view protocol, const ipc::Caller& caller) const;
  // The owner of `protocol`, or "".
  std::string OwnerOf(std::string_view protocol) const;

  // Errors: InvalidArgument for an empty client name.
  absl::StatusOr<InterestAnswer> RegisterInterest(std::string_view client,
                                                  const net::IPAddress& address);
  // Errors: NotFound (no such client or registration).
  absl::Status DeregisterInterest(std::string_view client, const net::Prefix& valid_subnet);

  // `family` "ipv4" or "ipv6"; `protocol` "" for every protocol's winners. Errors:
  // InvalidArgument (family, protocol, empty target), AlreadyExists, NotFound (unsubscribe).
  absl::Status RedistSubscribe(std::string_view target, std::string_view family,
                               std::string_view protocol);
  absl::Status RedistUnsubscribe(std::string_view target, std::string_view family,
                                 std::string_view protocol);

  size_t client_count() const { return clients_.size(); }
  std::string Describe() const;

 private:
  class Client;
  Client* Find(std::string_view name) const;
  Client* Ensure(std::string_view name);
  // The component is gone: drop everything it had; its protocols die.
  void Gone(const std::string& name, const char* why);
  // `name` registers as `incarnation`: when its client is another incarnation, that one is Gone
  // (its watch with it, so that its death event, still on the way, finds nothing).
  void Supersede(const std::string& name, std::string_view incarnation);

  boost::asio::io_context& io_;
  ipc::XrlRouter& router_;
  Rib& rib_;
  std::map<std::string, std::unique_ptr<Client>, std::less<>> clients_;
  struct Owner {
    std::string instance;
    std::string class_name;
    std::chrono::seconds restart_time{0};
  };
  // The owner of `protocol` is gone: stale for its restart time, or withdrawn now.
  void OwnerGone(const std::string& protocol, const Owner& owner);
  std::map<std::string, Owner, std::less<>> owners_;  // by protocol
  uint64_t deaths_ = 0;
};

}  // namespace sluice::rib
