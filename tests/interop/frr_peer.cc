#include "tests/interop/frr_peer.h"

#include <unistd.h>

#include <regex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tests/interop/interop_util.h"

namespace sluice::bgp::interop {
namespace {

using sluice::testing::ChildProcess;
using sluice::testing::RunCommand;
using sluice::testing::TempDir;
using sluice::testing::WaitFor;

constexpr const char* kBgpd = "/usr/lib/frr/bgpd";

class FrrPeer : public DaemonPeer {
 public:
  std::string name() const override { return "FRR bgpd"; }

  absl::Status Start(const PeerEndpoint& e) {
    const std::string n = " neighbor 127.0.0.1";
    const std::string conf = absl::StrCat(
        "frr defaults traditional\nhostname sluice-frr\nlog file ", dir_.Path("bgpd.log"),
        " debugging\ndebug bgp neighbor-events\ndebug bgp graceful-restart\n!\nrouter bgp ", e.as,
        "\n bgp router-id 10.255.0.", e.address.substr(e.address.rfind('.') + 1),
        "\n no bgp ebgp-requires-policy\n bgp allow-martian-nexthop\n", n, " remote-as ",
        e.sluice_as, "\n", n, " port ", e.sluice_port, "\n", n, " update-source ", e.address, "\n",
        n, " ebgp-multihop 2\n", n, " timers ", std::max(1, e.hold_time / 3), " ", e.hold_time,
        "\n", n, " timers connect 1\n", n, " advertisement-interval 0\n!\n");
    bgpd_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{kBgpd, "-Z", "-S", "-f", dir_.File("bgpd.conf", conf), "-i",
                                 dir_.Path("bgpd.pid"), "--vty_socket", dir_.path(), "-p",
                                 absl::StrCat(e.port), "-l", e.address, "-P", "0"},
        dir_.Path("bgpd.out"));
    if (!WaitFor([&] { return Vtysh({"show bgp summary"}).ok(); }, 20)) {
      return absl::UnavailableError("bgpd did not start: " + Logs());
    }
    return absl::OkStatus();
  }

  // "Displayed  N routes and M total paths" (stale routes included: FRR helps us restart).
  int64_t RouteCount() override {
    auto out = Vtysh({"show bgp ipv4 unicast"});
    if (!out.ok()) return -1;
    if (out->find("No BGP prefixes displayed") != std::string::npos) return 0;
    std::smatch m;
    static const std::regex re("Displayed\\s+(\\d+) routes");
    if (!std::regex_search(*out, m, re)) return -1;
    return std::stoll(m[1]);
  }
  absl::StatusOr<std::set<net::Prefix>> Prefixes() override {
    return absl::UnimplementedError("FrrPeer::Prefixes");
  }
  absl::StatusOr<std::string> AsPath(const std::string&) override {
    return absl::UnimplementedError("FrrPeer::AsPath");
  }
  absl::StatusOr<std::string> NextHop(const std::string&) override {
    return absl::UnimplementedError("FrrPeer::NextHop");
  }
  std::string SessionSince() override {
    auto out = Vtysh({"show bgp neighbors 127.0.0.1"});
    if (!out.ok()) return "";
    std::smatch m;
    static const std::regex re("BGP state = Established, up for (\\S+)");
    return std::regex_search(*out, m, re) ? std::string(m[1]) : "";
  }
  bool Established() override { return !SessionSince().empty(); }
  uint64_t PeakRssKb() override { return 0; }
  std::string Logs() const override {
    auto log = RunCommand({"tail", "-n", "60", dir_.Path("bgpd.log")});
    auto gr = Vtysh({"show bgp neighbors 127.0.0.1"});
    return absl::StrCat(bgpd_ ? bgpd_->Output() : "", log.ok() ? *log : "",
                        gr.ok() ? *gr : gr.status().ToString());
  }

 private:
  absl::StatusOr<std::string> Vtysh(const std::vector<std::string>& commands) const {
    std::vector<std::string> argv = {"vtysh", "--vty_socket", dir_.path()};
    for (const auto& c : commands) {
      argv.push_back("-c");
      argv.push_back(c);
    }
    return RunCommand(argv);
  }

  TempDir dir_{"frr"};
  std::unique_ptr<ChildProcess> bgpd_;
};

}  // namespace

std::string FrrSkipReason() {
  if (::access(kBgpd, X_OK) != 0 || !sluice::testing::HaveProgram("vtysh")) {
    return "FRR is not installed (Debian package frr: /usr/lib/frr/bgpd and vtysh)";
  }
  return "";
}

std::unique_ptr<DaemonPeer> StartFrr(const PeerEndpoint& e, std::string* error) {
  auto p = std::make_unique<FrrPeer>();
  if (absl::Status st = p->Start(e); !st.ok()) {
    *error = st.ToString();
    return nullptr;
  }
  return p;
}

}  // namespace sluice::bgp::interop
