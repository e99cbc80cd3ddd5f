#pragma once
// Canonical wire form of path attributes (RFC 4271 §4.3): attributes in type-code order, the
// Optional/Transitive flags their definitions give (plus a remembered Partial bit), the Extended
// Length bit only for values longer than 255 octets.
//
// For a peer without 4-octet AS support (as_size 2), AS_PATH and AGGREGATOR carry AS_TRANS in
// place of large AS numbers and AS4_PATH/AS4_AGGREGATOR carry the real ones (RFC 6793 §4.2.2).

#include <cstdint>

#include "bgp/wire/byte_io.h"
#include "bgp/wire/path_attributes.h"

namespace sluice::bgp {

struct AttributeEncodeOptions {
  int as_size = 4;  // octets per AS number in AS_PATH and AGGREGATOR: 4, or 2 (RFC 6793)
  // Re-advertisement (RFC 4271 §5): unknown optional transitive attributes get the Partial bit.
  // Off, they keep the flags they were received with (exact re-encoding).
  bool readvertise = false;
};

// Appends the attributes of `attrs` with type codes in [first_type, last_type], in type-code
// order. MP_REACH_NLRI and MP_UNREACH_NLRI are never written here (they carry NLRI; the UPDATE
// encoder places them at their type code, between `first_type..13` and `16..last_type`).
void EncodeAttributes(const PathAttributes& attrs, const AttributeEncodeOptions& options,
                      uint8_t first_type, uint8_t last_type, ByteWriter& out);

// Starts loading into the cache what EncodeAttributes reads of `attrs`: with `deep`, also the
// AS_PATH and COMMUNITIES values (their addresses are read from `attrs`, so call it on a set whose
// own lines were prefetched a little earlier). Only a hint: no effect on results. A set made on
// another thread (the shard stage) is otherwise read line by line from that core's cache.
void PrefetchForEncoding(const PathAttributes& attrs, bool deep);

// Appends one attribute: flags (Extended Length added when the value needs it), type, length,
// value.
void AppendAttribute(uint8_t flags, uint8_t type, Bytes value, ByteWriter& out);
// Appends an attribute header for a value of `value_size` octets (to be written next).
void AppendAttributeHeader(uint8_t flags, uint8_t type, size_t value_size, ByteWriter& out);
inline size_t AttributeHeaderSize(size_t value_size) { return value_size > 255 ? 4 : 3; }

// Appends the MP_REACH_NLRI nexthop field (length octet, then the address or addresses).
void AppendMpNextHop(const MpNextHop& nh, ByteWriter& out);
inline size_t MpNextHopSize(const MpNextHop& nh) {
  return nh.global.is_v4() ? 4 : (nh.link_local ? 32 : 16);
}

}  // namespace sluice::bgp
