#pragma once
// BgpdumpFormatter: the one-line-per-route text `bgpdump -m` (RIPE NCC bgpdump 1.6) prints for
// MRT records, produced from this project's decoders — so that the two can be compared line for
// line (tests/bgp/bgpdump_compare_test.cc) and so that sluice-mrtdump can stand in for bgpdump.
//
//   BGP4MP|1445565678|A|206.220.231.55|3856|1.0.0.0/24|3856 15169|IGP|206.220.231.55|0|0||NAG||
//   BGP4MP|1545133200|W|2001:728:1808::2|15562|2620:144:a00::/40
//   BGP4MP_ET|1445565678.509481|STATE|206.220.231.55|3856|1|2
//   TABLE_DUMP2|1400824800|B|196.7.106.245|2905|0.0.0.0/0|2905 65023
//   16637|IGP|196.7.106.245|0|0||NAG||
//
// Fields of A/B lines: peer address, peer AS, prefix, [path id,] AS path, origin, nexthop,
// LOCAL_PREF, MED (0 when absent), communities, AG/NAG (ATOMIC_AGGREGATE), aggregator "AS addr".
// bgpdump's conventions are kept: a missing NEXT_HOP prints 255.255.255.255, a missing ORIGIN
// prints INCOMPLETE, MED and LOCAL_PREF of IPv4 NLRI from MP_REACH_NLRI print as signed.

#include <string>

#include "bgp/mrt/mrt_reader.h"
#include "bgp/mrt/mrt_records.h"
#include "bgp/wire/attribute_store.h"
#include "bgp/wire/update_decoder.h"

namespace sluice::bgp::mrt {

class BgpdumpFormatter {
 public:
  explicit BgpdumpFormatter(AttributeStore* store);

  // Appends the lines of `record` (each ending in '\n'; none for records bgpdump -m does not
  // print, e.g. OPEN or KEEPALIVE messages and PEER_INDEX_TABLE).
  void Format(const MrtRecord& record, std::string* out);

  // Counters over the records formatted so far.
  struct Stats {
    uint64_t records = 0;
    uint64_t updates = 0;
    uint64_t update_errors = 0;  // UPDATEs whose decoding reported an RFC 7606 error
    uint64_t decode_errors = 0;  // records that could not be decoded at all
    std::string first_error;
  };
  const Stats& stats() const { return stats_; }

 private:
  void FormatUpdate(const MrtRecord& record, const Bgp4mpMessage& m, std::string* out);
  void NoteError(std::string error);

  UpdateDecoder update_decoder_;
  RibDecoder rib_decoder_;
  PeerIndexTable peers_;
  UpdateMessage update_;
  RibRecord rib_;
  TableDumpRecord table_dump_;
  Stats stats_;
};

}  // namespace sluice::bgp::mrt
