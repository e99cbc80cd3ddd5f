#pragma once
// FeaRibProcesses: a Finder, sluice-fea and sluice-rib started as real processes in a private
// SLUICE_RUNDIR, and the `sluice` CLI to talk to them — for the FEA's and the RIB's system
// tests and the RIB's benchmark.
//
//   FeaRibProcesses p;
//   ASSERT_TRUE(p.StartFinder());
//   ASSERT_TRUE(p.StartFea({"--backend", "dummy"}));
//   ASSERT_TRUE(p.StartRib());
//   auto r = p.Call("finder://rib/rib/1.0/add_route4?protocol:txt=static&...");
//   p.FibRoutes();   // "10.0.0.0/8 via 192.0.2.2 proto static", ... (fea_fib/1.0/list_routes)
//
// Every wait polls a condition (never a fixed sleep) and gives up after its limit. The
// destructor kills (SIGKILL) what still runs and removes the run directory.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tests/system/child_process.h"

namespace sluice::testing {

class FeaRibProcesses {
 public:
  FeaRibProcesses();
  ~FeaRibProcesses();
  FeaRibProcesses(const FeaRibProcesses&) = delete;
  FeaRibProcesses& operator=(const FeaRibProcesses&) = delete;

  const std::string& rundir() const { return rundir_; }
  // SLUICE_RUNDIR=... for child processes.
  std::vector<std::string> Env() const;

  // Each returns false (after printing why on stderr) when the process did not start or did not
  // reach its status in time.
  bool StartFinder();
  // Waits for common/1.0/get_status READY.
  bool StartFea(std::vector<std::string> args = {});
  // Waits until the RIB is registered (NOT_READY or READY).
  bool StartRib(std::vector<std::string> args = {});
  // Another sluice-fea, registered as `instance` (the RIB feeds every one); waits for READY.
  bool StartOtherFea(const std::string& instance, std::vector<std::string> args = {});
  ChildProcess* fea() { return fea_.get(); }
  std::unique_ptr<ChildProcess>& other_fea(const std::string& instance) {
    return others_[instance];
  }
  ChildProcess* rib() { return rib_.get(); }
  ChildProcess* finder() { return finder_.get(); }
  // Sends `signal` and waits up to `ms` for the exit; returns its status (nullopt: still running).
  std::optional<int> Stop(std::unique_ptr<ChildProcess>& process, int signal, int ms = 10000);
  std::unique_ptr<ChildProcess>& fea_process() { return fea_; }
  std::unique_ptr<ChildProcess>& rib_process() { return rib_; }

  // `sluice ARGS...` with this run directory.
  CommandResult Sluice(std::vector<std::string> args, int ms = 60000);
  // `sluice call XRL`.
  CommandResult Call(const std::string& xrl);
  // The status word of get_status ("READY", "NOT_READY", ...), or "" when the call failed.
  std::string Status(const std::string& target);

  // The FIB of FEA `fea` through fea_fib/1.0/list_routes (all pages), one line per route:
  // "PREFIX [via GATEWAY] [dev IFNAME] proto PROTOCOL". Empty with `*ok` false on a failure.
  std::vector<std::string> FibRoutes(bool* ok = nullptr, const std::string& fea = "fea");
  // The RIB's winners of `family` through rib/1.0/list_routes: "PREFIX PROTOCOL".
  std::vector<std::string> RibRoutes(const std::string& family = "ipv4");

  // Polls `done` every 20 ms until it holds or `ms` pass; returns done().
  static bool WaitFor(const std::function<bool()>& done, int ms = 20000);

 private:
  std::string rundir_;
  std::unique_ptr<ChildProcess> finder_;
  std::unique_ptr<ChildProcess> fea_;
  std::unique_ptr<ChildProcess> rib_;
  std::map<std::string, std::unique_ptr<ChildProcess>> others_;  // by instance
};

}  // namespace sluice::testing
