#pragma once
// What every Sluice daemon does first, before it starts a thread (DESIGN.md § Security):
//
//   - umask 077: the files and sockets it creates are its own (a socket meant for others is
//     widened explicitly, ipc/unix_listener.h);
//   - PR_SET_DUMPABLE 0: no core dumps, and its /proc/PID/{fd,mem,environ} belong to root, so
//     another process of the same user cannot read its credential;
//   - it takes its class credential from the inherited descriptor named by
//     $SLUICE_CREDENTIAL_FD (the router manager's pipe: never a file, never the environment
//     itself), closes the descriptor and forgets the variable.
//
// The XRL router presents the credential when it registers with the Finder (RouterOptions).

#include <string>

#include "absl/status/status.h"

namespace sluice::ipc {

inline constexpr char kCredentialFdEnv[] = "SLUICE_CREDENTIAL_FD";

// Errors: InvalidArgument when $SLUICE_CREDENTIAL_FD is set but names no readable descriptor.
absl::Status HardenProcess();
// The credential HardenProcess() read, or "".
const std::string& ProcessCredential();

}  // namespace sluice::ipc
