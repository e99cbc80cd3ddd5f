// Interop with FRR 8.4 bgpd (Debian frr), run alone: the session scenario over IPv4 and IPv6 with
// 4-octet ASes (session_daemon_util.h).
//
// bgpd on loopback (../shared/INTEROP.md): `bgpd -Z -S -f CONF -i PIDFILE --vty_socket DIR -p PORT
// -l ADDR -l ::1 -P 0` — no zebra (-Z), listening on the daemon's 127.0.0.x address and on ::1 on
// one port; `no bgp ebgp-requires-policy` (RFC 8212 would announce nothing), `no bgp network
// import-check` (announce `network` statements without a RIB route), advertisement interval 0,
// ebgp-multihop for 127/8 and ::1. Without zebra bgpd does not know its interfaces, so it accepts
// ::1 as a neighbor although ::1 is its own address.
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>

#include "absl/strings/str_cat.h"
#include "tests/interop/session_daemon_util.h"
#ifdef SLUICE_HAVE_BGP_PROCESS
#include "tests/interop/session_process_util.h"
#endif

namespace sluice::bgp::interop {
namespace {

using sluice::testing::ChildProcess;
using sluice::testing::RunCommand;
using sluice::testing::TempDir;
using sluice::testing::WaitFor;

constexpr const char* kBgpd = "/usr/lib/frr/bgpd";

class Frr : public Daemon {
 public:
  std::string name() const override { return "FRR bgpd"; }
  bool OnePort() const override { return true; }

  std::string Config(const Endpoints& e, const RouteSet& routes) const {
    auto neighbor = [&](const std::string& peer, uint16_t port, const std::string& source) {
      const std::string n = absl::StrCat(" neighbor ", peer);
      return absl::StrCat(n, " remote-as ", kSluiceAs, "\n", n, " port ", port, "\n", n,
                          " update-source ", source, "\n", n, " ebgp-multihop 2\n", n,
                          " timers 3 9\n", n, " timers connect 1\n", n,
                          " advertisement-interval 0\n");
    };
    std::string config =
        absl::StrCat("frr defaults traditional\nhostname sluice-frr\nlog file ",
                     dir_.Path("bgpd.log"), " informational\n!\nrouter bgp ", e.daemon_as,
                     "\n bgp router-id 10.255.0.3\n no bgp ebgp-requires-policy\n"
                     " no bgp network import-check\n",
                     neighbor("127.0.0.1", e.sluice_port4, e.daemon_v4),
                     neighbor("::1", e.sluice_port6, "::1"), " address-family ipv4 unicast\n");
    for (const auto& p : routes.v4) absl::StrAppend(&config, "  network ", p, "\n");
    absl::StrAppend(&config,
                    "  no neighbor ::1 activate\n exit-address-family\n"
                    " address-family ipv6 unicast\n  neighbor ::1 activate\n");
    for (const auto& p : routes.v6) absl::StrAppend(&config, "  network ", p, "\n");
    absl::StrAppend(&config, " exit-address-family\n!\n");
    return config;
  }

  absl::Status Start(const Endpoints& e, const RouteSet& routes) override {
    const std::string conf = dir_.File("bgpd.conf", Config(e, routes));
    bgpd_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{kBgpd, "-Z", "-S", "-f", conf, "-i", dir_.Path("bgpd.pid"),
                                 "--vty_socket", dir_.path(), "-p", absl::StrCat(e.daemon_port4),
                                 "-l", e.daemon_v4, "-l", "::1", "-P", "0"},
        dir_.Path("bgpd.out"));
    if (!WaitFor([&] { return Vtysh({"show bgp summary"}).ok(); }, 20)) {
      return absl::UnavailableError("bgpd did not start");
    }
    return absl::OkStatus();
  }
  absl::Status Withdraw(const Endpoints& e, const RouteSet&, const std::string& prefix) override {
    const bool v6 = prefix.find(':') != std::string::npos;
    return Vtysh({"configure terminal", absl::StrCat("router bgp ", e.daemon_as),
                  v6 ? "address-family ipv6 unicast" : "address-family ipv4 unicast",
                  absl::StrCat("no network ", prefix)})
        .status();
  }
  void StopForRestart() override { bgpd_->Kill(); }
  std::string Logs() const override {
    auto log = RunCommand({"tail", "-n", "40", dir_.Path("bgpd.log")});
    return absl::StrCat(bgpd_ ? bgpd_->Output() : "", log.ok() ? *log : "");
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

TEST(SessionFrrTest, Ipv4AndIpv6FourOctetAsRoutesWithdrawalsAndRestart) {
  if (access(kBgpd, X_OK) != 0 || !sluice::testing::HaveProgram("vtysh")) {
    GTEST_SKIP() << "FRR is not installed (Debian package frr: /usr/lib/frr/bgpd and vtysh)";
  }
  Frr frr;
  RunScenario(frr, "127.0.0.43", 4200000043u, /*ipv6=*/true, 43);
}

// The same scenario with sluice-finder and sluice-bgp as processes, checked through bgp/1.0.
#ifdef SLUICE_HAVE_BGP_PROCESS
TEST(SessionFrrTest, ThroughSluiceBgpProcessAndBgpRpc) {
  if (access(kBgpd, X_OK) != 0 || !sluice::testing::HaveProgram("vtysh")) {
    GTEST_SKIP() << "FRR is not installed (Debian package frr: /usr/lib/frr/bgpd and vtysh)";
  }
  Frr frr;
  RunProcessScenario(frr, "127.0.0.52", 4200000052u, /*ipv6=*/true, 52);
}
#endif

}  // namespace
}  // namespace sluice::bgp::interop
