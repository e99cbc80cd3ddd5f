#pragma once
// The RTR caches sluice-rpki is configured with, and which of them run (RFC 8210 §10: a router
// uses the most preferred cache it can reach). A cache is in sync while it is connected and has
// data (a response completed and has not expired). Caches of the lowest preference value that
// has a cache in sync run, together with every more preferred one (which keep trying to connect);
// less preferred caches are stopped and their data dropped. While no cache is in sync, all run,
// so the first to answer serves. Data of a cache that was in sync and failed stays until it
// expires, so during a failover the union may hold both caches' VRPs.

#include <boost/asio/io_context.hpp>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "rpki/rtr_connection.h"
#include "rpki/vrp_store.h"

namespace sluice::rpki {

class CacheSet {
 public:
  // `on_change` runs after anything that may have changed the store or a cache's state.
  CacheSet(boost::asio::io_context& io, VrpStore* store, std::function<void()> on_change);

  // Errors: AlreadyExists for a cache of the same address and port.
  absl::Status Add(const CacheConfig& config);
  // Stops the cache and drops its data. Errors: NotFound.
  absl::Status Remove(const net::IPAddress& address, uint16_t port);

  // Whether any cache has completed a response since this set was made.
  bool synchronized() const { return synchronized_; }
  // In preference order, then address and port.
  const std::vector<std::unique_ptr<RtrConnection>>& caches() const { return caches_; }

 private:
  void Evaluate();
  void OnEvent();

  boost::asio::io_context& io_;
  VrpStore* store_;
  std::function<void()> on_change_;
  std::vector<std::unique_ptr<RtrConnection>> caches_;
  VrpStore::CacheId next_id_ = 1;
  bool evaluating_ = false;
  bool synchronized_ = false;
};

}  // namespace sluice::rpki
