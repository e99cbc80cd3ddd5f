#pragma once
// What the main job reads from the running router over the XRLs sluice show uses
// (rtrmgr/cli/queries.h): the counters polled while routes flow, the tables read once it has
// converged, and how those compare with what the upstream announced (expected_table.h).

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "net/prefix.h"
#include "rtrmgr/cli/sync_client.h"
#include "rtrmgr/mainjob/expected_table.h"

namespace sluice::rtrmgr::mainjob {

using PrefixSet = std::set<net::Prefix>;

// `n` with thousands separators: "1,234,567".
std::string Count(uint64_t n);

struct Counts {
  uint64_t received = 0, accepted = 0, rib = 0, fib = 0, downstream = 0;
  uint64_t rib_other = 0;  // RIB routes of other protocols (connected, static): also in `fib`
  bool operator==(const Counts&) const = default;
};

// The cheap counters polled while routes flow: the upstream's received and accepted prefixes,
// the downstream's advertised ones (bgp), the RIB's routes by protocol, the FEA's FIB size.
// nullopt when sluice-bgp does not answer; a RIB or FEA that does not answer counts 0.
std::optional<Counts> Poll(cli::SyncClient& client, const std::string& upstream,
                           const std::string& downstream);

// The BGP routes of the RIB winners and of the FIB (protocol ebgp or ibgp), both families.
struct Tables {
  PrefixSet adj_rib_in, loc_rib, rib, fib, adj_rib_out;
  // Winners of other protocols (connected, static) in the RIB and the FIB: prefix -> protocol.
  std::map<net::Prefix, std::string> rib_other, fib_other;
};

// Errors: the first query that failed.
absl::StatusOr<Tables> ReadTables(cli::SyncClient& client, const std::string& upstream,
                                  const std::string& downstream);

// Every announced prefix not in `accepted` with the reason ("<prefix>: <why>"), then every
// accepted prefix missing from the RIB, the FIB or the Adj-RIB-Out. `local_as`: the router's AS,
// to name AS_PATH loops.
std::vector<std::string> NotAcceptedOrPropagated(const ExpectedTable& e, const Tables& t,
                                                 const PrefixSet& accepted, uint32_t local_as);

// Whether the RIB, the FIB and the downstream peer hold exactly the `accepted` prefixes (a
// prefix another protocol wins in the RIB must be in the FIB from that protocol).
bool HoldExactlyTheAccepted(const absl::StatusOr<Tables>& tables, const PrefixSet& accepted);

}  // namespace sluice::rtrmgr::mainjob
