// The BGP pipeline on the PCH full table, in one process: 1 upstream eBGP peer → 1 downstream
// eBGP peer (bgp_process_convergence without sockets). Timed: decoding every UPDATE as the
// session would, the whole pipeline (PeerIn, ImportFilter, NexthopResolver, Decision, Fanout,
// ExportFilter, PeerOut) and encoding the UPDATEs sent downstream, until the event loop is idle.
// Not timed: reading the capture into memory. Between two reads of a session's worth of UPDATEs
// (64 KiB or 256 UPDATEs) the event loop runs what is ready, as in sluice-bgp: background slices,
// the shards' outputs, RIB acknowledgements. UPDATEs decoded on the loop are pushed once per
// read, as a session brackets them (SessionListener::BeginUpdates).
//
//   SLUICE_DATA_DIR=... bgp_pipeline_bench [--reps 5] [--rib] [--upstreams N] [--no-poll]
//                                          [--threads N] [--parse-threads N] [--shard-stage]
//                                          [--encode-thread 0|1]
//                                          [--policy none|heavy] [--bmp VIEWS]
//   SLUICE_DATA_DIR=... bgp_pipeline_bench --print-policy
//
// --rib adds a RIB branch whose client acknowledges each batch from the event loop.
// --no-poll runs the loop only after the last UPDATE (the worst case for queues: the RIB branch
// lags by the whole table).
// --upstreams N: N upstream eBGP peers each send the whole table, peer k with its own AS
// prepended k times (so every prefix has N paths; peer 0's shortest path wins), their UPDATEs
// interleaved one by one; the messages are re-encoded before timing, decoded in the timed loop.
// --threads N: RouterConfig::threads (the shard stage; 1, the default, is the serial
// pipeline). The timed part ends when every shard is idle too (BgpRouting::Settle).
// --parse-threads N: the UPDATEs are decoded on a pool of N threads and handed back to the loop
// a read's worth (64 KiB or 256 UPDATEs) per handler, as sluice-bgp's sessions do
// (PeerManager::SetParseThreads); the default is what sluice-bgp does
// (RouterConfig::DefaultParseThreads: the cores the loop and the shards leave, else 0).
// --encode-thread 1: PeerOut encodes on a thread of its own (RouterConfig::encode_thread), 0: on
// the loop; the default is what sluice-bgp does (RouterConfig::DefaultEncodeThread: with the
// shard stage, when a core is left beside the loop and the shards). That thread counts in the
// process CPU, not the loop's.
// --shard-stage with --threads 1: the shard stage with one worker thread (RouterConfig::
// shard_single_thread) — the cost of handing routes to a shard and back, without spreading.
// --shard-batch N, --shard-backlog N, --shard-coalesce-us N: PipelineOptions::shard_batch (items
// per hand-over), shard_backlog (items a shard may have waiting before the sessions stop reading)
// and shard_coalesce_us (how long a burst's routes may wait for more), for tuning.
// --policy heavy: every upstream's import policy is a 1,000-entry prefix list (every 577th prefix
// of the table, orlonger), an AS-path regular expression and a community match; the default is
// no policy. --print-policy prints that policy's text (policy-statement "import") and exits:
// bench/convergence gives it to sluice-bgp for end-to-end runs.
// --bmp post-policy,loc-rib (either or both): BMP Route Monitoring of those views to a station on
// loopback that discards what it reads in a child process (bench_station.h), as sluice-bgp
// exports it. The station's I/O thread counts in the process CPU while the run is timed; what
// it has not written by the end is written after, untimed; the child's reads are never timed.
// Pre-policy monitoring is a copy of each received UPDATE on sluice-bgp's event loop, outside
// the pipeline, and is not part of this benchmark.
// Run 1 starts on a fresh heap and pays the page faults of its first touches; each later run
// reuses the memory the run before freed, as sluice-bgp does when a peer's table comes back after
// its session dropped (tcmalloc keeps nearly all that a table freed). So with --reps 3 or more the
// medians are those of a warm heap; run 1 is the cold start, as a new process converges.
// Prints each run and the medians: seconds, prefixes/s, UPDATEs sent, and bytes per route —
// the growth of the heap in use (heap_in_use.h, under the allocator sluice-bgp links) from
// before the routing side is built to the end of the load, with everything alive, divided by the
// routes in the Adj-RIB-In. The heap counts all routing state (attribute store, tries, queues),
// not the process's fixed cost (code, libraries), which RSS would include.
// SLUICE_PERF_CTL=FIFO: profile the timed part only. The benchmark writes "enable" to FIFO as the
// timing starts and "disable" as it ends, for
//   mkfifo /tmp/ctl && SLUICE_PERF_CTL=/tmp/ctl perf record -D -1 --control fifo:/tmp/ctl ...
#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "base/program_options.h"
#include "bench/bgp/bench_station.h"
#include "bench/bgp/heap_in_use.h"
#include "bgp/mrt/mrt_reader.h"
#include "bgp/mrt/mrt_records.h"
#include "bgp/session/connection.h"
#include "bgp/session/peer_session.h"
#include "bgp/session/update_batch.h"
#include "bgp/stages/bgp_routing.h"
#include "bgp/wire/update_decoder.h"
#include "bgp/wire/update_encoder.h"
#include "policy/filter.h"

namespace sluice::bgp {
namespace {

// Tells a perf started with --control fifo:FIFO (FIFO from SLUICE_PERF_CTL) to start or stop
// sampling; nothing when SLUICE_PERF_CTL is unset.
void PerfControl(const char* command) {
  static FILE* fifo = [] {
    const char* path = std::getenv("SLUICE_PERF_CTL");
    return path == nullptr ? nullptr : std::fopen(path, "w");
  }();
  if (fifo == nullptr) return;
  std::fprintf(fifo, "%s\n", command);
  std::fflush(fifo);
}

struct Capture {
  std::vector<uint8_t> bytes;
  std::vector<std::pair<size_t, size_t>> messages;
  bool as4 = true;
};

// The capture as upstream `k` sends it: its AS (64600 + k) prepended k times.
Capture Variant(const Capture& c, int k) {
  if (k == 0) return c;
  SessionParams params;
  params.four_octet_as = c.as4;
  params.external = true;
  AttributeStore store;
  UpdateDecoder decoder(params, &store);
  UpdateEncoder encoder(params, /*readvertise=*/false);
  Capture out;
  out.as4 = c.as4;
  UpdateMessage u;
  for (const auto& [off, len] : c.messages) {
    decoder.Decode(Bytes(c.bytes.data() + off, len), &u);
    if (u.attributes) {
      PathAttributes a = *u.attributes;
      a.as_path = (a.as_path ? *a.as_path : AsPath()).Prepended(64600 + k, k);
      u.attributes = store.Intern(a);
    }
    const size_t before = out.bytes.size();
    if (!encoder.EncodeOne(u, &out.bytes).ok()) {
      // Too long with the longer path: several UPDATEs stand for this one (kept together, so
      // that the upstreams stay in step).
      out.bytes.resize(before);
      if (!encoder.Pack(u.attributes.get(), u.announced, u.withdrawn, &out.bytes).ok()) {
        out.bytes.resize(before);
        continue;
      }
    }
    out.messages.emplace_back(before, out.bytes.size() - before);
  }
  return out;
}

class CountingSession : public SessionSender {
 public:
  bool established() const override { return true; }
  bool SendMessages(std::vector<uint8_t> m) override {
    octets += m.size();
    for (size_t pos = 0; pos + kHeaderSize <= m.size();) {
      ++messages;
      pos += (size_t{m[pos + 16]} << 8) | m[pos + 17];
    }
    return true;
  }
  size_t send_backlog() const override { return 0; }
  void SendRouteRefresh(AfiSafi) override {}
  void ReportPrefixCount(size_t, size_t) override {}
  size_t octets = 0, messages = 0;
};

class AckingRib : public RibRouteClient {
 public:
  explicit AckingRib(boost::asio::io_context& io) : io_(io) {}
  void SendRoutes(net::Family, std::vector<RibRouteChange> batch, Done done) override {
    routes += batch.size();
    boost::asio::post(io_, [done = std::move(done)] { done(absl::OkStatus()); });
  }
  size_t routes = 0;

 private:
  boost::asio::io_context& io_;
};

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

double ProcessCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

struct Result {
  double seconds = 0;              // wall clock
  double cpu_seconds = 0;          // the event loop thread's CPU time (what other processes on the
                                   // machine do not inflate)
  double process_cpu_seconds = 0;  // every thread's (the shards' too)
  size_t prefixes = 0;             // announced NLRI in the capture
  size_t routes = 0;               // in the Adj-RIB-In at the end
  size_t updates_out = 0;
  size_t octets_out = 0;
  double bytes_per_route = 0;       // at the end of the load
  double peak_bytes_per_route = 0;  // the largest seen during it (sampled)
  uint64_t bmp_octets = 0;          // sent to the BMP station during the run
};

struct Setup {
  bool with_rib = false;
  bool poll = true;
  int threads = 1;
  bool shard_stage = false;                // threads 1 on a worker thread
  int parse_threads = 0;                   // decode on a pool of these (0: on the loop)
  bool encode_thread = false;              // RouterConfig::encode_thread
  policy::FilterSlot* import = nullptr;    // null: no import policy
  bench::BenchStation* station = nullptr;  // null: no BMP Route Monitoring
  PipelineOptions options;
};

struct FeedResult {
  size_t prefixes = 0;   // announced NLRI
  size_t peak_heap = 0;  // sampled
};

// The timed part's input: every upstream's UPDATEs, interleaved one by one, decoded and handed to
// the upstream's listener as its session would.
struct Feeder {
  const std::vector<Capture>& feeds;
  const std::vector<SessionListener*>& listeners;
  BgpRouting& routing;
  boost::asio::io_context& io;
  AttributeStore& store;
  SessionParams params;
  bool poll;
  // What one read of a session brings (Connection::kReadSize octets, at most kSliceMessages
  // UPDATEs handled per event): the loop runs other work between reads, not between the UPDATEs
  // of one read.
  std::vector<size_t> read_messages = std::vector<size_t>(feeds.size(), 0);
  std::vector<size_t> read_octets = std::vector<size_t>(feeds.size(), 0);
  bool EndsRead(size_t k, size_t n) {
    read_octets[k] += n;
    if (++read_messages[k] < size_t(Connection::kSliceMessages) &&
        read_octets[k] < Connection::kReadSize) {
      return false;
    }
    read_messages[k] = read_octets[k] = 0;
    return true;
  }

  // `fn(k, message, length)` for every message of every upstream k, in the order they are sent.
  template <class Fn>
  size_t ForEachMessage(Fn fn) {
    size_t peak = 0;
    size_t longest = 0;
    for (const Capture& f : feeds) longest = std::max(longest, f.messages.size());
    for (size_t i = 0; i < longest; ++i) {
      for (size_t k = 0; k < feeds.size(); ++k) {
        if (i >= feeds[k].messages.size()) continue;
        const auto& [off, len] = feeds[k].messages[i];
        // One or more whole messages.
        for (size_t pos = off; pos + kHeaderSize <= off + len;) {
          const uint8_t* m = feeds[k].bytes.data() + pos;
          const size_t n = (size_t{m[16]} << 8) | m[17];
          fn(k, m, n);
          pos += n;
        }
      }
      if (i % 16384 == 0) peak = std::max(peak, HeapInUse());
    }
    return peak;
  }

  // The serial session: each UPDATE decoded on the loop.
  FeedResult OnTheLoop() {
    FeedResult r;
    std::vector<std::unique_ptr<UpdateDecoder>> decoders;
    for (size_t k = 0; k < feeds.size(); ++k) {
      decoders.push_back(std::make_unique<UpdateDecoder>(params, &store));
    }
    UpdateMessage u;
    // As a session does, the UPDATEs of one read are pushed together (BeginUpdates), until the
    // read ends or the input pauses.
    std::vector<bool> open(feeds.size(), false);
    auto end_read = [&](size_t k) {
      if (open[k]) listeners[k]->EndUpdates();
      open[k] = false;
    };
    r.peak_heap = ForEachMessage([&](size_t k, const uint8_t* m, size_t n) {
      decoders[k]->Decode(Bytes(m, n), &u);
      r.prefixes += u.announced.size();
      // As a session does: nothing is read while the shards' input is full.
      if (routing.input_paused()) end_read(k);
      while (routing.input_paused()) io.run_one_for(std::chrono::milliseconds(1));
      if (!open[k]) listeners[k]->BeginUpdates();
      open[k] = true;
      listeners[k]->OnUpdate(u);
      if (!EndsRead(k, n)) return;
      end_read(k);
      if (poll) io.poll();  // as in the process: what became ready runs
    });
    for (size_t k = 0; k < feeds.size(); ++k) end_read(k);
    return r;
  }

  // The sessions with parse threads (PeerManager::SetParseThreads, sluice-bgp's default with
  // threads > 1): each upstream's UPDATEs go to the pool a read at a time (UpdateBatch: at most
  // Connection::kReadSize octets or kSliceMessages messages), decoded in order on a strand of
  // the pool, each batch handed back to the loop as one handler and one read (BeginUpdates ..
  // EndUpdates), its messages loaded a few UPDATEs ahead and freed back on the pool; the loop
  // reads no further while PeerSession::kMaxParsing wait for the pool.
  FeedResult ThroughParsePool(int threads) {
    FeedResult r;
    boost::asio::thread_pool pool(static_cast<size_t>(threads));
    std::vector<std::unique_ptr<UpdateDecoder>> decoders;
    std::vector<boost::asio::strand<boost::asio::thread_pool::executor_type>> strands;
    for (size_t k = 0; k < feeds.size(); ++k) {
      decoders.push_back(std::make_unique<UpdateDecoder>(params, &store));
      strands.push_back(boost::asio::make_strand(pool.get_executor()));
    }
    std::atomic<int> parsing{0};
    size_t sent = 0, delivered = 0;
    std::vector<UpdateBatch> reads(feeds.size());
    auto hand_over = [&](size_t k) {
      if (reads[k].empty()) return;
      sent += reads[k].size();
      boost::asio::post(strands[k], [&, k, batch = std::move(reads[k])] {
        thread_local const bool named = pthread_setname_np(pthread_self(), "bgp-parse") == 0;
        (void)named;  // as sluice-bgp's pool is named: profiles tell it from the loop
        auto decoded = std::make_shared<UpdateBatch::Decoded>(batch.Decode(*decoders[k]));
        parsing -= int(batch.size());
        boost::asio::post(io, [&, k, decoded]() mutable {
          listeners[k]->BeginUpdates();
          constexpr size_t kAhead = 2;
          for (size_t i = 0; i < kAhead; ++i) decoded->Prefetch(i);
          for (size_t i = 0; i < decoded->updates.size(); ++i) {
            decoded->Prefetch(i + kAhead);
            r.prefixes += decoded->updates[i].announced.size();
            listeners[k]->OnUpdate(decoded->updates[i]);
          }
          listeners[k]->EndUpdates();
          delivered += decoded->updates.size();
          boost::asio::post(strands[k], [d = std::move(decoded)]() mutable { d.reset(); });
        });
      });
      reads[k] = UpdateBatch();
    };
    r.peak_heap = ForEachMessage([&](size_t k, const uint8_t* m, size_t n) {
      while (routing.input_paused() || parsing.load() >= PeerSession::kMaxParsing) {
        for (size_t j = 0; j < feeds.size(); ++j) hand_over(j);
        io.run_one_for(std::chrono::milliseconds(1));
      }
      ++parsing;
      reads[k].Add(Bytes(m, n));
      if (!EndsRead(k, n)) return;
      hand_over(k);
      if (poll) io.poll();
    });
    for (size_t k = 0; k < feeds.size(); ++k) hand_over(k);
    while (delivered < sent) io.run_one_for(std::chrono::milliseconds(1));
    pool.join();
    return r;
  }
};

Result RunOnce(const std::vector<Capture>& feeds, const Setup& setup) {
  const bool with_rib = setup.with_rib;
  const bool poll = setup.poll;
  const Capture& c = feeds[0];
  const size_t heap_before = HeapInUse();
  Result r;
  {
    boost::asio::io_context io;
    AttributeStore store;
    AckingRib rib(io);
    std::vector<CountingSession> up_sessions(feeds.size());
    CountingSession down_session;
    RouterConfig rc;
    rc.local_as = 65000;
    rc.router_id = net::IPv4Address(0xc0000201);
    rc.ipv6 = false;
    rc.threads = setup.threads;
    rc.shard_single_thread = setup.shard_stage;
    rc.encode_thread = setup.encode_thread;
    auto routing = std::make_unique<BgpRouting>(
        io, rc,
        RoutingServices{nullptr, with_rib ? &rib : nullptr, &store, nullptr, nullptr,
                        setup.station != nullptr ? setup.station->slot() : nullptr},
        setup.options);
    RoutingPeerConfig down;
    down.name = "down";
    down.address = net::IPAddress(net::IPv4Address(0xc6336402));
    down.peer_as = 65010;
    down.ebgp_requires_policy = false;
    SessionListener* down_l = *routing->AddPeer(down, &down_session);
    std::vector<SessionListener*> up_l;
    for (size_t k = 0; k < feeds.size(); ++k) {
      RoutingPeerConfig up = down;
      up.name = "up" + std::to_string(k);
      up.address = net::IPAddress(net::IPv4Address(0xcedce737 + uint32_t(k)));
      up.peer_as = k == 0 ? 3856 : 64600 + uint32_t(k);
      up.import_policy = setup.import;
      up_l.push_back(*routing->AddPeer(up, &up_sessions[k]));
    }
    EstablishedInfo info;
    info.params.external = true;
    info.remote_as = 65010;
    info.remote_address = down.address;
    info.local_address = net::IPAddress(net::IPv4Address(0xc6336401));
    down_l->OnEstablished(info);
    info.params.four_octet_as = c.as4;
    for (size_t k = 0; k < feeds.size(); ++k) {
      info.remote_as = k == 0 ? 3856 : 64600 + uint32_t(k);
      info.remote_address = net::IPAddress(net::IPv4Address(0xcedce737 + uint32_t(k)));
      info.remote_bgp_id = net::IPv4Address(0xcedce737 + uint32_t(k));
      up_l[k]->OnEstablished(info);
      if (setup.station != nullptr) {
        setup.station->PeerUp(info.remote_address, info.remote_as, info.params);
      }
    }
    routing->Settle();
    const size_t updates_before = down_session.messages;

    const uint64_t bmp_before = setup.station != nullptr ? setup.station->bytes_sent() : 0;
    PerfControl("enable");
    const absl::Time start = absl::Now();
    const double cpu_start = ThreadCpuSeconds();
    const double process_cpu_start = ProcessCpuSeconds();
    // Keeps poll() working when the loop momentarily has nothing to do. The Settle() above ran
    // the loop out of work, which stops it: without restart() every poll() below returns at once
    // and nothing posted to the loop (the shards' outputs, RIB acknowledgements) runs before the
    // Settle() at the end.
    auto guard = boost::asio::make_work_guard(io);
    io.restart();
    Feeder feeder{feeds, up_l, *routing, io, store, info.params, poll};
    const FeedResult fed =
        setup.parse_threads > 0 ? feeder.ThroughParsePool(setup.parse_threads) : feeder.OnTheLoop();
    r.prefixes = fed.prefixes;
    const size_t peak = fed.peak_heap;
    guard.reset();
    routing->Settle();
    r.seconds = absl::ToDoubleSeconds(absl::Now() - start);
    r.cpu_seconds = ThreadCpuSeconds() - cpu_start;
    r.process_cpu_seconds = ProcessCpuSeconds() - process_cpu_start;
    PerfControl("disable");
    if (setup.station != nullptr) {
      setup.station->Drain();
      r.bmp_octets = setup.station->bytes_sent() - bmp_before;
    }
    r.routes = 0;
    for (size_t k = 0; k < feeds.size(); ++k) {
      auto status = routing->Peer(net::IPAddress(net::IPv4Address(0xcedce737 + uint32_t(k))));
      if (status.ok()) r.routes += status->families[0].received;
    }
    r.updates_out = down_session.messages - updates_before;
    r.octets_out = down_session.octets;
    r.bytes_per_route = double(HeapInUse() - heap_before) / double(r.routes);
    r.peak_bytes_per_route = double(std::max(peak, HeapInUse()) - heap_before) / double(r.routes);
  }
  return r;
}

// The heavy import policy (--policy heavy): a 1,000-entry prefix list (every n-th prefix the
// capture announces, orlonger), an AS-path regular expression and a community match, each term
// modifying the routes it matches; everything else accepted.
std::string HeavyImportPolicyText(const Capture& c) {
  SessionParams params;
  params.four_octet_as = c.as4;
  AttributeStore store;
  UpdateDecoder decoder(params, &store);
  UpdateMessage u;
  std::vector<net::Prefix> prefixes;
  for (const auto& [off, len] : c.messages) {
    decoder.Decode(Bytes(c.bytes.data() + off, len), &u);
    // Not the default route (the capture's first prefix): "0.0.0.0/0 orlonger" would match
    // every route at the first term, and the other terms would never run.
    for (const Nlri& n : u.announced) {
      if (n.prefix.length() >= 8) prefixes.push_back(n.prefix);
    }
  }
  std::string list;
  const size_t step = std::max<size_t>(1, prefixes.size() / 1000);
  for (size_t i = 0, n = 0; i < prefixes.size() && n < 1000; i += step, ++n) {
    list += "    " + prefixes[i].ToString() + " orlonger;\n";
  }
  return R"(
  prefix-list customers {
)" + list +
         R"(  }
  community-list regional { 3856:52400; 3856:53900; 65535:666; }
  as-path-list tier1 { ".* (174|209|701|1239|1299|2914|3257|3320|3356|5511|6453|6461|6762|7018|12956) .*"; }
  policy-statement import {
    term customers { from { prefix-list customers; } then { local-pref 200; accept; } }
    term transit { from { as-path tier1; } then { local-pref 90; next term; } }
    term regional { from { community regional; } then { local-pref 120; accept; } }
    term rest { then { accept; } }
  }
)";
}

absl::StatusOr<std::shared_ptr<const policy::Filter>> HeavyImportPolicy(const Capture& c) {
  policy::FilterSpec spec;
  spec.policies = {"import"};
  return policy::Filter::FromText(HeavyImportPolicyText(c), policy::SourceLocation{"bench", 1, 1},
                                  spec);
}

template <typename T>
T Median(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The command line (see the top of this file).
struct Args {
  int reps = 5;
  bool with_rib = false;
  int upstreams = 1;
  bool poll = true;
  int threads = 1;
  bool shard_stage = false;
  int parse_threads = -1;  // -1: as sluice-bgp (RouterConfig::DefaultParseThreads)
  int encode_thread = -1;  // -1: as sluice-bgp (RouterConfig::DefaultEncodeThread)
  std::string policy_kind = "none";
  bool print_policy = false;
  std::vector<std::string> bmp;  // --bmp's views
  PipelineOptions options;
};

// Fills `a` from argv; the status to exit with when the program should not go on.
std::optional<int> ParseArgs(int argc, char** argv, Args& a) {
  base::ProgramOptions options(
      "bgp_pipeline_bench",
      "bgp_pipeline_bench: the BGP pipeline on the PCH full table ($SLUICE_DATA_DIR), in one "
      "process, 1 upstream eBGP peer -> 1 downstream; prints each run and the medians (seconds, "
      "prefixes/s, UPDATEs sent, heap bytes per route)");
  CLI::App& app = options.app();
  app.add_option("--reps", a.reps, "timed runs (the medians are over these)")
      ->check(CLI::Range(1, 1000));
  app.add_flag("--rib", a.with_rib,
               "add a RIB branch whose client acknowledges each batch from the event loop");
  app.add_option("--upstreams", a.upstreams,
                 "N upstream peers each send the whole table, peer k with its AS prepended k "
                 "times, their UPDATEs interleaved")
      ->check(CLI::Range(1, 64));
  app.add_flag_callback(
      "--no-poll", [&a] { a.poll = false; },
      "run the event loop only after the last UPDATE (the RIB branch lags by the whole table)");
  app.add_option("--threads", a.threads,
                 "RouterConfig::threads: the shard stage's workers (1: the serial pipeline)")
      ->check(CLI::Range(1, 256));
  app.add_flag("--shard-stage", a.shard_stage,
               "with --threads 1: the shard stage with one worker thread");
  app.add_option("--parse-threads", a.parse_threads,
                 "decode the UPDATEs on a pool of N threads, as sluice-bgp's sessions do (0: on "
                 "the event loop; default: as sluice-bgp, the usable CPUs that the loop and "
                 "--threads leave, at most --threads)")
      ->check(CLI::Range(0, 256));
  app.add_option("--encode-thread", a.encode_thread,
                 "1: PeerOut encodes on a thread of its own, 0: on the event loop (default: as "
                 "sluice-bgp, when a usable CPU is left beside the loop and --threads > 1)")
      ->check(CLI::Range(0, 1));
  app.add_option("--shard-batch", a.options.shard_batch,
                 "PipelineOptions::shard_batch: routes per hand-over to a shard")
      ->check(CLI::Range(size_t{1}, size_t{1} << 30));
  app.add_option("--shard-backlog", a.options.shard_backlog,
                 "PipelineOptions::shard_backlog: routes a shard may have waiting before the "
                 "sessions stop reading")
      ->check(CLI::Range(size_t{1}, size_t{1} << 30));
  app.add_option("--shard-coalesce-us", a.options.shard_coalesce_us,
                 "PipelineOptions::shard_coalesce_us: within a burst, how long routes may wait "
                 "for more before they are handed to an idle shard (0: after every UPDATE)")
      ->check(CLI::Range(int64_t{0}, int64_t{1000000}));
  app.add_option("--policy", a.policy_kind,
                 "every upstream's import policy: none, or heavy (a 1,000-entry prefix list, an "
                 "AS-path regular expression and a community match)")
      ->check(CLI::IsMember({"none", "heavy"}));
  app.add_option("--bmp", a.bmp,
                 "BMP Route Monitoring of these views (post-policy, loc-rib) to a station on "
                 "loopback that discards it")
      ->delimiter(',')
      ->check(CLI::IsMember({"post-policy", "loc-rib"}));
  app.add_flag("--print-policy", a.print_policy,
               "print the heavy policy's text (policy-statement \"import\") and exit");
  return options.Parse(argc, argv);
}

// The --bmp station, monitoring `views` (post-policy, loc-rib) of a router with the bench's
// identity.
absl::StatusOr<std::unique_ptr<bench::BenchStation>> StartStation(
    const std::vector<std::string>& views) {
  uint8_t bits = 0;
  for (const std::string& v : views) {
    bits |= v == "loc-rib" ? bmp::kMonitorLocRib : bmp::kMonitorPostPolicy;
  }
  auto station = bench::BenchStation::Start(bits);
  if (station.ok()) (*station)->SetIdentity(65000, 0xc0000201);
  return station;
}

int Main(int argc, char** argv) {
  Args a;
  if (std::optional<int> exit = ParseArgs(argc, argv, a)) return *exit;
  std::unique_ptr<bench::BenchStation> station;  // forks: before any thread starts
  if (!a.bmp.empty()) {
    auto started = StartStation(a.bmp);
    if (!started.ok()) {
      std::fprintf(stderr, "BMP station: %s\n", std::string(started.status().message()).c_str());
      return 2;
    }
    station = *std::move(started);
  }
  const char* dir = std::getenv("SLUICE_DATA_DIR");
  if (dir == nullptr) {
    std::fprintf(stderr, "SLUICE_DATA_DIR is not set (the folder holding mrt/)\n");
    return 2;
  }
  auto reader =
      mrt::MrtReader::Open(std::string(dir) + "/mrt/pch-2015-10-23-fulltable-updates.mrt.gz");
  if (!reader.ok()) {
    std::fprintf(stderr, "%s\n", std::string(reader.status().message()).c_str());
    return 2;
  }
  Capture c;
  mrt::MrtRecord rec;
  while ((*reader)->Next(&rec)) {
    mrt::Bgp4mpMessage m;
    if (!mrt::IsBgp4mpMessage(rec) || !mrt::DecodeBgp4mpMessage(rec, &m).ok()) continue;
    if (m.message.size() < kHeaderSize || m.message[18] != 2) continue;
    c.as4 = m.as4;
    c.messages.emplace_back(c.bytes.size(), m.message.size());
    c.bytes.insert(c.bytes.end(), m.message.begin(), m.message.end());
  }
  if (a.print_policy) {  // the heavy policy's text (policy "import"), for end-to-end runs
    std::fputs(HeavyImportPolicyText(c).c_str(), stdout);
    return 0;
  }
  std::vector<Capture> feeds;
  for (int k = 0; k < a.upstreams; ++k) feeds.push_back(Variant(c, k));
  Setup setup;
  setup.with_rib = a.with_rib;
  setup.poll = a.poll;
  setup.threads = a.threads;
  setup.shard_stage = a.shard_stage;
  setup.parse_threads =
      a.parse_threads >= 0 ? a.parse_threads : RouterConfig::DefaultParseThreads(a.threads);
  setup.encode_thread =
      a.encode_thread >= 0 ? a.encode_thread == 1 : RouterConfig::DefaultEncodeThread(a.threads);
  setup.options = a.options;
  setup.station = station.get();
  policy::FilterSlot slot(nullptr);
  if (a.policy_kind == "heavy") {
    auto filter = HeavyImportPolicy(c);
    if (!filter.ok()) {
      std::fprintf(stderr, "policy: %s\n", std::string(filter.status().message()).c_str());
      return 2;
    }
    slot.Set(*filter);
    setup.import = &slot;
  }
  std::printf(
      "PCH: %zu UPDATEs loaded; %d upstream -> 1 downstream%s, %d thread(s)%s, %d parse "
      "thread(s)%s, %s import policy, %d runs\n",
      c.messages.size(), a.upstreams, a.with_rib ? " + RIB" : "", a.threads,
      a.shard_stage && a.threads == 1 ? " (shard stage)" : "", setup.parse_threads,
      setup.encode_thread ? ", encoding thread" : "", a.policy_kind.c_str(), a.reps);
  std::vector<double> secs, rate, bpr, cpu, cpu_rate, process_cpu;
  std::vector<size_t> updates;
  for (int i = 0; i < a.reps; ++i) {
    Result r = RunOnce(feeds, setup);
    secs.push_back(r.seconds);
    cpu.push_back(r.cpu_seconds);
    process_cpu.push_back(r.process_cpu_seconds);
    cpu_rate.push_back(double(r.prefixes) / r.cpu_seconds);
    rate.push_back(double(r.prefixes) / r.seconds);
    bpr.push_back(r.bytes_per_route);
    updates.push_back(r.updates_out);
    std::printf(
        "run %d: %.3f s wall (%.0f prefixes/s), %.3f s loop CPU (%.0f prefixes/s), %.3f s "
        "process CPU, %zu routes, %zu UPDATEs out (%zu octets), %.1f heap bytes/route (peak "
        "%.1f)\n",
        i + 1, r.seconds, double(r.prefixes) / r.seconds, r.cpu_seconds,
        double(r.prefixes) / r.cpu_seconds, r.process_cpu_seconds, r.routes, r.updates_out,
        r.octets_out, r.bytes_per_route, r.peak_bytes_per_route);
    if (station != nullptr) std::printf("  BMP station: %" PRIu64 " octets\n", r.bmp_octets);
  }
  std::printf(
      "median: %.3f s wall (%.0f prefixes/s), %.3f s loop CPU (%.0f prefixes/s), %.3f s process "
      "CPU, %zu UPDATEs out, %.1f heap bytes/route\n",
      Median(secs), Median(rate), Median(cpu), Median(cpu_rate), Median(process_cpu),
      Median(updates), Median(bpr));
  return 0;
}

}  // namespace
}  // namespace sluice::bgp

int main(int argc, char** argv) { return sluice::bgp::Main(argc, argv); }
