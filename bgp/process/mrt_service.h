#pragma once
// The MRT methods of bgp/1.0 (ipc/proto/bgp.proto): dump_table (`sluice dump bgp table FILE`),
// set_mrt and clear_mrt (the `bgp { mrt { ... } }` block), get_mrt — handed to MrtOutputs
// (mrt_outputs.h). Like bgp_service.h a thin adapter: handlers run on the event loop.

#include "absl/status/status.h"
#include "bgp/process/mrt_outputs.h"
#include "ipc/xrl_router.h"

namespace sluice::bgp::process {

// Registers the handlers (before router.Start()). Errors: those of XrlRouter::Handle.
absl::Status ServeMrt(ipc::XrlRouter& router, MrtOutputs& mrt);

}  // namespace sluice::bgp::process
