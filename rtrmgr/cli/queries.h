#pragma once
// The reads the `sluice show` commands and the main job's summary make, over SyncClient: every
// route of a BGP view, of the RIB and of the FIB (all pages).

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ipc/proto/bgp.pb.h"
#include "ipc/proto/fea_fib.pb.h"
#include "ipc/proto/fea_ifmgr.pb.h"
#include "ipc/proto/profile.pb.h"
#include "ipc/proto/rib.pb.h"
#include "ipc/proto/rpki.pb.h"
#include "ipc/proto/rtrmgr.pb.h"
#include "rtrmgr/cli/sync_client.h"

namespace sluice::rtrmgr::cli {

// Every route of a BGP view ("ipv4" or "ipv6"); `peer` ("" for the Loc-RIB) for the
// Adj-RIB-In and -Out.
absl::StatusOr<std::vector<bgp::v1::Route>> AllBgpRoutes(SyncClient& client, bgp::v1::RibView view,
                                                         const std::string& peer,
                                                         const std::string& family);
// The RIB's winners ("" protocol) or one protocol's routes, of one family.
absl::StatusOr<std::vector<rib::v1::RibRoute>> AllRibRoutes(SyncClient& client,
                                                            const std::string& family,
                                                            const std::string& protocol = "");
// Every FIB route, both families.
absl::StatusOr<std::vector<fea_fib::v1::FibRoute>> AllFibRoutes(SyncClient& client,
                                                                const std::string& fea = "fea");

}  // namespace sluice::rtrmgr::cli
