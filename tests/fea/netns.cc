#include "tests/fea/netns.h"

#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "gtest/gtest.h"
#include "net/prefix.h"

namespace sluice::fea::testing {

namespace {

std::string& Reason() {
  static std::string reason = "EnterPrivateNetworkNamespace() was not called";
  return reason;
}

bool NamespaceInode(ino_t* inode) {
  struct stat st;
  if (stat("/proc/self/ns/net", &st) != 0) return false;
  *inode = st.st_ino;
  return true;
}

}  // namespace

void EnterPrivateNetworkNamespace() {
  if (geteuid() != 0) {
    Reason() = "kernel tests need root (they run in a private network namespace)";
    return;
  }
  ino_t before = 0, after = 0;
  if (!NamespaceInode(&before)) {
    Reason() = "no /proc/self/ns/net: network namespaces unavailable";
    return;
  }
  if (unshare(CLONE_NEWNET) != 0) {
    Reason() = std::string("unshare(CLONE_NEWNET) failed: ") + strerror(errno);
    return;
  }
  if (!NamespaceInode(&after) || after == before) {
    Reason() = "unshare(CLONE_NEWNET) did not give a new network namespace";
    return;
  }
  Reason().clear();
  CommandResult lo = Run("ip link set lo up");
  if (lo.status != 0) Reason() = "cannot bring up lo in the private namespace: " + lo.output;
}

const std::string& KernelSkipReason() { return Reason(); }

CommandResult Run(const std::string& command) {
  CommandResult result;
  if (!Reason().empty()) {
    result.output = "refused to run outside a private network namespace: " + command;
    return result;
  }
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) result.output.append(buf, n);
  int status = pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string MustRun(const std::string& command) {
  CommandResult r = Run(command);
  if (r.status != 0) {
    ADD_FAILURE() << "command failed (" << r.status << "): " << command << "\n" << r.output;
  }
  return r.output;
}

std::set<std::string> KernelPrefixes(unsigned table, unsigned protocol) {
  std::set<std::string> prefixes;
  for (const char* family : {"-4", "-6"}) {
    const std::string command = std::string("ip ") + family + " route show table " +
                                std::to_string(table) + " proto " + std::to_string(protocol);
    CommandResult r = Run(command);
    // A table nothing was ever put in does not exist yet (IPv6): empty.
    if (r.status != 0 && r.output.find("FIB table does not exist") != std::string::npos) continue;
    if (r.status != 0)
      ADD_FAILURE() << "command failed (" << r.status << "): " << command << "\n" << r.output;
    const std::string& out = r.output;
    std::istringstream lines(out);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.empty() || line[0] == ' ' || line[0] == '\t') continue;  // nexthop lines
      std::string first = line.substr(0, line.find(' '));
      if (first == "default") first = family[1] == '4' ? "0.0.0.0/0" : "::/0";
      if (first.find('/') == std::string::npos) first += family[1] == '4' ? "/32" : "/128";
      auto p = net::Prefix::Parse(first);
      prefixes.insert(p.ok() ? p->ToString() : "unparsed: " + line);
    }
  }
  return prefixes;
}

std::string KernelTable(unsigned table) {
  return MustRun("ip -4 route show table " + std::to_string(table) + "; ip -6 route show table " +
                 std::to_string(table));
}

}  // namespace sluice::fea::testing
