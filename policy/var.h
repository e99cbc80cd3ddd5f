#pragma once
// The variables a policy reads and writes, identified by small integer ids that the compiler
// resolves from the language's keywords. The VM never looks a variable up by name at run time:
// a protocol's VarRW (policy/var_rw.h) switches on the id.
//
// Each variable has one value kind (policy/value.h). "ro" variables are never written by a
// program; the compiler refuses a program that would.
//
//   id               kind         keyword in the language          meaning
//   kProtocol        text     ro  protocol                         protocol the route came from:
//                                                                  "bgp", "static", ...
//   kNetwork         prefix   ro  network4, network6, prefix-list  the route's destination
//   kNexthop         address  rw  nexthop                          write: an address or a
//                                                                  NexthopKeyword (self, peer)
//   kNeighbor        address  ro  neighbor / neighbour             peer the route was learnt from
//   kTag             u32      rw  tag                              policy tag (redistribution)
//   kOrigin          u32      rw  origin                           BGP ORIGIN: 0 igp, 1 egp,
//                                                                  2 incomplete (RFC 4271 §5.1.1)
//   kMed             u32      rw  med                              MULTI_EXIT_DISC (§5.1.4)
//   kLocalPref       u32      rw  local-pref                       LOCAL_PREF (§5.1.5)
//   kAsPath          as-path  rw  as-path, as-path-length          AS_PATH (§5.1.2)
//   kCommunity       comms    rw  community                        RFC 1997
//   kExtCommunity    ext      rw  ext-community                    RFC 4360
//   kLargeCommunity  large    rw  large-community                  RFC 8092
//   kToProtocol      text     ro  protocol inside `to { }`         protocol the route goes to
//   kToNeighbor      address  ro  neighbor inside `to { }`         peer the route is sent to
//   kLocalAs         u32      ro  as-path prepend local-as         the router's own AS
//   kRpki            u32      ro  rpki                             origin validation state
//                                                                  (RpkiValidation, RFC 6811 §2)
//
// A protocol answers Read() with Value::None() for a variable its routes do not carry (a static
// route has no AS path); every comparison with "none" is false.

#include <cstdint>
#include <optional>
#include <string_view>

namespace sluice::policy {

enum class VarId : uint8_t {
  kProtocol,
  kNetwork,
  kNexthop,
  kNeighbor,
  kTag,
  kOrigin,
  kMed,
  kLocalPref,
  kAsPath,
  kCommunity,
  kExtCommunity,
  kLargeCommunity,
  kToProtocol,
  kToNeighbor,
  kLocalAs,
  kRpki,
};
inline constexpr int kVarCount = 16;

// The language's name of a variable ("local-pref", "to-protocol", ...).
std::string_view VarName(VarId id);
std::optional<VarId> VarFromName(std::string_view name);
// True for variables no program may write.
bool VarReadOnly(VarId id);

// A set of variables: which ones a protocol can read or write (CompileOptions).
class VarSet {
 public:
  constexpr VarSet() = default;
  static constexpr VarSet All() { return VarSet((1u << kVarCount) - 1); }
  constexpr VarSet& Add(VarId id) {
    bits_ |= 1u << static_cast<int>(id);
    return *this;
  }
  constexpr bool Contains(VarId id) const { return (bits_ >> static_cast<int>(id)) & 1u; }
  constexpr uint32_t bits() const { return bits_; }

 private:
  constexpr explicit VarSet(uint32_t bits) : bits_(bits) {}
  uint32_t bits_ = 0;
};

// BGP ORIGIN values (RFC 4271 §5.1.1).
enum class Origin : uint8_t { kIgp = 0, kEgp = 1, kIncomplete = 2 };
std::string_view OriginName(uint32_t origin);  // "igp", "egp", "incomplete", "?"
std::optional<Origin> OriginFromName(std::string_view name);

// A route's RPKI route origin validation state (RFC 6811 §2), the value of kRpki. A protocol
// whose routes were not validated (no VRPs at all) reads kNotFound: with no covering VRP every
// route is NotFound.
enum class RpkiValidation : uint8_t { kNotFound = 0, kValid = 1, kInvalid = 2 };
std::string_view RpkiValidationName(uint32_t state);  // "not-found", "valid", "invalid", "?"
std::optional<RpkiValidation> RpkiValidationFromName(std::string_view name);

// Symbolic nexthops a program may write to kNexthop; the protocol resolves them (BGP: its own
// address on the session, or the peer's address).
enum class NexthopKeyword : uint8_t { kSelf, kPeer };
std::string_view NexthopKeywordName(NexthopKeyword k);  // "self", "peer"

}  // namespace sluice::policy
