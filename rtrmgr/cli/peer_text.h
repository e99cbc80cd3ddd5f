#pragma once
// A BGP peer as the `sluice show bgp` tables write it.

#include <ostream>
#include <string>

#include "ipc/proto/bgp.pb.h"

namespace sluice::rtrmgr::cli {

// What the peer's input cost: RFC 7606 outcomes and session resets by cause; "" when nothing.
std::string InputProblems(const bgp::v1::PeerInfo& p);
// Graceful restart (RFC 4724, RFC 8538): what each side offered on the current or last session,
// and the stale routes kept while the peer restarts.
std::string GracefulRestartLine(const bgp::v1::PeerInfo& p);
// "1d02h03m" past a day, else "02:03:04"; "never" for 0 seconds.
std::string Uptime(double seconds);
// `show bgp neighbor ADDR`: state, timers, families, capabilities, counters, graceful restart.
void PrintNeighbor(const bgp::v1::PeerInfo& p, std::ostream& out);

}  // namespace sluice::rtrmgr::cli
