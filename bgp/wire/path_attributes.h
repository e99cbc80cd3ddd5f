#pragma once
// PathAttributes: the decoded path attributes of a route (RFC 4271 §5), everything an UPDATE
// says about its NLRI except the NLRI themselves.
//
// A PathAttributes is a plain value; routes never hold one directly but an AttrRef from an
// AttributeStore (bgp/wire/attribute_store.h), which keeps one immutable shared copy per distinct
// set. The encoder writes attributes in the order of their type codes (the canonical wire order),
// whatever the order of the fields below.
//
// Conventions:
//  - AS numbers are 4 octets everywhere. A route from a 2-octet speaker has its AS_PATH and
//    AS4_PATH (and AGGREGATOR/AS4_AGGREGATOR) reconciled on decode (RFC 6793 §4.2.3); the
//    encoder splits them again for a 2-octet peer.
//  - Lists keep wire order (communities are not sorted) so that decode→encode is exact.
//  - `partial_types` remembers the Partial flag of the known optional transitive attributes
//    (bit t for type code t); unknown optional transitive attributes keep their own flags in
//    `rare().unknown`. Unknown optional non-transitive attributes are dropped on decode (§5:
//    "quietly ignored"), and MP_REACH/MP_UNREACH are not attributes of the route: their NLRI go to
//    the UPDATE's prefix lists, their nexthop to `mp_next_hop`.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/heap_optional.h"
#include "bgp/wire/as_path.h"
#include "bgp/wire/constants.h"
#include "net/ip_address.h"

namespace sluice::bgp {

enum class Origin : uint8_t { kIgp = 0, kEgp = 1, kIncomplete = 2 };
std::string_view OriginName(Origin origin);  // "IGP", "EGP", "INCOMPLETE"

// AGGREGATOR (RFC 4271 §5.1.7), with a 4-octet AS (RFC 6793).
struct Aggregator {
  uint32_t as = 0;
  net::IPv4Address address;
  friend bool operator==(const Aggregator&, const Aggregator&) = default;
};

// LARGE_COMMUNITY element (RFC 8092): Global Administrator, Local Data Part 1 and 2.
struct LargeCommunity {
  uint32_t global_admin = 0;
  uint32_t local1 = 0;
  uint32_t local2 = 0;
  friend bool operator==(const LargeCommunity&, const LargeCommunity&) = default;
  std::string ToString() const;  // "g:l1:l2"
};

// The nexthop of MP_REACH_NLRI (RFC 4760 §3): 4 octets (IPv4), 16 (IPv6 global) or 32 (IPv6
// global then link-local, RFC 2545 §3).
struct MpNextHop {
  net::IPAddress global;
  std::optional<net::IPv6Address> link_local;
  friend bool operator==(const MpNextHop&, const MpNextHop&) = default;
};

// An attribute this codec does not interpret, kept as received (flags without Extended Length).
struct RawAttribute {
  uint8_t flags = 0;
  uint8_t type = 0;
  std::vector<uint8_t> value;
  friend bool operator==(const RawAttribute&, const RawAttribute&) = default;
};

// Well-known communities (RFC 1997, RFC 3765).
inline constexpr uint32_t kCommunityNoExport = 0xFFFFFF01;
inline constexpr uint32_t kCommunityNoAdvertise = 0xFFFFFF02;
inline constexpr uint32_t kCommunityNoExportSubconfed = 0xFFFFFF03;
inline constexpr uint32_t kCommunityNoPeer = 0xFFFFFF04;
// bgpdump's text form: "no-export", "no-advertise", "local-AS", else "high:low" in decimal.
std::string CommunityToString(uint32_t community);

// The attributes few routes carry: extended and large communities, and unknown optional
// transitive attributes. PathAttributes keeps them out of line (RareAttributesBox), since most
// sets of a full Internet table have none of them and an interned set is stored once per distinct
// set. (Route reflection's ORIGINATOR_ID and CLUSTER_LIST stay inline: every route an iBGP
// route-reflector client receives carries them.)
struct RareAttributes {
  std::vector<uint64_t> ext_communities;          // 16 EXTENDED COMMUNITIES (RFC 4360)
  std::vector<LargeCommunity> large_communities;  // 32 LARGE_COMMUNITY (RFC 8092)
  std::vector<RawAttribute> unknown;              // optional transitive, by type code

  bool empty() const;
  // Empties every field, keeping vector capacity.
  void Clear();
  friend bool operator==(const RareAttributes&, const RareAttributes&) = default;
};

// RareAttributes on the heap: one pointer, allocated on the first write. An empty value and no
// allocation are the same value: they compare equal, and copying or moving an empty one leaves
// the copy with no allocation (so an interned set holds one only when it has rare attributes).
class RareAttributesBox {
 public:
  RareAttributesBox() = default;
  RareAttributesBox(const RareAttributesBox& o);
  RareAttributesBox(RareAttributesBox&& o) noexcept : value_(TakeUnlessEmpty(o)) {}
  RareAttributesBox& operator=(const RareAttributesBox& o);
  RareAttributesBox& operator=(RareAttributesBox&& o) noexcept {
    if (this != &o) value_ = TakeUnlessEmpty(o);
    return *this;
  }
  ~RareAttributesBox() = default;

  const RareAttributes& get() const { return value_ ? *value_ : kEmpty; }
  // Allocates when nothing is held.
  RareAttributes& mutable_get();
  // Empties the value, keeping the allocation (for a reused decode scratch).
  void Clear() {
    if (value_) value_->Clear();
  }
  bool allocated() const { return value_ != nullptr; }
  friend bool operator==(const RareAttributesBox& a, const RareAttributesBox& b) {
    return a.get() == b.get();
  }

 private:
  // o's allocation when it holds a value (an emptied one stays with o).
  static std::unique_ptr<RareAttributes> TakeUnlessEmpty(RareAttributesBox& o) noexcept {
    if (!o.value_ || o.value_->empty()) return nullptr;
    return std::move(o.value_);
  }

  static inline const RareAttributes kEmpty{};
  std::unique_ptr<RareAttributes> value_;
};

// Fields follow the type codes' order where that packs: ORIGIN, ATOMIC_AGGREGATE and AGGREGATOR
// share the first 16 octets.
struct PathAttributes {
  std::optional<Origin> origin;                   // 1 ORIGIN
  bool atomic_aggregate = false;                  // 6 ATOMIC_AGGREGATE
  std::optional<Aggregator> aggregator;           // 7 AGGREGATOR
  std::optional<AsPath> as_path;                  // 2 AS_PATH (empty path ≠ absent)
  std::optional<net::IPv4Address> next_hop;       // 3 NEXT_HOP
  std::optional<uint32_t> med;                    // 4 MULTI_EXIT_DISC
  std::optional<uint32_t> local_pref;             // 5 LOCAL_PREF
  std::vector<uint32_t> communities;              // 8 COMMUNITIES (RFC 1997)
  std::optional<net::IPv4Address> originator_id;  // 9 ORIGINATOR_ID (RFC 4456)
  std::vector<uint32_t> cluster_list;             // 10 CLUSTER_LIST (RFC 4456)
  // 14 MP_REACH_NLRI nexthop (RFC 4760): on the heap, since IPv4 unicast routes (most of a
  // full table) have none and an interned set is stored once per distinct set.
  base::HeapOptional<MpNextHop> mp_next_hop;
  uint64_t partial_types = 0;  // Partial flag seen, bit per type code

  // 16 EXTENDED COMMUNITIES, 32 LARGE_COMMUNITY and the unknown optional transitive attributes:
  // empty ones when the set has none.
  const RareAttributes& rare() const { return rare_.get(); }
  RareAttributes& mutable_rare() { return rare_.mutable_get(); }

  // Empties every field, keeping vector capacity (for a reused decode scratch).
  void Clear();

  // The nexthop for NLRI of `family`: the MP_REACH_NLRI nexthop when present and of that family,
  // else NEXT_HOP for IPv4; nullopt if neither. (IPv6 nexthops for IPv4 NLRI, RFC 8950, are
  // decoded into mp_next_hop but not offered here.)
  std::optional<net::IPAddress> NextHopFor(net::Family family) const;
  // AS_PATH length per RFC 4271 §9.1.2.2 (0 when absent).
  int AsPathLength() const { return as_path ? as_path->PathLength() : 0; }

  // A hash of every field (the store caches it).
  size_t Hash() const;
  friend bool operator==(const PathAttributes&, const PathAttributes&) = default;

  // Heap octets held by the vectors and the MP_REACH_NLRI nexthop (for memory accounting).
  size_t HeapBytes() const;
  // One line, for logs and tests:
  // "origin IGP as_path 1 2 3 next_hop 192.0.2.1 med 5 communities 1:2 no-export ..."
  std::string ToString() const;

 private:
  RareAttributesBox rare_;
};

}  // namespace sluice::bgp
