// Interop with OpenBGPD 7.7 (Debian openbgpd): the session scenario over IPv4 and IPv6 with
// 4-octet ASes (session_daemon_util.h).
//
// OpenBGPD on loopback (../shared/INTEROP.md): run in the foreground (`bgpd -d -f CONF`) as root
// with the `_openbgpd` user and its chroot folder /run/openbgpd; `fib-update no`, `listen on ADDR
// port PORT`, its own control socket, `allow from any` / `allow to any`. Its neighbors are
// `passive`: OpenBGPD 7.7 has no per-neighbor port and would connect to port 179 only, so Sluice
// opens the connections (to the daemon's listening port). Routes are added and withdrawn with
// `bgpctl network add|delete`.
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
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

class OpenBgpd : public Daemon {
 public:
  std::string name() const override { return "OpenBGPD"; }
  bool OnePort() const override { return true; }

  std::string Config(const Endpoints& e) const {
    auto neighbor = [&](const std::string& peer, const std::string& local, bool v6) {
      return absl::StrCat("neighbor ", peer, " {\n  remote-as ", kSluiceAs, "\n  local-address ",
                          local, "\n  multihop 2\n  holdtime 9\n  passive\n",
                          v6 ? "  announce IPv4 none\n  announce IPv6 unicast\n" : "", "}\n");
    };
    return absl::StrCat("AS ", e.daemon_as, "\nrouter-id 10.255.0.5\nlisten on ", e.daemon_v4,
                        " port ", e.daemon_port4, "\nlisten on ::1 port ", e.daemon_port6,
                        "\nsocket \"", socket(), "\"\nfib-update no\n",
                        neighbor("127.0.0.1", e.daemon_v4, false), neighbor("::1", "::1", true),
                        "allow from any\nallow to any\n");
  }

  absl::Status Start(const Endpoints& e, const RouteSet& routes) override {
    const std::string conf = dir_.File("bgpd.conf", Config(e));
    chmod(conf.c_str(), 0644);
    bgpd_ = std::make_unique<ChildProcess>(std::vector<std::string>{"bgpd", "-d", "-f", conf},
                                           dir_.Path("bgpd.out"));
    if (!WaitFor([&] { return Bgpctl({"show"}).ok(); }, 20)) {
      return absl::UnavailableError("OpenBGPD did not start");
    }
    for (const auto& p : routes.v4) RETURN_IF_ERROR(Bgpctl({"network", "add", p}).status());
    for (const auto& p : routes.v6) RETURN_IF_ERROR(Bgpctl({"network", "add", p}).status());
    return absl::OkStatus();
  }
  absl::Status Withdraw(const Endpoints&, const RouteSet&, const std::string& prefix) override {
    return Bgpctl({"network", "delete", prefix}).status();
  }
  // The parent's death ends the session engine and the RDE too ("Lost connection to parent").
  void StopForRestart() override { bgpd_->Kill(); }
  std::string Logs() const override {
    const std::string out = bgpd_ ? bgpd_->Output() : "";
    return out.size() > 6000 ? out.substr(out.size() - 6000) : out;
  }

 private:
  std::string socket() const { return dir_.Path("bgpd.sock"); }
  absl::StatusOr<std::string> Bgpctl(std::vector<std::string> args) const {
    args.insert(args.begin(), {"bgpctl", "-s", socket()});
    return RunCommand(args);
  }

  TempDir dir_{"openbgpd"};
  std::unique_ptr<ChildProcess> bgpd_;
};

TEST(SessionOpenBgpdTest, Ipv4AndIpv6FourOctetAsRoutesWithdrawalsAndRestart) {
  // /usr/sbin/bgpd is OpenBGPD's (FRR's lives in /usr/lib/frr).
  if (access("/usr/sbin/bgpd", X_OK) != 0 || !sluice::testing::HaveProgram("bgpctl")) {
    GTEST_SKIP() << "OpenBGPD is not installed (Debian package openbgpd)";
  }
  if (getpwnam("_openbgpd") == nullptr) {
    GTEST_SKIP() << "OpenBGPD needs the _openbgpd user: systemd-sysusers "
                    "/usr/lib/sysusers.d/openbgpd.conf";
  }
  if (geteuid() != 0)
    GTEST_SKIP() << "OpenBGPD must start as root (it chroots and drops privileges)";
  mkdir("/run/openbgpd", 0755);  // its chroot folder (tmpfs: gone after a reboot)
  OpenBgpd openbgpd;
  RunScenario(openbgpd, "127.0.0.45", 4200000045u, /*ipv6=*/true, 45);
}

// The same scenario with sluice-finder and sluice-bgp as processes, checked through bgp/1.0.
#ifdef SLUICE_HAVE_BGP_PROCESS
TEST(SessionOpenBgpdTest, ThroughSluiceBgpProcessAndBgpRpc) {
  // /usr/sbin/bgpd is OpenBGPD's (FRR's lives in /usr/lib/frr).
  if (access("/usr/sbin/bgpd", X_OK) != 0 || !sluice::testing::HaveProgram("bgpctl")) {
    GTEST_SKIP() << "OpenBGPD is not installed (Debian package openbgpd)";
  }
  if (getpwnam("_openbgpd") == nullptr) {
    GTEST_SKIP() << "OpenBGPD needs the _openbgpd user: systemd-sysusers "
                    "/usr/lib/sysusers.d/openbgpd.conf";
  }
  if (geteuid() != 0)
    GTEST_SKIP() << "OpenBGPD must start as root (it chroots and drops privileges)";
  mkdir("/run/openbgpd", 0755);  // its chroot folder (tmpfs: gone after a reboot)
  OpenBgpd openbgpd;
  RunProcessScenario(openbgpd, "127.0.0.55", 4200000055u, /*ipv6=*/true, 55);
}
#endif

}  // namespace
}  // namespace sluice::bgp::interop
