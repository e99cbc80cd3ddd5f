#pragma once
// RtrmgrProcess: sluice-rtrmgr started by a system test in a private run directory, with its
// configuration written by the test, and typed reads of what its processes hold (through
// rtrmgr/cli/queries.h).
//
//   RtrmgrProcess r;
//   r.WriteConfig("main.conf", "protocols { bgp { ... } }");
//   ASSERT_TRUE(r.Start("main.conf"));          // waits for "ready"
//   r.Sluice({"show", "route"});
//   r.FibPrefixes("ebgp");
//
// The destructor sends SIGTERM (the router manager stops its processes) and waits.

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "net/prefix.h"
#include "rtrmgr/cli/sync_client.h"
#include "tests/system/child_process.h"

namespace sluice::testing {

class RtrmgrProcess {
 public:
  RtrmgrProcess();
  ~RtrmgrProcess();

  const std::string& rundir() const { return rundir_; }
  std::string finder() const { return "unix:" + rundir_ + "/finder.sock"; }
  // Writes RUNDIR/name and returns its path.
  std::string WriteConfig(const std::string& name, const std::string& text);
  // Starts sluice-rtrmgr --config PATH; true once it printed "ready" (within `ms`). Its processes
  // run as `sluice` when we are root, or as root when ServiceUserCannotReachBuild().
  bool Start(const std::string& path, int ms = 60000);
  ChildProcess* process() { return rtrmgr_.get(); }
  // SIGTERM and the exit status (nullopt: still running after `ms`).
  std::optional<int> Stop(int ms = 30000);

  CommandResult Sluice(std::vector<std::string> args, int ms = 60000);
  // The pid of a child ("fea", "rib", "bgp", "finder") and its restart count (`sluice show
  // processes --json`); 0 / -1 when unknown.
  int ChildPid(const std::string& name, int* restarts = nullptr);

  rtrmgr::cli::SyncClient& client();
  // Prefixes of the FIB (or the RIB's winners, ipv4 and ipv6) whose protocol is `protocol`
  // ("" for all); nullopt when a call failed.
  std::optional<std::set<net::Prefix>> FibPrefixes(const std::string& protocol);
  std::optional<std::set<net::Prefix>> RibPrefixes(const std::string& protocol);
  std::optional<std::set<net::Prefix>> LocRibPrefixes();
  std::string Logs(const std::string& name);  // RUNDIR/NAME.log

 private:
  std::string rundir_;
  std::unique_ptr<ChildProcess> rtrmgr_;
  std::unique_ptr<rtrmgr::cli::SyncClient> client_;
};

// True when we are root, user `sluice` exists and cannot execute the build's programs (a
// checkout under a directory it cannot search, such as a mktemp -d folder or /root). The router
// manager would refuse to start its processes as `sluice` then; RtrmgrProcess starts it with
// --user root instead and says so, and tests of the privilege model skip.
bool ServiceUserCannotReachBuild();

// Polls `done` every 50 ms until it holds or `seconds` pass.
bool Eventually(const std::function<bool()>& done, double seconds = 30);

}  // namespace sluice::testing
