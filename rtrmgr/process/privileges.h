#pragma once
// Least privilege for the router manager and its children (DESIGN.md § Security).
//
// Started as root, sluice-rtrmgr runs every child as an unprivileged user (`user NAME;`, the
// --user flag, or "sluice" when that user exists) holding only the capabilities its job needs,
// as ambient capabilities so that they survive exec(2) without file capabilities:
//
//   sluice-bgp   CAP_NET_BIND_SERVICE  (port 179; TCP MD5 keys and GTSM's IP_MINTTL need none)
//   sluice-fea   CAP_NET_ADMIN         (only with the netlink backend: routes and links)
//   the others   none
//
// Every other capability leaves the child's bounding set, and no_new_privs keeps it from
// gaining any through a set-user-ID program. The router manager itself keeps only what starting
// and supervising needs (KeepSupervisorCapabilities).

#include <sys/capability.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace sluice::rtrmgr {

struct RunAs {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
};

// The user the children run as: `wanted` (config or flag), else "sluice" when it exists and we
// are root; nullopt to run them as ourselves (not root, or root without a "sluice" user).
// Errors: NotFound (no such user), PermissionDenied (another user without being root).
absl::StatusOr<std::optional<RunAs>> ChildUser(const std::string& wanted);

// OK when `user` can execute `path`: every directory above it searchable and the file executable
// by that user (checked in a short-lived child that becomes the user). Errors: PermissionDenied
// or NotFound naming the user, the path and what to change; Internal when the check cannot run.
absl::Status CheckUserCanExecute(const RunAs& user, const std::string& path);

struct ChildPrivileges {
  RunAs user;
  std::vector<cap_value_t> capabilities;
};

// In a child between fork(2) and exec(2), as root: becomes `privileges.user` with exactly its
// capabilities (permitted, effective, inheritable and ambient), the rest dropped from the
// bounding set, and no_new_privs. System calls only. Returns null on success, else what failed.
const char* EnterChildPrivileges(const ChildPrivileges& privileges);

// The router manager, root with children of another user: keeps CAP_CHOWN, CAP_DAC_OVERRIDE
// (its children's sockets), CAP_FOWNER, CAP_KILL (signalling them), CAP_SETUID, CAP_SETGID,
// CAP_SETPCAP (starting them) and CAP_NET_ADMIN, CAP_NET_BIND_SERVICE (to hand on), and drops
// every other from its sets and bounding set. Errors: Internal naming the failing call.
absl::Status KeepSupervisorCapabilities();

// "cap_net_admin,cap_net_bind_service" or "none".
std::string CapabilityNames(const std::vector<cap_value_t>& capabilities);

}  // namespace sluice::rtrmgr
