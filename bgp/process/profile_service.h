#pragma once
// profile/1.0 over a stage::Profiler (XORP NSDI'05 §8.1): list, enable, read and clear the
// process's profiling points, and describe_plumbing — the stage network as it stands, dynamic
// stages included (`sluice show plumbing bgp`). Nothing here is BGP-specific: any process with a
// Profiler and a Plumber can serve it this way.
//
//   finder://bgp/profile/1.0/enable?point:txt=bgp_route_in&enable:bool=true
//   finder://bgp/profile/1.0/get_entries?point:txt=bgp_route_in
//
// Errors: NOT_FOUND naming the unknown point and the known ones.

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "ipc/xrl_router.h"
#include "stage/profile.h"

namespace sluice::bgp::process {

// Registers the handlers (before router.Start()). `describe` answers describe_plumbing; it runs
// on the loop. `profiler` outlives the router.
absl::Status ServeProfile(ipc::XrlRouter& router, stage::Profiler* profiler,
                          std::function<std::string()> describe);

}  // namespace sluice::bgp::process
