#pragma once
// The IPC side of sluice-rpki: rpki/1.0 (ipc/proto/rpki.proto) served over the caches, the VRP
// union and its publisher. Everything on the router's loop.
//
//   add_cache, delete_cache → CacheSet
//   get_status              ← CacheSet, VrpStore, VrpPublisher
//   list_vrps               ← VrpStore::Snapshot, filtered and paged
//   subscribe               → VrpPublisher::Subscribe(the calling component's instance)

#include "absl/status/status.h"
#include "ipc/xrl_router.h"
#include "rpki/cache_set.h"
#include "rpki/vrp_publisher.h"
#include "rpki/vrp_store.h"

namespace sluice::rpki {

// Registers the handlers (before router.Start()). Errors: those of XrlRouter::Handle.
absl::Status ServeRpki(ipc::XrlRouter& router, CacheSet& caches, VrpStore& store,
                       VrpPublisher& publisher);

}  // namespace sluice::rpki
