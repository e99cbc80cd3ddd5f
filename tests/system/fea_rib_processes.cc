#include "tests/system/fea_rib_processes.h"

#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ipc/xrl_args.h"

namespace sluice::testing {

FeaRibProcesses::FeaRibProcesses() {
  char dir[] = "/tmp/sluice-procs-XXXXXX";
  if (mkdtemp(dir) != nullptr) rundir_ = dir;
}

FeaRibProcesses::~FeaRibProcesses() {
  rib_.reset();
  fea_.reset();
  others_.clear();
  finder_.reset();
  if (!rundir_.empty()) std::filesystem::remove_all(rundir_);
}

std::vector<std::string> FeaRibProcesses::Env() const {
  return {"SLUICE_RUNDIR=" + rundir_, "SLUICE_FINDER=unix:" + rundir_ + "/finder.sock"};
}

bool FeaRibProcesses::WaitFor(const std::function<bool()>& done, int ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return done();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

CommandResult FeaRibProcesses::Sluice(std::vector<std::string> args, int ms) {
  args.insert(args.begin(), BuildPath("rtrmgr/cli/sluice"));
  return RunCommand(args, Env(), ms);
}

CommandResult FeaRibProcesses::Call(const std::string& xrl) { return Sluice({"call", xrl}); }

std::string FeaRibProcesses::Status(const std::string& target) {
  CommandResult r = Call("finder://" + target + "/common/1.0/get_status");
  if (r.exit_code != 0) return "";
  // "status:txt=READY&reason:txt=..." — enums print as text.
  auto args = ipc::XrlArgs::Parse(r.out.substr(0, r.out.find('\n')));
  if (!args.ok()) return "";
  const ipc::XrlAtom* status = args->Find("status");
  return status == nullptr ? "" : status->value().ToString();
}

bool FeaRibProcesses::StartFinder() {
  // The Finder logs every registration, each CLI call's included: warnings only.
  std::vector<std::string> env = Env();
  env.push_back("SLUICE_LOG_LEVEL=warning");
  finder_ = ChildProcess::Start({BuildPath("finder/sluice-finder"), "--grace-ms", "200"}, env);
  if (finder_ == nullptr) return false;
  if (WaitFor([&] { return Sluice({"targets"}, 5000).exit_code == 0; }, 10000)) return true;
  std::cerr << "the Finder did not start\n";
  return false;
}

bool FeaRibProcesses::StartOtherFea(const std::string& instance, std::vector<std::string> args) {
  args.insert(args.begin(), {BuildPath("fea/sluice-fea"), "--instance", instance});
  std::unique_ptr<ChildProcess>& process = others_[instance];
  process = ChildProcess::Start(args, Env());
  if (process == nullptr) return false;
  if (WaitFor([&] { return Status(instance) == "READY"; })) return true;
  std::cerr << "sluice-fea " << instance << " did not become READY\n";
  return false;
}

bool FeaRibProcesses::StartFea(std::vector<std::string> args) {
  args.insert(args.begin(), BuildPath("fea/sluice-fea"));
  fea_ = ChildProcess::Start(args, Env());
  if (fea_ == nullptr) return false;
  if (WaitFor([&] { return Status("fea") == "READY"; })) return true;
  std::cerr << "sluice-fea did not become READY\n";
  return false;
}

bool FeaRibProcesses::StartRib(std::vector<std::string> args) {
  args.insert(args.begin(), BuildPath("rib/sluice-rib"));
  rib_ = ChildProcess::Start(args, Env());
  if (rib_ == nullptr) return false;
  if (WaitFor([&] {
        std::string s = Status("rib");
        return s == "READY" || s == "NOT_READY";
      })) {
    return true;
  }
  std::cerr << "sluice-rib did not register\n";
  return false;
}

std::optional<int> FeaRibProcesses::Stop(std::unique_ptr<ChildProcess>& process, int signal,
                                         int ms) {
  if (process == nullptr) return std::nullopt;
  process->Signal(signal);
  return process->Wait(ms);
}

namespace {

std::string RouteText(const ipc::XrlArgs& route) {
  std::string text;
  if (const ipc::XrlAtom* n = route.Find("network")) text = n->value().ipvxnet().ToString();
  if (const ipc::XrlAtom* nhs = route.Find("nexthops")) {
    for (const ipc::XrlValue& nh : nhs->list()) {
      if (const ipc::XrlAtom* gw = nh.msg().Find("gateway")) {
        absl::StrAppend(&text, " via ", gw->value().ipvx().ToString());
      }
      const ipc::XrlAtom* dev = nh.msg().Find("ifname");
      if (dev != nullptr && !dev->value().txt().empty()) {
        absl::StrAppend(&text, " dev ", dev->value().txt());
      }
    }
  }
  if (const ipc::XrlAtom* p = route.Find("protocol")) {
    absl::StrAppend(&text, " proto ", p->value().txt());
  }
  return text;
}

}  // namespace

std::vector<std::string> FeaRibProcesses::FibRoutes(bool* ok, const std::string& fea) {
  std::vector<std::string> routes;
  if (ok != nullptr) *ok = false;
  std::string after;
  while (true) {
    std::string xrl =
        absl::StrCat("finder://", fea, "/fea_fib/1.0/list_routes?max_routes:u32=100000");
    if (!after.empty()) absl::StrAppend(&xrl, "&start_after:ipvxnet=", after);
    CommandResult r = Call(xrl);
    if (r.exit_code != 0) {
      std::cerr << "list_routes: " << r.err;
      return {};
    }
    auto args = ipc::XrlArgs::Parse(r.out.substr(0, r.out.find('\n')));
    if (!args.ok()) {
      std::cerr << "list_routes reply: " << args.status() << "\n";
      return {};
    }
    if (const ipc::XrlAtom* list = args->Find("routes")) {
      for (const ipc::XrlValue& v : list->list()) {
        routes.push_back(RouteText(v.msg()));
        after = v.msg().Find("network")->value().ipvxnet().ToString();
      }
    }
    const ipc::XrlAtom* more = args->Find("more");
    if (more == nullptr || !more->value().boolean()) break;
  }
  if (ok != nullptr) *ok = true;
  return routes;
}

std::vector<std::string> FeaRibProcesses::RibRoutes(const std::string& family) {
  std::vector<std::string> routes;
  std::string after;
  while (true) {
    std::string xrl =
        "finder://rib/rib/1.0/list_routes?family:txt=" + family + "&max_routes:u32=100000";
    if (!after.empty()) absl::StrAppend(&xrl, "&start_after:ipvxnet=", after);
    CommandResult r = Call(xrl);
    if (r.exit_code != 0) return {};
    auto args = ipc::XrlArgs::Parse(r.out.substr(0, r.out.find('\n')));
    if (!args.ok()) return {};
    if (const ipc::XrlAtom* list = args->Find("routes")) {
      for (const ipc::XrlValue& v : list->list()) {
        after = v.msg().Find("network")->value().ipvxnet().ToString();
        const ipc::XrlAtom* p = v.msg().Find("protocol");
        routes.push_back(after + " " + (p ? p->value().txt() : ""));
      }
    }
    const ipc::XrlAtom* more = args->Find("more");
    if (more == nullptr || !more->value().boolean()) break;
  }
  return routes;
}

}  // namespace sluice::testing
