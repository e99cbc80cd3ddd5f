#include "bgp/stages/bgp_stage.h"

#include <algorithm>

namespace sluice::bgp {

void MergeCollected(std::vector<net::Prefix>* sorted, size_t old_size, size_t limit) {
  std::inplace_merge(sorted->begin(), sorted->begin() + old_size, sorted->end());
  sorted->erase(std::unique(sorted->begin(), sorted->end()), sorted->end());
  if (sorted->size() > limit) sorted->resize(limit);
}

namespace {

// Past the `limit` smallest collected so far, nothing more can make the cut.
std::optional<net::Prefix> CollectBound(const std::vector<net::Prefix>& sorted, size_t limit) {
  if (sorted.size() < limit || sorted.empty()) return std::nullopt;
  return sorted.back();
}

}  // namespace

void PrefixSource::CollectPrefixes(const std::optional<net::Prefix>& after, size_t limit,
                                   std::vector<net::Prefix>* sorted) const {
  const size_t old_size = sorted->size();
  const std::optional<net::Prefix> bound = CollectBound(*sorted, limit);
  std::optional<net::Prefix> p = after;
  for (size_t n = 0; n < limit; ++n) {
    p = NextPrefix(p);
    if (!p || (bound && *p >= *bound)) break;
    sorted->push_back(*p);
  }
  MergeCollected(sorted, old_size, limit);
}

void CollectPrefixesIn(RouteTable& table, const std::optional<net::Prefix>& after, size_t limit,
                       std::vector<net::Prefix>* sorted) {
  const size_t old_size = sorted->size();
  const std::optional<net::Prefix> bound = CollectBound(*sorted, limit);
  auto it = after ? table.lower_bound(*after) : table.begin();
  if (after && it != table.end() && it.key() == *after) ++it;
  for (size_t n = 0; n < limit && it != table.end(); ++n, ++it) {
    const net::Prefix p = it.key();
    if (bound && p >= *bound) break;
    sorted->push_back(p);
  }
  MergeCollected(sorted, old_size, limit);
}

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

void RouteTableSet::CollectPrefixes(const std::optional<net::Prefix>& after, size_t limit,
                                    std::vector<net::Prefix>* sorted) const {
  for (RouteTable* t : tables_) CollectPrefixesIn(*t, after, limit, sorted);
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

void PrefixSourceUnion::CollectPrefixes(const std::optional<net::Prefix>& after, size_t limit,
                                        std::vector<net::Prefix>* sorted) const {
  for (const PrefixSource* s : sources_) s->CollectPrefixes(after, limit, sorted);
}

}  // namespace sluice::bgp
