#pragma once
// PrefixSet: a set of prefix-match entries (a prefix-list, a network4/network6 condition, a
// nexthop or neighbour list) and the one question the VM asks of it: does this route's prefix
// match any entry?
//
// Each entry is a prefix P/L and a modifier (Junos route-filter terms):
//   exact            the route is P/L
//   longer           the route is inside P/L and longer than L
//   orlonger         the route is inside P/L (P/L itself included)
//   shorter          the route covers P/L and is shorter than L
//   orshorter        the route covers P/L (P/L itself included)
//   prefix-length A-B  the route is inside P/L and its length is in A..B (L <= A <= B)
//
// How it works (and why it is behind this class): every entry becomes "route inside Q/L with a
// length in a set M" (a shorter/orshorter entry becomes one exact entry per covering prefix).
// Because prefixes nest, the address space splits into elementary intervals and each interval
// carries the union of the length sets M of the entries containing it: a route P/r matches iff
// the interval holding P's address allows length r. A lookup is one binary search over the
// interval starts and a bit test, whatever the number of entries. The set can move to the route
// trie (net/route_trie.h) later without changing its callers. Build cost O(N log N).
//
// Not thread-safe to build; immutable and safe to share between threads once built.

#include <array>
#include <cstdint>
#include <vector>

#include "net/ip_address.h"
#include "net/prefix.h"

namespace sluice::policy {

enum class PrefixModifier : uint8_t { kExact, kLonger, kOrLonger, kShorter, kOrShorter, kRange };

struct PrefixEntry {
  net::Prefix prefix;
  PrefixModifier modifier = PrefixModifier::kExact;
  int min_length = 0;  // kRange only: L <= min_length <= max_length <= address bits
  int max_length = 0;
};

class PrefixSet {
 public:
  PrefixSet() = default;
  // Builds the set from its entries; entries for both families may be mixed. Entries with a
  // kRange outside L..bits are clamped into it (the parser refuses them with a location first).
  explicit PrefixSet(const std::vector<PrefixEntry>& entries);

  bool Matches(const net::Prefix& route) const;
  // An address matches as the host route ADDRESS/32 or /128.
  bool Matches(const net::IPAddress& address) const;
  bool empty() const { return v4_.starts.empty() && v6_.starts.empty(); }
  // Number of elementary intervals (for tests and the benchmark's description).
  size_t interval_count() const { return v4_.starts.size() + v6_.starts.size(); }

 private:
  // Addresses as unsigned integers: the 32-bit IPv4 value, or the IPv6 address in 128 bits.
  using U128 = unsigned __int128;
  struct LengthMask {  // bit r: a route of length r matches
    std::array<uint64_t, 3> w{};
    bool Test(int r) const { return (w[r >> 6] >> (r & 63)) & 1u; }
    void Set(int r) { w[r >> 6] |= uint64_t{1} << (r & 63); }
    LengthMask& operator|=(const LengthMask& o) {
      for (int i = 0; i < 3; ++i) w[i] |= o.w[i];
      return *this;
    }
  };
  template <typename Key>
  struct Intervals {
    std::vector<Key> starts;  // sorted; interval i is [starts[i], starts[i+1])
    std::vector<LengthMask> masks;
    bool Matches(Key address, int length) const;
  };
  template <typename Key>
  static void Build(std::vector<std::pair<net::Prefix, LengthMask>> entries, int bits,
                    Intervals<Key>* out);

  Intervals<uint32_t> v4_;
  Intervals<U128> v6_;
};

}  // namespace sluice::policy
