// trie_bench: net::RouteTrie over a full IPv4 table.
//
// Loads the 577,706 prefixes of the PCH 2015-10-23 full table ($SLUICE_DATA_DIR/mrt/, extracted
// with bgpdump -m and cached in the build tree) or, without the data, a synthetic table of the
// same size. Each benchmark iteration is one operation, so the reported time is ns per
// operation. The value type is pointer-sized (void*), as a route table of route pointers.
// Targets: longest-prefix match of random addresses <= 150 ns median; <= 64 octets per prefix
// (the bytes_per_prefix counter: memory_bytes() / size()).
//
//   SLUICE_DATA_DIR=../shared/data build/bench/net/trie_bench
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true  (one command line)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "bench/net/bench_prefixes.h"
#include "net/route_trie.h"

namespace sluice::bench {
namespace {

using net::IPAddress;
using net::IPv4Address;
using net::Prefix;
using Trie = net::RouteTrie4<void*>;

constexpr size_t kPchPrefixes = 577'706;
constexpr size_t kLookups = size_t{1} << 20;  // addresses per lookup benchmark, cycled

std::vector<Prefix>& Prefixes() {
  static std::vector<Prefix> prefixes;
  return prefixes;
}

void* ValueFor(size_t i) { return reinterpret_cast<void*>(i + 1); }

// The full table, built once and shared by the lookup benchmarks.
Trie& FullTrie() {
  static Trie* trie = [] {
    auto* t = new Trie;
    for (size_t i = 0; i < Prefixes().size(); ++i) t->insert(Prefixes()[i], ValueFor(i));
    return t;
  }();
  return *trie;
}

void AddTableCounters(benchmark::State& state, const Trie& trie) {
  state.counters["prefixes"] = static_cast<double>(trie.size());
  state.counters["bytes_per_prefix"] =
      static_cast<double>(trie.memory_bytes()) / static_cast<double>(trie.size());
}

// Uniformly random IPv4 addresses.
std::vector<IPAddress> RandomAddresses() {
  std::mt19937_64 rng(42);
  std::vector<IPAddress> out(kLookups);
  for (auto& a : out) a = IPAddress(IPv4Address(static_cast<uint32_t>(rng())));
  return out;
}

// Random addresses inside random stored prefixes: traffic that has a route.
std::vector<IPAddress> CoveredAddresses() {
  std::mt19937_64 rng(43);
  std::vector<IPAddress> out(kLookups);
  const auto& ps = Prefixes();
  for (auto& a : out) {
    const Prefix& p = ps[rng() % ps.size()];
    const uint32_t host = p.length() == 32 ? 0 : static_cast<uint32_t>(rng()) >> p.length();
    a = IPAddress(IPv4Address(p.v4().value() | host));
  }
  return out;
}

void BM_Insert(benchmark::State& state) {
  const auto& ps = Prefixes();
  Trie trie;
  size_t i = 0;
  for (auto _ : state) {
    if (i == ps.size()) {
      state.PauseTiming();
      trie.clear();
      i = 0;
      state.ResumeTiming();
    }
    benchmark::DoNotOptimize(trie.insert(ps[i], ValueFor(i)).second);
    ++i;
  }
  if (trie.size() == ps.size()) AddTableCounters(state, trie);
}
BENCHMARK(BM_Insert);

void BM_Erase(benchmark::State& state) {
  const auto& ps = Prefixes();
  Trie trie;
  for (size_t j = 0; j < ps.size(); ++j) trie.insert(ps[j], ValueFor(j));
  size_t i = 0;
  for (auto _ : state) {
    if (i == ps.size()) {
      state.PauseTiming();
      for (size_t j = 0; j < ps.size(); ++j) trie.insert(ps[j], ValueFor(j));
      i = 0;
      state.ResumeTiming();
    }
    benchmark::DoNotOptimize(trie.erase(ps[i]));
    ++i;
  }
}
BENCHMARK(BM_Erase);

// Exact lookups of stored prefixes in random order: find_value (no iterator) and find.
std::vector<Prefix> ShuffledPrefixes() {
  std::vector<Prefix> out = Prefixes();
  std::shuffle(out.begin(), out.end(), std::mt19937_64(44));
  return out;
}

void BM_FindValue(benchmark::State& state) {
  Trie& trie = FullTrie();
  static const std::vector<Prefix> keys = ShuffledPrefixes();
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(trie.find_value(keys[i]));
    if (++i == keys.size()) i = 0;
  }
  AddTableCounters(state, trie);
}
BENCHMARK(BM_FindValue);

void BM_Find(benchmark::State& state) {
  Trie& trie = FullTrie();
  static const std::vector<Prefix> keys = ShuffledPrefixes();
  size_t i = 0;
  for (auto _ : state) {
    auto it = trie.find(keys[i]);
    benchmark::DoNotOptimize(it);
    if (++i == keys.size()) i = 0;
  }
}
BENCHMARK(BM_Find);

template <bool kIterator>
void LongestMatch(benchmark::State& state, const std::vector<IPAddress>& addresses) {
  Trie& trie = FullTrie();
  size_t i = 0;
  size_t matched = 0;
  for (auto _ : state) {
    if constexpr (kIterator) {
      auto it = trie.longest_match(addresses[i]);
      matched += !(it == trie.end());
      benchmark::DoNotOptimize(it);
    } else {
      const auto* v = trie.longest_match_value(addresses[i]);
      matched += v != nullptr;
      benchmark::DoNotOptimize(v);
    }
    i = (i + 1) & (kLookups - 1);
  }
  state.counters["matched_pct"] =
      100.0 * static_cast<double>(matched) / static_cast<double>(state.iterations());
  AddTableCounters(state, trie);
}

void BM_LongestMatchRandom(benchmark::State& state) {
  static const std::vector<IPAddress> addresses = RandomAddresses();
  LongestMatch<true>(state, addresses);
}
BENCHMARK(BM_LongestMatchRandom);

void BM_LongestMatchValueRandom(benchmark::State& state) {
  static const std::vector<IPAddress> addresses = RandomAddresses();
  LongestMatch<false>(state, addresses);
}
BENCHMARK(BM_LongestMatchValueRandom);

void BM_LongestMatchCovered(benchmark::State& state) {
  static const std::vector<IPAddress> addresses = CoveredAddresses();
  LongestMatch<true>(state, addresses);
}
BENCHMARK(BM_LongestMatchCovered);

// One ++ per iteration over the whole table, restarting at the end.
void BM_Iterate(benchmark::State& state) {
  Trie& trie = FullTrie();
  auto it = trie.begin();
  for (auto _ : state) {
    ++it;
    if (it == trie.end()) it = trie.begin();
    benchmark::DoNotOptimize(it);
  }
}
BENCHMARK(BM_Iterate);

}  // namespace
}  // namespace sluice::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  using sluice::bench::Prefixes;
  sluice::bench::BenchPrefixes loaded =
      sluice::bench::LoadCapturePrefixes("pch-2015-10-23-fulltable-updates.mrt.gz",
                                         SLUICE_BENCH_CACHE_DIR, sluice::bench::kPchPrefixes);
  for (const auto& p : loaded.prefixes) {
    if (p.is_v4()) Prefixes().push_back(p);
  }
  std::fprintf(stderr, "trie_bench: %zu IPv4 prefixes from %s\n", Prefixes().size(),
               loaded.source.c_str());
  benchmark::AddCustomContext("prefixes", std::to_string(Prefixes().size()));
  benchmark::AddCustomContext("prefix_source", loaded.source);
  const auto& trie = sluice::bench::FullTrie();
  std::fprintf(stderr,
               "trie_bench: %zu entries, %zu nodes, %zu octets: %.1f octets per prefix "
               "(nodes only)\n",
               trie.size(), trie.node_count(), trie.memory_bytes(),
               static_cast<double>(trie.memory_bytes()) / static_cast<double>(trie.size()));
  // Build the whole lookup index now (one lookup per /18 slot), so that the lookup benchmarks
  // measure lookups and the memory figure is the largest the index gets.
  const auto start = std::chrono::steady_clock::now();
  size_t covered = 0;
  for (uint32_t slot = 0; slot < sluice::net::RouteTrieIndex4::kSlots; ++slot) {
    const sluice::net::IPv4Address a(slot << (32 - sluice::net::RouteTrieIndex4::kDirectBits));
    covered += trie.longest_match_value(sluice::net::IPAddress(a)) != nullptr;
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr,
               "trie_bench: lookup index %s, built for all %u /18 slots in %.0f ms; now %zu "
               "octets: %.1f octets per prefix\n",
               trie.has_lookup_index() ? "in use" : "NOT in use",
               sluice::net::RouteTrieIndex4::kSlots, ms, trie.memory_bytes(),
               static_cast<double>(trie.memory_bytes()) / static_cast<double>(trie.size()));
  benchmark::DoNotOptimize(covered);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
