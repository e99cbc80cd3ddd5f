#include "tests/system/rov_daemons.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tests/system/rtrmgr_processes.h"

namespace sluice::testing {
namespace {

constexpr char kStayrtr[] = "/usr/bin/stayrtr";
constexpr char kBird[] = "/usr/sbin/bird";
constexpr char kBirdc[] = "/usr/sbin/birdc";

bool Accepts(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return ok;
}

// The parts both BIRDs share: a log, and loopback nexthops made resolvable through private IGP
// tables holding a default route via lo (BIRD ignores 127/8 routes; INTEROP.md).
std::string BirdCommon(const std::string& dir, const char* router_id) {
  return absl::StrCat("router id ", router_id, ";\nlog \"", dir,
                      "/bird.log\" { warning, error, fatal };\n", R"(protocol device { }
ipv4 table igp4;
ipv6 table igp6;
protocol static igpstatic4 { ipv4 { table igp4; }; route 0.0.0.0/0 via "lo"; }
protocol static igpstatic6 { ipv6 { table igp6; }; route ::/0 via "lo"; }
)");
}

const char* Channel(net::Family family) { return family == net::Family::kIPv4 ? "ipv4" : "ipv6"; }
const char* Igp(net::Family family) { return family == net::Family::kIPv4 ? "igp4" : "igp6"; }

}  // namespace

bool Stayrtr::Installed() { return ::access(kStayrtr, X_OK) == 0; }

Stayrtr::Stayrtr(std::string vrp_file) : vrp_file_(std::move(vrp_file)) {}

bool Stayrtr::Start() {
  port_ = FreeTcpPort();
  process_ = ChildProcess::Start({kStayrtr, "-cache", vrp_file_, "-bind",
                                  absl::StrCat("127.0.0.1:", port_), "-checktime=false",
                                  "-metrics.addr", "", "-refresh", "1", "-loglevel", "error"});
  return process_ != nullptr && Eventually([&] { return Accepts(port_); }, 20);
}

bool BirdDaemon::Installed() { return ::access(kBird, X_OK) == 0 && ::access(kBirdc, X_OK) == 0; }

BirdDaemon::BirdDaemon(std::string dir) : dir_(std::move(dir)) { mkdir(dir_.c_str(), 0755); }

BirdDaemon::~BirdDaemon() {
  if (process_) {
    process_->Signal(SIGTERM);
    if (!process_->Wait(5000)) process_->Signal(SIGKILL);
  }
}

bool BirdDaemon::Start(const std::string& config) {
  const std::string path = dir_ + "/bird.conf";
  std::ofstream(path) << config;
  process_ = ChildProcess::Start(
      {kBird, "-f", "-c", path, "-s", dir_ + "/bird.ctl", "-P", dir_ + "/bird.pid"});
  return process_ != nullptr && Eventually([&] { return !Birdc({"show", "status"}).empty(); }, 20);
}

std::string BirdDaemon::Birdc(const std::vector<std::string>& command, int ms) {
  std::vector<std::string> argv = {kBirdc, "-s", dir_ + "/bird.ctl"};
  argv.insert(argv.end(), command.begin(), command.end());
  CommandResult r = RunCommand(argv, {}, ms);
  return r.exit_code == 0 ? r.out : "";
}

int64_t BirdDaemon::Count(const std::string& table) {
  const std::string out = Birdc({"show", "route", "table", table, "count"});
  std::smatch m;
  const std::regex re("(\\d+) of \\d+ routes for \\d+ networks in table " + table);
  return std::regex_search(out, m, re) ? std::stoll(m[1]) : -1;
}

std::set<net::Prefix> BirdDaemon::Prefixes(net::Family family) {
  const std::string out = Birdc(
      {"show", "route", "table", family == net::Family::kIPv4 ? "master4" : "master6", "primary"});
  std::set<net::Prefix> prefixes;
  for (absl::string_view line : absl::StrSplit(out, '\n')) {
    const size_t space = line.find_first_of(" \t");
    if (space == 0 || space == absl::string_view::npos) continue;
    auto p = net::Prefix::Parse(std::string(line.substr(0, space)));
    if (p.ok()) prefixes.insert(*p);
  }
  return prefixes;
}

BirdImportStats BirdDaemon::ImportStats(const std::string& protocol) {
  const std::string out = Birdc({"show", "protocols", "all", protocol});
  BirdImportStats s;
  std::smatch m;
  // received rejected filtered ignored accepted
  if (std::regex_search(out, m, std::regex("Import updates:\\s+(\\d+)\\s+\\d+\\s+(\\d+)"))) {
    s.updates_received = std::stoll(m[1]);
    s.updates_filtered = std::stoll(m[2]);
  }
  if (std::regex_search(out, m, std::regex("Import withdraws:\\s+(\\d+)"))) {
    s.withdraws_received = std::stoll(m[1]);
  }
  return s;
}

bool BirdDaemon::Established(const std::string& protocol) {
  return Birdc({"show", "protocols", protocol}).find("Established") != std::string::npos;
}

std::string BirdDaemon::Logs() {
  CommandResult tail = RunCommand({"/usr/bin/tail", "-n", "30", dir_ + "/bird.log"});
  return absl::StrCat(process_ ? process_->Output() : "", tail.out);
}

std::string ValidatingBirdConfig(const std::string& dir, net::Family family, int cache_port,
                                 int upstream_port, int downstream_port, int collector_port) {
  const bool v4 = family == net::Family::kIPv4;
  const char* roa = v4 ? "r4" : "r6";
  // Over an IPv4 session BIRD needs an IPv6 address to send as its own next hop.
  const std::string next_hop = v4 ? "" : " next hop address 2001:db8:ffff::1;";
  const std::string rpki =
      cache_port == 0
          ? "filter rov {\n  accept;\n}\n"
          : absl::StrCat("roa4 table r4;\nroa6 table r6;\n",
                         "protocol rpki cache {\n  roa4 { table r4; };\n  roa6 { table r6; };\n",
                         "  remote 127.0.0.1 port ", cache_port, ";\n  retry keep 2;\n}\n",
                         "filter rov {\n  if roa_check(", roa,
                         ", net, bgp_path.last) = ROA_INVALID then reject;\n", "  accept;\n}\n");
  return absl::StrCat(
      BirdCommon(dir, "10.255.0.2"), rpki, "protocol bgp upstream {\n  local ", kSpeakerAddress,
      " port ", upstream_port, " as ", kSpeakerAs, ";\n  neighbor ", kUpstreamAddress, " as ",
      kUpstreamAs, ";\n  multihop 2;\n  hold time 90;\n  ", Channel(family),
      " { import table on; import filter rov; export none; igp table ", Igp(family), "; };\n}\n",
      "protocol bgp downstream {\n  local ", kSpeakerAddress, " port ", downstream_port, " as ",
      kSpeakerAs, ";\n  neighbor ", kCollectorAddress, " port ", collector_port, " as ",
      kCollectorAs,
      ";\n  multihop 2;\n  hold time 90;\n  connect retry time 1;\n  connect delay time 1;\n  ",
      Channel(family), " { import none; export all; igp table ", Igp(family), ";", next_hop,
      " };\n}\n");
}

std::string CollectorBirdConfig(const std::string& dir, net::Family family, int collector_port,
                                const std::string& speaker_address, int speaker_port) {
  return absl::StrCat(
      BirdCommon(dir, "10.255.0.4"), "protocol bgp speaker {\n  local ", kCollectorAddress,
      " port ", collector_port, " as ", kCollectorAs, ";\n  neighbor ", speaker_address, " port ",
      speaker_port, " as ", kSpeakerAs,
      ";\n  multihop 2;\n  hold time 90;\n  connect retry time 1;\n  connect delay time 1;\n  ",
      Channel(family), " { import all; export none; igp table ", Igp(family), "; };\n}\n");
}

std::unique_ptr<ChildProcess> StartUpstream(const UpstreamFeed& feed, int port,
                                            const std::vector<std::string>& more) {
  std::vector<std::string> argv = {BuildPath("bgp/replay/sluice-replay"),
                                   "--connect",
                                   absl::StrCat(kSpeakerAddress, ":", port),
                                   "--local-address",
                                   kUpstreamAddress,
                                   "--local-as",
                                   absl::StrCat(kUpstreamAs),
                                   "--peer-as",
                                   absl::StrCat(kSpeakerAs),
                                   "--mrt",
                                   feed.capture,
                                   "--peer-index",
                                   absl::StrCat(feed.peer_index),
                                   "--mode",
                                   "table",
                                   "--prepend-own-as",
                                   "--next-hop-self",
                                   "--next-hop6",
                                   kUpstreamNextHop6,
                                   "--linger",
                                   "--json",
                                   "--quiet"};
  argv.insert(argv.end(), more.begin(), more.end());
  return ChildProcess::Start(argv);
}

absl::Status StartBirdSpeaker(const std::string& dir, const UpstreamFeed& feed, int cache_port,
                              size_t vrps, Speaker* s) {
  const std::vector<int> ports = {FreeTcpPort(), FreeTcpPort(), FreeTcpPort()};
  const int upstream_port = ports[0], downstream_port = ports[1], collector_port = ports[2];
  auto fail = [&](const std::string& what) {
    if (s->upstream) s->upstream->Wait(2000);  // all it said, if it has ended
    return absl::UnavailableError(absl::StrCat(what, "\n", s->bird ? s->bird->Logs() : "",
                                               s->collector ? s->collector->Logs() : "",
                                               s->upstream ? s->upstream->Output() : ""));
  };
  s->collector = std::make_unique<BirdDaemon>(dir + "/bird-collector");
  if (!s->collector->Start(CollectorBirdConfig(s->collector->dir(), feed.family, collector_port,
                                               kSpeakerAddress, downstream_port))) {
    return fail("the collector BIRD did not start");
  }
  s->bird = std::make_unique<BirdDaemon>(dir + "/bird");
  if (!s->bird->Start(ValidatingBirdConfig(s->bird->dir(), feed.family, cache_port, upstream_port,
                                           downstream_port, collector_port))) {
    return fail("BIRD did not start");
  }
  const char* roa = feed.family == net::Family::kIPv4 ? "r4" : "r6";
  if (cache_port != 0 && !Eventually([&] { return s->bird->Count(roa) == int64_t(vrps); }, 60)) {
    return fail(
        absl::StrCat("BIRD's ", roa, " holds ", s->bird->Count(roa), " of ", vrps, " VRPs"));
  }
  if (!Eventually([&] { return s->collector->Established("speaker"); }, 30)) {
    return fail("BIRD's session to the collector did not come up");
  }
  s->upstream = StartUpstream(feed, upstream_port);
  if (!s->upstream || !s->upstream->WaitForOutput("\"event\":\"table_start\"", 120000)) {
    return fail("sluice-replay did not start sending");
  }
  const auto start = std::chrono::steady_clock::now();
  if (!s->upstream->WaitForOutput("\"event\":\"sent\"", 120000)) {
    return fail("sluice-replay did not finish sending");
  }
  const bool imported = Eventually(
      [&] { return s->bird->ImportStats("upstream").updates_received == int64_t(feed.routes); },
      60);
  s->import_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // BIRD's own count from its protocol counters: `show route count` walks the table, and BIRD
  // answers the CLI in the loop that imports routes. The collector's table is walked.
  const std::string master = feed.family == net::Family::kIPv4 ? "master4" : "master6";
  auto arrived = [&] {
    const BirdImportStats in = s->bird->ImportStats("upstream");
    return s->collector->Count(master) == in.updates_received - in.updates_filtered;
  };
  if (!imported || !Eventually(arrived, 60)) {
    return fail(absl::StrCat("BIRD received ", s->bird->ImportStats("upstream").updates_received,
                             " of ", feed.routes, ", the collector holds ",
                             s->collector->Count(master)));
  }
  s->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const int64_t held = s->bird->Count(master);
  if (held != s->collector->Count(master)) {
    return fail(
        absl::StrCat("BIRD holds ", held, " routes, the collector ", s->collector->Count(master)));
  }
  return absl::OkStatus();
}

namespace {

// The configuration StartSluiceSpeaker runs (rtrmgr/examples and sluice.conf(5) for the forms).
std::string SluiceSpeakerConfig(net::Family family, int cache_port, int port, int collector_port) {
  const bool v4 = family == net::Family::kIPv4;
  const std::string fam = v4 ? "ipv4-unicast" : "ipv6-unicast";
  // The upstream's IPv6 next hop (kUpstreamNextHop6) is on the dummy FEA's interface's subnet,
  // so it resolves in the RIB; over the IPv4 session to the collector, IPv6 routes need an IPv6
  // next hop of ours.
  return absl::StrCat(
      v4 ? "" : "interfaces {\n    interface eth0 { address 2001:db8::1/64; }\n}\n",
      "fea { backend dummy; }\nprotocols {\n",
      cache_port != 0
          ? absl::StrCat("    rpki { cache 127.0.0.1 { port ", cache_port, "; preference 1; } }\n")
          : "",
      "    bgp {\n        local-as ", kSpeakerAs, ";\n        bgp-id 10.255.0.2;\n        listen ",
      kSpeakerAddress, " port ", port, ";\n        peer ", kUpstreamAddress, " { as ", kUpstreamAs,
      "; local-ip ", kSpeakerAddress, "; passive; family [ ", fam, " ]; import [ ",
      cache_port != 0 ? "rov" : "all", " ]; }\n        peer ", kCollectorAddress, " { as ",
      kCollectorAs, "; local-ip ", kSpeakerAddress, "; port ", collector_port, "; family [ ", fam,
      " ]; export [ all ];", v4 ? "" : " next-hop6 2001:db8:ffff::2;",
      " }\n    }\n}\npolicy {\n"
      "    policy-statement rov {\n"
      "        term invalid { from { rpki invalid; } then { reject; } }\n"
      "        term rest { then { accept; } }\n    }\n"
      "    policy-statement all { term all { then { accept; } } }\n}\n");
}

double Seconds(std::chrono::steady_clock::time_point from,
               std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

absl::Status StartSluiceSpeaker(const std::string& dir, const UpstreamFeed& feed, int cache_port,
                                size_t vrps, Speaker* s) {
  const std::vector<int> ports = {FreeTcpPort(), FreeTcpPort()};
  const int port = ports[0], collector_port = ports[1];
  auto fail = [&](const std::string& what) {
    if (s->upstream) s->upstream->Wait(2000);
    return absl::UnavailableError(absl::StrCat(
        what, "\n", s->sluice ? s->sluice->Logs("rtrmgr") + s->sluice->Logs("bgp") : "",
        s->collector ? s->collector->Logs() : "", s->upstream ? s->upstream->Output() : ""));
  };
  s->collector = std::make_unique<BirdDaemon>(dir + "/sluice-collector");
  if (!s->collector->Start(CollectorBirdConfig(s->collector->dir(), feed.family, collector_port,
                                               kSpeakerAddress, port))) {
    return fail("the collector BIRD did not start");
  }
  s->sluice = std::make_unique<RtrmgrProcess>();
  const std::string conf = s->sluice->WriteConfig(
      "rov.conf", SluiceSpeakerConfig(feed.family, cache_port, port, collector_port));
  if (!s->sluice->Start(conf)) return fail("sluice-rtrmgr did not start");
  // The whole VRP set first, like BIRD: sluice-bgp logs the count at the end of the dump.
  const std::string held = absl::StrCat("RPKI: ", vrps, " VRPs");
  if (cache_port != 0 &&
      !Eventually([&] { return s->sluice->Logs("bgp").find(held) != std::string::npos; }, 60)) {
    return fail(absl::StrCat("sluice-bgp did not get the ", vrps, " VRPs\n",
                             s->sluice->Sluice({"show", "rpki"}).out));
  }
  if (!Eventually([&] { return s->collector->Established("speaker"); }, 60)) {
    return fail("the session to the collector did not come up");
  }
  s->upstream = StartUpstream(feed, port);
  if (!s->upstream || !s->upstream->WaitForOutput("\"event\":\"table_start\"", 120000)) {
    return fail("sluice-replay did not start sending");
  }
  const auto start = std::chrono::steady_clock::now();
  if (!s->upstream->WaitForOutput("\"event\":\"sent\"", 120000)) {
    return fail("sluice-replay did not finish sending");
  }
  // Settled: the collector's count has not changed for 3 s.
  const std::string master = feed.family == net::Family::kIPv4 ? "master4" : "master6";
  int64_t last = -1;
  auto changed = std::chrono::steady_clock::now();
  const bool settled = Eventually(
      [&] {
        const int64_t n = s->collector->Count(master);
        const auto now = std::chrono::steady_clock::now();
        if (n != last) {
          last = n;
          changed = now;
        }
        return n > 0 && Seconds(changed, now) > 3;
      },
      120);
  if (!settled) return fail(absl::StrCat("the collector holds ", last, " routes, still changing"));
  s->seconds = Seconds(start, changed);
  return absl::OkStatus();
}

}  // namespace sluice::testing
