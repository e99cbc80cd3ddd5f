// Interop with GoBGP 3.10 (Debian gobgpd): the session scenario over IPv4 and IPv6 with 4-octet
// ASes (session_daemon_util.h).
//
// gobgpd reads a TOML config (listening port and addresses, one neighbor per family with eBGP
// multihop, short timers); its gRPC API listens on a free port on 127.0.0.1 and pprof is off, so
// that tests can run side by side. GoBGP's config has no static routes: they are added (and
// withdrawn) with `gobgp global rib add|del` once it runs.
#include <gtest/gtest.h>

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

class GoBgp : public Daemon {
 public:
  std::string name() const override { return "GoBGP"; }
  bool OnePort() const override { return true; }

  std::string Config(const Endpoints& e) const {
    auto neighbor = [&](const std::string& peer, uint16_t port, const std::string& local,
                        const char* family) {
      return absl::StrCat("[[neighbors]]\n  [neighbors.config]\n    neighbor-address = \"", peer,
                          "\"\n    peer-as = ", kSluiceAs,
                          "\n  [neighbors.transport.config]\n    local-address = \"", local,
                          "\"\n    remote-port = ", port,
                          "\n  [neighbors.timers.config]\n    connect-retry = 1\n"
                          "    hold-time = 9\n    keepalive-interval = 3\n"
                          "  [neighbors.ebgp-multihop.config]\n    enabled = true\n"
                          "    multihop-ttl = 2\n"
                          "  [[neighbors.afi-safis]]\n    [neighbors.afi-safis.config]\n"
                          "      afi-safi-name = \"",
                          family, "\"\n");
    };
    return absl::StrCat("[global.config]\n  as = ", e.daemon_as,
                        "\n  router-id = \"10.255.0.4\"\n  port = ", e.daemon_port4,
                        "\n  local-address-list = [\"", e.daemon_v4, "\", \"::1\"]\n\n",
                        neighbor("127.0.0.1", e.sluice_port4, e.daemon_v4, "ipv4-unicast"),
                        neighbor("::1", e.sluice_port6, "::1", "ipv6-unicast"));
  }

  absl::Status Start(const Endpoints& e, const RouteSet& routes) override {
    api_port_ = sluice::testing::FreeTcpPort();
    const std::string conf = dir_.File("gobgpd.toml", Config(e));
    gobgpd_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{"gobgpd", "-f", conf, "-t", "toml", "-l", "info", "-p",
                                 absl::StrCat("--api-hosts=127.0.0.1:", api_port_),
                                 "--pprof-disable"},
        dir_.Path("gobgpd.out"));
    if (!WaitFor([&] { return Gobgp({"global"}).ok(); }, 20)) {
      return absl::UnavailableError("gobgpd did not start");
    }
    for (const auto& p : routes.v4)
      RETURN_IF_ERROR(Gobgp({"global", "rib", "add", p, "-a", "ipv4"}).status());
    for (const auto& p : routes.v6)
      RETURN_IF_ERROR(Gobgp({"global", "rib", "add", p, "-a", "ipv6"}).status());
    return absl::OkStatus();
  }
  absl::Status Withdraw(const Endpoints&, const RouteSet&, const std::string& prefix) override {
    const bool v6 = prefix.find(':') != std::string::npos;
    return Gobgp({"global", "rib", "del", prefix, "-a", v6 ? "ipv6" : "ipv4"}).status();
  }
  void StopForRestart() override { gobgpd_->Kill(); }
  std::string Logs() const override {
    const std::string out = gobgpd_ ? gobgpd_->Output() : "";
    return out.size() > 6000 ? out.substr(out.size() - 6000) : out;
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

TEST(SessionGobgpTest, Ipv4AndIpv6FourOctetAsRoutesWithdrawalsAndRestart) {
  if (!sluice::testing::HaveProgram("gobgpd") || !sluice::testing::HaveProgram("gobgp")) {
    GTEST_SKIP() << "GoBGP is not installed (Debian package gobgpd)";
  }
  GoBgp gobgp;
  RunScenario(gobgp, "127.0.0.44", 4200000044u, /*ipv6=*/true, 44);
}

// The same scenario with sluice-finder and sluice-bgp as processes, checked through bgp/1.0.
#ifdef SLUICE_HAVE_BGP_PROCESS
TEST(SessionGobgpTest, ThroughSluiceBgpProcessAndBgpRpc) {
  if (!sluice::testing::HaveProgram("gobgpd") || !sluice::testing::HaveProgram("gobgp")) {
    GTEST_SKIP() << "GoBGP is not installed (Debian package gobgpd)";
  }
  GoBgp gobgp;
  RunProcessScenario(gobgp, "127.0.0.54", 4200000054u, /*ipv6=*/true, 54);
}
#endif

}  // namespace
}  // namespace sluice::bgp::interop
