// sluice-rpki against stayrtr (Debian), a real RTR cache, on loopback: a sluice-finder, the
// sluice-rpki program and the `sluice` CLI. The VRPs of a file stayrtr serves arrive whole; an
// edit of the file (stayrtr re-reads it every second and sends Serial Notify) arrives within
// seconds; when stayrtr stops the VRPs stay (checked for 10 s); a restarted stayrtr (a new
// session id) is followed by a Reset Query that leaves the set as it was.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "tests/system/fea_rib_processes.h"

namespace sluice {
namespace {

using testing::BuildPath;
using testing::ChildProcess;
using testing::FeaRibProcesses;
using ::testing::HasSubstr;

constexpr char kStayrtr[] = "/usr/bin/stayrtr";

class RpkiStayrtrTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(kStayrtr, X_OK) != 0) {
      GTEST_SKIP() << kStayrtr << " is not installed (Debian package stayrtr)";
    }
    port_ = testing::FreeTcpPort();
    vrps_ = p_.rundir() + "/vrps.json";
    ASSERT_TRUE(p_.StartFinder());
  }
  void WriteVrps(const std::string& roas) {
    std::ofstream(vrps_ + ".new") << "{\"roas\":[" << roas << "]}\n";
    std::rename((vrps_ + ".new").c_str(), vrps_.c_str());
  }
  std::unique_ptr<ChildProcess> StartStayrtr() {
    return ChildProcess::Start({kStayrtr, "-cache", vrps_, "-bind",
                                absl::StrCat("127.0.0.1:", port_), "-checktime=false",
                                "-metrics.addr", "", "-refresh", "1"});
  }
  // The union's size and the cache's state from rpki/1.0/get_status ("" when the call fails).
  std::string Status() { return p_.Call("finder://rpki/rpki/1.0/get_status").out; }
  std::string Vrps() { return p_.Call("finder://rpki/rpki/1.0/list_vrps").out; }

  FeaRibProcesses p_;
  int port_ = 0;
  std::string vrps_;
};

TEST_F(RpkiStayrtrTest, VrpsArriveChangeAndOutliveTheCache) {
  WriteVrps(R"({"prefix":"192.0.2.0/24","maxLength":24,"asn":"AS64496"},
               {"prefix":"198.51.100.0/22","maxLength":24,"asn":"AS64497"},
               {"prefix":"2001:db8::/32","maxLength":48,"asn":"AS64498"})");
  auto stayrtr = StartStayrtr();
  ASSERT_NE(stayrtr, nullptr);
  auto rpki = ChildProcess::Start(
      {BuildPath("rpki/sluice-rpki"), "--cache", absl::StrCat("127.0.0.1:", port_, "/1")},
      p_.Env());
  ASSERT_TRUE(rpki->WaitForOutput("ready rpki", 20000));
  ASSERT_TRUE(FeaRibProcesses::WaitFor([&] {
    const std::string s = Status();
    return s.find("state:txt=established") != std::string::npos &&
           s.find("vrps_ipv4:u64=2&vrps_ipv6:u64=1") != std::string::npos;
  })) << Status();
  EXPECT_THAT(Vrps(), HasSubstr("prefix:ipvxnet=2001:db8::/32&max_length:u32=48&asn:u32=64498"));

  // An edit: one VRP's maxLength changes, an AS 0 VRP arrives.
  WriteVrps(R"({"prefix":"192.0.2.0/24","maxLength":25,"asn":"AS64496"},
               {"prefix":"198.51.100.0/22","maxLength":24,"asn":"AS64497"},
               {"prefix":"203.0.113.0/24","maxLength":24,"asn":"AS0"},
               {"prefix":"2001:db8::/32","maxLength":48,"asn":"AS64498"})");
  ASSERT_TRUE(FeaRibProcesses::WaitFor(
      [&] { return Vrps().find("192.0.2.0/24&max_length:u32=25") != std::string::npos; }, 15000))
      << Vrps();
  const std::string before = Vrps();
  EXPECT_THAT(before, HasSubstr("203.0.113.0/24&max_length:u32=24&asn:u32=0"));
  EXPECT_THAT(before, ::testing::Not(HasSubstr("192.0.2.0/24&max_length:u32=24&")));

  // The cache stops: the VRPs stay.
  stayrtr->Signal(SIGTERM);
  stayrtr->Wait(10000);
  ASSERT_TRUE(FeaRibProcesses::WaitFor(
      [&] { return Status().find("connected:bool=false") != std::string::npos; }));
  for (int i = 0; i < 10; ++i) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    ASSERT_EQ(Vrps(), before) << "after " << i + 1 << " s without the cache";
  }

  // It comes back with a new session id: a Reset Query, and the same set.
  stayrtr = StartStayrtr();
  ASSERT_TRUE(FeaRibProcesses::WaitFor(
      [&] { return Status().find("state:txt=established") != std::string::npos; }, 30000))
      << Status();
  EXPECT_EQ(Vrps(), before);
}

}  // namespace
}  // namespace sluice
