#pragma once
// SimpleRoute: a plain route holding every policy variable, and SimpleRouteVarRW, the reference
// VarRW over it. Used by the .pol tests, the benchmark, and as the example a protocol's VarRW
// follows: reads give views into the route, the first write makes a private copy
// (copy-on-write, as BGP does with its interned attributes), and Reset() reuses that copy's
// storage so that evaluating many routes does not allocate.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "net/ip_address.h"
#include "net/prefix.h"
#include "policy/as_path.h"
#include "policy/community.h"
#include "policy/var.h"
#include "policy/var_rw.h"

namespace sluice::policy {

struct SimpleRoute {
  std::string protocol = "bgp";                   // kProtocol
  net::Prefix network;                            // kNetwork
  std::optional<net::IPAddress> nexthop;          // kNexthop
  std::optional<NexthopKeyword> nexthop_keyword;  // set by "nexthop self|peer" (clears nexthop)
  std::optional<net::IPAddress> neighbor;         // kNeighbor
  std::optional<uint32_t> tag;                    // kTag
  std::optional<uint32_t> origin;                 // kOrigin
  std::optional<uint32_t> med;                    // kMed
  std::optional<uint32_t> local_pref;             // kLocalPref
  std::optional<AsPath> as_path;                  // kAsPath
  uint64_t as_path_id = 0;                        // the path's intern id (AsPathView), 0 for none
  std::vector<uint32_t> communities;              // kCommunity
  std::vector<uint64_t> ext_communities;          // kExtCommunity
  std::vector<LargeCommunity> large_communities;  // kLargeCommunity
  std::optional<std::string> to_protocol;         // kToProtocol
  std::optional<net::IPAddress> to_neighbor;      // kToNeighbor
  std::optional<uint32_t> local_as;               // kLocalAs
  std::optional<uint32_t> rpki;                   // kRpki (RpkiValidation); none: not validated

  friend bool operator==(const SimpleRoute&, const SimpleRoute&) = default;
  // The value of a variable as the VM would read it.
  Value Get(VarId id) const;
  // One line per set variable, "name value", in VarId order.
  std::string ToString() const;
};

class SimpleRouteVarRW : public VarRW {
 public:
  SimpleRouteVarRW() = default;
  explicit SimpleRouteVarRW(const SimpleRoute& route) { Reset(route); }

  // Starts over on `route` (kept by reference until the next Reset).
  void Reset(const SimpleRoute& route) {
    in_ = &route;
    dirty_ = false;
  }
  Value Read(VarId id) override { return current().Get(id); }
  void Write(VarId id, const Value& value) override;

  // The route with the writes applied (the input itself when nothing was written).
  const SimpleRoute& route() const { return current(); }
  bool modified() const { return dirty_; }

 private:
  const SimpleRoute& current() const { return dirty_ ? out_ : *in_; }
  const SimpleRoute* in_ = nullptr;
  SimpleRoute out_;
  bool dirty_ = false;
};

}  // namespace sluice::policy
