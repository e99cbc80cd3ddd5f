#include "bgp/stages/bgp_stage.h"

#include <algorithm>

namespace sluice::bgp {

std::optional<net::Prefix> NextPrefixIn(RouteTable& table,
                                        const std::optional<net::Prefix>& after) {
  if (!after) {
    auto it = table.begin();
    if (it == table.end()) return std::nullopt;
    return it.key();
  }
  if (after->is_v4()) {
    auto it = table.v4().upper_bound(*after);
    if (it != table.v4().end()) return it.key();
    auto it6 = table.v6().begin();
    if (it6 != table.v6().end()) return it6.key();
    return std::nullopt;
  }
  auto it = table.v6().upper_bound(*after);
  if (it != table.v6().end()) return it.key();
  return std::nullopt;
}

void RouteTableSet::Remove(RouteTable* table) { std::erase(tables_, table); }

size_t RouteTableSet::route_count() const {
  size_t n = 0;
  for (const RouteTable* t : tables_) n += t->size();
  return n;
}

std::optional<net::Prefix> RouteTableSet::NextPrefix(
    const std::optional<net::Prefix>& after) const {
  std::optional<net::Prefix> best;
  for (RouteTable* t : tables_) {
    std::optional<net::Prefix> p = NextPrefixIn(*t, after);
    if (p && (!best || *p < *best)) best = p;
  }
  return best;
}

void PrefixSourceUnion::Remove(const PrefixSource* source) { std::erase(sources_, source); }

std::optional<net::Prefix> PrefixSourceUnion::NextPrefix(
    const std::optional<net::Prefix>& after) const {
  std::optional<net::Prefix> best;
  for (const PrefixSource* s : sources_) {
    std::optional<net::Prefix> p = s->NextPrefix(after);
    if (p && (!best || *p < *best)) best = p;
  }
  return best;
}

}  // namespace sluice::bgp
