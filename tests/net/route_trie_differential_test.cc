// Randomized differential test of net::RouteTrie against a simple oracle: a std::map<Prefix, T>
// for exact lookups and order, and a brute-force longest-prefix match (probe every stored length).
//
// Over 1,000,000 operations per family it mixes insert, insert_or_assign, erase by prefix and by
// iterator, find, longest-prefix match (address and prefix), less-specific lookups,
// lower/upper_bound, full and subtree iteration, clear, and a pool of live iterators ("walkers")
// that advance in slices while entries are erased around and under them — including the entry a
// walker stands on (XORP NSDI'05 §5.3). Every result is compared with the oracle; the trie's
// structure is checked every few thousand operations and at the end (no node leaked).
//
// The seed is fixed and printed; set SLUICE_TRIE_SEED to replay another one.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "net/route_trie.h"

namespace sluice::net {
namespace {

constexpr int kOperations = 1'000'000;
constexpr size_t kTargetSize = 1500;  // entries the oracle hovers around
constexpr size_t kMaxWalkers = 12;

uint64_t Seed() {
  const char* env = std::getenv("SLUICE_TRIE_SEED");
  return env != nullptr ? std::strtoull(env, nullptr, 10) : 20240601;
}

template <class A>
class Differential {
  using Trie = RouteTrie<A, std::string>;
  using Iterator = typename Trie::iterator;
  using Oracle = std::map<Prefix, std::string>;
  static constexpr int kBits = A::kBits;

  // A live iterator and what the oracle says about it.
  struct Walker {
    Iterator it;
    std::optional<Prefix> scope;  // set for a subtree iterator
    bool erased = false;          // the entry it stands on was erased
    std::string erased_value;     // its value at the erase
  };

 public:
  // index_min_entries: when the IPv4 lookup index is used (RouteTrie::
  // set_lookup_index_min_entries); 0 uses it for every address lookup.
  Differential(uint64_t seed, size_t index_min_entries) : rng_(seed) {
    trie_.set_lookup_index_min_entries(index_min_entries);
    for (auto& b : bases_) b = {rng_(), rng_()};
    if (kBits == 32) {
      for (int l = 0; l <= 32; ++l) lengths_.push_back(l);
      for (int l = 16; l <= 24; ++l) lengths_.push_back(l);  // like a real table
    } else {
      lengths_ = {0, 1, 8, 16, 19, 24, 29, 32, 33, 40, 48, 56, 63, 64, 65, 72, 96, 120, 127, 128};
    }
  }

  void Run(int operations) {
    for (int op = 0; op < operations; ++op) {
      Step(op);
      ASSERT_EQ(trie_.size(), oracle_.size()) << "after operation " << op;
      size_sum_ += oracle_.size();
      if (::testing::Test::HasFatalFailure() || ::testing::Test::HasFailure()) {
        FAIL() << "stopped at operation " << op;
      }
      if (op % 5000 == 0) {
        const absl::Status s = trie_.CheckInvariants();
        ASSERT_TRUE(s.ok()) << s << " after operation " << op;
      }
    }
    CheckFullIteration();
    walkers_.clear();  // every pinned, erased node must now be freed
    const absl::Status s = trie_.CheckInvariants();
    ASSERT_TRUE(s.ok()) << s;
    if (!oracle_.empty()) {
      ASSERT_LE(trie_.node_count(), 2 * oracle_.size() - 1);
    }
    std::printf(
        "  %s: %zu entries on average, %zu at the end (%zu nodes); %d erases under walkers, %d "
        "++ from erased entries, %d deep matches (longer than /0); lookup index %s\n",
        kBits == 32 ? "IPv4" : "IPv6", static_cast<size_t>(size_sum_ / operations), oracle_.size(),
        trie_.node_count(), erased_under_walkers_, erased_advances_, deep_matches_,
        trie_.has_lookup_index() ? "in use" : "not in use");
  }

 private:
  // --- random inputs ---
  IPAddress RandomAddress() {
    // Agree with one of a few base addresses on a random number of leading bits, so prefixes
    // nest and lookups reach deep entries.
    const auto& [bh, bl] = bases_[rng_() % bases_.size()];
    const int keep = static_cast<int>(rng_() % (kBits + 1));
    const IPv6Address base(bh, bl);
    const IPv6Address random(rng_(), rng_());
    const IPv6Address mask = IPv6Address(~uint64_t{0}, ~uint64_t{0}).Masked(keep);
    uint64_t hi = (base.hi() & mask.hi()) | (random.hi() & ~mask.hi());
    uint64_t lo = (base.lo() & mask.lo()) | (random.lo() & ~mask.lo());
    if (kBits == 32) {
      // Use the top 32 bits; `keep` counts from there.
      const uint32_t m = keep == 0 ? 0 : static_cast<uint32_t>(~uint64_t{0} << (32 - keep));
      const uint32_t v = (static_cast<uint32_t>(bh >> 32) & m) | (static_cast<uint32_t>(hi) & ~m);
      return IPAddress(IPv4Address(v));
    }
    return IPAddress(IPv6Address(hi, lo));
  }
  Prefix RandomPrefix() { return Prefix(RandomAddress(), lengths_[rng_() % lengths_.size()]); }
  // Usually a stored prefix (near a random one), sometimes a random one.
  Prefix SomePrefix() {
    const Prefix p = RandomPrefix();
    if (oracle_.empty() || rng_() % 4 == 0) return p;
    auto it = oracle_.lower_bound(p);
    if (it == oracle_.end()) it = oracle_.begin();
    return it->first;
  }
  std::string NewValue() {
    return "value-" + std::to_string(++value_counter_) + "-long-enough-to-allocate";
  }

  // --- oracle answers ---
  std::optional<Prefix> BruteLongestMatch(const IPAddress& a, int max_length) const {
    for (int l = max_length; l >= 0; --l) {
      if (length_count_[l] == 0) continue;
      const Prefix p(a, l);
      if (oracle_.count(p)) return p;
    }
    return std::nullopt;
  }
  std::optional<Prefix> OracleNextAfter(const Prefix& p, const std::optional<Prefix>& scope) {
    auto it = oracle_.upper_bound(p);
    if (it == oracle_.end() || (scope && !scope->Contains(it->first))) return std::nullopt;
    return it->first;
  }

  void ExpectAt(const Iterator& it, const std::optional<Prefix>& want, const char* what) {
    if (!want) {
      EXPECT_TRUE(it == trie_.end()) << what << ": expected end, got " << it.key().ToString();
      return;
    }
    ASSERT_FALSE(it == trie_.end()) << what << ": expected " << want->ToString() << ", got end";
    EXPECT_EQ(it.key(), *want) << what;
    EXPECT_FALSE(it.erased()) << what;
    EXPECT_EQ(it.value(), oracle_.at(*want)) << what;
  }

  // --- mutations, applied to both ---
  void OracleInsert(const Prefix& p, const std::string& v) {
    if (oracle_.emplace(p, v).second) ++length_count_[p.length()];
  }
  void OracleErase(const Prefix& p) {
    auto it = oracle_.find(p);
    if (it == oracle_.end()) return;
    for (Walker& w : walkers_) {
      if (!w.erased && !(w.it == trie_.end()) && w.it.key() == p) {
        w.erased = true;
        w.erased_value = it->second;
        ++erased_under_walkers_;
      }
    }
    --length_count_[p.length()];
    oracle_.erase(it);
  }

  void Step(int op) {
    const bool grow = oracle_.size() < kTargetSize;
    int r = static_cast<int>(rng_() % 1000);
    if (r < 430) {  // a mutation: mostly inserts below the target size, mostly erases above it
      const int k = static_cast<int>(rng_() % 100);
      r = k < (grow ? 65 : 30) ? 0 : k < (grow ? 75 : 40) ? 210 : k < (grow ? 90 : 85) ? 300 : 410;
    }
    if (r < 200) {  // insert
      const Prefix p = RandomPrefix();
      const std::string v = NewValue();
      const bool absent = !oracle_.count(p);
      auto [it, added] = trie_.insert(p, v);
      EXPECT_EQ(added, absent) << "insert " << p.ToString();
      OracleInsert(p, v);
      ExpectAt(it, p, "insert");
    } else if (r < 230) {  // insert_or_assign, usually of a stored prefix
      const Prefix p = SomePrefix();
      const std::string v = NewValue();
      const bool absent = !oracle_.count(p);
      auto [it, added] = trie_.insert_or_assign(p, v);
      EXPECT_EQ(added, absent) << "insert_or_assign " << p.ToString();
      OracleInsert(p, v);
      oracle_[p] = v;
      ExpectAt(it, p, "insert_or_assign");
    } else if (r < 400) {  // erase by prefix
      const Prefix p = SomePrefix();
      EXPECT_EQ(trie_.erase(p), oracle_.count(p) == 1) << "erase " << p.ToString();
      OracleErase(p);
    } else if (r < 430) {  // erase by iterator
      const Prefix p = SomePrefix();
      auto it = trie_.find(p);
      if (it == trie_.end()) {
        EXPECT_FALSE(oracle_.count(p)) << "find " << p.ToString();
        return;
      }
      const std::optional<Prefix> next = OracleNextAfter(p, std::nullopt);
      OracleErase(p);
      auto after = trie_.erase(it);
      ExpectAt(after, next, "erase(iterator)");
    } else if (r < 530) {  // exact lookup
      const Prefix p = SomePrefix();
      auto it = trie_.find(p);
      const std::string* v = trie_.find_value(p);
      if (oracle_.count(p)) {
        ExpectAt(it, p, "find");
        ASSERT_NE(v, nullptr) << "find_value " << p.ToString();
        EXPECT_EQ(*v, oracle_.at(p));
      } else {
        EXPECT_TRUE(it == trie_.end()) << "find " << p.ToString();
        EXPECT_EQ(v, nullptr) << "find_value " << p.ToString();
      }
    } else if (r < 680) {  // longest-prefix match of an address
      const IPAddress a = RandomAddress();
      const auto want = BruteLongestMatch(a, kBits);
      if (want && want->length() > 0) ++deep_matches_;
      ExpectAt(trie_.longest_match(a), want, "longest_match(address)");
      const std::string* v = trie_.longest_match_value(a);
      EXPECT_EQ(v == nullptr, !want.has_value());
    } else if (r < 740) {  // longest match of a prefix, and the less specific ones
      const Prefix p = SomePrefix();
      ExpectAt(trie_.longest_match(p), BruteLongestMatch(p.address(), p.length()),
               "longest_match(prefix)");
      const std::optional<Prefix> less =
          p.length() == 0 ? std::nullopt : BruteLongestMatch(p.address(), p.length() - 1);
      ExpectAt(trie_.find_less_specific(p), less, "find_less_specific");
      auto chain = trie_.less_specifics(p);
      std::vector<Prefix> want;
      for (int l = 0; l < p.length(); ++l) {
        if (oracle_.count(p.Truncated(l))) want.push_back(p.Truncated(l));
      }
      ASSERT_EQ(chain.size(), want.size()) << "less_specifics " << p.ToString();
      for (size_t i = 0; i < want.size(); ++i) ExpectAt(chain[i], want[i], "less_specifics");
      // The const walk: the same chain and the prefix itself, as values.
      std::vector<std::string> visited, covering;
      std::as_const(trie_).VisitCovering(p, [&](const std::string& v) {
        visited.push_back(v);
        return true;
      });
      for (int l = 0; l <= p.length(); ++l) {
        if (auto it = oracle_.find(p.Truncated(l)); it != oracle_.end()) {
          covering.push_back(it->second);
        }
      }
      EXPECT_EQ(visited, covering) << "VisitCovering " << p.ToString();
    } else if (r < 770) {  // lower_bound / upper_bound
      const Prefix p = RandomPrefix();
      auto lb = oracle_.lower_bound(p);
      auto ub = oracle_.upper_bound(p);
      ExpectAt(trie_.lower_bound(p),
               lb == oracle_.end() ? std::nullopt : std::optional<Prefix>(lb->first),
               "lower_bound");
      ExpectAt(trie_.upper_bound(p),
               ub == oracle_.end() ? std::nullopt : std::optional<Prefix>(ub->first),
               "upper_bound");
    } else if (r < 790) {  // subtree iteration
      CheckSubtree(SomePrefix().Truncated(static_cast<int>(rng_() % (kBits + 1))));
    } else if (r < 990) {
      WalkerStep();
    } else if (r < 991 && op % 7 == 0) {
      CheckFullIteration();
    } else if (r == 999 && rng_() % 100 == 0) {  // clear, rarely
      while (!oracle_.empty()) {
        const Prefix p = oracle_.begin()->first;
        OracleErase(p);
      }
      trie_.clear();
      EXPECT_TRUE(trie_.begin() == trie_.end());
    }
  }

  void CheckSubtree(const Prefix& scope) {
    auto range = trie_.subtree(scope);
    auto it = range.begin();
    for (auto o = oracle_.lower_bound(scope); o != oracle_.end() && scope.Contains(o->first);
         ++o, ++it) {
      ExpectAt(it, o->first, "subtree");
      if (::testing::Test::HasFailure()) return;
    }
    EXPECT_TRUE(it == range.end()) << "subtree " << scope.ToString() << " runs past its end";
  }

  void CheckFullIteration() {
    auto it = trie_.begin();
    for (const auto& [p, v] : oracle_) {
      ExpectAt(it, p, "iteration");
      if (::testing::Test::HasFailure()) return;
      ++it;
    }
    EXPECT_TRUE(it == trie_.end()) << "iteration runs past the oracle's end";
  }

  // Walkers: create, advance, erase under, copy, drop.
  void WalkerStep() {
    const int r = static_cast<int>(rng_() % 100);
    if (walkers_.size() < kMaxWalkers && (walkers_.empty() || r < 10)) {
      Walker w;
      const int how = static_cast<int>(rng_() % 3);
      if (how == 0) {
        w.it = trie_.begin();
        ExpectAt(w.it,
                 oracle_.empty() ? std::nullopt : std::optional<Prefix>(oracle_.begin()->first),
                 "begin");
      } else if (how == 1) {
        const Prefix scope = SomePrefix().Truncated(static_cast<int>(rng_() % (kBits + 1)));
        w.scope = scope;
        w.it = trie_.subtree(scope).begin();
        auto o = oracle_.lower_bound(scope);
        ExpectAt(w.it,
                 o != oracle_.end() && scope.Contains(o->first) ? std::optional<Prefix>(o->first)
                                                                : std::nullopt,
                 "subtree begin");
      } else {
        const Prefix p = SomePrefix();
        w.it = trie_.find(p);
        ExpectAt(w.it, oracle_.count(p) ? std::optional<Prefix>(p) : std::nullopt, "find walker");
      }
      walkers_.push_back(std::move(w));
      return;
    }
    if (walkers_.empty()) return;
    Walker& w = walkers_[rng_() % walkers_.size()];
    CheckWalker(w);
    if (r < 55) {  // advance a slice
      const int steps = 1 + static_cast<int>(rng_() % 4);
      for (int i = 0; i < steps && !(w.it == trie_.end()); ++i) {
        const std::optional<Prefix> want = OracleNextAfter(w.it.key(), w.scope);
        if (w.erased) ++erased_advances_;
        ++w.it;
        w.erased = false;
        ExpectAt(w.it, want, "walker ++");
      }
    } else if (r < 80) {  // erase the entry the walker stands on, or the one after it
      if (w.it == trie_.end() || w.erased) return;
      Prefix victim = w.it.key();
      if (rng_() % 3 == 0) {
        const std::optional<Prefix> next = OracleNextAfter(victim, std::nullopt);
        if (!next) return;
        victim = *next;
      }
      EXPECT_TRUE(trie_.erase(victim));
      OracleErase(victim);
      CheckWalker(w);
    } else if (r < 88) {  // copy or move it
      Walker copy = w;
      if (rng_() % 2) {
        walkers_.push_back(std::move(copy));
      } else {
        walkers_[rng_() % walkers_.size()] = copy;
      }
    } else {  // drop it (completing the erase if it was the last on an erased entry)
      std::swap(w, walkers_.back());
      walkers_.pop_back();
    }
  }

  void CheckWalker(const Walker& w) {
    if (w.it == trie_.end()) return;
    EXPECT_EQ(w.it.erased(), w.erased) << "walker at " << w.it.key().ToString();
    if (w.erased) {
      EXPECT_EQ(w.it.value(), w.erased_value) << "erased walker at " << w.it.key().ToString();
    } else {
      ExpectAt(w.it, w.it.key(), "walker");
    }
  }

  std::mt19937_64 rng_;
  std::array<std::pair<uint64_t, uint64_t>, 8> bases_;
  std::vector<int> lengths_;
  Trie trie_;
  Oracle oracle_;
  std::array<int, kBits + 1> length_count_{};
  std::vector<Walker> walkers_;  // declared after trie_: destroyed first
  uint64_t value_counter_ = 0;
  int erased_under_walkers_ = 0;
  int erased_advances_ = 0;
  int deep_matches_ = 0;
  uint64_t size_sum_ = 0;
};

TEST(RouteTrieDifferential, IPv4AgainstMapOracle) {
  const uint64_t seed = Seed();
  std::printf("  seed %llu (SLUICE_TRIE_SEED to change), %d operations\n",
              static_cast<unsigned long long>(seed), kOperations);
  Differential<IPv4Address> d(seed, SIZE_MAX);  // trie walks only
  d.Run(kOperations);
}

// Address lookups through the lookup index from the start: every update invalidates slots that
// later lookups rebuild; CheckInvariants also compares the index with the trie.
TEST(RouteTrieDifferential, IPv4WithLookupIndex) {
  const uint64_t seed = Seed() + 2;
  std::printf("  seed %llu (SLUICE_TRIE_SEED to change, plus 2), %d operations\n",
              static_cast<unsigned long long>(seed), kOperations * 3 / 10);
  Differential<IPv4Address> d(seed, 0);
  d.Run(kOperations * 3 / 10);
}

// The index is made when the trie reaches 1,200 entries and dropped below 300 (after clear).
TEST(RouteTrieDifferential, IPv4LookupIndexComesAndGoes) {
  const uint64_t seed = Seed() + 3;
  std::printf("  seed %llu (SLUICE_TRIE_SEED to change, plus 3), %d operations\n",
              static_cast<unsigned long long>(seed), kOperations * 3 / 10);
  Differential<IPv4Address> d(seed, 1200);
  d.Run(kOperations * 3 / 10);
}

TEST(RouteTrieDifferential, IPv6AgainstMapOracle) {
  const uint64_t seed = Seed() + 1;
  std::printf("  seed %llu (SLUICE_TRIE_SEED to change, plus 1), %d operations\n",
              static_cast<unsigned long long>(seed), kOperations);
  Differential<IPv6Address> d(seed, 0);  // no effect on IPv6
  d.Run(kOperations);
}

}  // namespace
}  // namespace sluice::net
