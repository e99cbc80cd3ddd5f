#pragma once
// The bgp/1.0 adapter (GoBGP style: thin): one handler per method of ipc/proto/bgp.proto, each
// converting its request (bgp_convert.h), making one call on the BgpProcess and converting the
// answer. Handlers run on the process's event loop (the XRL router posts every call there), so
// they call the core directly; nothing here keeps state.
//
// Also rib_client/1.0, which the RIB calls back: route_info_invalid → the nexthop cache asks
// again (BgpProcess::OnRouteInfoInvalid); redist_routes → BgpRedist::OnChanges (UNIMPLEMENTED
// without one).

#include "absl/status/status.h"
#include "bgp/process/bgp_process.h"
#include "bgp/process/bgp_redist.h"
#include "ipc/xrl_router.h"

namespace sluice::bgp::process {

// Registers the handlers (before router.Start()). Errors: those of XrlRouter::Handle.
absl::Status ServeBgp(ipc::XrlRouter& router, BgpProcess& bgp);
absl::Status ServeRibClient(ipc::XrlRouter& router, BgpProcess& bgp, BgpRedist* redist = nullptr);

}  // namespace sluice::bgp::process
