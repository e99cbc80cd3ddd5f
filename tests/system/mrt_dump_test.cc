// Live MRT (RFC 6396) from sluice-bgp on real data: sluice-replay sends the PCH table
// ($SLUICE_DATA_DIR/mrt, pch-2015-10-23-fulltable-updates) to sluice-rtrmgr's sluice-bgp, whose
// configuration has the mrt block (an update log and periodic table dumps). Then, read by
// `bgpdump -m` (Debian package bgpdump):
//   - `sluice dump bgp table FILE` holds exactly the Loc-RIB's prefixes, each with its AS path
//     (compared with bgp/1.0 list_routes of the Loc-RIB);
//   - a periodic dump started after the table arrived holds the same;
//   - the update log has one announcement line per prefix the upstream sent (577,703: the
//     Loc-RIB's 577,699 with the path it holds, and 4 whose AS_PATH holds AS 0, treated as
//     withdrawn by RFC 7607), no withdrawal, and the session's state changes up to Established;
//   - a dump of the upstream's Adj-RIB-In (`peer ADDR`) holds what list_routes shows of it;
//   - set_mrt through `sluice call` takes effect (get_mrt);
//   - a dump into a directory sluice-bgp's user may not write fails saying why.
// Skipped without the data or bgpdump. MrtDumpCost (disabled; --gtest_also_run_disabled_tests)
// prints the cost: the time of a dump, and the replay's time with the update log on and off.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "ipc/methods/bgp.h"
#include "ipc/types_convert.h"
#include "rtrmgr/cli/queries.h"
#include "tests/bgp/test_data.h"
#include "tests/system/rov_daemons.h"
#include "tests/system/rtrmgr_processes.h"

namespace sluice::testing {
namespace {

namespace fs = std::filesystem;
namespace bgp_v1 = ::sluice::bgp::v1;

// What sluice-replay sends of the PCH table, and what the Loc-RIB keeps of it: 4 routes have AS 0
// in their AS_PATH and are treated as withdrawn (RFC 7607).
constexpr size_t kPchAnnouncements = 577703;
constexpr size_t kPchLocRib = 577699;
using ipc::methods::bgp::kClearMrt;
using ipc::methods::bgp::kGetMrt;

bool HaveBgpdump() { return std::system("command -v bgpdump >/dev/null 2>&1") == 0; }

std::string PchCapture() { return MrtDir() + "/pch-2015-10-23-fulltable-updates.mrt.gz"; }

// What `bgpdump -m` says of MRT files, by kind of line.
struct BgpdumpView {
  std::map<std::string, std::string> table;  // TABLE_DUMP2 lines: prefix -> AS path
  size_t table_lines = 0;
  size_t announcements = 0, withdrawals = 0;                // BGP4MP(_ET) A and W lines
  std::map<std::string, std::string> announced;             // prefix -> AS path of its last A line
  std::vector<std::pair<std::string, std::string>> states;  // STATE: old, new
};

void Bgpdump(const std::string& file, BgpdumpView* v) {
  FILE* p = popen(("bgpdump -m '" + file + "' 2>/dev/null").c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::array<char, 65536> buf;
  while (fgets(buf.data(), int(buf.size()), p) != nullptr) {
    absl::string_view line(buf.data());
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    std::vector<absl::string_view> f = absl::StrSplit(line, '|');
    if (f.size() < 5) continue;
    if (f[0] == "TABLE_DUMP2" && f.size() > 6) {
      ++v->table_lines;
      v->table[std::string(f[5])] = std::string(f[6]);
    } else if (f[2] == "A" && f.size() > 6) {
      ++v->announcements;
      v->announced[std::string(f[5])] = std::string(f[6]);
    } else if (f[2] == "W") {
      ++v->withdrawals;
    } else if (f[2] == "STATE" && f.size() > 6) {
      v->states.emplace_back(f[5], f[6]);
    }
  }
  pclose(p);
}

// The Loc-RIB's IPv4 routes: prefix -> AS path (bgpdump's form).
std::map<std::string, std::string> LocRib(RtrmgrProcess& r) {
  std::map<std::string, std::string> out;
  auto routes = rtrmgr::cli::AllBgpRoutes(r.client(), bgp_v1::LOC_RIB, "", "ipv4");
  EXPECT_TRUE(routes.ok()) << routes.status();
  if (!routes.ok()) return out;
  for (const auto& route : *routes) {
    auto p = ipc::FromProto(route.network());
    if (p.ok()) out[p->ToString()] = route.as_path();
  }
  return out;
}

// Up to 5 differences between two tables, for a failure message.
std::string Differences(const std::map<std::string, std::string>& want,
                        const std::map<std::string, std::string>& got) {
  std::string out;
  int n = 0;
  for (const auto& [prefix, path] : want) {
    auto it = got.find(prefix);
    if (it == got.end()) {
      absl::StrAppend(&out, "  missing ", prefix, " [", path, "]\n");
    } else if (it->second != path) {
      absl::StrAppend(&out, "  ", prefix, " [", path, "] written as [", it->second, "]\n");
    } else {
      continue;
    }
    if (++n == 5) return out;
  }
  for (const auto& [prefix, path] : got) {
    if (want.count(prefix) == 0) {
      absl::StrAppend(&out, "  extra ", prefix, " [", path, "]\n");
      if (++n == 5) return out;
    }
  }
  return out;
}

// A folder sluice-bgp may write to (it runs as `sluice` when the test is root).
std::string WritableDir(const std::string& path) {
  fs::create_directories(path);
  chmod(path.c_str(), 01777);
  return path;
}

size_t AcceptedFromUpstream(RtrmgrProcess& r) {
  bgp_v1::PeerRequest q;
  ipc::ToProto(*net::IPAddress::Parse(kUpstreamAddress), q.mutable_address());
  auto reply = r.client().Call("bgp", ipc::methods::bgp::kGetPeer, q);
  if (!reply.ok()) return 0;
  for (const auto& f : reply->peer().family_counts()) {
    if (f.family() == "ipv4") return f.accepted();
  }
  return 0;
}

// sluice-rtrmgr with one passive eBGP peer, the upstream, and `mrt` inside the bgp block.
struct Router {
  RtrmgrProcess r;
  int port = 0;
  std::unique_ptr<ChildProcess> upstream;
  size_t sent = 0;
  size_t accepted = 0;
  double replay_seconds = 0;  // from the upstream's first UPDATE until the Loc-RIB held all

  absl::Status Start(const std::string& mrt) {
    port = FreeTcpPort();
    const std::string conf = r.WriteConfig(
        "mrt.conf",
        absl::StrCat("fea { backend dummy; }\nprotocols {\n    bgp {\n        local-as ",
                     kSpeakerAs, ";\n        bgp-id 10.255.0.2;\n        listen ", kSpeakerAddress,
                     " port ", port, ";\n        ", mrt, "\n        peer ", kUpstreamAddress,
                     " { as ", kUpstreamAs, "; local-ip ", kSpeakerAddress,
                     "; passive; family [ ipv4-unicast ]; import [ all ]; }\n    }\n}\n"
                     "policy {\n    policy-statement all { term all { then { accept; } } }\n}\n"));
    if (!r.Start(conf))
      return absl::UnavailableError("sluice-rtrmgr did not start\n" + r.Logs("rtrmgr"));
    return absl::OkStatus();
  }

  // The PCH table from sluice-replay; returns once sluice-bgp accepted all it sent.
  absl::Status Replay() {
    upstream = StartUpstream(UpstreamFeed{PchCapture(), 0, net::Family::kIPv4, 0}, port);
    if (!upstream || !upstream->WaitForOutput("\"event\":\"table_start\"", 120000)) {
      return absl::UnavailableError("sluice-replay did not start sending\n" + r.Logs("bgp"));
    }
    const auto start = std::chrono::steady_clock::now();
    if (!upstream->WaitForOutput("\"event\":\"sent\"", 300000)) {
      return absl::UnavailableError("sluice-replay did not finish sending");
    }
    const std::string out = upstream->Output();
    const size_t at = out.find("\"event\":\"sent\"");
    const size_t p = out.find("\"prefixes\":", at);
    if (p == std::string::npos ||
        !absl::SimpleAtoi(out.substr(p + 11, out.find(',', p) - p - 11), &sent)) {
      return absl::InternalError("no prefix count in sluice-replay's output: " + out);
    }
    // Settled: the accepted count has not changed for 2 s. (Routes whose AS_PATH holds AS 0 are
    // treated as withdrawn, RFC 7607, so fewer than `sent` are accepted.)
    size_t last = 0;
    auto changed = std::chrono::steady_clock::now();
    if (!Eventually(
            [&] {
              const size_t n = AcceptedFromUpstream(r);
              const auto t = std::chrono::steady_clock::now();
              if (n != last) {
                last = n;
                changed = t;
              }
              return n > 0 && t - changed > std::chrono::seconds(2);
            },
            300)) {
      return absl::UnavailableError(absl::StrCat("sluice-bgp accepted ", last, " of ", sent,
                                                 " prefixes, still changing\n", r.Logs("bgp")));
    }
    accepted = last;
    replay_seconds = std::chrono::duration<double>(changed - start).count();
    return absl::OkStatus();
  }
};

class MrtDumpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SLUICE_SKIP_WITHOUT_MRT_DATA();
    if (!fs::exists(PchCapture())) GTEST_SKIP() << PchCapture() << " is missing";
    if (!HaveBgpdump()) GTEST_SKIP() << "bgpdump is not installed (Debian package bgpdump)";
  }
};

TEST_F(MrtDumpTest, TableDumpsAndUpdateLogHoldWhatSluiceHolds) {
  Router router;
  const std::string dir = WritableDir(router.r.rundir() + "/mrt");
  ASSERT_TRUE(router
                  .Start(absl::StrCat("mrt {\n            table-dump \"", dir,
                                      "/rib.%s\" { interval 1m; }\n            updates \"", dir,
                                      "/updates.%Y%m%d.%H%M\" { rotate 15m; }\n        }"))
                  .ok());
  const absl::Status replayed = router.Replay();
  ASSERT_TRUE(replayed.ok()) << replayed;
  EXPECT_EQ(router.sent, kPchAnnouncements);
  std::printf("sluice-replay sent %zu prefixes, sluice-bgp accepted %zu\n", router.sent,
              router.accepted);
  const int64_t loaded = absl::ToUnixSeconds(absl::Now());
  const std::map<std::string, std::string> loc_rib = LocRib(router.r);
  EXPECT_EQ(loc_rib.size(), router.accepted);
  EXPECT_EQ(loc_rib.size(), kPchLocRib);

  // On demand.
  const std::string file = dir + "/now.mrt";
  const CommandResult dump = router.r.Sluice({"dump", "bgp", "table", file}, 600000);
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  std::printf("sluice dump bgp table: %s", dump.out.c_str());
  EXPECT_NE(dump.out.find(absl::StrCat(" ", loc_rib.size(), " prefixes")), std::string::npos)
      << dump.out;
  BgpdumpView now;
  Bgpdump(file, &now);
  EXPECT_EQ(now.table_lines, loc_rib.size());
  EXPECT_TRUE(now.table == loc_rib) << Differences(loc_rib, now.table);

  // The upstream's Adj-RIB-In, on request.
  const std::string in_file = dir + "/adj-rib-in.mrt.gz";
  const CommandResult in_dump =
      router.r.Sluice({"dump", "bgp", "table", in_file, "peer", kUpstreamAddress}, 600000);
  ASSERT_EQ(in_dump.exit_code, 0) << in_dump.err;
  std::map<std::string, std::string> adj_rib_in;
  auto in_routes =
      rtrmgr::cli::AllBgpRoutes(router.r.client(), bgp_v1::ADJ_RIB_IN, kUpstreamAddress, "ipv4");
  ASSERT_TRUE(in_routes.ok()) << in_routes.status();
  for (const auto& route : *in_routes) {
    if (auto p = ipc::FromProto(route.network()); p.ok())
      adj_rib_in[p->ToString()] = route.as_path();
  }
  BgpdumpView in_view;
  Bgpdump(in_file, &in_view);
  std::printf("Adj-RIB-In of %s: %zu prefixes listed, %zu in the dump\n", kUpstreamAddress,
              adj_rib_in.size(), in_view.table.size());
  EXPECT_TRUE(in_view.table == adj_rib_in) << Differences(adj_rib_in, in_view.table);

  // Periodic: the first dump started after the table arrived.
  std::string periodic;
  ASSERT_TRUE(Eventually(
      [&] {
        for (const auto& e : fs::directory_iterator(dir)) {
          const std::string name = e.path().filename().string();
          int64_t t = 0;
          if (name.rfind("rib.", 0) == 0 && absl::SimpleAtoi(name.substr(4), &t) && t >= loaded) {
            periodic = e.path().string();
            return true;
          }
        }
        return false;
      },
      150))
      << "no periodic dump after " << loaded;
  BgpdumpView later;
  Bgpdump(periodic, &later);
  EXPECT_TRUE(later.table == loc_rib) << periodic << "\n" << Differences(loc_rib, later.table);

  // The update log, closed (everything written) by clearing the mrt outputs.
  ASSERT_TRUE(router.r.client().Call("bgp", kClearMrt, bgp_v1::ClearMrtRequest()).ok());
  BgpdumpView log;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("updates.", 0) == 0) Bgpdump(e.path().string(), &log);
  }
  EXPECT_EQ(log.announcements, router.sent);
  EXPECT_EQ(log.withdrawals, 0u);
  EXPECT_EQ(log.announced.size(), router.sent);
  // As received: the Loc-RIB's routes, and those treated as withdrawn for an AS 0 in their
  // AS_PATH (RFC 7607).
  std::map<std::string, std::string> log_kept, log_as0;
  for (const auto& [prefix, path] : log.announced) {
    std::vector<std::string> asns = absl::StrSplit(path, ' ');
    (std::find(asns.begin(), asns.end(), "0") != asns.end() ? log_as0 : log_kept)[prefix] = path;
  }
  std::printf(
      "update log: %zu announcements, %zu withdrawals, %zu state changes; %zu prefixes "
      "with AS 0 in their path\n",
      log.announcements, log.withdrawals, log.states.size(), log_as0.size());
  EXPECT_TRUE(log_kept == loc_rib) << Differences(loc_rib, log_kept);
  EXPECT_EQ(log_kept.size() + log_as0.size(), router.sent);
  ASSERT_FALSE(log.states.empty());
  EXPECT_EQ(log.states.back(), std::make_pair(std::string("5"), std::string("6")));

  // set_mrt by hand (`sluice call`), as the proto's example writes it; get_mrt shows it.
  const CommandResult set = router.r.Sluice(
      {"call", absl::StrCat("finder://bgp/bgp/1.0/set_mrt?updates:msg=(pattern:txt=", dir,
                            "/again.%25H&rotate_s:u32=60)")});
  EXPECT_EQ(set.exit_code, 0) << set.err;
  auto got = router.r.client().Call("bgp", kGetMrt, bgp_v1::GetMrtRequest());
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->updates().pattern(), dir + "/again.%H");
  EXPECT_EQ(got->updates().rotate_s(), 60u);
  EXPECT_FALSE(got->has_table_dump());

  // Where sluice-bgp's user may not write.
  if (geteuid() == 0 && !ServiceUserCannotReachBuild()) {
    const std::string locked = router.r.rundir() + "/locked";
    fs::create_directories(locked);
    chmod(locked.c_str(), 0755);
    const CommandResult denied =
        router.r.Sluice({"dump", "bgp", "table", locked + "/rib.mrt"}, 60000);
    EXPECT_EQ(denied.exit_code, 1);
    EXPECT_NE(denied.err.find("Permission denied"), std::string::npos) << denied.err;
    EXPECT_NE(denied.err.find("sluice-bgp runs as user"), std::string::npos) << denied.err;
  }
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Not a test: the cost of the MRT outputs, printed (interleaved runs, median of 3).
TEST_F(MrtDumpTest, DISABLED_MrtDumpCost) {
  std::vector<double> with_log, without_log, dumps, loop_reads;
  for (int run = 0; run < 3; ++run) {
    for (bool log : {false, true}) {
      Router router;
      const std::string dir = WritableDir(router.r.rundir() + "/mrt");
      ASSERT_TRUE(router
                      .Start(log ? absl::StrCat("mrt { updates \"", dir,
                                                "/updates.%Y%m%d.%H%M\" { rotate 15m; } }")
                                 : "")
                      .ok());
      const absl::Status replayed = router.Replay();
      ASSERT_TRUE(replayed.ok()) << replayed;
      (log ? with_log : without_log).push_back(router.replay_seconds);
      if (log) {
        const CommandResult d = router.r.Sluice({"dump", "bgp", "table", dir + "/rib.mrt"}, 600000);
        ASSERT_EQ(d.exit_code, 0) << d.err;
        const size_t in = d.out.rfind(" in ");
        double s = 0;
        ASSERT_TRUE(absl::SimpleAtod(d.out.substr(in + 4, d.out.find(" s", in) - in - 4), &s))
            << d.out;
        dumps.push_back(s);
        const size_t reading = d.out.rfind("(");
        double loop = 0;
        ASSERT_TRUE(absl::SimpleAtod(
            d.out.substr(reading + 1, d.out.find(" s", reading) - reading - 1), &loop))
            << d.out;
        loop_reads.push_back(loop);
        auto g = router.r.client().Call("bgp", kGetMrt, bgp_v1::GetMrtRequest());
        ASSERT_TRUE(g.ok());
        std::printf("run %d: update log %llu messages, %llu dropped\n", run,
                    (unsigned long long)g->updates_messages(),
                    (unsigned long long)g->updates_dropped());
      }
      std::printf("run %d, update log %s: %.2f s to the whole table\n", run, log ? "on" : "off",
                  router.replay_seconds);
      std::fflush(stdout);
    }
  }
  std::printf(
      "PCH replay to the whole Loc-RIB, median of 3: %.2f s without the update log, "
      "%.2f s with it; table dump of %zu prefixes: %.2f s, %.2f s of it on the event loop\n",
      Median(without_log), Median(with_log), kPchLocRib, Median(dumps), Median(loop_reads));
}

}  // namespace
}  // namespace sluice::testing
