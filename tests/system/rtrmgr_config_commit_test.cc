// Safe configuration changes with real processes: sluice-rtrmgr applies `sluice configure load`
// all or nothing. A file that passes the parser but that a process refuses (here a BGP listen
// socket sluice-bgp cannot bind: the port is taken) exits 1 naming the refusal, and every
// process keeps the old configuration: the static route sluice-static took is taken back, the
// peer sluice-bgp added is removed, and `sluice show configuration` is unchanged. A load with
// `--confirm MINUTES` (fractional minutes keep the tests short) is rolled back unless `sluice
// configure confirm` follows. `sluice configure rollback N` applies an archived configuration.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "tests/system/rtrmgr_processes.h"

namespace sluice::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

net::Prefix P(const char* text) { return *net::Prefix::Parse(text); }

// A router with one static route and peers; `extra_listen` adds a second listen statement.
std::string Config(int port, const std::string& route, const std::string& peers,
                   const std::string& extra_listen = "") {
  return absl::StrCat(R"(
interfaces {
    interface eth0 { address 10.1.0.1/24; }
}
fea { backend dummy; }
protocols {
    static {
        route )",
                      route, R"( { next-hop 10.1.0.254; }
    }
    bgp {
        local-as 4200000001;
        bgp-id 10.255.0.1;
        listen 127.0.0.1 port )",
                      port, ";\n", extra_listen, peers, R"(
    }
}
)");
}

constexpr char kPeer2[] =
    "        peer 127.0.0.2 { as 4200000002; local-ip 127.0.0.1; passive; }\n";
constexpr char kPeer3[] =
    "        peer 127.0.0.3 { as 4200000003; local-ip 127.0.0.1; passive; }\n";

// A TCP socket listening on 127.0.0.1:PORT, so that nobody else can listen there.
class HeldPort {
 public:
  HeldPort() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd_, 1) != 0) return;
    socklen_t n = sizeof a;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &n);
    port_ = ntohs(a.sin_port);
  }
  ~HeldPort() { close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ConfigCommit : public ::testing::Test {
 protected:
  void SetUp() override {
    port_ = FreeTcpPort();
    const std::string conf = r_.WriteConfig("router.conf", Config(port_, "192.0.2.0/24", kPeer2));
    ASSERT_TRUE(r_.Start(conf)) << r_.Logs("rtrmgr");
    ASSERT_TRUE(Eventually([&] {
      auto rib = r_.RibPrefixes("static");
      return rib && rib->count(P("192.0.2.0/24"));
    })) << r_.Logs("rtrmgr");
  }
  std::string Peers() { return r_.Sluice({"show", "bgp", "peers"}).out; }
  std::string Shown() { return r_.Sluice({"show", "configuration"}).out; }

  RtrmgrProcess r_;
  int port_ = 0;
};

TEST_F(ConfigCommit, ARefusedDeltaChangesNoProcessAndExitsOne) {
  const std::string before = Shown();
  ASSERT_THAT(before, HasSubstr("192.0.2.0/24"));
  const std::string saved = ReadFile(r_.rundir() + "/rtrmgr/running.conf");
  HeldPort taken;
  ASSERT_GT(taken.port(), 0);
  // A new route for sluice-static, a new peer for sluice-bgp, and a listen it cannot bind.
  const std::string next = r_.WriteConfig(
      "next.conf", Config(port_, "198.51.100.0/24", absl::StrCat(kPeer2, kPeer3),
                          absl::StrCat("        listen 127.0.0.1 port ", taken.port(), ";\n")));
  CommandResult refused = r_.Sluice({"configure", "load", next});
  EXPECT_EQ(refused.exit_code, 1) << refused.out;
  EXPECT_THAT(refused.err, HasSubstr(absl::StrCat("sluice-bgp refused bgp listen 127.0.0.1")));
  EXPECT_THAT(refused.err, HasSubstr(absl::StrCat(taken.port())));
  EXPECT_THAT(refused.err, HasSubstr("running configuration stays"));

  // Every process runs the old configuration.
  EXPECT_EQ(Shown(), before);
  EXPECT_EQ(ReadFile(r_.rundir() + "/rtrmgr/running.conf"), saved);
  auto rib = r_.RibPrefixes("static");
  ASSERT_TRUE(rib);
  EXPECT_EQ(*rib, std::set<net::Prefix>{P("192.0.2.0/24")});
  const std::string peers = Peers();
  EXPECT_THAT(peers, HasSubstr("127.0.0.2"));
  EXPECT_THAT(peers, Not(HasSubstr("127.0.0.3")));

  // Without the refused part the same change goes through.
  const std::string good =
      r_.WriteConfig("good.conf", Config(port_, "198.51.100.0/24", absl::StrCat(kPeer2, kPeer3)));
  CommandResult loaded = r_.Sluice({"configure", "load", good});
  EXPECT_EQ(loaded.exit_code, 0) << loaded.err;
  EXPECT_THAT(Peers(), HasSubstr("127.0.0.3"));
  EXPECT_THAT(Shown(), HasSubstr("198.51.100.0/24"));
  rib = r_.RibPrefixes("static");
  ASSERT_TRUE(rib);
  EXPECT_EQ(*rib, std::set<net::Prefix>{P("198.51.100.0/24")});
}

TEST_F(ConfigCommit, AnUnconfirmedLoadIsRolledBack) {
  const std::string before = Shown();
  const std::string next =
      r_.WriteConfig("next.conf", Config(port_, "192.0.2.0/24", absl::StrCat(kPeer2, kPeer3)));
  // 0.02 minutes: 1.2 seconds.
  CommandResult loaded = r_.Sluice({"configure", "load", next, "--confirm", "0.02"});
  ASSERT_EQ(loaded.exit_code, 0) << loaded.err;
  EXPECT_THAT(loaded.err, HasSubstr("unless `sluice configure confirm` follows"));
  // Exit 0: every process took the new peer.
  EXPECT_THAT(loaded.out, HasSubstr("peer 127.0.0.3 added"));
  ASSERT_TRUE(Eventually([&] { return Peers().find("127.0.0.3") == std::string::npos; }))
      << Peers();
  EXPECT_THAT(Peers(), HasSubstr("127.0.0.2"));
  ASSERT_TRUE(Eventually([&] { return Shown() == before; })) << Shown();
  EXPECT_THAT(r_.Sluice({"show", "processes"}).out, Not(HasSubstr("unconfirmed")));
  // Nothing waits any more.
  CommandResult late = r_.Sluice({"configure", "confirm"});
  EXPECT_EQ(late.exit_code, 1);
  EXPECT_THAT(late.err, HasSubstr("no configuration is waiting for confirmation"));
}

TEST_F(ConfigCommit, AConfirmedLoadStays) {
  const std::string next =
      r_.WriteConfig("next.conf", Config(port_, "192.0.2.0/24", absl::StrCat(kPeer2, kPeer3)));
  CommandResult loaded = r_.Sluice({"configure", "load", next, "--confirm", "10"});
  ASSERT_EQ(loaded.exit_code, 0) << loaded.err;
  EXPECT_THAT(r_.Sluice({"show", "processes"}).out, HasSubstr("unconfirmed: rolls back in"));
  EXPECT_THAT(Peers(), HasSubstr("127.0.0.3"));
  CommandResult confirmed = r_.Sluice({"configure", "confirm"});
  EXPECT_EQ(confirmed.exit_code, 0) << confirmed.err;
  EXPECT_THAT(r_.Sluice({"show", "processes"}).out, Not(HasSubstr("unconfirmed")));
  EXPECT_THAT(Peers(), HasSubstr("127.0.0.3"));
  EXPECT_THAT(Shown(), HasSubstr("127.0.0.3"));
}

TEST_F(ConfigCommit, BadConfirmTimesAreRefusedBeforeAnythingChanges) {
  const std::string before = Shown();
  const std::string next =
      r_.WriteConfig("next.conf", Config(port_, "192.0.2.0/24", absl::StrCat(kPeer2, kPeer3)));
  for (const char* minutes : {"0", "-1", "soon", "100000"}) {
    CommandResult bad = r_.Sluice({"configure", "load", next, "--confirm", minutes});
    EXPECT_EQ(bad.exit_code, 2) << minutes;
    EXPECT_THAT(bad.err, HasSubstr("want minutes")) << minutes;
  }
  EXPECT_EQ(Shown(), before);
}

TEST_F(ConfigCommit, RollbackOneReturnsThePreviousConfiguration) {
  const std::string before = Shown();
  const std::string next =
      r_.WriteConfig("next.conf", Config(port_, "198.51.100.0/24", absl::StrCat(kPeer2, kPeer3)));
  ASSERT_EQ(r_.Sluice({"configure", "load", next}).exit_code, 0);
  ASSERT_THAT(Peers(), HasSubstr("127.0.0.3"));
  const std::string after = Shown();

  CommandResult back = r_.Sluice({"configure", "rollback", "1"});
  EXPECT_EQ(back.exit_code, 0) << back.err;
  EXPECT_THAT(back.out, HasSubstr("peer 127.0.0.3 removed"));
  EXPECT_THAT(back.err, HasSubstr("the rollback is not in"));
  EXPECT_EQ(Shown(), before);
  EXPECT_THAT(Peers(), Not(HasSubstr("127.0.0.3")));
  auto rib = r_.RibPrefixes("static");
  ASSERT_TRUE(rib);
  EXPECT_EQ(*rib, std::set<net::Prefix>{P("192.0.2.0/24")});
  EXPECT_TRUE(std::filesystem::is_directory(r_.rundir() + "/rtrmgr/archive"));

  // The rollback is a commit of its own: rollback 1 again returns the loaded file's.
  EXPECT_EQ(r_.Sluice({"configure", "rollback"}).exit_code, 0);
  EXPECT_EQ(Shown(), after);

  // The archive holds the start, the load and the two rollbacks. Past its end, or past 19: an
  // error, and nothing changes.
  for (const char* n : {"7", "20"}) {
    CommandResult missing = r_.Sluice({"configure", "rollback", n});
    EXPECT_EQ(missing.exit_code, 1) << n;
    EXPECT_THAT(missing.err, HasSubstr("running configuration stays")) << n;
  }
  EXPECT_THAT(r_.Sluice({"configure", "rollback", "7"}).err, HasSubstr("holds 4 configurations"));
  EXPECT_EQ(Shown(), after);
}

}  // namespace
}  // namespace sluice::testing
