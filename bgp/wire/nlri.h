#pragma once
// NLRI: one reachable or withdrawn prefix of an UPDATE, and the prefix-list wire form shared by
// the Withdrawn Routes and NLRI fields (RFC 4271 §4.3) and MP_REACH/MP_UNREACH_NLRI (RFC 4760):
// a length in bits, then the fewest octets holding that many bits — preceded by a 4-octet Path
// Identifier when ADD-PATH is in use for the family (RFC 7911 §3).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "bgp/wire/byte_io.h"
#include "bgp/wire/constants.h"
#include "net/prefix.h"

namespace sluice::bgp {

struct Nlri {
  net::Prefix prefix;
  uint32_t path_id = 0;  // RFC 7911 Path Identifier; 0 without ADD-PATH
  Safi safi = Safi::kUnicast;

  AfiSafi family() const { return AfiSafi{prefix.is_v4() ? Afi::kIPv4 : Afi::kIPv6, safi}; }
  std::string ToString() const;  // "192.0.2.0/24" or "192.0.2.0/24 path-id 7"
  friend bool operator==(const Nlri&, const Nlri&) = default;
};
static_assert(sizeof(Nlri) == 32);

inline net::Family FamilyOf(Afi afi) {
  return afi == Afi::kIPv4 ? net::Family::kIPv4 : net::Family::kIPv6;
}
inline Afi AfiOf(net::Family family) {
  return family == net::Family::kIPv4 ? Afi::kIPv4 : Afi::kIPv6;
}

// Appends the prefixes of `data` to `out`. Host bits past a prefix's length are cleared; when
// `host_bits` is given it is set to true if any were set on the wire.
// Errors (InvalidArgument): a length above 32/128, a prefix or path id cut short (RFC 7606 §5.3).
absl::Status DecodeNlri(Bytes data, Afi afi, Safi safi, bool add_path, std::vector<Nlri>* out,
                        bool* host_bits = nullptr);

// Octets one NLRI takes on the wire.
inline size_t NlriWireSize(const Nlri& n, bool add_path) {
  return (add_path ? 4 : 0) + 1 + size_t((n.prefix.length() + 7) / 8);
}
void EncodeNlri(const Nlri& n, bool add_path, ByteWriter& out);

}  // namespace sluice::bgp
