// BMP to pmacct's collector (pmbmpd) end to end: sluice-replay sends the PCH table to
// sluice-bgp (run by sluice-rtrmgr with a `bmp { station ... { route-monitoring [ post-policy ];
// } }` block), pmbmpd on 127.0.0.1 logs every BMP message as JSON. Checked: pmbmpd holds the
// table's post-policy prefixes (and nothing pre-policy or of the Loc-RIB); a session reset
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
#include <map>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "bench/rpki/vrp_generator.h"
#include "bgp/replay/replay_feed.h"
#include "nlohmann/json.hpp"
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
// Initiation (a new BMP session starts from scratch), post-policy Adj-RIB-In ("is_post"),
// pre-policy and Loc-RIB (RFC 9069, "is_loc") apart, and the message types seen.
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
      if (!samples_.contains(type)) samples_[type] = line;
      if (type == "peer_down" && Field(line, "peer_ip") == kUpstreamAddress) {
        ++upstream_downs_;
        up_after_down_ = false;
      }
      if (type == "peer_up" && Field(line, "peer_ip") == kUpstreamAddress) up_after_down_ = true;
      if (type == "init") {
        post_.clear();
        ++inits_;
      } else if (type == "route_monitor" && Field(line, "log_type") == "update") {
        if (Field(line, "is_loc") == "1") {
          ++loc_rib_lines_;
        } else if (Field(line, "is_post") == "1") {
          post_.insert(Field(line, "ip_prefix"));
        } else {
          ++pre_policy_lines_;
        }
      }
    }
  }
  size_t post_policy() const { return post_.size(); }
  // Route Monitoring lines of the views the station does not monitor, ever.
  size_t others() const { return pre_policy_lines_ + loc_rib_lines_; }
  // One line of each message type, for failure messages.
  std::string Samples() const {
    std::string out;
    for (const auto& [type, line] : samples_) absl::StrAppend(&out, line.substr(0, 600), "\n");
    return out;
  }
  int count(const std::string& type) const {
    auto it = types_.find(type);
    return it == types_.end() ? 0 : it->second;
  }
  int inits() const { return inits_; }
  // Peer Downs of the upstream's session, and whether a Peer Up of it followed the last one.
  int upstream_downs() const { return upstream_downs_; }
  bool up_after_down() const { return up_after_down_; }

 private:
  std::string path_;
  std::streamoff offset_ = 0;
  std::set<std::string> post_;
  size_t pre_policy_lines_ = 0, loc_rib_lines_ = 0;
  std::map<std::string, std::string> samples_;
  std::map<std::string, int> types_;
  int inits_ = 0;
  int upstream_downs_ = 0;
  bool up_after_down_ = false;
};

// The one station of `sluice show bgp bmp --json`; null when the command fails.
nlohmann::json Station(RtrmgrProcess& sluice) {
  CommandResult c = sluice.Sluice({"show", "bgp", "bmp", "--json"});
  if (c.exit_code != 0) return nullptr;
  nlohmann::json j = nlohmann::json::parse(c.out, nullptr, false);
  if (j.is_discarded() || j["stations"].size() != 1) return nullptr;
  return j["stations"][0];
}

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
                      "; route-monitoring [ post-policy ]; } }\n    }\n}\npolicy {\n"
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
  const std::vector<int> ports = {FreeTcpPort(), FreeTcpPort()};
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
  auto upstream = StartUpstream(feed, port, {"--reconnect", "--drop-on-signal"});
  ASSERT_TRUE(upstream);
  auto loc_rib_full = [&] {
    auto p = sluice.LocRibPrefixes();
    return p && p->size() == kLocRibPrefixes;
  };

  // 1. The table reaches pmbmpd as post-policy Route Monitoring. pmbmpd writes about 500 octets
  // of JSON per prefix and may fall behind the table's arrival: the 8 MiB station is then dropped
  // and re-synchronised (paced by what pmbmpd takes) until the table is in.
  BmpLog bmp(log);
  ASSERT_TRUE(upstream->WaitForOutput("\"event\":\"sent\"", 180000)) << upstream->Output();
  ASSERT_TRUE(Eventually(
      [&] {
        bmp.Poll();
        return bmp.post_policy() >= kLocRibPrefixes;
      },
      600))
      << "pmbmpd holds " << bmp.post_policy() << " post-policy prefixes\n"
      << bmp.Samples();
  std::printf("pmbmpd: %zu post-policy route-monitoring prefixes (upstream table %zu)\n",
              bmp.post_policy(), routes);
  // Post-policy: what the import policy accepted, the table without the 4 routes treated as
  // withdrawn (AS 0 in the AS_PATH, RFC 7607); nothing of the views the station does not monitor.
  EXPECT_EQ(bmp.post_policy(), kLocRibPrefixes);
  EXPECT_EQ(bmp.others(), 0u);
  // What an operator sees of the station: up, sending post-policy only, no overflow needed
  // yet or some, and what it sent.
  nlohmann::json station = Station(sluice);
  ASSERT_FALSE(station.is_null()) << sluice.Sluice({"show", "bgp", "bmp", "--json"}).out;
  EXPECT_EQ(station["state"], "up") << station.dump();
  EXPECT_EQ(station["route_monitoring"], nlohmann::json::array({"post-policy"})) << station.dump();
  EXPECT_GT(station["bytes_sent"].get<uint64_t>(), 577699u * 4) << station.dump();
  EXPECT_GE(bmp.count("peer_up"), 2);  // the upstream's and the Loc-RIB's
  ASSERT_TRUE(Eventually(loc_rib_full, 60));

  // 2. A session reset: Peer Down, then Peer Up and the table again.
  const int bgp_pid = sluice.ChildPid("bgp");
  ASSERT_GT(bgp_pid, 0);
  upstream->Signal(SIGHUP);
  EXPECT_TRUE(Eventually(
      [&] {
        bmp.Poll();
        return bmp.upstream_downs() == 1 && bmp.up_after_down();
      },
      300))
      << "Peer Downs of the upstream: " << bmp.upstream_downs()
      << ", Peer Up after it: " << bmp.up_after_down();
  ASSERT_TRUE(Eventually(loc_rib_full, 120));
  const size_t peak_before = PeakRssKib(bgp_pid);

  // 3. pmbmpd stalls while the table is withdrawn and sent again: routing converges, the
  // station is dropped once its buffer is full, memory stays bounded.
  kill(pmbmpd->pid(), SIGSTOP);
  upstream->Signal(SIGHUP);
  EXPECT_TRUE(Eventually(
      [&] { return ReadAll(bgp_log).find("over its buffer") != std::string::npos; }, 120))
      << "the stalled station was never dropped";
  station = Station(sluice);
  ASSERT_FALSE(station.is_null());
  EXPECT_GE(station["overflows"].get<uint64_t>(), 1u) << station.dump();
  EXPECT_TRUE(Eventually(loc_rib_full, 180)) << "routing did not converge with a stalled station";
  const size_t peak_after = PeakRssKib(bgp_pid);
  std::printf("sluice-bgp peak RSS: %zu KiB before the stall, %zu KiB after\n", peak_before,
              peak_after);
  // The station holds at most twice its buffer (the queue and the batch being written). The
  // slack covers how much a reset's peak varies by itself (the withdrawn table's deletion
  // overlapping the re-sent one: 0 to 35 MiB between runs here); an unbounded queue would hold
  // the whole withdrawn and re-sent table.
  EXPECT_LE(peak_after, peak_before + 2 * kBufferMib * 1024 + 48 * 1024);

  // 4. pmbmpd resumes: the station connects again and sends the whole table.
  const int inits = bmp.inits();
  kill(pmbmpd->pid(), SIGCONT);
  EXPECT_TRUE(Eventually(
      [&] {
        bmp.Poll();
        return bmp.inits() > inits && bmp.post_policy() >= kLocRibPrefixes;
      },
      600))
      << "after SIGCONT pmbmpd holds " << bmp.post_policy() << " post-policy prefixes, "
      << bmp.inits() << " initiations";
  EXPECT_EQ(bmp.post_policy(), kLocRibPrefixes);
  EXPECT_EQ(bmp.others(), 0u);
  std::printf("after the stall: %d initiations, %zu post-policy prefixes since the last\n",
              bmp.inits(), bmp.post_policy());
  upstream->Signal(SIGTERM);
  sluice.Stop();
  pmbmpd->Signal(SIGTERM);
  pmbmpd->Wait(5000);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sluice::testing
