#pragma once
// Decoding of the MRT record bodies (RFC 6396 §4) this project uses:
//   TABLE_DUMP (v1, §4.2): one RIB entry, IPv4 or IPv6, 2-octet AS;
//   TABLE_DUMP_V2 (§4.3): PEER_INDEX_TABLE, RIB_IPV4/IPV6_UNICAST/MULTICAST and their ADD-PATH
//     variants (RFC 8050 §4);
//   BGP4MP / BGP4MP_ET (§4.4, §4.5): MESSAGE, MESSAGE_AS4, the LOCAL and ADD-PATH variants
//     (RFC 8050), STATE_CHANGE, STATE_CHANGE_AS4.
// Path attributes are decoded with UpdateDecoder/AttributeDecoder in MRT mode
// (SessionParams::ForMrt) and interned in the given store.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "bgp/mrt/mrt_reader.h"
#include "bgp/wire/attribute_decoder.h"
#include "bgp/wire/attribute_store.h"
#include "bgp/wire/constants.h"
#include "net/ip_address.h"
#include "net/prefix.h"

namespace sluice::bgp::mrt {

// TABLE_DUMP_V2 subtypes (RFC 6396 §4.3, RFC 8050 §4).
enum class TableDumpV2Subtype : uint16_t {
  kPeerIndexTable = 1,
  kRibIPv4Unicast = 2,
  kRibIPv4Multicast = 3,
  kRibIPv6Unicast = 4,
  kRibIPv6Multicast = 5,
  kRibGeneric = 6,
  kRibIPv4UnicastAddPath = 8,
  kRibIPv4MulticastAddPath = 9,
  kRibIPv6UnicastAddPath = 10,
  kRibIPv6MulticastAddPath = 11,
};

// BGP4MP subtypes (RFC 6396 §4.4, RFC 8050 §3).
enum class Bgp4mpSubtype : uint16_t {
  kStateChange = 0,
  kMessage = 1,
  kMessageAs4 = 4,
  kStateChangeAs4 = 5,
  kMessageLocal = 6,
  kMessageAs4Local = 7,
  kMessageAddPath = 8,
  kMessageAs4AddPath = 9,
  kMessageLocalAddPath = 10,
  kMessageAs4LocalAddPath = 11,
};

struct MrtPeer {
  net::IPv4Address bgp_id;
  net::IPAddress address;
  uint32_t as = 0;
};

struct PeerIndexTable {
  net::IPv4Address collector_id;
  std::string view_name;
  std::vector<MrtPeer> peers;
};

struct RibEntry {
  uint16_t peer_index = 0;
  uint32_t originated_time = 0;
  uint32_t path_id = 0;  // RFC 8050 ADD-PATH subtypes
  AttrRef attributes;    // null when the attributes were unusable (see errors)
  UpdateErrors errors;
};

// A TABLE_DUMP_V2 RIB_* record: one prefix and the routes of every peer for it.
struct RibRecord {
  uint32_t sequence = 0;
  net::Prefix prefix;
  Safi safi = Safi::kUnicast;
  bool add_path = false;
  std::vector<RibEntry> entries;
};

// A TABLE_DUMP (v1) record: one route.
struct TableDumpRecord {
  uint16_t view = 0;
  uint16_t sequence = 0;
  net::Prefix prefix;
  uint8_t status = 0;
  uint32_t originated_time = 0;
  net::IPAddress peer_address;
  uint32_t peer_as = 0;
  AttrRef attributes;
  UpdateErrors errors;
};

// A BGP4MP(_ET) MESSAGE record: a BGP message as exchanged with a peer.
struct Bgp4mpMessage {
  uint32_t peer_as = 0;
  uint32_t local_as = 0;
  uint16_t interface_index = 0;
  net::IPAddress peer_address;
  net::IPAddress local_address;
  bool as4 = false;       // the session used 4-octet AS numbers (MESSAGE_AS4*)
  bool add_path = false;  // RFC 8050 *_ADDPATH: NLRI carry path identifiers
  bool local = false;     // *_LOCAL: sent by the collector, not received
  Bytes message;          // the whole BGP message, header included; points into the record
};

// A BGP4MP(_ET) STATE_CHANGE record (RFC 6396 §4.4.1; states numbered as in RFC 4271 §8).
struct Bgp4mpStateChange {
  uint32_t peer_as = 0;
  uint32_t local_as = 0;
  uint16_t interface_index = 0;
  net::IPAddress peer_address;
  net::IPAddress local_address;
  uint16_t old_state = 0;
  uint16_t new_state = 0;
};

// Errors for all decoders: InvalidArgument naming what is cut short or unknown. An entry whose
// attributes are malformed is kept with a null `attributes` and its `errors` filled.
absl::Status DecodePeerIndexTable(const MrtRecord& record, PeerIndexTable* out);

// Decodes RIB records, interning their attribute sets in `store`. Holds decode scratch: one per
// thread.
class RibDecoder {
 public:
  explicit RibDecoder(AttributeStore* store) : store_(store) {}
  // TABLE_DUMP_V2 RIB_* records (IsRib()).
  absl::Status DecodeRib(const MrtRecord& record, RibRecord* out);
  // TABLE_DUMP (v1) records.
  absl::Status DecodeTableDump(const MrtRecord& record, TableDumpRecord* out);

 private:
  // Decodes one attribute block into an AttrRef (null on errors that spoil it).
  AttrRef DecodeAttributes(Bytes block, bool as4, UpdateErrors* errors);
  AttributeStore* store_;
  AttributeDecoder decoder_;
  PathAttributes scratch_;
};

// For BGP4MP/BGP4MP_ET records of a MESSAGE subtype.
absl::Status DecodeBgp4mpMessage(const MrtRecord& record, Bgp4mpMessage* out);
// For BGP4MP/BGP4MP_ET records of a STATE_CHANGE subtype.
absl::Status DecodeBgp4mpStateChange(const MrtRecord& record, Bgp4mpStateChange* out);

bool IsBgp4mp(const MrtRecord& r);
bool IsBgp4mpMessage(const MrtRecord& r);
bool IsBgp4mpStateChange(const MrtRecord& r);
bool IsRib(const MrtRecord& r);  // TABLE_DUMP_V2 RIB_IPV4/IPV6_UNICAST/MULTICAST(_ADDPATH)

}  // namespace sluice::bgp::mrt
