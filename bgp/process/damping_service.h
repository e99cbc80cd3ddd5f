#pragma once
// The damping methods of bgp/1.0: set_damping, get_damping, set_peer_damping and
// list_damped (`show bgp damping`), handed to a DampingControl (bgp/stages/damping_control.h).
// Like bgp_service.h a thin adapter: handlers run on the event loop and keep no state.

#include "absl/status/status.h"
#include "bgp/stages/damping_control.h"
#include "ipc/xrl_router.h"

namespace sluice::bgp::process {

// Registers the handlers (before router.Start()). Errors: those of XrlRouter::Handle.
absl::Status ServeDamping(ipc::XrlRouter& router, DampingControl& damping);

}  // namespace sluice::bgp::process
