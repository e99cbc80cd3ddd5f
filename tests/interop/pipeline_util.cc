#include "tests/interop/pipeline_util.h"

#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "ipc/proto/fea_fib.pb.h"
#include "ipc/proto/rib.pb.h"
#include "ipc/types_convert.h"

namespace sluice::bgp::interop {

namespace v1 = ::sluice::bgp::v1;
using sluice::testing::ChildProcess;
using sluice::testing::RunCommand;
using sluice::testing::TempDir;
using sluice::testing::WaitFor;

std::string BuildPath(const std::string& relative) {
  const char* build = std::getenv("SLUICE_BUILD_DIR");
  return std::string(build != nullptr ? build : ".") + "/" + relative;
}

namespace {

uint64_t StatusField(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) {
      uint64_t kb = 0;
      std::istringstream(line.substr(field.size() + 1)) >> kb;
      return kb;
    }
  }
  return 0;
}

const ipc::Method<rib::v1::ListRoutesRequest, rib::v1::ListRoutesReply> kRibListRoutes{
    "rib/1.0/list_routes"};
const ipc::Method<rib::v1::ListProtocolsRequest, rib::v1::ListProtocolsReply> kRibListProtocols{
    "rib/1.0/list_protocols"};
const ipc::Method<fea_fib::v1::ListRoutesRequest, fea_fib::v1::ListRoutesReply> kFibListRoutes{
    "fea_fib/1.0/list_routes"};

}  // namespace

// ---- BgpClient ----

BgpClient::BgpClient(const std::string& finder_address) {
  ipc::RouterOptions o;
  o.finder_address = finder_address;
  o.serve = false;
  o.finder_wait_ms = 5000;
  router_ = std::make_unique<ipc::XrlRouter>(io_, "test", "", o);
  (void)router_->Start();
}

BgpClient::~BgpClient() { router_.reset(); }

bool BgpClient::RunUntil(const std::function<bool()>& done, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    io_.run_one_for(std::chrono::milliseconds(10));
    if (io_.stopped()) io_.restart();
  }
  return done();
}

absl::Status BgpClient::AddPeer(const v1::AddPeerRequest& request) {
  return Call(ipc::methods::bgp::kAddPeer, request).status();
}

absl::StatusOr<v1::PeerInfo> BgpClient::Peer(const std::string& address) {
  v1::PeerRequest r;
  absl::StatusOr<net::IPAddress> a = net::IPAddress::Parse(address);
  if (!a.ok()) return a.status();
  ipc::ToProto(*a, r.mutable_address());
  absl::StatusOr<v1::GetPeerReply> reply = Call(ipc::methods::bgp::kGetPeer, r);
  if (!reply.ok()) return reply.status();
  return reply->peer();
}

absl::StatusOr<std::vector<v1::Route>> BgpClient::Routes(v1::RibView view, const std::string& peer,
                                                         const std::string& family) {
  v1::ListRoutesRequest q;
  q.set_view(view);
  q.set_family(family);
  q.set_max_routes(20000);
  if (!peer.empty()) {
    absl::StatusOr<net::IPAddress> a = net::IPAddress::Parse(peer);
    if (!a.ok()) return a.status();
    ipc::ToProto(*a, q.mutable_peer());
  }
  std::vector<v1::Route> out;
  while (true) {
    absl::StatusOr<v1::ListRoutesReply> r = Call(ipc::methods::bgp::kListRoutes, q);
    if (!r.ok()) return r.status();
    for (v1::Route& route : *r->mutable_routes()) out.push_back(std::move(route));
    if (!r->more() || out.empty()) break;
    *q.mutable_start_after() = out.back().network();
  }
  return out;
}

absl::StatusOr<std::set<net::Prefix>> BgpClient::Prefixes(v1::RibView view,
                                                          const std::string& peer) {
  absl::StatusOr<std::vector<v1::Route>> routes = Routes(view, peer);
  if (!routes.ok()) return routes.status();
  std::set<net::Prefix> out;
  for (const v1::Route& r : *routes) {
    absl::StatusOr<net::Prefix> p = ipc::FromProto(r.network());
    if (p.ok()) out.insert(*p);
  }
  return out;
}

// ---- SluiceRouter ----

SluiceRouter::SluiceRouter(const std::vector<std::string>& bgp_flags, bool with_rib) {
  dir_ = std::make_unique<TempDir>("sluice-router");
  rundir_ = dir_->path();
  setenv("SLUICE_RUNDIR", rundir_.c_str(), 1);  // the children and the CLI inherit it
  finder_ = std::make_unique<ChildProcess>(
      std::vector<std::string>{BuildPath("finder/sluice-finder"), "--listen", finder_address(),
                               "--grace-ms", "200"},
      dir_->Path("finder.out"));
  if (!WaitFor([&] { return Cli({"targets"}).ok(); }, 20)) {
    error_ = "sluice-finder did not start: " + finder_->Output();
    return;
  }
  if (with_rib) {
#ifdef SLUICE_HAVE_RIB_PROCESS
    real_rib_ = true;
    fea_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{BuildPath("fea/sluice-fea"), "--finder", finder_address(),
                                 "--backend", "dummy"},
        dir_->Path("fea.out"));
    if (absl::Status st = StartRib(); !st.ok()) {
      error_ = std::string(st.message());
      return;
    }
#else
    ipc::RouterOptions o;
    o.finder_address = finder_address();
    o.allow_inproc = false;
    fake_rib_ = std::make_unique<bgp::testing::FakeRibThread>(o);
    if (!fake_rib_->status().ok()) {
      error_ = "the fake RIB did not start: " + fake_rib_->status().ToString();
      return;
    }
#endif
  }
  std::vector<std::string> argv = {BuildPath("bgp/process/sluice-bgp"), "--finder",
                                   finder_address(), "--instance", "bgp"};
  if (!with_rib) argv.push_back("--no-rib");
  argv.insert(argv.end(), bgp_flags.begin(), bgp_flags.end());
  bgp_argv_ = argv;
  bgp_ = std::make_unique<ChildProcess>(argv, dir_->Path("bgp.out"));
  if (!WaitFor([&] { return bgp_->Output().find("ready bgp") != std::string::npos; }, 20)) {
    error_ = "sluice-bgp did not start: " + bgp_->Output();
    return;
  }
  client_ = std::make_unique<BgpClient>(finder_address());
}

absl::Status SluiceRouter::StartRib() {
  if (!real_rib_) return absl::FailedPreconditionError("no sluice-rib on this branch");
  rib_ = std::make_unique<ChildProcess>(
      std::vector<std::string>{BuildPath("rib/sluice-rib"), "--finder", finder_address()},
      dir_->Path("rib.out"));
  if (!WaitFor(
          [&] {
            auto t = Cli({"targets"});
            return t.ok() && t->find("rib (class rib)") != std::string::npos &&
                   t->find("fea (class fea)") != std::string::npos;
          },
          20)) {
    return absl::UnavailableError("sluice-rib or sluice-fea did not start: " + Logs());
  }
  // BGP's nexthops are on loopback: a static route makes them resolvable in the RIB.
  auto st = Cli({"call",
                 "finder://rib/rib/1.0/add_route4?protocol:txt=static&network:ipv4net=127.0.0.0/"
                 "8&ifname:txt=lo"});
  if (!st.ok()) {
    return absl::UnavailableError("static route to 127.0.0.0/8 refused: " +
                                  std::string(st.status().message()));
  }
  return absl::OkStatus();
}

absl::Status SluiceRouter::RestartRib() {
  if (!rib_) return absl::FailedPreconditionError("no sluice-rib to restart");
  rib_->Kill();
  // Wait until the Finder has told everyone of the death (the instance leaves `targets`).
  if (!WaitFor(
          [&] {
            auto t = Cli({"targets"});
            return t.ok() && t->find("rib (class rib)") == std::string::npos;
          },
          20)) {
    return absl::DeadlineExceededError("the Finder still lists the killed sluice-rib");
  }
  return StartRib();
}

absl::Status SluiceRouter::RestartBgp(int signal) {
  if (!bgp_) return absl::FailedPreconditionError("no sluice-bgp to restart");
  if (signal == SIGKILL) {
    bgp_->Kill();
  } else {
    kill(bgp_->pid(), signal);
    if (bgp_->Wait(10) < 0) return absl::DeadlineExceededError("sluice-bgp did not exit");
  }
  if (!WaitFor(
          [&] {
            auto t = Cli({"targets"});
            return t.ok() && t->find("bgp (class bgp)") == std::string::npos;
          },
          20)) {
    return absl::DeadlineExceededError("the Finder still lists the old sluice-bgp");
  }
  const std::string out = dir_->Path(absl::StrCat("bgp", ++bgp_runs_, ".out"));
  bgp_ = std::make_unique<ChildProcess>(bgp_argv_, out);
  if (!WaitFor([&] { return bgp_->Output().find("ready bgp") != std::string::npos; }, 20)) {
    return absl::UnavailableError("sluice-bgp did not start again: " + bgp_->Output());
  }
  client_ = std::make_unique<BgpClient>(finder_address());  // nothing cached of the old one
  return absl::OkStatus();
}

SluiceRouter::~SluiceRouter() {
  client_.reset();
  if (bgp_) bgp_->Stop(5);
  fake_rib_.reset();
  if (rib_) rib_->Stop(5);
  if (fea_) fea_->Stop(5);
  if (finder_) finder_->Stop(5);
}

absl::StatusOr<std::string> SluiceRouter::Cli(std::vector<std::string> args) {
  args.insert(args.begin(), {BuildPath("rtrmgr/cli/sluice"), "--finder", finder_address()});
  return RunCommand(args);
}

absl::StatusOr<std::set<net::Prefix>> SluiceRouter::RibPrefixes() {
  std::set<net::Prefix> out;
  if (fake_rib_) {
    for (const auto& [p, r] : fake_rib_->rib().routes("ebgp")) out.insert(p);
    return out;
  }
  rib::v1::ListRoutesRequest q;
  q.set_family("ipv4");
  q.set_protocol("ebgp");
  q.set_max_routes(20000);
  while (true) {
    auto r = client_->Call(kRibListRoutes, q, "rib");
    if (!r.ok()) return r.status();
    for (const auto& route : r->routes()) {
      auto p = ipc::FromProto(route.network());
      if (p.ok()) out.insert(*p);
    }
    if (!r->more() || r->routes_size() == 0) break;
    *q.mutable_start_after() = r->routes(r->routes_size() - 1).network();
  }
  return out;
}

absl::StatusOr<uint64_t> SluiceRouter::RibRouteCount() {
  if (fake_rib_) return uint64_t(fake_rib_->rib().routes("ebgp").size());
  auto r = client_->Call(kRibListProtocols, rib::v1::ListProtocolsRequest(), "rib");
  if (!r.ok()) return r.status();
  for (const auto& p : r->protocols()) {
    if (p.protocol() == "ebgp") return uint64_t(p.routes());
  }
  return uint64_t{0};
}

absl::StatusOr<std::optional<std::set<net::Prefix>>> SluiceRouter::FibPrefixes() {
  if (!real_rib_) return std::optional<std::set<net::Prefix>>();
  std::set<net::Prefix> out;
  fea_fib::v1::ListRoutesRequest q;
  q.set_max_routes(20000);
  while (true) {
    auto r = client_->Call(kFibListRoutes, q, "fea");
    if (!r.ok()) return r.status();
    for (const auto& route : r->routes()) {
      auto p = ipc::FromProto(route.network());
      if (p.ok()) out.insert(*p);
    }
    if (!r->more() || r->routes_size() == 0) break;
    *q.mutable_start_after() = r->routes(r->routes_size() - 1).network();
  }
  return std::optional<std::set<net::Prefix>>(std::move(out));
}

uint64_t SluiceRouter::BgpPeakRssKb() const {
  return bgp_ && bgp_->pid() > 0 ? StatusField(bgp_->pid(), "VmHWM") : 0;
}

std::string SluiceRouter::Logs() const {
  auto tail = [](const std::string& s) { return s.size() > 4000 ? s.substr(s.size() - 4000) : s; };
  std::string out;
  if (bgp_) absl::StrAppend(&out, "--- sluice-bgp:\n", tail(bgp_->Output()));
  if (rib_) absl::StrAppend(&out, "--- sluice-rib:\n", tail(rib_->Output()));
  if (fea_) absl::StrAppend(&out, "--- sluice-fea:\n", tail(fea_->Output()));
  if (finder_) absl::StrAppend(&out, "--- sluice-finder:\n", tail(finder_->Output()));
  return out;
}

// ---- BIRD ----

namespace {

class BirdPeer : public DaemonPeer {
 public:
  std::string name() const override { return "BIRD 2"; }

  absl::Status Start(const PeerEndpoint& e) {
    const std::string conf = absl::StrCat(
        "router id 10.255.0.", e.address.substr(e.address.rfind('.') + 1), ";\nlog \"",
        dir_.Path("bird.log"), "\" { warning, error, fatal };\nprotocol device { }\n",
        "ipv4 table igp4;\n",
        "protocol static igpstatic { ipv4 { table igp4; }; route 0.0.0.0/0 via \"lo\"; }\n",
        "protocol bgp sluice {\n  local ", e.address, " port ", e.port, " as ", e.as,
        ";\n  neighbor 127.0.0.1 port ", e.sluice_port, " as ", e.sluice_as,
        ";\n  multihop 2;\n  hold time ", e.hold_time, ";\n  keepalive time ",
        std::max(1, e.hold_time / 3),
        ";\n  connect retry time 1;\n  connect delay time 1;\n  error wait time 1, 4;\n",
        e.passive ? "  passive on;\n" : "",
        "  ipv4 { import all; export none; igp table igp4; };\n}\n");
    bird_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{"bird", "-f", "-c", dir_.File("bird.conf", conf), "-s", socket(),
                                 "-P", dir_.Path("bird.pid")},
        dir_.Path("bird.out"));
    if (!WaitFor([&] { return Birdc({"show", "status"}).ok(); }, 20)) {
      return absl::UnavailableError("BIRD did not start: " + Logs());
    }
    return absl::OkStatus();
  }

  int64_t RouteCount() override {
    auto out = Birdc({"show", "route", "count"});
    if (!out.ok()) return -1;
    std::smatch m;
    static const std::regex re("(\\d+) of \\d+ routes for \\d+ networks in table master4");
    if (!std::regex_search(*out, m, re)) return -1;
    return std::stoll(m[1]);
  }
  absl::StatusOr<std::set<net::Prefix>> Prefixes() override {
    auto routes = Birdc({"show", "route", "primary"});
    if (!routes.ok()) return routes.status();
    std::set<net::Prefix> held;
    for (absl::string_view line : absl::StrSplit(*routes, '\n')) {
      const size_t space = line.find_first_of(" \t");
      if (space == absl::string_view::npos) continue;
      auto p = net::Prefix::Parse(std::string(line.substr(0, space)));
      if (p.ok()) held.insert(*p);
    }
    return held;
  }
  absl::StatusOr<std::string> AsPath(const std::string& prefix) override {
    auto out = Birdc({"show", "route", prefix, "all"});
    if (!out.ok()) return out.status();
    std::smatch m;
    static const std::regex re("BGP\\.as_path: ?([0-9 ]*)");
    if (!std::regex_search(*out, m, re)) {
      return absl::NotFoundError(absl::StrCat(prefix, " at BIRD: ", *out));
    }
    return std::string(absl::StripAsciiWhitespace(std::string(m[1])));
  }
  absl::StatusOr<std::string> NextHop(const std::string& prefix) override {
    auto out = Birdc({"show", "route", prefix, "all"});
    if (!out.ok()) return out.status();
    std::smatch m;
    static const std::regex re("BGP\\.next_hop: (\\S+)");
    if (!std::regex_search(*out, m, re)) {
      return absl::NotFoundError(absl::StrCat(prefix, " at BIRD: ", *out));
    }
    return std::string(m[1]);
  }
  std::string SessionSince() override {
    auto out = Birdc({"show", "protocols", "sluice"});
    if (!out.ok()) return "";
    std::smatch m;
    static const std::regex re("sluice\\s+BGP\\s+\\S+\\s+up\\s+(\\S+(?: \\S+)?)\\s+Established");
    return std::regex_search(*out, m, re) ? std::string(m[1]) : "";
  }
  bool Established() override { return !SessionSince().empty(); }
  std::string Logs() const override {
    auto log = RunCommand({"tail", "-n", "30", dir_.Path("bird.log")});
    return absl::StrCat(bird_ ? bird_->Output() : "", log.ok() ? *log : "");
  }
  uint64_t PeakRssKb() override {
    return bird_ && bird_->pid() > 0 ? StatusField(bird_->pid(), "VmHWM") : 0;
  }

 private:
  std::string socket() const { return dir_.Path("bird.ctl"); }
  absl::StatusOr<std::string> Birdc(std::vector<std::string> args) const {
    args.insert(args.begin(), {"birdc", "-s", socket()});
    return RunCommand(args);
  }

  TempDir dir_{"bird"};
  std::unique_ptr<ChildProcess> bird_;
};

// ---- GoBGP ----

class GoBgpPeer : public DaemonPeer {
 public:
  std::string name() const override { return "GoBGP"; }

  absl::Status Start(const PeerEndpoint& e) {
    api_port_ = sluice::testing::FreeTcpPort();
    const std::string conf = absl::StrCat(
        "[global.config]\n  as = ", e.as, "\n  router-id = \"10.255.0.",
        e.address.substr(e.address.rfind('.') + 1), "\"\n  port = ", e.port,
        "\n  local-address-list = [\"", e.address, "\"]\n\n",
        "[[neighbors]]\n  [neighbors.config]\n    neighbor-address = \"127.0.0.1\"\n"
        "    peer-as = ",
        e.sluice_as, "\n  [neighbors.transport.config]\n    local-address = \"", e.address,
        "\"\n    remote-port = ", e.sluice_port,
        "\n  [neighbors.timers.config]\n    connect-retry = 1\n    hold-time = ", e.hold_time,
        "\n    keepalive-interval = ", std::max(1, e.hold_time / 3),
        "\n  [neighbors.ebgp-multihop.config]\n    enabled = true\n    multihop-ttl = 2\n"
        "  [[neighbors.afi-safis]]\n    [neighbors.afi-safis.config]\n"
        "      afi-safi-name = \"ipv4-unicast\"\n");
    gobgpd_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{"gobgpd", "-f", dir_.File("gobgpd.toml", conf), "-t", "toml", "-l",
                                 "warn", "-p", absl::StrCat("--api-hosts=127.0.0.1:", api_port_),
                                 "--pprof-disable"},
        dir_.Path("gobgpd.out"));
    if (!WaitFor([&] { return Gobgp({"global"}).ok(); }, 20)) {
      return absl::UnavailableError("gobgpd did not start: " + Logs());
    }
    return absl::OkStatus();
  }

  int64_t RouteCount() override {
    auto out = Gobgp({"global", "rib", "summary", "-a", "ipv4"});
    if (!out.ok()) return -1;
    std::smatch m;
    static const std::regex re("Destination: (\\d+)");
    return std::regex_search(*out, m, re) ? std::stoll(m[1]) : -1;
  }
  absl::StatusOr<std::set<net::Prefix>> Prefixes() override {
    auto out = Gobgp({"global", "rib", "-a", "ipv4"});
    if (!out.ok()) return out.status();
    std::set<net::Prefix> held;
    for (absl::string_view line : absl::StrSplit(*out, '\n')) {
      std::vector<absl::string_view> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
      if (f.size() < 2 || f[0].empty() || f[0][0] != '*') continue;
      auto p = net::Prefix::Parse(std::string(f[1]));
      if (p.ok()) held.insert(*p);
    }
    return held;
  }
  absl::StatusOr<std::string> AsPath(const std::string& prefix) override {
    auto out = Gobgp({"global", "rib", "-a", "ipv4", prefix});
    if (!out.ok()) return out.status();
    // "*> 1.0.0.0/24  203.0.113.1  4200000001 4200000002 ...  00:00:03   [{Origin: i}]"
    for (absl::string_view line : absl::StrSplit(*out, '\n')) {
      std::vector<absl::string_view> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
      if (f.size() < 4 || f[0].empty() || f[0][0] != '*') continue;
      std::string path;
      for (size_t i = 3; i < f.size(); ++i) {
        uint32_t as;
        if (!absl::SimpleAtoi(f[i], &as)) break;
        absl::StrAppend(&path, path.empty() ? "" : " ", f[i]);
      }
      return path;
    }
    return absl::NotFoundError(absl::StrCat(prefix, " at GoBGP: ", *out));
  }
  absl::StatusOr<std::string> NextHop(const std::string& prefix) override {
    auto out = Gobgp({"global", "rib", "-a", "ipv4", prefix});
    if (!out.ok()) return out.status();
    for (absl::string_view line : absl::StrSplit(*out, '\n')) {
      std::vector<absl::string_view> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
      if (f.size() >= 3 && !f[0].empty() && f[0][0] == '*') return std::string(f[2]);
    }
    return absl::NotFoundError(absl::StrCat(prefix, " at GoBGP: ", *out));
  }
  std::string SessionSince() override {
    auto out = Gobgp({"neighbor"});
    if (!out.ok()) return "";
    // "127.0.0.1 4200000001 00:00:12 Establ |  577000  577000"
    for (absl::string_view line : absl::StrSplit(*out, '\n')) {
      std::vector<absl::string_view> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
      if (f.size() >= 4 && f[0] == "127.0.0.1" && absl::StartsWith(f[3], "Establ")) {
        auto j = Gobgp({"neighbor", "127.0.0.1", "-j"});
        std::smatch m;
        static const std::regex re("\"uptime\":\\{\"seconds\":(\\d+)");
        if (j.ok() && std::regex_search(*j, m, re)) return m[1];
        return "up";
      }
    }
    return "";
  }
  bool Established() override { return !SessionSince().empty(); }
  std::string Logs() const override {
    const std::string out = gobgpd_ ? gobgpd_->Output() : "";
    return out.size() > 4000 ? out.substr(out.size() - 4000) : out;
  }
  uint64_t PeakRssKb() override {
    return gobgpd_ && gobgpd_->pid() > 0 ? StatusField(gobgpd_->pid(), "VmHWM") : 0;
  }

 private:
  absl::StatusOr<std::string> Gobgp(std::vector<std::string> args) const {
    args.insert(args.begin(), {"gobgp", "-p", absl::StrCat(api_port_)});
    return RunCommand(args);
  }

  TempDir dir_{"gobgp"};
  std::unique_ptr<ChildProcess> gobgpd_;
  int api_port_ = 0;
};

}  // namespace

std::unique_ptr<DaemonPeer> StartBird(const PeerEndpoint& e, std::string* error) {
  auto p = std::make_unique<BirdPeer>();
  if (absl::Status st = p->Start(e); !st.ok()) {
    *error = st.ToString();
    return nullptr;
  }
  return p;
}

std::unique_ptr<DaemonPeer> StartGoBgp(const PeerEndpoint& e, std::string* error) {
  auto p = std::make_unique<GoBgpPeer>();
  if (absl::Status st = p->Start(e); !st.ok()) {
    *error = st.ToString();
    return nullptr;
  }
  return p;
}

}  // namespace sluice::bgp::interop
