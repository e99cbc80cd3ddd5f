// BMP to pmacct's collector (pmbmpd) end to end: sluice-replay sends the PCH table to
// sluice-bgp (run by sluice-rtrmgr with a `bmp { station ... }` block), pmbmpd on 127.0.0.1
// logs every BMP message as JSON. Checked: pmbmpd holds the table's prefixes; a session reset
// shows as Peer Down then Peer Up; with pmbmpd stopped (SIGSTOP) while the upstream withdraws
// and re-sends the table, routing still converges, sluice-bgp's peak RSS grows by no more than
// the station's buffer, and after SIGCONT the station is connected again and re-synchronised
// (pmbmpd holds the table again). Skips without pmbmpd or the data.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "bench/rpki/vrp_generator.h"
#include "bgp/replay/replay_feed.h"
#include "tests/bgp/test_data.h"
#include "tests/system/rov_daemons.h"
#include "tests/system/rtrmgr_processes.h"

namespace sluice::testing {
namespace {

constexpr char kPmbmpd[] = "/usr/sbin/pmbmpd";
constexpr int kBufferMib = 8;
// What reaches the Loc-RIB of the PCH table's busiest peer: 577,703 prefixes less the 4 whose
// AS_PATH holds AS 0 (treated as withdrawn, RFC 7607).
constexpr size_t kLocRibPrefixes = 577699;

// The string value (or bare number) of `"key":` in one JSON line; "" when absent.
std::string Field(const std::string& line, const std::string& key) {
  const std::string k = "\"" + key + "\"";
  size_t at = line.find(k);
  if (at == std::string::npos) return "";
  at += k.size();
  while (at < line.size() && (line[at] == ':' || line[at] == ' ')) ++at;
  if (at < line.size() && line[at] == '"') {
    size_t end = line.find('"', at + 1);
    return end == std::string::npos ? "" : line.substr(at + 1, end - at - 1);
  }
  size_t end = line.find_first_of(",}", at);
  return line.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// Reads pmbmpd's message log as it grows: route-monitoring prefixes announced since the last
// Initiation (a new BMP session starts from scratch), and the message types seen.
class BmpLog {
 public:
  explicit BmpLog(std::string path) : path_(std::move(path)) {}
  void Poll() {
    std::ifstream in(path_);
    if (!in) return;
    in.seekg(offset_);
    std::string line;
    while (std::getline(in, line)) {
      if (in.eof()) break;  // a partial last line: read it next time
      offset_ += line.size() + 1;
      const std::string type = Field(line, "bmp_msg_type");
      ++types_[type];
      if (type == "init") {
        prefixes_.clear();
        ++inits_;
      } else if (type == "route_monitor" && Field(line, "log_type") == "update") {
        prefixes_.insert(Field(line, "ip_prefix"));
      }
    }
  }
  size_t prefixes() const { return prefixes_.size(); }
  int count(const std::string& type) const {
    auto it = types_.find(type);
    return it == types_.end() ? 0 : it->second;
  }
  int inits() const { return inits_; }

 private:
  std::string path_;
  std::streamoff offset_ = 0;
  std::set<std::string> prefixes_;
  std::map<std::string, int> types_;
  int inits_ = 0;
};

// The peak resident set of a process (VmHWM), in KiB; 0 when unknown.
size_t PeakRssKib(int pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoul(line.substr(6));
  }
  return 0;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string BmpConfig(int port, int bmp_port) {
  return absl::StrCat("fea { backend dummy; }\nprotocols {\n    bgp {\n        local-as ",
                      kSpeakerAs, ";\n        bgp-id 10.255.0.2;\n        listen ", kSpeakerAddress,
                      " port ", port, ";\n        peer ", kUpstreamAddress, " { as ", kUpstreamAs,
                      "; local-ip ", kSpeakerAddress,
                      "; passive; family [ ipv4-unicast ]; import [ all ]; }\n"
                      "        bmp { station 127.0.0.1 { port ",
                      bmp_port, "; buffer-size ", kBufferMib,
                      "; } }\n    }\n}\npolicy {\n"
                      "    policy-statement all { term all { then { accept; } } }\n}\n");
}

TEST(BmpPmbmpdTest, CollectorHoldsTheTableSeesResetsAndIsResynchronisedAfterAStall) {
  SLUICE_SKIP_WITHOUT_MRT_DATA();
  if (!std::filesystem::exists(kPmbmpd)) GTEST_SKIP() << "pmbmpd (Debian pmacct) is not installed";
  const std::string capture = MrtDir() + "/pch-2015-10-23-fulltable-updates.mrt.gz";
  if (!std::filesystem::exists(capture)) GTEST_SKIP() << capture << " is missing";
  size_t peer_index = 0, routes = 0;
  {
    bgp::AttributeStore store;
    auto loaded = bgp::replay::LoadCapture(capture, &store);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    peer_index = bench::rpki::BusiestPeer(*loaded, net::Family::kIPv4, &routes);
  }
  char tmpl[] = "/tmp/sluice-bmp-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const std::vector<int> ports = FreeLoopbackPorts(2);
  const int port = ports[0], bmp_port = ports[1];

  // pmbmpd, logging every message as a JSON line.
  const std::string log = dir + "/bmp.json";
  {
    std::ofstream conf(dir + "/pmbmpd.conf");
    conf << "bmp_daemon_ip: 127.0.0.1\nbmp_daemon_port: " << bmp_port
         << "\nbmp_daemon_msglog_file: " << log << "\nbmp_daemon_msglog_output: json\n"
         << "bmp_daemon_max_peers: 100\nlogfile: " << dir << "/pmbmpd.log\n";
  }
  auto pmbmpd = ChildProcess::Start({kPmbmpd, "-f", dir + "/pmbmpd.conf"});
  ASSERT_TRUE(pmbmpd);
  ASSERT_TRUE(Eventually(
      [&] {
        return ReadAll(dir + "/pmbmpd.log").find("waiting for BMP data") != std::string::npos;
      },
      20))
      << ReadAll(dir + "/pmbmpd.log");

  RtrmgrProcess sluice;
  ASSERT_TRUE(sluice.Start(sluice.WriteConfig("bmp.conf", BmpConfig(port, bmp_port))))
      << sluice.Logs("rtrmgr") << sluice.Logs("bgp");
  const std::string bgp_log = sluice.rundir() + "/bgp.log";
  UpstreamFeed feed{capture, peer_index, net::Family::kIPv4, routes};
  auto upstream = ChildProcess::Start({BuildPath("bgp/replay/sluice-replay"),
                                       "--connect",
                                       absl::StrCat(kSpeakerAddress, ":", port),
                                       "--local-address",
                                       kUpstreamAddress,
                                       "--local-as",
                                       absl::StrCat(kUpstreamAs),
                                       "--peer-as",
                                       absl::StrCat(kSpeakerAs),
                                       "--mrt",
                                       capture,
                                       "--peer-index",
                                       absl::StrCat(peer_index),
                                       "--mode",
                                       "table",
                                       "--prepend-own-as",
                                       "--next-hop-self",
                                       "--reconnect",
                                       "--drop-on-signal",
                                       "--linger",
                                       "--json",
                                       "--quiet"});
  ASSERT_TRUE(upstream);
  auto loc_rib_full = [&] {
    auto p = sluice.LocRibPrefixes();
    return p && p->size() == kLocRibPrefixes;
  };

  // 1. The table reaches pmbmpd.
  BmpLog bmp(log);
  ASSERT_TRUE(upstream->WaitForOutput("\"event\":\"sent\"", 180000)) << upstream->Output();
  EXPECT_TRUE(Eventually(
      [&] {
        bmp.Poll();
        return bmp.prefixes() >= routes;
      },
      180))
      << "pmbmpd holds " << bmp.prefixes() << " prefixes";
  std::printf("pmbmpd: %zu route-monitoring prefixes (upstream table %zu)\n", bmp.prefixes(),
              routes);
  EXPECT_EQ(bmp.prefixes(), routes);  // pre-policy: the table as received
  EXPECT_EQ(bmp.count("peer_up"), 1);
  ASSERT_TRUE(Eventually(loc_rib_full, 60));

  // 2. A session reset: Peer Down, then Peer Up and the table again.
  const int bgp_pid = sluice.ChildPid("bgp");
  ASSERT_GT(bgp_pid, 0);
  upstream->Signal(SIGHUP);
  EXPECT_TRUE(Eventually(
      [&] {
        bmp.Poll();
        return bmp.count("peer_down") >= 1 && bmp.count("peer_up") >= 2;
      },
      60))
      << "peer_down " << bmp.count("peer_down") << " peer_up " << bmp.count("peer_up");
  ASSERT_TRUE(Eventually(loc_rib_full, 120));
  const size_t peak_before = PeakRssKib(bgp_pid);

  // 3. pmbmpd stalls while the table is withdrawn and sent again: routing converges, the
  // station is dropped once its buffer is full, memory stays bounded.
  kill(pmbmpd->pid(), SIGSTOP);
  upstream->Signal(SIGHUP);
  EXPECT_TRUE(Eventually(
      [&] { return ReadAll(bgp_log).find("over its buffer") != std::string::npos; }, 120))
      << "the stalled station was never dropped";
  EXPECT_TRUE(Eventually(loc_rib_full, 180)) << "routing did not converge with a stalled station";
  const size_t peak_after = PeakRssKib(bgp_pid);
  std::printf("sluice-bgp peak RSS: %zu KiB before the stall, %zu KiB after\n", peak_before,
              peak_after);
  EXPECT_LE(peak_after, peak_before + 2 * kBufferMib * 1024 + 16 * 1024);

  // 4. pmbmpd resumes: the station connects again and sends the whole table.
  const int inits = bmp.inits();
  kill(pmbmpd->pid(), SIGCONT);
  EXPECT_TRUE(Eventually(
      [&] {
        bmp.Poll();
        return bmp.inits() > inits && bmp.prefixes() >= kLocRibPrefixes;
      },
      240))
      << "after SIGCONT pmbmpd holds " << bmp.prefixes() << " prefixes, " << bmp.inits()
      << " initiations";
  // The re-synchronisation re-encodes the Adj-RIB-In, which does not keep the 4 routes treated
  // as withdrawn (AS 0 in the AS_PATH): the other 577,699.
  EXPECT_EQ(bmp.prefixes(), kLocRibPrefixes);
  std::printf("after the stall: %d initiations, %zu prefixes since the last\n", bmp.inits(),
              bmp.prefixes());
  upstream->Signal(SIGTERM);
  sluice.Stop();
  pmbmpd->Signal(SIGTERM);
  pmbmpd->Wait(5000);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sluice::testing
