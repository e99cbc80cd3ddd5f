#pragma once
// FakeRib: a stand-in for the RIB process in tests of sluice-bgp — an XrlRouter of class "rib"
// serving the rib/1.0 methods BGP calls (register_protocol, add_routes, delete_routes,
// register_interest, deregister_interest, end_of_rib, redist_subscribe, list_routes for
// counting), holding each protocol's routes in a map. A register_protocol with `resync` marks the
// protocol's routes stale until they are added again; end_of_rib removes those still stale, as
// the RIB does. Nexthops
// resolve (metric 1, valid subnet = the address alone) unless marked unresolvable. Invalidate()
// calls the client back with rib_client/1.0/route_info_invalid.
//
// The handlers run on the router's loop; the accessors lock, so a test may read the tables from
// another thread (FakeRibThread runs one on its own thread).

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "ipc/xrl_router.h"
#include "net/ip_address.h"
#include "net/prefix.h"

namespace sluice::bgp::testing {

class FakeRib {
 public:
  struct Route {
    net::IPAddress nexthop;
    uint32_t metric = 0;
  };

  FakeRib(boost::asio::io_context& io, ipc::RouterOptions options, std::string instance = "rib");
  ~FakeRib();
  // Serves and registers. Errors: the router's.
  absl::Status Start();
  ipc::XrlRouter& router() { return *router_; }

  // --- What BGP sent -------------------------------------------------------------------------
  size_t size(const std::string& protocol) const;
  std::map<net::Prefix, Route> routes(const std::string& protocol) const;
  std::set<std::string> protocols() const;  // registered with register_protocol
  uint64_t add_calls() const;
  uint64_t delete_calls() const;
  uint64_t interest_calls() const;
  uint64_t end_of_ribs() const;                   // end_of_rib calls answered
  std::vector<net::IPAddress> interests() const;  // addresses asked about, in order
  // "FAMILY PROTOCOL" of each redist_subscribe (the stream itself is not sent).
  std::set<std::string> redist_subscriptions() const;

  // The next `n` calls of register_protocol, add_routes(_packed), delete_routes and
  // redist_subscribe answer
  // UNAVAILABLE and change nothing, as calls lost on the way to a live RIB.
  void FailNextCalls(int n);

  // --- Nexthop answers -----------------------------------------------------------------------
  void SetResolvable(const net::IPAddress& address, bool resolvable, uint32_t metric = 1);
  // Calls route_info_invalid(address/32 or /128) on `client` (on the router's loop).
  void Invalidate(const std::string& client, const net::IPAddress& address);

 private:
  // Called with mu_ held: whether this call is one FailNextCalls asked to fail.
  bool FailLocked();

  mutable std::mutex mu_;
  std::map<std::string, std::map<net::Prefix, Route>> tables_;
  std::set<std::string> protocols_;
  std::map<std::string, std::set<net::Prefix>> stale_;  // by a resync, until added again
  std::map<net::IPAddress, std::pair<bool, uint32_t>> answers_;
  std::vector<net::IPAddress> interests_;
  std::set<std::string> redist_;
  uint64_t add_calls_ = 0, delete_calls_ = 0, interest_calls_ = 0, end_of_ribs_ = 0;
  int fail_next_ = 0;
  std::unique_ptr<ipc::XrlRouter> router_;
};

// A FakeRib on its own thread and loop.
class FakeRibThread {
 public:
  explicit FakeRibThread(ipc::RouterOptions options, std::string instance = "rib");
  ~FakeRibThread();  // Stop()
  const absl::Status& status() const { return status_; }
  FakeRib& rib() { return *rib_; }
  // Ends the fake RIB (BGP sees it die). Idempotent.
  void Stop();

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_;
  std::unique_ptr<FakeRib> rib_;
  absl::Status status_;
  std::thread thread_;
};

}  // namespace sluice::bgp::testing
