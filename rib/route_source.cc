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
  for (RouteSource* s : sources) {
    auto& table = s->source_table();
    auto it = after ? table.lower_bound(*after) : table.begin();
    if (after && it != table.end() && it.key() == *after) ++it;
    if (it == table.end()) continue;
    const net::Prefix key = it.key();
    if (!best || key < *best) best = key;
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
