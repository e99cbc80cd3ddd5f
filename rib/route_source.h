#pragma once
// Route sources: the tables where RIB routes are stored (origin stages, and deletion stages
// holding a dead protocol's routes until they are withdrawn), and the walks over them.
//
// Only sources store routes (DESIGN.md § Route stages). A stage downstream that must enumerate
// routes — the FEA output re-sending the FIB, a redistribution dump, the ExtInt stage finding
// the EGP routes behind a nexthop, the Register stage finding the routes near an address — walks
// the union of the sources' prefixes and asks its own upstream stage for each prefix
// (lookup_route), which by consistency rule 2 answers exactly what reached that point. Every
// prefix that reaches any stage is in some source, so such a walk misses nothing; prefixes that
// were dropped on the way (an unresolvable EGP route, a filtered route) answer nothing.
//
// A walk keeps its place as a prefix value, not an iterator, so sources may come and go and
// routes may change between the slices of a background walk.

#include <optional>
#include <span>
#include <vector>

#include "net/ip_address.h"
#include "net/prefix.h"
#include "net/prefix_map.h"
#include "rib/nexthop_table.h"
#include "rib/protocol.h"
#include "rib/symbol.h"

namespace sluice::rib {

class RouteSource {
 public:
  virtual ~RouteSource() = default;
  virtual Symbol source_protocol() const = 0;
  virtual ProtocolClass source_class() const = 0;
  virtual net::PrefixMap<StoredRoute>& source_table() = 0;
};

// The live sources of one RIB network. Stages hold a pointer to it and select what they need.
class SourceRegistry {
 public:
  void Add(RouteSource* source);
  void Remove(RouteSource* source);
  const std::vector<RouteSource*>& all() const { return sources_; }
  // The sources of one class, or of one protocol (empty Symbol: any protocol).
  std::vector<RouteSource*> OfClass(ProtocolClass c) const;
  std::vector<RouteSource*> OfProtocol(Symbol protocol) const;

 private:
  std::vector<RouteSource*> sources_;
};

// The first prefix held by any of `sources` after `after` (from the beginning when nullopt), in
// net::Prefix order; nullopt when there is none. O(sources × W).
std::optional<net::Prefix> NextPrefix(std::span<RouteSource* const> sources,
                                      const std::optional<net::Prefix>& after);

// Every prefix held by any of `sources` that contains `address`, longest first, without
// duplicates.
std::vector<net::Prefix> CoveringPrefixes(std::span<RouteSource* const> sources,
                                          const net::IPAddress& address);

}  // namespace sluice::rib
