#pragma once
// What sluice-replay sends: the routes of the peers of an MRT capture (or a synthetic table), per
// peer, either as the captured sequence of UPDATEs with their timestamps or as a final table.
//
//  - BGP4MP/BGP4MP_ET captures: each UPDATE a peer sent (not those the collector sent), in
//    order, with its time offset from the first record of the capture (microseconds).
//  - TABLE_DUMP_V2 and TABLE_DUMP RIB dumps: one route per RIB entry, as a table.
// PeerFeed::Table() folds a message sequence into its final table (announcements replace,
// withdrawals remove) for table-mode replay.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bgp/wire/attribute_store.h"
#include "bgp/wire/nlri.h"
#include "net/ip_address.h"

namespace sluice::bgp::replay {

struct FeedUpdate {
  uint64_t time_us = 0;  // since the first record of the capture
  std::vector<Nlri> withdrawn;
  std::vector<Nlri> announced;
  AttrRef attributes;  // of `announced`
};

struct Route {
  Nlri nlri;
  AttrRef attributes;
};

struct PeerFeed {
  net::IPAddress address;
  uint32_t as = 0;
  bool four_octet_as = true;        // the captured session used 4-octet AS numbers
  std::vector<FeedUpdate> updates;  // message captures
  std::vector<Route> table;         // RIB dumps and synthetic tables
  uint64_t announced_prefixes = 0;  // sum over updates (or table size)
  bool had_session = false;         // a BGP4MP record (message or state change) names this peer

  // The final table: `table` for RIB dumps, the folded `updates` otherwise; sorted by prefix.
  std::vector<Route> Table() const;
  std::string Name() const;  // "206.220.231.55 AS3856"
};

struct Capture {
  std::vector<PeerFeed> peers;  // in order of first appearance (or PEER_INDEX_TABLE order)
  bool truncated = false;
  std::string note;  // why reading stopped early, if it did
};

// Reads every peer's routes from `path` into `store`. UPDATEs are decoded as archived data
// (SessionParams::ForMrt): nothing is filtered here.
// Errors: the file cannot be opened; it holds no UPDATE and no RIB entry.
absl::StatusOr<Capture> LoadCapture(const std::string& path, AttributeStore* store);

// An Internet-like IPv4 table of `prefixes` routes from one made-up peer: prefix lengths in the
// proportions of a 2015-2020 full table (about 55% /24, 10% /22, 10% /23, ...), AS paths of 1 to
// 10 ASes (mean about 4), about one attribute set per 7 routes. Deterministic for a given `seed`.
PeerFeed SyntheticTable(uint64_t prefixes, uint64_t seed, AttributeStore* store);

}  // namespace sluice::bgp::replay
