#include "tests/system/rtrmgr_processes.h"

#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <thread>

#include "ipc/methods/rtrmgr.h"
#include "ipc/types_convert.h"
#include "rtrmgr/cli/queries.h"

namespace sluice::testing {

bool Eventually(const std::function<bool()>& done, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

bool ServiceUserCannotReachBuild() {
  if (geteuid() != 0 || getpwnam("sluice") == nullptr) return false;
  const std::string program = std::filesystem::absolute(BuildPath("finder/sluice-finder"));
  return RunCommand({"/usr/sbin/runuser", "-u", "sluice", "--", "/usr/bin/test", "-x", program}, {},
                    10000)
             .exit_code != 0;
}

RtrmgrProcess::RtrmgrProcess() {
  char dir[] = "/tmp/sluice-rtrmgr-test.XXXXXX";
  rundir_ = mkdtemp(dir);
}

RtrmgrProcess::~RtrmgrProcess() {
  client_.reset();
  Stop();
  std::error_code ec;
  std::filesystem::remove_all(rundir_, ec);
}

std::string RtrmgrProcess::WriteConfig(const std::string& name, const std::string& text) {
  const std::string path = rundir_ + "/" + name;
  std::ofstream(path) << text;
  return path;
}

bool RtrmgrProcess::Start(const std::string& path, int ms) {
  std::vector<std::string> argv = {BuildPath("rtrmgr/process/sluice-rtrmgr"), "--config", path,
                                   "--rundir", rundir_};
  static const bool as_root = ServiceUserCannotReachBuild();
  if (as_root) {
    std::cerr << "note: user sluice cannot execute the programs under " << BuildPath("")
              << " (a directory above it is not searchable by sluice); the router's processes "
                 "run as root in this test\n";
    argv.insert(argv.end(), {"--user", "root"});
  }
  rtrmgr_ = ChildProcess::Start(argv);
  return rtrmgr_ != nullptr && rtrmgr_->WaitForOutput("ready", ms);
}

std::optional<int> RtrmgrProcess::Stop(int ms) {
  if (!rtrmgr_) return std::nullopt;
  rtrmgr_->Signal(SIGTERM);
  return rtrmgr_->Wait(ms);
}

CommandResult RtrmgrProcess::Sluice(std::vector<std::string> args, int ms) {
  args.insert(args.begin(), {BuildPath("rtrmgr/cli/sluice"), "--finder", finder()});
  return RunCommand(args, {}, ms);
}

int RtrmgrProcess::ChildPid(const std::string& name, int* restarts) {
  auto r =
      client().Call("rtrmgr", ipc::methods::rtrmgr::kGetStatus, rtrmgr::v1::GetStatusRequest());
  if (!r.ok()) return 0;
  for (const auto& c : r->children()) {
    if (c.name() != name) continue;
    if (restarts != nullptr) *restarts = static_cast<int>(c.restarts());
    return c.pid();
  }
  return 0;
}

rtrmgr::cli::SyncClient& RtrmgrProcess::client() {
  if (!client_) client_ = std::make_unique<rtrmgr::cli::SyncClient>(finder(), 30000, "test");
  return *client_;
}

std::optional<std::set<net::Prefix>> RtrmgrProcess::FibPrefixes(const std::string& protocol) {
  auto routes = rtrmgr::cli::AllFibRoutes(client());
  if (!routes.ok()) return std::nullopt;
  std::set<net::Prefix> out;
  for (const auto& r : *routes) {
    if (!protocol.empty() && r.protocol() != protocol) continue;
    if (auto p = ipc::FromProto(r.network()); p.ok()) out.insert(*p);
  }
  return out;
}

std::optional<std::set<net::Prefix>> RtrmgrProcess::RibPrefixes(const std::string& protocol) {
  std::set<net::Prefix> out;
  for (const char* family : {"ipv4", "ipv6"}) {
    auto routes = rtrmgr::cli::AllRibRoutes(client(), family);
    if (!routes.ok()) return std::nullopt;
    for (const auto& r : *routes) {
      if (!protocol.empty() && r.protocol() != protocol) continue;
      if (auto p = ipc::FromProto(r.network()); p.ok()) out.insert(*p);
    }
  }
  return out;
}

std::optional<std::set<net::Prefix>> RtrmgrProcess::LocRibPrefixes() {
  std::set<net::Prefix> out;
  for (const char* family : {"ipv4", "ipv6"}) {
    auto routes = rtrmgr::cli::AllBgpRoutes(client(), bgp::v1::LOC_RIB, "", family);
    if (!routes.ok()) return std::nullopt;
    for (const auto& r : *routes) {
      if (auto p = ipc::FromProto(r.network()); p.ok()) out.insert(*p);
    }
  }
  return out;
}

std::string RtrmgrProcess::Logs(const std::string& name) {
  std::ifstream in(rundir_ + "/" + name + ".log");
  std::stringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  return text.size() > 4000 ? text.substr(text.size() - 4000) : text;
}

}  // namespace sluice::testing
