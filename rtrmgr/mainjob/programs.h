#pragma once
// Small helpers for programs that run Sluice's processes as children (the main job, the
// route-path benchmark): start a program with its stdout and stderr in files, see whether it
// still runs, stop it (SIGTERM, then SIGKILL), read what it wrote.

#include <sys/types.h>

#include <string>
#include <vector>

namespace sluice::rtrmgr::mainjob {

// The build tree this program runs from (it is BUILD/a/b/program).
std::string BuildDir();
// Starts argv[0] in a process group of its own, stdout to `out_file` (truncated), stderr
// appended to `err_file`. Returns the pid, or -1.
pid_t Spawn(const std::vector<std::string>& argv, const std::string& out_file,
            const std::string& err_file);
// True while `pid` runs (reaps it once it has ended).
bool Running(pid_t pid);
// SIGTERM, then SIGKILL after `seconds`; waits for the end.
void Stop(pid_t pid, double seconds);
std::string ReadFile(const std::string& path);
// The last `lines` lines of a file.
std::string Tail(const std::string& path, size_t lines);

// Root only, before any thread starts: moves this process (and the children it starts later)
// into a private network namespace of its own (unshare -n) with lo up and a veth pair v0/v1,
// v0 holding 10.1.0.1/24 (so 10.1.0.2 is a usable nexthop). The machine's own namespace and
// kernel FIB are never touched. False, with the reason on stderr, when it cannot.
bool EnterPrivateNetworkNamespace();

}  // namespace sluice::rtrmgr::mainjob
