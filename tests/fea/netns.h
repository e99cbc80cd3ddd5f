#pragma once
// Kernel tests run in a private network namespace made by the test process itself, so they
// never touch the host's network configuration. Call EnterPrivateNetworkNamespace() first thing
// in main(), before any thread exists (a namespace belongs to the thread that unshares; threads
// and children created later inherit it). Tests then call KernelSkipReason() and GTEST_SKIP()
// with it when it is not empty.

#include <set>
#include <string>

namespace sluice::fea::testing {

// Unshares the network namespace (needs root) and brings up its loopback. On failure the
// reason is kept for KernelSkipReason(); nothing else is done.
void EnterPrivateNetworkNamespace();
// Empty when the process is in a private namespace of its own; else why not.
const std::string& KernelSkipReason();

struct CommandResult {
  int status = -1;     // exit status; -1 if it did not run
  std::string output;  // stdout and stderr
};
// Runs `command` with /bin/sh (only ever after a successful EnterPrivateNetworkNamespace).
CommandResult Run(const std::string& command);
// Runs `command` and fails the current test (ADD_FAILURE) when it exits non-zero.
std::string MustRun(const std::string& command);

// The prefixes `ip [-6] route show table TABLE proto PROTO` lists, normalised ("10.0.0.1/32",
// "0.0.0.0/0"), IPv4 and IPv6.
std::set<std::string> KernelPrefixes(unsigned table, unsigned protocol);
// The full lines of `ip route show table TABLE` and `ip -6 route show table TABLE`.
std::string KernelTable(unsigned table);

}  // namespace sluice::fea::testing
