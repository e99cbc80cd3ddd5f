#pragma once
// The router manager's secrets (DESIGN.md § Security).
//
// One master key of 32 random octets lives in RUNDIR/master.key (mode 0600, the router
// manager's user): a restarted sluice-rtrmgr finds it there, so the processes it starts again
// get the same class credentials as their predecessors (ipc/caller_key.h ClassCredential) and
// reclaim what those owned. The Finder gets the master key itself and checks every
// registration against it; every other child gets only its class's credential. Both travel as
// inherited descriptors (a pipe holding the secret), never as files or command lines.

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace sluice::rtrmgr {

// Reads the key at `path`, or creates it when there is none. The file must be a regular file
// of ours, not a link, readable by nobody else. Errors: Unavailable / FailedPrecondition naming
// the file.
absl::StatusOr<std::string> LoadOrCreateMasterKey(const std::string& path);

// A pipe already holding `secret`; returns its read end (close-on-exec). Errors: Internal.
absl::StatusOr<int> SecretPipe(std::string_view secret);

}  // namespace sluice::rtrmgr
