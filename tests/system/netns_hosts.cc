#include "tests/system/netns_hosts.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tests/fea/netns.h"

namespace sluice::testing {

using fea::testing::MustRun;

std::vector<std::string> NetnsHost::Nsenter(std::vector<std::string> argv) const {
  std::vector<std::string> out = {"/usr/bin/nsenter", "-t", pid(), "-n", "-u"};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

std::string NetnsHost::In(const std::string& command) const {
  return MustRun(absl::StrCat("nsenter -t ", pid(), " -n /bin/sh -c '", command, "'"));
}

void StartBridge() {
  MustRun("ip link add br0 type bridge && ip addr add 10.0.0.1/24 dev br0 && ip link set br0 up");
}

void StopBridge() { fea::testing::Run("ip link del br0"); }

void StartHost(NetnsHost& h, const std::string& fea_name, const std::string& address,
               const std::string& veth) {
  h.fea_name = fea_name;
  h.address = address;
  h.holder = ChildProcess::Start({"/usr/bin/unshare", "-n", "-u", "/bin/sh", "-c",
                                  absl::StrCat("ip link set lo up && hostname ", fea_name,
                                               " && echo up && exec sleep 100000")});
  ASSERT_TRUE(h.holder && h.holder->WaitForOutput("up", 5000));
  MustRun(absl::StrCat("ip link add ", veth, " type veth peer name eth0 netns ", h.pid(),
                       " && ip link set ", veth, " master br0 && ip link set ", veth, " up"));
  h.In(absl::StrCat("ip addr add ", address, "/24 dev eth0 && ip link set eth0 up && ",
                    "ip link add d0 type veth peer name d1 && ip addr add 10.9.0.1/24 dev d0 && ",
                    "ip link set d1 up && ip link set d0 up"));
}

std::vector<std::string> NetlinkFeaArgv(const NetnsHost& h, const std::string& finder) {
  // No --instance: an FEA whose Finder is on TCP is named after its host.
  return h.Nsenter({BuildPath("fea/sluice-fea"), "--backend", "netlink", "--table", "100",
                    "--finder", finder, "--listen", absl::StrCat("tcp:", h.address, ":0")});
}

std::string KernelPrefix(absl::string_view word) {
  if (word == "default") return "0.0.0.0/0";
  // A host route comes without its length.
  return absl::StrCat(word, absl::StrContains(word, '/') ? "" : "/32");
}

std::unique_ptr<ChildProcess> MonitorRoutes(const NetnsHost& h) {
  // A large socket buffer: a full push may change thousands of routes at once.
  // Its errors go to stdout too, which ChildProcess keeps.
  auto monitor = ChildProcess::Start(h.Nsenter({"/bin/sh", "-c", "exec \"$0\" \"$@\" 2>&1", "ip",
                                                "-rcvbuf", "67108864", "monitor", "route"}));
  if (!monitor) return nullptr;
  // Added and removed each time: the kernel says nothing of a replace that changes nothing.
  const std::string marker = "192.0.2.0/24 dev lo table 101";
  for (int i = 0; i < 60 && !absl::StrContains(monitor->Output(), "192.0.2.0/24"); ++i) {
    h.In(absl::StrCat("ip route replace ", marker, " && ip route del ", marker));
    monitor->WaitForOutput("192.0.2.0/24", 500);  // up to 30 s on a busy machine
  }
  if (absl::StrContains(monitor->Output(), "192.0.2.0/24")) return monitor;
  ADD_FAILURE() << "ip monitor route did not see a route change within 30 s: " << monitor->Output();
  return nullptr;
}

RouteEvents Table100Events(const std::string& monitor_output) {
  RouteEvents events;
  for (absl::string_view line : absl::StrSplit(monitor_output, '\n', absl::SkipEmpty())) {
    if (!absl::StrContains(line, "table 100")) continue;
    (absl::StartsWith(line, "Deleted") ? events.deleted : events.added).emplace_back(line);
  }
  return events;
}

std::set<std::string> KernelRoutes(const NetnsHost& h) {
  CommandResult r = RunCommand(
      h.Nsenter({"ip", "-4", "route", "show", "table", "100", "proto", "83"}), {}, 60000);
  std::set<std::string> out;
  for (absl::string_view line : absl::StrSplit(r.out, '\n', absl::SkipEmpty())) {
    out.insert(KernelPrefix(line.substr(0, line.find(' '))));
  }
  return out;
}

}  // namespace sluice::testing
