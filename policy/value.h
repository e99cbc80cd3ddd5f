#pragma once
// Value: what a variable holds while a program runs — a small tagged union of scalars and
// non-owning views (spans, string_view). 32 octets, trivially copyable; copying one never
// allocates.
//
// Lifetime of views: a value a VarRW returns from Read() must stay valid until the next Write()
// of the same variable or the end of the run; a value the VM hands to Write() is valid only
// during that call (it may point into the VM's scratch space), so Write() copies what it keeps.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "net/ip_address.h"
#include "net/prefix.h"
#include "policy/as_path.h"
#include "policy/community.h"
#include "policy/var.h"

namespace sluice::policy {

// In the order of Value's variant.
enum class ValueKind : uint8_t {
  kNone,  // the route has no such variable or attribute
  kBool,
  kU32,               // tag, origin, med, local-pref, local-as
  kText,              // protocol names
  kPrefix,            // network
  kAddress,           // nexthop, neighbor
  kNexthopKeyword,    // nexthop self / peer (written only)
  kAsPath,            // as-path (AsPathView)
  kCommunities,       // span<const uint32_t>
  kExtCommunities,    // span<const uint64_t>
  kLargeCommunities,  // span<const LargeCommunity>
};
std::string_view ValueKindName(ValueKind kind);

class Value {
 public:
  Value() = default;  // none
  static Value None() { return Value(); }
  static Value Bool(bool b) { return Value(V(std::in_place_index<1>, b)); }
  static Value U32(uint32_t v) { return Value(V(std::in_place_index<2>, v)); }
  static Value Text(std::string_view t) { return Value(V(std::in_place_index<3>, t)); }
  static Value Of(const net::Prefix& p) { return Value(V(std::in_place_index<4>, p)); }
  static Value Of(const net::IPAddress& a) { return Value(V(std::in_place_index<5>, a)); }
  static Value Of(NexthopKeyword k) { return Value(V(std::in_place_index<6>, k)); }
  static Value Of(const AsPathView& p) { return Value(V(std::in_place_index<7>, p)); }
  static Value Communities(std::span<const uint32_t> c) {
    return Value(V(std::in_place_index<8>, c));
  }
  static Value ExtCommunities(std::span<const uint64_t> c) {
    return Value(V(std::in_place_index<9>, c));
  }
  static Value LargeCommunities(std::span<const LargeCommunity> c) {
    return Value(V(std::in_place_index<10>, c));
  }

  ValueKind kind() const { return static_cast<ValueKind>(v_.index()); }
  bool is_none() const { return v_.index() == 0; }

  // Accessors; each requires the matching kind().
  bool as_bool() const { return *std::get_if<1>(&v_); }
  uint32_t u32() const { return *std::get_if<2>(&v_); }
  std::string_view text() const { return *std::get_if<3>(&v_); }
  const net::Prefix& prefix() const { return *std::get_if<4>(&v_); }
  const net::IPAddress& address() const { return *std::get_if<5>(&v_); }
  NexthopKeyword nexthop_keyword() const { return *std::get_if<6>(&v_); }
  const AsPathView& as_path() const { return *std::get_if<7>(&v_); }
  std::span<const uint32_t> communities() const { return *std::get_if<8>(&v_); }
  std::span<const uint64_t> ext_communities() const { return *std::get_if<9>(&v_); }
  std::span<const LargeCommunity> large_communities() const { return *std::get_if<10>(&v_); }

  // As the language writes it: 65000:100, [ 65000:1 no-export ], "65001 65002", none, ...
  std::string ToString() const;

 private:
  using V = std::variant<std::monostate, bool, uint32_t, std::string_view, net::Prefix,
                         net::IPAddress, NexthopKeyword, AsPathView, std::span<const uint32_t>,
                         std::span<const uint64_t>, std::span<const LargeCommunity>>;
  explicit Value(V v) : v_(v) {}
  V v_;
};

}  // namespace sluice::policy
