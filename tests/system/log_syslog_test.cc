// Structured logs to syslog: sluice-rtrmgr with `log { destination syslog; syslog-socket PATH; }`
// starts its processes logging to a Unix datagram socket this test owns; the BGP session's
// "Established" line arrives there with its fields, `sluice set log level debug bgp` makes
// sluice-bgp's debug lines appear, and a reload that changes the RIB's log block applies it to
// the running RIB.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/system/rtrmgr_processes.h"

namespace sluice::testing {
namespace {

using ::testing::HasSubstr;

// A syslog receiver: a Unix datagram socket in a directory every user may reach (the processes
// may run as user `sluice`).
class SyslogSocket {
 public:
  SyslogSocket() {
    char dir[] = "/tmp/sluice-syslog-XXXXXX";
    if (mkdtemp(dir) == nullptr) return;
    chmod(dir, 0755);
    dir_ = dir;
    path_ = dir_ + "/log.sock";
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path_.c_str());
    if (bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return;
    chmod(path_.c_str(), 0666);
    ok_ = true;
  }
  ~SyslogSocket() {
    stop_ = true;
    if (reader_.joinable()) reader_.join();
    if (fd_ >= 0) close(fd_);
    unlink(path_.c_str());
    rmdir(dir_.c_str());
  }
  bool ok() const { return ok_; }
  const std::string& path() const { return path_; }
  // Reads every datagram from now on (the socket queue may hold only 10).
  void StartReading() {
    reader_ = std::thread([this] {
      timeval timeout{0, 100000};
      setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
      while (!stop_) {
        char buf[8192];
        const ssize_t n = recv(fd_, buf, sizeof buf, 0);
        if (n <= 0) continue;
        std::lock_guard<std::mutex> lock(mu_);
        received_.emplace_back(buf, static_cast<size_t>(n));
      }
    });
  }
  // The first datagram that holds every string of `all`, waiting up to `seconds`.
  std::optional<std::string> WaitFor(const std::vector<std::string>& all, int seconds) {
    std::optional<std::string> found;
    Eventually(
        [&] {
          for (const std::string& line : received()) {
            bool all_there = true;
            for (const std::string& s : all) all_there &= line.find(s) != std::string::npos;
            if (all_there) {
              found = line;
              return true;
            }
          }
          return false;
        },
        seconds);
    return found;
  }
  std::vector<std::string> received() const {
    std::lock_guard<std::mutex> lock(mu_);
    return received_;
  }
  std::string Dump() const {
    std::string out = "received:\n";
    for (const std::string& l : received()) absl::StrAppend(&out, l, "\n");
    return out;
  }

 private:
  std::string dir_, path_;
  int fd_ = -1;
  bool ok_ = false;
  std::atomic<bool> stop_{false};
  std::thread reader_;
  mutable std::mutex mu_;
  std::vector<std::string> received_;
};

std::string Config(int port, const std::string& socket, const std::string& rib = "") {
  return absl::StrCat(R"(
fea { backend dummy; }
)",
                      rib, R"(
protocols {
    bgp {
        local-as 4200000001;
        bgp-id 10.255.0.1;
        listen 127.0.0.1 port )",
                      port, R"(;
        peer 127.0.0.2 { as 4200000002; local-ip 127.0.0.1; passive; hold-time 90; }
    }
}
log {
    destination syslog;
    syslog-socket ")",
                      socket, R"(";
}
)");
}

// A TCP connection from 127.0.0.2 to the BGP listener: while the session is Established,
// sluice-bgp refuses it (RFC 4271 §6.8) and says so at debug level.
void ConnectFromPeerAddress(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in local{};
  local.sin_family = AF_INET;
  inet_pton(AF_INET, "127.0.0.2", &local.sin_addr);
  bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local);
  sockaddr_in remote{};
  remote.sin_family = AF_INET;
  remote.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr);
  connect(fd, reinterpret_cast<sockaddr*>(&remote), sizeof remote);
  char buf[64];
  timeval timeout{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  while (recv(fd, buf, sizeof buf, 0) > 0) {
  }  // until sluice-bgp closes it
  close(fd);
}

TEST(LogSyslog, EstablishedReachesSyslogAndDebugFollowsSetLogLevel) {
  SyslogSocket syslog;
  ASSERT_TRUE(syslog.ok()) << "cannot bind a Unix datagram socket";
  syslog.StartReading();
  RtrmgrProcess r;
  const int port = FreeTcpPort();
  ASSERT_TRUE(r.Start(r.WriteConfig("router.conf", Config(port, syslog.path()))))
      << r.Logs("rtrmgr") << syslog.Dump();
  auto replay = ChildProcess::Start(
      {BuildPath("bgp/replay/sluice-replay"), "--connect", absl::StrCat("127.0.0.1:", port),
       "--local-address", "127.0.0.2", "--local-as", "4200000002", "--prepend-own-as",
       "--next-hop-self", "--synthetic", "100", "--linger", "--quiet"});
  ASSERT_TRUE(replay);

  // RFC 3164, facility daemon, severity info (30); the line's fields after the message.
  auto established = syslog.WaitFor({"sluice-bgp[", "Established", "peer=127.0.0.2"}, 60);
  ASSERT_TRUE(established) << syslog.Dump() << r.Logs("bgp") << replay->Output();
  EXPECT_THAT(*established, ::testing::StartsWith("<30>"));
  EXPECT_THAT(*established, HasSubstr("level=info proc=bgp msg=\"peer 127.0.0.2 AS4200000002 "
                                      "Established"));
  EXPECT_THAT(*established, HasSubstr(" as=4200000002"));
  // Nothing went to the log file instead.
  EXPECT_THAT(r.Logs("bgp"), ::testing::Not(HasSubstr("Established")));

  // At info, the refused connection is not reported; after `set log level debug bgp` it is.
  ConnectFromPeerAddress(port);
  CommandResult set = r.Sluice({"set", "log", "level", "debug", "bgp"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_THAT(set.out, HasSubstr("bgp: log level debug"));
  ASSERT_TRUE(syslog.WaitFor({"sluice-bgp[", "log level info -> debug"}, 30)) << syslog.Dump();
  ConnectFromPeerAddress(port);
  auto debug = syslog.WaitFor({"sluice-bgp[", "level=debug", "connection refused"}, 30);
  ASSERT_TRUE(debug) << syslog.Dump();
  EXPECT_THAT(*debug, ::testing::StartsWith("<31>"));
  // Datagrams from one process arrive in order: no debug line came before the change.
  bool changed = false;
  for (const std::string& line : syslog.received()) {
    if (line.find("sluice-bgp[") == std::string::npos) continue;
    changed |= line.find("log level info -> debug") != std::string::npos;
    if (!changed) {
      EXPECT_THAT(line, ::testing::Not(HasSubstr("level=debug"))) << line;
    }
  }
  // The other processes stay at info.
  for (const std::string& line : syslog.received()) {
    if (line.find("sluice-bgp[") != std::string::npos) continue;
    EXPECT_THAT(line, ::testing::Not(HasSubstr("level=debug"))) << line;
  }
  // A reload that gives the RIB its own level: applied at once, nothing restarts.
  const std::string next =
      r.WriteConfig("next.conf", Config(port, syslog.path(), "rib { log { level debug; } }"));
  CommandResult loaded = r.Sluice({"configure", "load", next});
  ASSERT_EQ(loaded.exit_code, 0) << loaded.err;
  EXPECT_THAT(loaded.out, HasSubstr("log: rib level info -> debug"));
  EXPECT_TRUE(syslog.WaitFor({"sluice-rib[", "log level info -> debug"}, 30)) << syslog.Dump();
  int restarts = -1;
  r.ChildPid("rib", &restarts);
  EXPECT_EQ(restarts, 0);

  // Without PROCESS: every running process; sluice-static and sluice-rpki do not run here.
  CommandResult all = r.Sluice({"set", "log", "level", "info"});
  EXPECT_EQ(all.exit_code, 0) << all.err;
  for (const char* p : {"rtrmgr", "fea", "rib", "bgp"}) {
    EXPECT_THAT(all.out, HasSubstr(absl::StrCat(p, ": log level info\n"))) << all.out;
  }
  EXPECT_THAT(all.out, ::testing::Not(HasSubstr("rpki"))) << all.out;

  CommandResult bad = r.Sluice({"set", "log", "level", "loud"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("unknown level loud"));
  replay->Signal(SIGTERM);
  replay->Wait(10000);
}

}  // namespace
}  // namespace sluice::testing
