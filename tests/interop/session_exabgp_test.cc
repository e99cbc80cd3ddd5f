// Interop with ExaBGP 4.2 (Debian exabgp): the session scenario over IPv4 and IPv6 with 4-octet
// ASes (session_daemon_util.h).
//
// ExaBGP listens per neighbor on its local address (`listen PORT`) and connects to Sluice's port
// (`connect PORT`); no global listener (exabgp_tcp_bind empty), no CLI pipes, no privilege drop.
// Routes come from its API: a `tail -F` of a command file the test appends `announce route` and
// `withdraw route` lines to. ExaBGP is a Python process with that helper child: it is stopped with
// SIGTERM (it ends the sessions with a Cease and stops the helper), never SIGKILL.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "tests/interop/session_daemon_util.h"
#ifdef SLUICE_HAVE_BGP_PROCESS
#include "tests/interop/session_process_util.h"
#endif

namespace sluice::bgp::interop {
namespace {

using sluice::testing::ChildProcess;
using sluice::testing::TempDir;
using sluice::testing::WaitFor;

class ExaBgp : public Daemon {
 public:
  ExaBgp() { chmod(dir_.path().c_str(), 0755); }
  std::string name() const override { return "ExaBGP"; }
  bool OnePort() const override { return true; }

  std::string Config(const Endpoints& e) const {
    auto neighbor = [&](const std::string& peer, const std::string& local, int port,
                        const char* family) {
      return absl::StrCat("neighbor ", peer, " {\n  router-id 10.255.0.6;\n  local-address ", local,
                          ";\n  local-as ", e.daemon_as, ";\n  peer-as ", kSluiceAs,
                          ";\n  hold-time 9;\n  listen ", e.daemon_port4, ";\n  connect ", port,
                          ";\n  family { ", family,
                          " unicast; }\n  api { processes [ announce ]; }\n}\n");
    };
    return absl::StrCat("process announce {\n  run /usr/bin/tail -n +1 -F ", commands(),
                        ";\n  encoder text;\n}\n",
                        neighbor("127.0.0.1", e.daemon_v4, e.sluice_port4, "ipv4"),
                        neighbor("::1", "::1", e.sluice_port6, "ipv6"));
  }

  absl::Status Start(const Endpoints& e, const RouteSet& routes) override {
    std::string lines;
    for (const auto& p : routes.v4) {
      absl::StrAppend(&lines, "neighbor 127.0.0.1 announce route ", p, " next-hop self\n");
    }
    for (const auto& p : routes.v6) {
      absl::StrAppend(&lines, "neighbor ::1 announce route ", p, " next-hop self\n");
    }
    dir_.File("commands", lines);  // a fresh file: tail -n +1 replays it from the start
    chmod(commands().c_str(), 0644);
    const std::string conf = dir_.File("exabgp.conf", Config(e));
    exabgp_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{"env", "exabgp_tcp_bind=", "exabgp_daemon_user=root",
                                 "exabgp_api_cli=false", "exabgp_log_destination=stdout", "exabgp",
                                 conf},
        dir_.Path("exabgp.out"));
    if (!WaitFor(
            [&] { return exabgp_->Output().find("loaded new configuration") != std::string::npos; },
            20)) {
      return absl::UnavailableError("ExaBGP did not start");
    }
    return absl::OkStatus();
  }
  absl::Status Withdraw(const Endpoints&, const RouteSet&, const std::string& prefix) override {
    const bool v6 = prefix.find(':') != std::string::npos;
    std::ofstream(commands(), std::ios::app) << "neighbor " << (v6 ? "::1" : "127.0.0.1")
                                             << " withdraw route " << prefix << " next-hop self\n";
    return absl::OkStatus();
  }
  void StopForRestart() override { exabgp_->Stop(); }
  std::string Logs() const override {
    const std::string out = exabgp_ ? exabgp_->Output() : "";
    return out.size() > 6000 ? out.substr(out.size() - 6000) : out;
  }

 private:
  std::string commands() const { return dir_.Path("commands"); }

  TempDir dir_{"exabgp"};
  std::unique_ptr<ChildProcess> exabgp_;
};

TEST(SessionExaBgpTest, Ipv4AndIpv6FourOctetAsRoutesWithdrawalsAndRestart) {
  if (!sluice::testing::HaveProgram("exabgp")) {
    GTEST_SKIP() << "ExaBGP is not installed (Debian package exabgp)";
  }
  ExaBgp exabgp;
  RunScenario(exabgp, "127.0.0.46", 4200000046u, /*ipv6=*/true, 46);
}

// The same scenario with sluice-finder and sluice-bgp as processes, checked through bgp/1.0.
#ifdef SLUICE_HAVE_BGP_PROCESS
TEST(SessionExaBgpTest, ThroughSluiceBgpProcessAndBgpRpc) {
  if (!sluice::testing::HaveProgram("exabgp")) {
    GTEST_SKIP() << "ExaBGP is not installed (Debian package exabgp)";
  }
  ExaBgp exabgp;
  RunProcessScenario(exabgp, "127.0.0.56", 4200000056u, /*ipv6=*/true, 56);
}
#endif

}  // namespace
}  // namespace sluice::bgp::interop
