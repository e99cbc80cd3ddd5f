#include "bench/rpki/vrp_generator.h"

#include <algorithm>
#include <iterator>
#include <numeric>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace sluice::bench::rpki {
namespace {

// SplitMix64: the same numbers on every platform and standard library.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t Below(uint64_t n) { return n == 0 ? 0 : Next() % n; }

 private:
  uint64_t state_;
};

// An AS that is neither `not_this` nor 0, nor a private or reserved one a test might use.
uint32_t OtherAs(Random& random, std::optional<uint32_t> not_this) {
  for (;;) {
    const uint32_t as = 1 + uint32_t(random.Below(399999));
    if (!not_this || as != *not_this) return as;
  }
}

VrpKind Draw(Random& random, const VrpShares& s) {
  int x = int(random.Below(100));
  const std::pair<int, VrpKind> kinds[] = {{s.exact, VrpKind::kExact},
                                           {s.wrong_origin, VrpKind::kWrongOrigin},
                                           {s.too_specific, VrpKind::kTooSpecific},
                                           {s.covering, VrpKind::kCovering},
                                           {s.as_zero, VrpKind::kAsZero},
                                           {s.several, VrpKind::kSeveral}};
  for (const auto& [share, kind] : kinds) {
    if (x < share) return kind;
    x -= share;
  }
  return VrpKind::kUncovered;
}

// The shortest covering VRP prefix the generator makes: nothing shorter than an RIR allocation.
int MinCoveringLength(const net::Prefix& p) { return p.is_v4() ? 8 : 16; }

// The VRPs of one route of kind `kind` (which may fall back to kExact; `kind` is updated).
std::vector<Vrp> VrpsFor(const RouteOrigin& r, VrpKind* kind, Random& random) {
  const net::Prefix& p = r.prefix;
  const int length = p.length();
  const uint8_t exact_len = uint8_t(length);
  const bool room = length > MinCoveringLength(p);
  if ((*kind == VrpKind::kTooSpecific || *kind == VrpKind::kCovering) && !room) {
    *kind = VrpKind::kExact;
  }
  const uint32_t origin = r.origin.value_or(0) != 0 ? *r.origin : OtherAs(random, std::nullopt);
  switch (*kind) {
    case VrpKind::kExact:
      return {Vrp{p, exact_len, origin}};
    case VrpKind::kWrongOrigin:
      return {Vrp{p, exact_len, OtherAs(random, r.origin)}};
    case VrpKind::kAsZero:
      return {Vrp{p, exact_len, 0}};
    case VrpKind::kSeveral:
      return {Vrp{p, exact_len, origin}, Vrp{p, exact_len, OtherAs(random, r.origin)}};
    case VrpKind::kTooSpecific:
    case VrpKind::kCovering: {
      const int shortest = std::max(MinCoveringLength(p), length - 4);
      const int cover = shortest + int(random.Below(uint64_t(length - shortest)));
      int max_length;
      if (*kind == VrpKind::kTooSpecific) {
        max_length = cover + int(random.Below(uint64_t(length - cover)));
      } else {
        max_length = std::min(p.max_length(), length + int(random.Below(3)));
      }
      return {Vrp{p.Truncated(cover), uint8_t(max_length), origin}};
    }
    case VrpKind::kUncovered:
      break;
  }
  return {};
}

}  // namespace

const char* VrpKindName(VrpKind kind) {
  switch (kind) {
    case VrpKind::kExact:
      return "exact";
    case VrpKind::kWrongOrigin:
      return "wrong-origin";
    case VrpKind::kTooSpecific:
      return "too-specific";
    case VrpKind::kCovering:
      return "covering";
    case VrpKind::kAsZero:
      return "as0";
    case VrpKind::kSeveral:
      return "several";
    case VrpKind::kUncovered:
      break;
  }
  return "uncovered";
}

std::vector<RouteOrigin> RouteOrigins(const bgp::replay::PeerFeed& feed, net::Family family,
                                      uint32_t sender_as) {
  std::vector<RouteOrigin> out;
  for (const bgp::replay::Route& r : feed.Table()) {
    if (r.nlri.safi != bgp::Safi::kUnicast || r.nlri.prefix.family() != family) continue;
    std::optional<uint32_t> origin = sender_as;
    if (r.attributes && r.attributes->as_path) {
      origin = bgp::rpki::RouteOriginAs(*r.attributes->as_path, sender_as);
    }
    out.push_back({r.nlri.prefix, origin});
  }
  std::sort(out.begin(), out.end(),
            [](const RouteOrigin& a, const RouteOrigin& b) { return a.prefix < b.prefix; });
  out.erase(
      std::unique(out.begin(), out.end(),
                  [](const RouteOrigin& a, const RouteOrigin& b) { return a.prefix == b.prefix; }),
      out.end());
  return out;
}

size_t BusiestPeer(const bgp::replay::Capture& capture, net::Family family, size_t* routes) {
  size_t best = 0;
  *routes = 0;
  for (size_t i = 0; i < capture.peers.size(); ++i) {
    size_t n = 0;
    for (const bgp::replay::Route& r : capture.peers[i].Table()) {
      n += r.nlri.safi == bgp::Safi::kUnicast && r.nlri.prefix.family() == family ? 1 : 0;
    }
    if (n > *routes) {
      best = i;
      *routes = n;
    }
  }
  return best;
}

GeneratedVrps GenerateVrps(const std::vector<RouteOrigin>& routes, const VrpShares& shares,
                           uint64_t seed) {
  GeneratedVrps g;
  Random random(seed);
  absl::flat_hash_set<Vrp> seen;
  // Routes sorted by prefix come after those covering them: the more specifics of a route left
  // uncovered stay uncovered, so that VRPs made for them do not cover it.
  std::optional<net::Prefix> uncovered;
  for (const RouteOrigin& r : routes) {
    VrpKind kind = Draw(random, shares);
    if (uncovered && uncovered->Contains(r.prefix)) {
      kind = VrpKind::kUncovered;
    } else if (kind == VrpKind::kUncovered && r.prefix.length() >= MinCoveringLength(r.prefix)) {
      uncovered = r.prefix;
    }
    std::vector<Vrp> vrps = VrpsFor(r, &kind, random);
    ++g.routes[size_t(kind)];
    for (Vrp& v : vrps) {
      if (!seen.insert(v).second) {
        ++g.duplicates;
        continue;
      }
      ++g.vrps_made[size_t(kind)];
      g.vrps.push_back(v);
    }
  }
  return g;
}

RewriteCounts RewriteVrps(std::vector<Vrp>* vrps, const std::vector<RouteOrigin>& routes, size_t n,
                          uint64_t seed) {
  RewriteCounts counts;
  absl::flat_hash_map<net::Prefix, std::optional<uint32_t>> origin_of;
  for (const RouteOrigin& r : routes) origin_of[r.prefix] = r.origin;
  absl::flat_hash_set<Vrp> present(vrps->begin(), vrps->end());
  std::vector<size_t> order(vrps->size());
  std::iota(order.begin(), order.end(), size_t{0});
  Random random(seed);
  size_t changed = 0;
  for (size_t i = 0; i < order.size() && changed < n; ++i) {
    std::swap(order[i], order[i + random.Below(order.size() - i)]);
    Vrp& v = (*vrps)[order[i]];
    Vrp next = v;
    auto route = origin_of.find(v.prefix);
    const bool has_origin =
        route != origin_of.end() && route->second.has_value() && *route->second != 0;
    if (has_origin && v.asn != *route->second) {
      next.asn = *route->second;
    } else {
      next.asn = OtherAs(random, v.asn);
    }
    if (present.contains(next)) continue;  // the set would lose a VRP: pick another
    present.erase(v);
    present.insert(next);
    if (has_origin) {
      ++(next.asn == *route->second ? counts.made_valid : counts.made_invalid);
    } else {
      ++counts.other;
    }
    v = next;
    ++changed;
  }
  return counts;
}

OracleStates Validate(const std::vector<Vrp>& vrps, const std::vector<RouteOrigin>& routes) {
  bgp::rpki::VrpTable table;
  for (const Vrp& v : vrps) table.Add(v);
  OracleStates s;
  for (const RouteOrigin& r : routes) {
    switch (table.Validate(r.prefix, r.origin)) {
      case bgp::rpki::RpkiState::kValid:
        ++s.valid;
        break;
      case bgp::rpki::RpkiState::kInvalid:
        ++s.invalid;
        s.invalid_prefixes.push_back(r.prefix);
        break;
      case bgp::rpki::RpkiState::kNotFound:
        ++s.not_found;
        break;
    }
  }
  std::sort(s.invalid_prefixes.begin(), s.invalid_prefixes.end());
  return s;
}

InvalidCrossings CompareInvalid(const OracleStates& before, const OracleStates& after) {
  InvalidCrossings c;
  std::set_difference(after.invalid_prefixes.begin(), after.invalid_prefixes.end(),
                      before.invalid_prefixes.begin(), before.invalid_prefixes.end(),
                      std::back_inserter(c.became_invalid));
  std::set_difference(before.invalid_prefixes.begin(), before.invalid_prefixes.end(),
                      after.invalid_prefixes.begin(), after.invalid_prefixes.end(),
                      std::back_inserter(c.stopped_invalid));
  return c;
}

}  // namespace sluice::bench::rpki
