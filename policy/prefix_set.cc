#include "policy/prefix_set.h"

#include <algorithm>

namespace sluice::policy {
namespace {

using U128 = unsigned __int128;

template <typename Key>
Key KeyOf(const net::Prefix& p);
template <>
uint32_t KeyOf<uint32_t>(const net::Prefix& p) {
  return p.v4().value();
}
template <>
U128 KeyOf<U128>(const net::Prefix& p) {
  return (U128{p.v6().hi()} << 64) | p.v6().lo();
}

template <typename Key>
Key HostMask(int length, int bits) {
  if (length >= bits) return 0;
  if (length == 0) return ~Key{0};
  return (Key{1} << (bits - length)) - 1;
}

}  // namespace

template <typename Key>
bool PrefixSet::Intervals<Key>::Matches(Key address, int length) const {
  if (starts.empty()) return false;
  // The last interval whose start is <= address; starts[0] is 0.
  size_t lo = 0, n = starts.size();
  while (n > 1) {
    const size_t half = n / 2;
    if (starts[lo + half] <= address) lo += half;
    n -= half;
  }
  return masks[lo].Test(length);
}

template <typename Key>
void PrefixSet::Build(std::vector<std::pair<net::Prefix, LengthMask>> entries, int bits,
                      Intervals<Key>* out) {
  out->starts.clear();
  out->masks.clear();
  if (entries.empty()) return;
  // Same prefix twice: one entry with the union of the lengths. Sorting by prefix puts a
  // covering prefix right before the prefixes it covers.
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<net::Prefix, LengthMask>> merged;
  for (auto& e : entries) {
    if (!merged.empty() && merged.back().first == e.first) {
      merged.back().second |= e.second;
    } else {
      merged.push_back(e);
    }
  }

  auto emit = [&](Key start, const LengthMask& mask) {
    if (!out->starts.empty() && out->starts.back() == start) {
      out->masks.back() = mask;
      return;
    }
    out->starts.push_back(start);
    out->masks.push_back(mask);
  };
  struct Open {
    Key last;
    LengthMask cumulative;
  };
  std::vector<Open> stack;
  const Key max = ~Key{0};
  // Closes every open entry that ends before `until` (all of them when `all`).
  auto close = [&](Key until, bool all) {
    while (!stack.empty() && (all || stack.back().last < until)) {
      const Key last = stack.back().last;
      stack.pop_back();
      if (last != max) emit(last + 1, stack.empty() ? LengthMask{} : stack.back().cumulative);
    }
  };
  emit(0, LengthMask{});
  for (const auto& [prefix, mask] : merged) {
    const Key start = KeyOf<Key>(prefix);
    close(start, false);
    LengthMask cumulative = mask;
    if (!stack.empty()) cumulative |= stack.back().cumulative;
    stack.push_back(Open{start | HostMask<Key>(prefix.length(), bits), cumulative});
    emit(start, cumulative);
  }
  close(0, true);
  // Neighbouring intervals with the same mask are one.
  size_t w = 0;
  for (size_t i = 0; i < out->starts.size(); ++i) {
    if (w > 0 && out->masks[w - 1].w == out->masks[i].w) continue;
    out->starts[w] = out->starts[i];
    out->masks[w] = out->masks[i];
    ++w;
  }
  out->starts.resize(w);
  out->masks.resize(w);
  out->starts.shrink_to_fit();
  out->masks.shrink_to_fit();
}

PrefixSet::PrefixSet(const std::vector<PrefixEntry>& entries) {
  std::vector<std::pair<net::Prefix, LengthMask>> v4, v6;
  for (const PrefixEntry& e : entries) {
    const int len = e.prefix.length();
    const int bits = e.prefix.max_length();
    auto& list = e.prefix.is_v4() ? v4 : v6;
    auto inside = [&](int lo, int hi) {
      LengthMask m;
      for (int r = std::max(lo, len); r <= std::min(hi, bits); ++r) m.Set(r);
      list.emplace_back(e.prefix, m);
    };
    switch (e.modifier) {
      case PrefixModifier::kExact:
        inside(len, len);
        break;
      case PrefixModifier::kLonger:
        inside(len + 1, bits);
        break;
      case PrefixModifier::kOrLonger:
        inside(len, bits);
        break;
      case PrefixModifier::kRange:
        inside(e.min_length, e.max_length);
        break;
      case PrefixModifier::kShorter:
      case PrefixModifier::kOrShorter: {
        // The routes covering P/L are its truncations: one exact entry each.
        const int top = e.modifier == PrefixModifier::kShorter ? len - 1 : len;
        for (int r = 0; r <= top; ++r) {
          LengthMask m;
          m.Set(r);
          list.emplace_back(e.prefix.Truncated(r), m);
        }
        break;
      }
    }
  }
  Build<uint32_t>(std::move(v4), 32, &v4_);
  Build<U128>(std::move(v6), 128, &v6_);
}

bool PrefixSet::Matches(const net::Prefix& route) const {
  if (route.is_v4()) return v4_.Matches(KeyOf<uint32_t>(route), route.length());
  return v6_.Matches(KeyOf<U128>(route), route.length());
}

bool PrefixSet::Matches(const net::IPAddress& address) const {
  return Matches(net::Prefix(address, address.bits()));
}

}  // namespace sluice::policy
