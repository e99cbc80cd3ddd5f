#pragma once
// BgpVarRW: the policy VM's view of a BGP route (policy/var_rw.h; XORP's BGPVarRW). Import and
// export filters run a compiled policy::Filter over a BgpRoute through it.
//
// Reads are views into the route's interned attributes (no copy). The first write copies the
// attributes into a scratch PathAttributes (copy-on-write), which Reset() reuses, so filtering
// many routes does not allocate once warm; the caller interns attributes() when modified().
//
// Variables (policy/var.h): protocol "bgp"; network; nexthop (NEXT_HOP, or the MP_REACH
// nexthop for IPv6; writes of `self` and `peer` take the addresses of the context); neighbor
// (the peer the route was learnt from; none for originated routes); origin; med; local-pref;
// as-path; community, ext-community, large-community; to-protocol "bgp" and to-neighbor on
// export only; local-as; rpki (read-only: the route's origin validation state, RFC 6811 §2, set
// by the validation stage before the import filter; a route no validation stage has seen, as
// when sluice-bgp runs without RPKI, reads not-found, since with no VRPs every route is
// NotFound). `tag` is not a BGP attribute: reads none, writes are ignored.

#include <cstdint>
#include <optional>
#include <vector>

#include "bgp/rpki/rpki_state.h"
#include "bgp/stages/route.h"
#include "bgp/wire/path_attributes.h"
#include "policy/community.h"
#include "policy/var.h"
#include "policy/var_rw.h"

namespace sluice::bgp {

struct PolicyContext {
  uint32_t local_as = 0;
  std::optional<net::IPAddress> self;         // our address on the session (nexthop self)
  std::optional<net::IPAddress> peer;         // the peer's address (nexthop peer)
  std::optional<net::IPAddress> to_neighbor;  // export filters: the peer the route goes to
};

class BgpVarRW : public policy::VarRW {
 public:
  // Starts over on `route` (kept by reference until the next Reset; its attrs must be set).
  void Reset(const BgpRoute& route, const PolicyContext& context);

  policy::Value Read(policy::VarId id) override;
  void Write(policy::VarId id, const policy::Value& value) override;

  bool modified() const { return dirty_; }
  // Bit (1 << VarId) for each variable written since Reset.
  uint32_t written() const { return written_; }
  bool Wrote(policy::VarId id) const { return (written_ >> static_cast<int>(id)) & 1u; }
  // The attributes with the writes applied.
  const PathAttributes& attributes() const { return dirty_ ? out_ : *route_->attrs; }

 private:
  PathAttributes& Mutable();

  const BgpRoute* route_ = nullptr;
  const PolicyContext* context_ = nullptr;
  PathAttributes out_;
  bool dirty_ = false;
  uint32_t written_ = 0;
  // Read scratch: the AS path in the policy's word encoding, large communities.
  std::vector<uint32_t> as_words_;
  bool as_words_valid_ = false;
  std::vector<policy::LargeCommunity> large_;
};

// The policy language's value of a route's RPKI state (BgpRoute::rpki); nullopt is not-found.
policy::RpkiValidation PolicyRpkiState(const std::optional<rpki::RpkiState>& state);

// AS_PATH conversions between the codec (bgp/wire/as_path.h) and the policy language
// (policy/as_path.h) word encodings.
void ToPolicyWords(const AsPath& path, std::vector<uint32_t>* words);
AsPath FromPolicyWords(std::span<const uint32_t> words);

}  // namespace sluice::bgp
