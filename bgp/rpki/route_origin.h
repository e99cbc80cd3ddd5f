#pragma once
// RPKI route origin validation (RFC 6811): the Validated ROA Payloads (VRPs) a BGP speaker has
// learnt from its caches, and the validation state of a route against them.
//
// A VRP (RFC 6811 §2, RFC 8210 §5.6/5.7) is (prefix, maxLength, origin AS): the AS may originate
// the prefix and its more specifics down to maxLength. A route is
//   not-found  when no VRP's prefix covers the route's prefix;
//   valid      when a covering VRP has maxLength >= the route's length and the route's origin AS;
//   invalid    when VRPs cover it but none matches (wrong origin, too specific, or origin NONE).
// A VRP for AS 0 (RFC 6483 §4) covers but never matches.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "bgp/rpki/rpki_state.h"
#include "bgp/wire/as_path.h"
#include "net/prefix.h"
#include "net/prefix_map.h"

namespace sluice::bgp::rpki {

struct Vrp {
  net::Prefix prefix;
  uint8_t max_length = 0;  // >= prefix.length(), <= the family's bits (RFC 8210 §5.6)
  uint32_t asn = 0;

  bool operator==(const Vrp&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const Vrp& v) {
    return H::combine(std::move(h), v.prefix, v.max_length, v.asn);
  }
};

// The Route Origin ASN of RFC 6811 §2: the rightmost AS of a final AS_SEQUENCE; `local_as` when
// the path is empty or ends in a confederation segment; std::nullopt ("NONE") when it ends in an
// AS_SET.
std::optional<uint32_t> RouteOriginAs(const AsPath& path, uint32_t local_as);

// The VRP set of both families, a trie by VRP prefix. Not thread-safe, except that Validate and
// Contains change nothing and may run at once on several threads while no one writes.
class VrpTable {
 public:
  // RFC 8210 §5.6 announce: false when the VRP is there already, or is malformed (maxLength
  // shorter than the prefix or longer than the family's bits).
  bool Add(const Vrp& vrp);
  // RFC 8210 §5.6 withdraw: false when the VRP is not there.
  bool Remove(const Vrp& vrp);
  void Clear();
  bool Contains(const Vrp& vrp) const;

  // RFC 6811 §2 for a route to `prefix` whose Route Origin ASN is `origin` (nullopt: NONE).
  // Const: one descent of the trie, no pins (safe for concurrent readers while no one writes).
  RpkiState Validate(const net::Prefix& prefix, std::optional<uint32_t> origin) const;

  // Every VRP, in no particular order.
  std::vector<Vrp> All() const;

  size_t size_v4() const { return size_v4_; }
  size_t size_v6() const { return size_v6_; }
  size_t size() const { return size_v4_ + size_v6_; }

 private:
  struct Authorisation {
    uint8_t max_length;
    uint32_t asn;
    bool operator==(const Authorisation&) const = default;
  };
  // mutable: net::PrefixMap walks are not const (safe iterators pin their entries).
  mutable net::PrefixMap<std::vector<Authorisation>> vrps_;
  size_t size_v4_ = 0;
  size_t size_v6_ = 0;
};

}  // namespace sluice::bgp::rpki
