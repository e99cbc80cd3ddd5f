#pragma once
// Hosts for system tests of one control plane feeding forwarding engines elsewhere (DESIGN.md §
// Processes; the multistage router of Bianco et al.): the test process is host A, in a private
// network namespace of its own (fea::testing::EnterPrivateNetworkNamespace, root), with a bridge
// br0 at 10.0.0.1/24. Each further host is a network and a UTS namespace (its host name the name
// of its FEA) held by a process of its own (so that it and its kernel table outlive the FEA in
// it), joined to br0 by a veth pair (its end eth0 at `address`), with a veth pair d0
// (10.9.0.1/24) ─ d1, so that 10.9.0.2 is a nexthop its kernel can install routes through.
//
//   StartBridge();
//   NetnsHost b;
//   ASSERT_NO_FATAL_FAILURE(StartHost(b, "fea-b", "10.0.0.2", "vb"));
//   b.fea = ChildProcess::Start(b.Nsenter({BuildPath("fea/sluice-fea"), ...}), env);
//   KernelRoutes(b);  // Sluice's routes in table 100 of b's kernel

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "tests/system/child_process.h"

namespace sluice::testing {

struct NetnsHost {
  std::string fea_name;  // the instance name its FEA registers as ("fea-b")
  std::string address;   // on the bridge ("10.0.0.2")
  std::unique_ptr<ChildProcess> holder;
  std::unique_ptr<ChildProcess> fea;
  std::string pid() const { return std::to_string(holder->pid()); }
  // `argv` run in the host's namespaces (nsenter).
  std::vector<std::string> Nsenter(std::vector<std::string> argv) const;
  // `command` run by /bin/sh in the host's namespace; its output. A failure fails the test.
  std::string In(const std::string& command) const;
};

// br0 at 10.0.0.1/24 in this process's namespace.
void StartBridge();
// Removes br0 (the hosts' veth ends go with their namespaces).
void StopBridge();
// Starts `h`: its namespaces (host name `fea_name`), eth0 at `address`/24 on br0 (A's end named
// `veth`), d0 and d1.
void StartHost(NetnsHost& h, const std::string& fea_name, const std::string& address,
               const std::string& veth);
// The argv of a netlink sluice-fea for `h`: kernel table 100, the Finder at `finder`, serving
// on tcp:ADDRESS:0, and no --instance: it registers as its host's name, `h.fea_name`.
std::vector<std::string> NetlinkFeaArgv(const NetnsHost& h, const std::string& finder);
// A prefix as `ip route` prints it ("default", "192.0.2.1", "10.0.0.0/24") as
// net::Prefix::ToString does ("0.0.0.0/0", "192.0.2.1/32", "10.0.0.0/24").
std::string KernelPrefix(absl::string_view word);
// `ip monitor route` in `h`'s namespace, once it listens (it has seen a route of table 101 that
// this adds and removes). Its output: one line per route change, "Deleted ..." for removals.
std::unique_ptr<ChildProcess> MonitorRoutes(const NetnsHost& h);
// The lines of a MonitorRoutes output about table 100, the removals and the others.
struct RouteEvents {
  std::vector<std::string> deleted, added;
};
RouteEvents Table100Events(const std::string& monitor_output);
// The prefixes of Sluice's routes (protocol 83) in table 100 of `h`'s kernel, as
// net::Prefix::ToString prints them ("10.0.0.0/24", "192.0.2.1/32", "0.0.0.0/0").
std::set<std::string> KernelRoutes(const NetnsHost& h);

}  // namespace sluice::testing
