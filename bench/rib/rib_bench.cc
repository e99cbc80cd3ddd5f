// rib_bench: how fast the RIB core takes a full table and how much memory it keeps per route.
//
// The 577,706 prefixes of the PCH capture (or a synthetic table when SLUICE_DATA_DIR is unset)
// go in as ebgp routes through Rib::AddRoutes, in batches of 1,000 (as the RPC adapter will
// hand them over), with a nexthop that resolves through a connected subnet, into a FIB client
// that counts what it is sent and completes each batch on the next turn of the loop. The loop
// runs between batches, as it would between RPCs. Measured, each over 5 runs (median, min,
// max):
//   - add: routes per second from the first AddRoutes to the FIB client's last completion;
//   - bytes per route: heap bytes in use (a counting global operator new) with the table
//     loaded minus before the Rib existed, over the routes; the process RSS difference too;
//   - resync: re-sending the whole FIB to an FEA born again (routes per second);
//   - withdraw: the protocol dies and its routes leave the FIB (routes per second).
//
//   rib_bench [RUNS]      (RUNS: the number of runs, default 5)
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "base/program_options.h"
#include "bench/net/bench_prefixes.h"
#include "rib/rib.h"

// --- A counting allocator: heap bytes in use -------------------------------------------------

namespace {
std::atomic<int64_t> g_heap_bytes{0};
}

void* operator new(size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  g_heap_bytes.fetch_add(static_cast<int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  return p;
}
void* operator new[](size_t n) { return operator new(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p != nullptr) {
    g_heap_bytes.fetch_add(static_cast<int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  }
  return p;
}
void* operator new[](size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p) noexcept {
  if (p == nullptr) return;
  g_heap_bytes.fetch_sub(static_cast<int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  std::free(p);
}
void operator delete[](void* p) noexcept { operator delete(p); }
void operator delete(void* p, size_t) noexcept { operator delete(p); }
void operator delete[](void* p, size_t) noexcept { operator delete(p); }
// Over-aligned types (the route trie's node chunks).
void* operator new(size_t n, std::align_val_t a) {
  void* p = nullptr;
  if (posix_memalign(&p, std::max(sizeof(void*), static_cast<size_t>(a)), n == 0 ? 1 : n) != 0) {
    throw std::bad_alloc();
  }
  g_heap_bytes.fetch_add(static_cast<int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  return p;
}
void* operator new[](size_t n, std::align_val_t a) { return operator new(n, a); }
void operator delete(void* p, std::align_val_t) noexcept { operator delete(p); }
void operator delete[](void* p, std::align_val_t) noexcept { operator delete(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { operator delete(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { operator delete(p); }

namespace sluice::rib {
namespace {

using Clock = std::chrono::steady_clock;

int64_t RssBytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  long pages = 0, resident = 0;
  if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
  std::fclose(f);
  return static_cast<int64_t>(resident) * 4096;
}

// Counts routes and completes each batch on the next turn of the loop.
class CountingFib : public FibClient {
 public:
  explicit CountingFib(boost::asio::io_context& io) : io_(io) {}
  void SendBatch(FibBatch batch, std::function<void(absl::Status)> done) override {
    for (const FibChange& c : batch.changes) {
      if (c.op == FibChange::Op::kDelete) {
        --installed;
      } else if (c.op == FibChange::Op::kAdd) {
        ++installed;
      }
    }
    ++batches;
    boost::asio::post(io_, [done = std::move(done)] { done(absl::OkStatus()); });
  }
  int64_t installed = 0;
  size_t batches = 0;

 private:
  boost::asio::io_context& io_;
};

struct Run {
  double add_per_s = 0;
  double bytes_per_route = 0;
  double rss_per_route = 0;
  double resync_per_s = 0;
  double withdraw_per_s = 0;
};

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

Run RunOnce(const std::vector<net::Prefix>& prefixes) {
  Run out;
  boost::asio::io_context io;
  CountingFib fib(io);
  const int64_t heap0 = g_heap_bytes.load();
  const int64_t rss0 = RssBytes();
  {
    auto rib = std::make_unique<Rib>(io, &fib);
    rib->FeaBorn();
    rib->interface_events()->OnInterfaceAdded("eth0", true);
    rib->interface_events()->OnAddressAdded("eth0", *net::IPAddress::Parse("10.0.0.1"), 24);
    rib->interface_events()->OnAddressAdded("eth0", *net::IPAddress::Parse("2001:db8::1"), 64);
    io.run();
    io.restart();
    const int64_t base = fib.installed;  // the connected subnets
    const net::IPAddress nh4 = *net::IPAddress::Parse("10.0.0.2");
    const net::IPAddress nh6 = *net::IPAddress::Parse("2001:db8::2");
    const int64_t n = static_cast<int64_t>(prefixes.size());

    // --- add ---
    std::vector<RouteInput> batch(1000);
    const auto t0 = Clock::now();
    for (size_t i = 0; i < prefixes.size(); i += batch.size()) {
      const size_t m = std::min(batch.size(), prefixes.size() - i);
      batch.resize(m);
      for (size_t j = 0; j < m; ++j) {
        batch[j].network = prefixes[i + j];
        batch[j].nexthop = prefixes[i + j].is_v4() ? nh4 : nh6;
      }
      if (!rib->AddRoutes("ebgp", batch).ok()) std::abort();
      io.poll();
      if (io.stopped()) io.restart();
    }
    while (fib.installed < base + n || !rib->Idle()) {
      io.run_one();
      if (io.stopped()) io.restart();
    }
    const auto t1 = Clock::now();
    out.add_per_s = static_cast<double>(n) / Seconds(t0, t1);
    batch = std::vector<RouteInput>();
    io.restart();
    out.bytes_per_route = static_cast<double>(g_heap_bytes.load() - heap0) / n;
    out.rss_per_route = static_cast<double>(RssBytes() - rss0) / n;

    // --- resync: the FEA is born again ---
    const auto t2 = Clock::now();
    fib.installed = 0;  // the FEA restarted empty
    rib->FeaBorn();
    while (fib.installed < base + n || !rib->Idle()) {
      io.run_one();
      if (io.stopped()) io.restart();
    }
    out.resync_per_s = static_cast<double>(n) / Seconds(t2, Clock::now());

    // --- withdraw: the protocol dies ---
    const auto t3 = Clock::now();
    if (!rib->ProtocolDied("ebgp").ok()) std::abort();
    while (fib.installed > base || !rib->Idle()) {
      io.run_one();
      if (io.stopped()) io.restart();
    }
    out.withdraw_per_s = static_cast<double>(n) / Seconds(t3, Clock::now());
  }
  return out;
}

void Report(const char* what, std::vector<double> v, const char* unit) {
  std::sort(v.begin(), v.end());
  std::printf("  %-26s median %12.1f  min %12.1f  max %12.1f  %s\n", what, v[v.size() / 2],
              v.front(), v.back(), unit);
}

}  // namespace
}  // namespace sluice::rib

int main(int argc, char** argv) {
  using namespace sluice;
  int runs = 5;
  base::ProgramOptions options(
      "rib_bench",
      "rib_bench: the PCH full table ($SLUICE_DATA_DIR, else a synthetic table) through the RIB "
      "core into a counting FIB client; prints routes per second (add, FIB re-send, protocol "
      "death) and bytes per route, median, min and max over RUNS runs");
  options.app().add_option("RUNS", runs, "the number of runs")->check(CLI::Range(1, 1000));
  if (std::optional<int> exit = options.Parse(argc, argv)) return *exit;
  const bench::BenchPrefixes loaded = bench::LoadCapturePrefixes(
      "pch-2015-10-23-fulltable-updates.mrt.gz", SLUICE_BENCH_CACHE_DIR, 577'706);
  size_t v6 = 0;
  for (const auto& p : loaded.prefixes) v6 += p.is_v6() ? 1 : 0;
  std::printf("rib_bench: %zu prefixes (%zu IPv6) from %s; %d runs\n", loaded.prefixes.size(), v6,
              loaded.source.c_str(), runs);
  std::vector<double> add, bytes, rss, resync, withdraw;
  for (int i = 0; i < runs; ++i) {
    const rib::Run r = rib::RunOnce(loaded.prefixes);
    std::printf(
        "  run %d: add %.0f routes/s, %.1f heap B/route, %.1f RSS B/route, resync %.0f "
        "routes/s, withdraw %.0f routes/s\n",
        i + 1, r.add_per_s, r.bytes_per_route, r.rss_per_route, r.resync_per_s, r.withdraw_per_s);
    add.push_back(r.add_per_s);
    bytes.push_back(r.bytes_per_route);
    rss.push_back(r.rss_per_route);
    resync.push_back(r.resync_per_s);
    withdraw.push_back(r.withdraw_per_s);
  }
  rib::Report("add (end to end)", add, "routes/s");
  rib::Report("heap in use", bytes, "bytes/route (counting operator new)");
  rib::Report("RSS growth", rss, "bytes/route");
  rib::Report("FIB re-send", resync, "routes/s");
  rib::Report("protocol death", withdraw, "routes/s");
  return 0;
}
