// BGP codec benchmarks on the PCH full-table capture ($SLUICE_DATA_DIR/mrt/pch-...):
//
//   BM_DecodePchIntoTable   decode every UPDATE (messages preloaded in memory, one thread) into
//                           an Adj-RIB-In-like vector of (prefix, AttrRef), with a fresh store:
//                           the cost of loading a full table. Counters: updates/s, prefixes/s.
//   BM_DecodePchWarmStore   the same with every attribute set already interned (steady state).
//   BM_EncodePch            encode every UPDATE's announcements again (UpdateEncoder::Pack), as
//                           PeerOut and the BMP monitor do: the cost of sending a full table.
//   BM_PchTableMemory       the final table of the capture (577,706 prefixes announced, 3 of them
//                           withdrawn later): bytes per route for prefix + attribute reference,
//                           and in total with the shared attribute sets.
//   BM_Intern*/BM_AttrRef*  single-thread cost of the thread-safe store.
//
//   bgp_codec_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "bench/bgp/heap_in_use.h"
#include "bgp/mrt/mrt_reader.h"
#include "bgp/mrt/mrt_records.h"
#include "bgp/wire/update_decoder.h"
#include "bgp/wire/update_encoder.h"

namespace sluice::bgp {
namespace {

struct Capture {
  std::vector<uint8_t> bytes;                       // UPDATE messages back to back
  std::vector<std::pair<size_t, size_t>> messages;  // offset, length
  bool as4 = true;
  size_t prefixes = 0;
  std::string error;
};

const Capture& Pch() {
  static Capture* c = [] {
    auto* c = new Capture();
    const char* dir = std::getenv("SLUICE_DATA_DIR");
    if (!dir) {
      c->error = "SLUICE_DATA_DIR is not set";
      return c;
    }
    auto reader =
        mrt::MrtReader::Open(std::string(dir) + "/mrt/pch-2015-10-23-fulltable-updates.mrt.gz");
    if (!reader.ok()) {
      c->error = std::string(reader.status().message());
      return c;
    }
    mrt::MrtRecord r;
    while ((*reader)->Next(&r)) {
      mrt::Bgp4mpMessage m;
      if (!mrt::IsBgp4mpMessage(r) || !mrt::DecodeBgp4mpMessage(r, &m).ok()) continue;
      if (m.message.size() < 19 || m.message[18] != 2) continue;
      c->as4 = m.as4;
      c->messages.emplace_back(c->bytes.size(), m.message.size());
      c->bytes.insert(c->bytes.end(), m.message.begin(), m.message.end());
    }
    return c;
  }();
  return *c;
}

SessionParams PchParams() {
  SessionParams p;  // an iBGP-style session as the collector had, IPv4 unicast
  p.four_octet_as = Pch().as4;
  p.external = false;
  return p;
}

struct Route {
  net::Prefix prefix;
  AttrRef attributes;
};
static_assert(sizeof(Route) == 32);

void SetRates(benchmark::State& state, size_t updates, size_t prefixes) {
  state.counters["updates/s"] =
      benchmark::Counter(double(updates), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["prefixes/s"] =
      benchmark::Counter(double(prefixes), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_DecodePchIntoTable(benchmark::State& state) {
  const Capture& c = Pch();
  if (!c.error.empty()) return state.SkipWithError(c.error.c_str());
  size_t prefixes = 0;
  for (auto _ : state) {
    AttributeStore store;
    {
      UpdateDecoder decoder(PchParams(), &store);
      UpdateMessage u;
      std::vector<Route> table;
      table.reserve(600000);
      for (const auto& [off, len] : c.messages) {
        decoder.Decode(Bytes(c.bytes.data() + off, len), &u);
        for (const Nlri& n : u.announced) table.push_back(Route{n.prefix, u.attributes});
      }
      prefixes = table.size();
      benchmark::DoNotOptimize(table.data());
      state.PauseTiming();  // freeing the table is not decoding
      table = {};
      u.Clear();
      state.ResumeTiming();
    }
  }
  SetRates(state, c.messages.size(), prefixes);
}
BENCHMARK(BM_DecodePchIntoTable)->Unit(benchmark::kMillisecond);

void BM_DecodePchWarmStore(benchmark::State& state) {
  const Capture& c = Pch();
  if (!c.error.empty()) return state.SkipWithError(c.error.c_str());
  AttributeStore store;
  UpdateDecoder decoder(PchParams(), &store);
  std::vector<AttrRef> keep;
  UpdateMessage u;
  size_t prefixes = 0;
  for (const auto& [off, len] : c.messages) {
    decoder.Decode(Bytes(c.bytes.data() + off, len), &u);
    keep.push_back(u.attributes);
    prefixes += u.announced.size();
  }
  for (auto _ : state) {
    for (const auto& [off, len] : c.messages) {
      decoder.Decode(Bytes(c.bytes.data() + off, len), &u);
      benchmark::DoNotOptimize(u.announced.data());
    }
  }
  SetRates(state, c.messages.size(), prefixes);
  u.Clear();
}
BENCHMARK(BM_DecodePchWarmStore)->Unit(benchmark::kMillisecond);

void BM_PchTableMemory(benchmark::State& state) {
  const Capture& c = Pch();
  if (!c.error.empty()) return state.SkipWithError(c.error.c_str());
  for (auto _ : state) {
    TrimHeap();
    const size_t heap_before = HeapInUse();
    AttributeStore store;
    std::vector<Route> table;
    size_t map_bytes = 0, routes = 0;
    {
      // Apply the capture in order (announce replaces, withdraw removes), then keep the final
      // table as a vector sorted by prefix — an Adj-RIB-In as compact as it gets.
      // MRT-mode decoding: the routes as the collector held them (the 4 routes with AS 0 in
      // their path, which a session applying RFC 7607 withdraws, are kept).
      absl::flat_hash_map<net::Prefix, AttrRef> rib;
      UpdateDecoder decoder(SessionParams::ForMrt(Pch().as4, false), &store);
      UpdateMessage u;
      for (const auto& [off, len] : c.messages) {
        decoder.Decode(Bytes(c.bytes.data() + off, len), &u);
        for (const Nlri& n : u.withdrawn) rib.erase(n.prefix);
        for (const Nlri& n : u.announced) rib[n.prefix] = u.attributes;
      }
      u.Clear();
      routes = rib.size();
      map_bytes = rib.capacity() * (sizeof(std::pair<const net::Prefix, AttrRef>) + 1);
      table.reserve(rib.size());
      for (auto& [p, a] : rib) table.push_back(Route{p, std::move(a)});
    }
    std::sort(table.begin(), table.end(),
              [](const Route& a, const Route& b) { return a.prefix < b.prefix; });
    TrimHeap();
    const size_t heap_after = HeapInUse();
    state.counters["routes"] = double(routes);
    state.counters["attribute_sets"] = double(store.size());
    state.counters["bytes/route(prefix+ref)"] =
        double(table.capacity() * sizeof(Route)) / double(routes);
    state.counters["bytes/route(hash map)"] = double(map_bytes) / double(routes);
    state.counters["store_bytes"] = double(store.MemoryBytes());
    state.counters["bytes/route(total,counted)"] =
        double(table.capacity() * sizeof(Route) + store.MemoryBytes()) / double(routes);
    state.counters["bytes/route(total,malloc)"] = double(heap_after - heap_before) / double(routes);
    state.PauseTiming();
    table = {};
    state.ResumeTiming();
  }
}
BENCHMARK(BM_PchTableMemory)->Unit(benchmark::kMillisecond)->Iterations(1);

// Encoding the capture back: each UPDATE's announcements re-packed by the encoder the pipeline's
// PeerOut and the BMP monitor use (attributes, then NLRI, into one growing buffer, cleared per
// pass): what sending a full table costs, without the stages.
void BM_EncodePch(benchmark::State& state) {
  const Capture& c = Pch();
  if (!c.error.empty()) return state.SkipWithError(c.error.c_str());
  AttributeStore store;
  UpdateDecoder decoder(PchParams(), &store);
  std::vector<std::pair<AttrRef, std::vector<Nlri>>> updates;
  size_t prefixes = 0;
  UpdateMessage u;
  for (const auto& [off, len] : c.messages) {
    decoder.Decode(Bytes(c.bytes.data() + off, len), &u);
    if (u.announced.empty()) continue;
    updates.emplace_back(u.attributes, u.announced);
    prefixes += u.announced.size();
  }
  u.Clear();
  const UpdateEncoder encoder(PchParams(), /*readvertise=*/false);
  std::vector<uint8_t> out;
  for (auto _ : state) {
    out.clear();
    for (const auto& [attrs, nlri] : updates) {
      if (!encoder.Pack(attrs.get(), nlri, {}, &out).ok()) {
        return state.SkipWithError("an UPDATE of the capture did not encode");
      }
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["octets"] = double(out.size());
  SetRates(state, updates.size(), prefixes);
}
BENCHMARK(BM_EncodePch)->Unit(benchmark::kMillisecond);

PathAttributes SampleAttrs(uint32_t i) {
  PathAttributes a;
  a.origin = Origin::kIgp;
  a.as_path = AsPath::Sequence({3856, 2914, 3356, i});
  a.next_hop = net::IPv4Address(0xcedce737);
  a.communities = {0x0b620001, 0x0b620002};
  return a;
}

void BM_InternHit(benchmark::State& state) {
  AttributeStore store;
  const PathAttributes a = SampleAttrs(1);
  AttrRef keep = store.Intern(a);
  for (auto _ : state) benchmark::DoNotOptimize(store.Intern(a));
}
BENCHMARK(BM_InternHit);

void BM_InternMissAndRelease(benchmark::State& state) {
  AttributeStore store;
  uint32_t i = 0;
  std::vector<PathAttributes> sets;
  for (uint32_t k = 0; k < 1024; ++k) sets.push_back(SampleAttrs(k));
  for (auto _ : state) benchmark::DoNotOptimize(store.Intern(sets[i++ & 1023]));
}
BENCHMARK(BM_InternMissAndRelease);

void BM_AttrRefCopy(benchmark::State& state) {
  AttributeStore store;
  AttrRef a = store.Intern(SampleAttrs(1));
  for (auto _ : state) {
    AttrRef b = a;
    benchmark::DoNotOptimize(b);
  }
}
BENCHMARK(BM_AttrRefCopy);

}  // namespace
}  // namespace sluice::bgp

BENCHMARK_MAIN();
