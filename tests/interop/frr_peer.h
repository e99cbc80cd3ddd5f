#pragma once
// FRR 8.4 bgpd as a DaemonPeer (pipeline_util.h): one eBGP session to Sluice over IPv4 on
// loopback, without zebra (-Z), graceful restart helper (FRR's default), import all. Started as
// ../shared/INTEROP.md says: `bgpd -Z -S -f CONF -i PIDFILE --vty_socket DIR -p PORT -l ADDR
// -P 0`; read through vtysh on that socket.

#include <memory>
#include <string>

#include "tests/interop/pipeline_util.h"

namespace sluice::bgp::interop {

// Whether FRR can run here; else why not (for GTEST_SKIP).
std::string FrrSkipReason();
std::unique_ptr<DaemonPeer> StartFrr(const PeerEndpoint& e, std::string* error);

}  // namespace sluice::bgp::interop
