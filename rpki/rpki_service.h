#pragma once
// sluice-rpki's parts wired together on one loop: the VRP union (VrpStore), the caches that fill
// it (CacheSet), its subscribers (VrpPublisher) and rpki/1.0 (ServeRpki).
//
// When the set is complete. A new sluice-rpki starts empty, and its subscribers treat its dump
// as the whole truth: what they hold and the dump lacks goes (DESIGN.md § Restarts). So no
// subscriber gets a dump until the set is complete: a cache has answered (an End of Data), or
// the expire interval has passed since start without any answer — the age past which RFC 8210
// §6 says a router stops using data, so every route is then not-found. Until then, subscribers
// keep what they had. The caches come on the command line or later by rpki/1.0/add_cache; a
// subscriber that comes first waits.

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "ipc/xrl_router.h"
#include "rpki/cache_set.h"
#include "rpki/vrp_publisher.h"
#include "rpki/vrp_store.h"

namespace sluice::rpki {

class RpkiService {
 public:
  // `router` (not started yet) outlives the service. `epoch`: this process's random epoch.
  // `expire`: how long subscribers wait for a first answer before an empty set counts.
  RpkiService(boost::asio::io_context& io, ipc::XrlRouter* router, uint64_t epoch,
              std::chrono::seconds expire);

  // Registers rpki/1.0 and starts the expire timer. Errors: those of XrlRouter::Handle.
  absl::Status Start();

  VrpStore& store() { return store_; }
  CacheSet& caches() { return caches_; }
  VrpPublisher& publisher() { return publisher_; }

 private:
  void OnChange();

  ipc::XrlRouter* router_;
  VrpStore store_;
  VrpPublisher publisher_;
  CacheSet caches_;
  boost::asio::steady_timer expire_timer_;
  std::chrono::seconds expire_;
};

}  // namespace sluice::rpki
