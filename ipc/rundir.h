#pragma once
// Where Sluice processes meet: the run directory and endpoint addresses.
//
// The run directory is $SLUICE_RUNDIR; when that is unset or empty, /run/sluice for root,
// $XDG_RUNTIME_DIR/sluice for other users, or /tmp/sluice-UID without XDG_RUNTIME_DIR. It is
// trusted only when it is a real directory owned by its user or root and writable by nobody
// else (EnsureRunDir). The Finder listens on unix:RUNDIR/finder.sock by default (the socket
// people use, DESIGN.md § Security). Every component's XRL router serves on
// unix:SOCKETDIR/INSTANCE.PID.sock, where SOCKETDIR is $SLUICE_SOCKET_DIR (the router manager
// gives each child a subdirectory of the run directory that only its user can enter) or the
// run directory. $SLUICE_FINDER, when set, overrides the Finder address for every client
// (e.g. "tcp:127.0.0.1:19999").
//
// Endpoint addresses (as registered with the Finder and given on command lines):
//   unix:/absolute/path      a Unix stream socket (path at most 107 octets)
//   unix:default             (to listen on only) the router's default Unix socket, as when no
//                            endpoint is given: unix:SOCKETDIR/INSTANCE.PID.sock
//   tcp:127.0.0.1:PORT       TCP; PORT 0 when listening picks a free port
//   inproc:PROCESS/ROUTER    a router in the same process (ipc/ internal)

#include <sys/types.h>

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace sluice::ipc {

// A listen endpoint that stands for the router's default Unix socket (above).
inline constexpr std::string_view kDefaultUnixEndpoint = "unix:default";

// The run directory (above).
std::string RunDir();
// Creates `dir` (mode `mode`, whatever the umask) when missing, then checks what is there: a
// directory, not a symbolic link, owned by this process's user or root, writable by neither
// group nor others. Errors: Unavailable (cannot create) or FailedPrecondition (not to be
// trusted), naming the directory and what is wrong with it.
absl::Status EnsureRunDir(const std::string& dir, mode_t mode = 0755);
// $SLUICE_SOCKET_DIR, or RunDir().
std::string SocketDir();
// EnsureRunDir(SocketDir(), 0700).
absl::Status EnsureSocketDir();
// $SLUICE_FINDER, or "unix:" + RunDir() + "/finder.sock": where a Finder listens.
std::string DefaultFinderAddress();
// The Finder a client (the `sluice` CLI) talks to: $SLUICE_FINDER; else, with $SLUICE_RUNDIR set,
// DefaultFinderAddress(); else the caller's own run directory's Finder when its socket exists,
// or else the system router's (`system_run_dir`/finder.sock) when that socket exists, so that an
// operator in group sluice-ops reaches the service without options; else DefaultFinderAddress().
std::string ClientFinderAddress(const std::string& system_run_dir = "/run/sluice");

// The gRPC channel target for an endpoint: "unix:/p" -> "unix:/p", "tcp:H:P" -> "ipv4:H:P"
// (or "ipv6:[H]:P"). Errors: InvalidArgument naming the endpoint.
absl::StatusOr<std::string> GrpcTarget(std::string_view endpoint);
// The gRPC listening address: "unix:/p" -> "unix:/p", "tcp:H:P" -> "H:P". Errors as GrpcTarget;
// also a Unix path longer than 107 octets.
absl::StatusOr<std::string> GrpcListenAddress(std::string_view endpoint);

}  // namespace sluice::ipc
