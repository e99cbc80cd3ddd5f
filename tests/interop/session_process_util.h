#pragma once
// The daemon session scenario (session_daemon_util.h) with Sluice as real processes: sluice-finder
// and sluice-bgp (--no-rib) as children, peers configured and everything checked through
// bgp/1.0 — add_peer, get_peer (state, counters) and list_routes of the peer's Adj-RIB-In —
// as an operator or sluice-rtrmgr would. The same Daemon implementations plug in.
//
//   1. the daemon peers over IPv4 (daemon_v4) and, with `ipv6`, over ::1, 4-octet ASes on both
//      sides: both Established, the daemon's 3 routes per family in the Adj-RIB-In with the
//      daemon's AS first in the AS path;
//   2. one withdrawal per family removes the route;
//   3. the daemon restarts with another route set: the sessions come back (2 transitions) and
//      the Adj-RIB-In holds exactly the new set.
//
// Routes are 10.N.x.0/24 and 2001:db8:N:x::/64.

#include <cstdint>
#include <string>

#include "tests/interop/session_daemon_util.h"

namespace sluice::bgp::interop {

void RunProcessScenario(Daemon& daemon, const std::string& daemon_v4, uint32_t daemon_as, bool ipv6,
                        int n);

}  // namespace sluice::bgp::interop
