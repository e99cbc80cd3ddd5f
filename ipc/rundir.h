#pragma once
// Where Sluice processes meet: the run directory and endpoint addresses.
//
// The run directory is $SLUICE_RUNDIR, or /tmp/sluice-rundir when that is unset or empty. The
// Finder listens on unix:$SLUICE_RUNDIR/finder.sock by default; every component's XRL router
// serves on unix:$SLUICE_RUNDIR/INSTANCE.PID.sock. $SLUICE_FINDER, when set, overrides the
// Finder address for every client (e.g. "tcp:127.0.0.1:19999").
//
// Endpoint addresses (as registered with the Finder and given on command lines):
//   unix:/absolute/path      a Unix stream socket (path at most 107 octets)
//   tcp:127.0.0.1:PORT       TCP; PORT 0 when listening picks a free port
//   inproc:PROCESS/ROUTER    a router in the same process (ipc/ internal)

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace sluice::ipc {

// $SLUICE_RUNDIR or /tmp/sluice-rundir.
std::string RunDir();
// Creates `dir` (mode 0700) when missing. Errors: Unavailable naming the directory and errno.
absl::Status EnsureRunDir(const std::string& dir);
// $SLUICE_FINDER, or "unix:" + RunDir() + "/finder.sock".
std::string DefaultFinderAddress();

// The gRPC channel target for an endpoint: "unix:/p" -> "unix:/p", "tcp:H:P" -> "ipv4:H:P"
// (or "ipv6:[H]:P"). Errors: InvalidArgument naming the endpoint.
absl::StatusOr<std::string> GrpcTarget(std::string_view endpoint);
// The gRPC listening address: "unix:/p" -> "unix:/p", "tcp:H:P" -> "H:P". Errors as GrpcTarget;
// also a Unix path longer than 107 octets.
absl::StatusOr<std::string> GrpcListenAddress(std::string_view endpoint);

}  // namespace sluice::ipc
