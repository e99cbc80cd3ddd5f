// The BGP pipeline with real processes: the PCH full table through a device under test (DUT),
// one upstream and one downstream peer, timed from the first UPDATE the DUT receives to the last
// UPDATE it sends downstream; the DUT's peak RSS, CPU seconds and bytes per route.
//
//   SLUICE_DATA_DIR=... build/bench/bgp/bgp_process_convergence [--dut sluice|sluice-rib|bird]
//       [--runs 5] [--mrt FILE]
//
// DUTs: "sluice" = sluice-finder + sluice-bgp --no-rib (BGP only); "sluice-rib" = with the RIB
// in the loop (sluice-rib + sluice-fea dummy once built, else the fake RIB of tests/bgp in this
// process); "bird" = BIRD 2 with the same two peerings (INTEROP.md's loopback settings).
//
// The peers are sluice-replay's sessions (bgp/replay/replay_session.h, the code of sluice-replay)
// run in this process: the downstream (127.0.0.4, receive-only) connects first; then the upstream
// (127.0.0.3) sends the capture's UPDATEs as fast as TCP takes them, its own AS prepended and
// NEXT_HOP itself. Start = the upstream's session reaching Established (its first UPDATE follows
// at once); end = the last UPDATE the downstream received, once nothing more has come for 3 s.
// Both are read on this process's clock (polled every millisecond).
//
// Bytes per route: (the DUT's peak RSS - its RSS before the table) / prefixes delivered, and
// the whole peak RSS / prefixes for comparison. A fresh DUT each run; medians of the runs.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/program_options.h"
#include "bgp/replay/feed_encoder.h"
#include "bgp/replay/replay_feed.h"
#include "bgp/replay/replay_session.h"
#include "ipc/types_convert.h"
#include "tests/interop/pipeline_util.h"

namespace sluice::bgp::bench {
namespace {

namespace asio = boost::asio;
namespace v1 = ::sluice::bgp::v1;
using Clock = std::chrono::steady_clock;
using sluice::testing::ChildProcess;
using sluice::testing::RunCommand;
using sluice::testing::TempDir;
using sluice::testing::WaitFor;

constexpr uint32_t kDutAs = 4200000001u, kUpAs = 4200000002u, kDownAs = 4200000003u;

struct ProcStats {
  uint64_t rss_kb = 0, hwm_kb = 0;
  double cpu_s = 0;
};

ProcStats Read(pid_t pid) {
  ProcStats s;
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) std::istringstream(line.substr(6)) >> s.rss_kb;
    if (line.rfind("VmHWM:", 0) == 0) std::istringstream(line.substr(6)) >> s.hwm_kb;
  }
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');
  if (close != std::string::npos) {
    std::istringstream in(text.substr(close + 2));
    std::string field;
    uint64_t utime = 0, stime = 0;
    for (int i = 3; i <= 15 && in >> field; ++i) {
      if (i == 14) utime = std::stoull(field);
      if (i == 15) stime = std::stoull(field);
    }
    s.cpu_s = double(utime + stime) / double(sysconf(_SC_CLK_TCK));
  }
  return s;
}

// The device under test: where the peers connect, and its processes.
class Dut {
 public:
  virtual ~Dut() = default;
  virtual std::string error() const = 0;
  virtual uint16_t port() const = 0;
  virtual std::vector<pid_t> pids() = 0;
};

class SluiceDut : public Dut {
 public:
  SluiceDut(bool with_rib) : port_(uint16_t(sluice::testing::FreeTcpPort())) {
    router_ = std::make_unique<interop::SluiceRouter>(
        std::vector<std::string>{"--listen", absl::StrCat("127.0.0.1:", port_), "--local-as",
                                 absl::StrCat(kDutAs), "--bgp-id", "10.255.0.1", "--ipv4-only"},
        with_rib);
    if (!router_->ok()) return;
    for (const auto& [address, as] : std::vector<std::pair<std::string, uint32_t>>{
             {"127.0.0.3", kUpAs}, {"127.0.0.4", kDownAs}}) {
      v1::AddPeerRequest r;
      ipc::ToProto(*net::IPAddress::Parse(address), r.mutable_address());
      r.set_remote_as(as);
      r.set_passive(true);
      r.set_hold_time(90);
      r.set_ebgp_requires_policy(false);
      if (absl::Status st = router_->client().AddPeer(r); !st.ok()) error_ = st.ToString();
    }
  }
  std::string error() const override { return router_->ok() ? error_ : router_->error(); }
  uint16_t port() const override { return port_; }
  std::vector<pid_t> pids() override { return {router_->bgp().pid()}; }

 private:
  uint16_t port_;
  std::unique_ptr<interop::SluiceRouter> router_;
  std::string error_;
};

class BirdDut : public Dut {
 public:
  BirdDut() : port_(uint16_t(sluice::testing::FreeTcpPort())) {
    auto peer = [&](const char* name, const char* address, uint32_t as, const char* io) {
      return absl::StrCat("protocol bgp ", name, " {\n  local 127.0.0.1 port ", port_, " as ",
                          kDutAs, ";\n  neighbor ", address, " as ", as,
                          ";\n  multihop 2;\n  passive on;\n  ipv4 { ", io,
                          " igp table igp4; };\n}\n");
    };
    const std::string conf = absl::StrCat(
        "router id 10.255.0.1;\nlog \"", dir_.Path("bird.log"),
        "\" { warning, error, fatal };\nprotocol device { }\nipv4 table igp4;\n",
        "protocol static igpstatic { ipv4 { table igp4; }; route 0.0.0.0/0 via \"lo\"; }\n",
        peer("upstream", "127.0.0.3", kUpAs, "import all; export none;"),
        peer("downstream", "127.0.0.4", kDownAs, "import none; export all;"));
    bird_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{"bird", "-f", "-c", dir_.File("bird.conf", conf), "-s",
                                 dir_.Path("bird.ctl"), "-P", dir_.Path("bird.pid")},
        dir_.Path("bird.out"));
    if (!WaitFor(
            [&] {
              return RunCommand({"birdc", "-s", dir_.Path("bird.ctl"), "show", "status"}).ok();
            },
            20)) {
      error_ = "BIRD did not start: " + bird_->Output();
    }
  }
  std::string error() const override { return error_; }
  uint16_t port() const override { return port_; }
  std::vector<pid_t> pids() override { return {bird_->pid()}; }

 private:
  TempDir dir_{"bird-dut"};
  uint16_t port_;
  std::unique_ptr<ChildProcess> bird_;
  std::string error_;
};

struct Result {
  double seconds = -1;  // first UPDATE in -> last UPDATE out
  double upstream_seconds = 0;
  uint64_t prefixes_down = 0, updates_down = 0;
  ProcStats before, after;
};

replay::SessionOptions Options(const char* local, uint32_t as, uint16_t port) {
  replay::SessionOptions o;
  o.name = local;
  o.remote = asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), port);
  o.local = asio::ip::make_address(local);
  o.local_as = as;
  o.peer_as = kDutAs;
  o.router_id = net::IPv4Address(asio::ip::make_address_v4(local).to_uint());
  o.hold_time = 90;
  o.families.Add(kIPv4Unicast);
  o.linger = -1;
  return o;
}

Result RunOnce(Dut& dut, const replay::PeerFeed& feed, AttributeStore* store) {
  Result r;
  asio::io_context io;
  // Downstream: receives only.
  auto down = std::make_unique<replay::ReplaySession>(
      io, Options("127.0.0.4", kDownAs, dut.port()),
      [](const SessionParams& params, replay::EncodedStream* table, replay::EncodedStream*) {
        AttributeStore s;
        replay::FeedEncoder(params, replay::RewriteOptions(), &s).EncodeEndOfRib(table);
      });
  // Upstream: the capture, own AS prepended, NEXT_HOP self.
  replay::RewriteOptions rw;
  rw.local_as = kUpAs;
  rw.prepend_own_as = true;
  rw.next_hop4 = net::IPv4Address(0x7f000003);
  auto up = std::make_unique<replay::ReplaySession>(
      io, Options("127.0.0.3", kUpAs, dut.port()),
      [&feed, rw, store](const SessionParams& params, replay::EncodedStream* table,
                         replay::EncodedStream* withdraw) {
        replay::FeedEncoder encoder(params, rw, store);
        encoder.EncodeMessages(feed, table);
        encoder.EncodeEndOfRib(table);
      });
  bool up_sent = false;
  up->on_sent = [&](replay::ReplaySession*) { up_sent = true; };

  std::optional<Clock::time_point> down_est, up_est, last_change;
  uint64_t last_count = 0;
  asio::steady_timer tick(io);
  bool started_up = false, finished = false;
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(300);
  std::function<void()> poll = [&] {
    tick.expires_after(std::chrono::milliseconds(1));
    tick.async_wait([&](const boost::system::error_code& ec) {
      if (ec) return;
      const Clock::time_point now = Clock::now();
      if (!down_est && down->stats().state == "Established") down_est = now;
      if (down_est && !started_up && now - *down_est > std::chrono::milliseconds(500)) {
        started_up = true;
        const std::vector<pid_t> pids = dut.pids();
        for (pid_t p : pids) {
          ProcStats s = Read(p);
          r.before.rss_kb += s.rss_kb;
          r.before.cpu_s += s.cpu_s;
        }
        up->Connect();
      }
      if (!up_est && up->stats().state == "Established") up_est = now;
      const uint64_t count = down->stats().prefixes_received;
      if (count != last_count) {
        last_count = count;
        last_change = now;
      }
      if ((up_sent && last_change && now - *last_change > std::chrono::seconds(3)) ||
          now > deadline) {
        finished = true;
        for (pid_t p : dut.pids()) {
          ProcStats s = Read(p);
          r.after.rss_kb += s.rss_kb;
          r.after.hwm_kb += s.hwm_kb;
          r.after.cpu_s += s.cpu_s;
        }
        up->Stop("done");
        down->Stop("done");
        io.stop();
        return;
      }
      poll();
    });
  };
  down->Connect();
  poll();
  io.run();
  if (!finished || !up_est || !down_est || down->stats().last_update_received < 0) return r;
  const double last = std::chrono::duration<double>(*down_est - *up_est).count() +
                      down->stats().last_update_received;
  r.seconds = last;
  r.upstream_seconds = up->stats().table_seconds;
  r.prefixes_down = down->stats().prefixes_received;
  r.updates_down = down->stats().updates_received;
  return r;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

int Main(int argc, char** argv) {
  std::string dut_name = "sluice", mrt;
  int runs = 5;
  base::ProgramOptions options(
      "bgp_process_convergence",
      "bgp_process_convergence: the PCH full table ($SLUICE_DATA_DIR or --mrt) through a device "
      "under test between two sluice-replay sessions; prints time, CPU, peak RSS and bytes per "
      "route (medians of --runs)");
  CLI::App& app = options.app();
  app.add_option("--dut", dut_name,
                 "the device under test: sluice (sluice-bgp --no-rib), sluice-rib (with the RIB "
                 "in the loop) or bird (BIRD 2)")
      ->check(CLI::IsMember({"sluice", "sluice-rib", "bird"}));
  app.add_option("--runs", runs, "runs, a fresh DUT each (the medians are over these)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--mrt", mrt,
                 "the MRT capture (default: the PCH capture in $SLUICE_DATA_DIR/mrt)");
  if (std::optional<int> exit = options.Parse(argc, argv)) return *exit;
  if (mrt.empty()) {
    const char* d = std::getenv("SLUICE_DATA_DIR");
    if (d == nullptr) {
      std::fprintf(stderr, "set SLUICE_DATA_DIR (the folder holding mrt/) or give --mrt\n");
      return 2;
    }
    mrt = std::string(d) + "/mrt/pch-2015-10-23-fulltable-updates.mrt.gz";
  }
  if (std::getenv("SLUICE_BUILD_DIR") == nullptr) {
    // bench/bgp/bgp_process_convergence -> the build tree two levels up.
    std::string self = argv[0];
    const std::string build = self.substr(0, self.rfind('/')) + "/../..";
    setenv("SLUICE_BUILD_DIR", build.c_str(), 1);
  }
  AttributeStore store;
  auto capture = replay::LoadCapture(mrt, &store);
  if (!capture.ok() || capture->peers.empty()) {
    std::fprintf(stderr, "cannot load %s\n", mrt.c_str());
    return 1;
  }
  const replay::PeerFeed& feed = capture->peers[0];
  std::printf("DUT %s, %s: %zu UPDATEs from %s, 1 upstream -> 1 downstream, %d runs\n",
              dut_name.c_str(), mrt.substr(mrt.rfind('/') + 1).c_str(), feed.updates.size(),
              feed.Name().c_str(), runs);
  std::printf("%4s %9s %10s %9s %9s %9s %9s %10s %10s\n", "run", "seconds", "prefixes", "UPDATEs",
              "CPU s", "peak MB", "end MB", "B/route", "RSS/route");
  std::vector<double> secs, cpu, peak, per_route, rss_per_route;
  for (int run = 1; run <= runs; ++run) {
    std::unique_ptr<Dut> dut;
    if (dut_name == "bird") {
      dut = std::make_unique<BirdDut>();
    } else {
      dut = std::make_unique<SluiceDut>(dut_name == "sluice-rib");
    }
    if (!dut->error().empty()) {
      std::fprintf(stderr, "the DUT did not start: %s\n", dut->error().c_str());
      return 1;
    }
    Result r = RunOnce(*dut, feed, &store);
    if (r.seconds < 0) {
      std::fprintf(stderr, "run %d did not complete\n", run);
      return 1;
    }
    const double routes = double(std::max<uint64_t>(r.prefixes_down, 1));
    const double b =
        double(r.after.hwm_kb - std::min(r.after.hwm_kb, r.before.rss_kb)) * 1024 / routes;
    const double whole = double(r.after.hwm_kb) * 1024 / routes;
    std::printf("%4d %9.3f %10llu %9llu %9.2f %9.1f %9.1f %10.1f %10.1f\n", run, r.seconds,
                (unsigned long long)r.prefixes_down, (unsigned long long)r.updates_down,
                r.after.cpu_s - r.before.cpu_s, r.after.hwm_kb / 1024.0, r.after.rss_kb / 1024.0, b,
                whole);
    std::fflush(stdout);
    secs.push_back(r.seconds);
    cpu.push_back(r.after.cpu_s - r.before.cpu_s);
    peak.push_back(r.after.hwm_kb / 1024.0);
    per_route.push_back(b);
    rss_per_route.push_back(whole);
  }
  std::printf("%4s %9.3f %10s %9s %9.2f %9.1f %9s %10.1f %10.1f\n", "med", Median(secs), "", "",
              Median(cpu), Median(peak), "", Median(per_route), Median(rss_per_route));
  return 0;
}

}  // namespace
}  // namespace sluice::bgp::bench

int main(int argc, char** argv) { return sluice::bgp::bench::Main(argc, argv); }
