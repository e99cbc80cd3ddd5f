#pragma once
// The daemons of the route origin validation tests, on loopback (../shared/INTEROP.md):
//   - stayrtr, the RTR cache (RFC 8210), serving a VRP file it re-reads every second;
//   - BIRD 2 as a validating speaker: a `protocol rpki` to that cache filling roa4/roa6 tables,
//     an eBGP session from an upstream whose import filter rejects
//     `roa_check(...) = ROA_INVALID` (RFC 6811), and an eBGP session to a downstream peer that
//     gets everything it accepted;
//   - BIRD 2 as that downstream peer (the collector): its table is what the speaker advertised.
//
//   Stayrtr cache(dir + "/vrps.json");
//   BirdDaemon dut(dir + "/dut"); dut.Start(ValidatingBirdConfig(...));
//   BirdDaemon collector(dir + "/collector"); collector.Start(CollectorBirdConfig(...));
//   collector.Prefixes(net::Family::kIPv4);

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "net/prefix.h"
#include "tests/system/child_process.h"
#include "tests/system/rtrmgr_processes.h"

namespace sluice::testing {

// The ASes and addresses of the scenario: upstream (sluice-replay) -> the speaker under test ->
// the collector. None of these ASes is in a path of the captures.
inline constexpr uint32_t kUpstreamAs = 4200000001u;
inline constexpr uint32_t kSpeakerAs = 4200000002u;
inline constexpr uint32_t kCollectorAs = 4200000003u;
inline constexpr char kSpeakerAddress[] = "127.0.0.1";
inline constexpr char kUpstreamAddress[] = "127.0.0.3";
inline constexpr char kCollectorAddress[] = "127.0.0.4";
// The IPv6 NEXT_HOP the upstream sends (BIRD resolves it through a default route via lo).
inline constexpr char kUpstreamNextHop6[] = "2001:db8::3";

// stayrtr (Debian) serving `vrp_file` on 127.0.0.1:port(), re-reading it every second.
class Stayrtr {
 public:
  static bool Installed();
  explicit Stayrtr(std::string vrp_file);
  // Starts it; true once its port accepts connections (within 20 s).
  bool Start();
  int port() const { return port_; }
  std::string Output() { return process_ ? process_->Output() : ""; }

 private:
  std::string vrp_file_;
  int port_ = 0;
  std::unique_ptr<ChildProcess> process_;
};

// Received route changes of a BGP protocol (`show protocols all`: Import updates / withdraws).
struct BirdImportStats {
  int64_t updates_received = -1, updates_filtered = -1, withdraws_received = -1;
};

// One BIRD 2 (/usr/sbin/bird) with its config, control socket and log in `dir` (created).
class BirdDaemon {
 public:
  static bool Installed();
  explicit BirdDaemon(std::string dir);
  ~BirdDaemon();
  // Writes `config` and starts BIRD; true once birdc answers (within 20 s).
  bool Start(const std::string& config);
  // birdc's output for `command` (words), "" when it fails.
  std::string Birdc(const std::vector<std::string>& command, int ms = 60000);
  // The route count of `table` ("N of N routes for N networks in table T"); -1 on failure.
  int64_t Count(const std::string& table);
  // The prefixes of master4 or master6.
  std::set<net::Prefix> Prefixes(net::Family family);
  BirdImportStats ImportStats(const std::string& protocol);
  // True when the BGP protocol's session is Established.
  bool Established(const std::string& protocol);
  const std::string& dir() const { return dir_; }
  pid_t pid() const { return process_ ? process_->pid() : -1; }
  std::string Logs();  // its stdout and the tail of its log file

 private:
  std::string dir_;
  std::unique_ptr<ChildProcess> process_;
};

// What the upstream sends: the final table of one peer of a capture, in one family.
struct UpstreamFeed {
  std::string capture;  // an MRT file
  size_t peer_index = 0;
  net::Family family = net::Family::kIPv4;
  size_t routes = 0;  // the peer's prefixes of `family`
};

// sluice-replay as the upstream: the feed's table (--mode table) to kSpeakerAddress:port from
// kUpstreamAddress, AS kUpstreamAs prepended, NEXT_HOP itself (IPv6: kUpstreamNextHop6), with
// `more` sluice-replay options (e.g. --reconnect).
std::unique_ptr<ChildProcess> StartUpstream(const UpstreamFeed& feed, int port,
                                            const std::vector<std::string>& more = {});

// The speaker under test with its upstream and its collector, kept running by the caller.
struct Speaker {
  std::unique_ptr<BirdDaemon> bird;       // the BIRD side
  std::unique_ptr<RtrmgrProcess> sluice;  // the Sluice side
  std::unique_ptr<ChildProcess> upstream;
  std::unique_ptr<BirdDaemon> collector;
  double seconds = 0;         // from the upstream's first UPDATE until the collector held the table
  double import_seconds = 0;  // ... until the speaker had taken the whole table (BIRD only)
};

// BIRD as the speaker, in folders under `dir`: starts the collector and BIRD (with route origin
// validation from 127.0.0.1:cache_port, or none when cache_port is 0), waits until BIRD holds
// `vrps` VRPs (it filters a route once, when it arrives) and its session to the collector is
// Established, starts the upstream and returns once
// the collector holds every route BIRD accepted.
// Errors: a daemon that does not start or a table that does not arrive within a minute, with
// what the daemons said.
// Sluice as the speaker, the same way: sluice-rtrmgr with the cache (none when cache_port is
// 0: no rpki block, and the upstream's import policy accepts everything) and the `rov` import
// policy (`from { rpki invalid; } then { reject; }`), the same upstream and collector. Waits
// until sluice-bgp holds `vrps` VRPs and the collector's session is Established, starts the
// upstream and returns once the collector's count has not changed for 3 s (`seconds` ends at
// its last change). Errors: as StartBirdSpeaker.
absl::Status StartSluiceSpeaker(const std::string& dir, const UpstreamFeed& feed, int cache_port,
                                size_t vrps, Speaker* s);

absl::Status StartBirdSpeaker(const std::string& dir, const UpstreamFeed& feed, int cache_port,
                              size_t vrps, Speaker* s);

// The speaker under test as BIRD: AS kSpeakerAs on kSpeakerAddress, listening on `upstream_port`
// for the upstream (kUpstreamAddress, kUpstreamAs) and on `downstream_port` for the collector,
// which it also connects to (kCollectorAddress:collector_port); RPKI from 127.0.0.1:cache_port.
// Only `family` is negotiated. The upstream channel keeps an import table (`import table on`) so
// that VRP changes re-filter what it had accepted. cache_port 0: no RPKI, the filter accepts all.
std::string ValidatingBirdConfig(const std::string& dir, net::Family family, int cache_port,
                                 int upstream_port, int downstream_port, int collector_port);
// The collector: AS kCollectorAs on kCollectorAddress:collector_port, its one peer the speaker
// (`speaker_address`:`speaker_port`, AS kSpeakerAs); imports everything of `family`, exports
// nothing. Its protocol is named "speaker".
std::string CollectorBirdConfig(const std::string& dir, net::Family family, int collector_port,
                                const std::string& speaker_address, int speaker_port);

}  // namespace sluice::testing
