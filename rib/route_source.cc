#include "rib/route_source.h"

#include <algorithm>

namespace sluice::rib {

void SourceRegistry::Add(RouteSource* source) {
  if (std::find(sources_.begin(), sources_.end(), source) == sources_.end()) {
    sources_.push_back(source);
  }
}

void SourceRegistry::Remove(RouteSource* source) { std::erase(sources_, source); }

std::vector<RouteSource*> SourceRegistry::OfClass(ProtocolClass c) const {
  std::vector<RouteSource*> out;
  for (RouteSource* s : sources_) {
    if (s->source_class() == c) out.push_back(s);
  }
  return out;
}

std::vector<RouteSource*> SourceRegistry::OfProtocol(Symbol protocol) const {
  if (protocol.empty()) return sources_;
  std::vector<RouteSource*> out;
  for (RouteSource* s : sources_) {
    if (s->source_protocol() == protocol) out.push_back(s);
  }
  return out;
}

std::optional<net::Prefix> NextPrefix(std::span<RouteSource* const> sources,
                                      const std::optional<net::Prefix>& after) {
  std::optional<net::Prefix> best;
  auto consider = [&best](const net::Prefix& key) {
    if (!best || key < *best) best = key;
  };
  for (RouteSource* s : sources) {
    auto& table = s->source_table();
    // Straight to the family's trie: one descent (PrefixMap has no upper_bound).
    if (after && after->is_v4()) {
      auto it = table.v4().upper_bound(*after);
      if (it != table.v4().end()) {
        consider(it.key());
        continue;
      }
    }
    if (after && after->is_v6()) {
      auto it = table.v6().upper_bound(*after);
      if (it != table.v6().end()) consider(it.key());
      continue;
    }
    // No position yet, or past every IPv4 entry: the first entry (of IPv6, in the latter case).
    if (!after) {
      auto it = table.begin();
      if (it != table.end()) consider(it.key());
    } else {
      auto it = table.v6().begin();
      if (it != table.v6().end()) consider(it.key());
    }
  }
  return best;
}

std::vector<net::Prefix> CoveringPrefixes(std::span<RouteSource* const> sources,
                                          const net::IPAddress& address) {
  std::vector<net::Prefix> out;
  for (RouteSource* s : sources) {
    auto& table = s->source_table();
    for (auto it = table.longest_match(address); it != table.end();
         it = table.find_less_specific(it.key())) {
      out.push_back(it.key());
    }
  }
  std::sort(out.begin(), out.end(), [](const net::Prefix& a, const net::Prefix& b) {
    return a.length() != b.length() ? a.length() > b.length() : a < b;
  });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace sluice::rib
