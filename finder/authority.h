#pragma once
// Authority: who may register as what, and what a person may do (DESIGN.md § Security).
//
// The Finder never takes a caller's word for who it is. A registration names a class and an
// instance; Admit() accepts it as a component of that class only when
//   - it presents the class credential (ipc/caller_key.h: HMAC of the master key the router
//     manager gave the Finder), or
//   - it connected over TLS with a certificate naming the class ("fea") or the class and
//     this instance ("fea/host1"), or
//   - the Finder holds no master key (started by hand, not by the router manager) and the
//     kernel says the caller runs as the Finder's own user or root, or came over plain TCP
//     that the configuration allowed with `insecure;`.
// Otherwise a pure client (no endpoint another process can reach) on a Unix socket is a person:
// role `admin` for root and members of the admin group, `operator` for members of the operator
// group, none for anyone else — who is refused. Class "user" is reserved for the people the
// Finder calls on behalf of (ipc/caller.h).

#include <sys/types.h>

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "ipc/peer_identity.h"
#include "ipc/proto/finder.pb.h"

namespace sluice::finder {

enum class Role { kNone, kOperator, kAdmin };
const char* RoleName(Role role);

struct AuthorityOptions {
  std::string master_key;                          // empty: no credentials to check
  std::optional<gid_t> operator_group;             // "sluice-ops" by default, when it exists
  std::optional<gid_t> admin_group;                // "sluice-admin" by default, when it exists
  std::string operator_group_name = "sluice-ops";  // for messages
  std::string admin_group_name = "sluice-admin";
  uid_t finder_uid = static_cast<uid_t>(-1);  // -1: the Finder's effective uid
};

// Who a session or a call is, once decided.
struct Principal {
  bool person = false;
  Role role = Role::kNone;  // people only; components are governed by the access list
  std::string user_name;    // people: their user name ("alice", "uid-1001")
  std::string certificate;  // components over TLS: the certificate's name
};

class Authority {
 public:
  explicit Authority(AuthorityOptions options = {});

  // A registration from `peer`. Errors: PermissionDenied saying what the caller lacks.
  absl::StatusOr<Principal> Admit(const ipc::PeerIdentity& peer,
                                  const v1::Registration& registration) const;
  // A caller outside any session (ListTargets, GetDescriptors, a relayed call): a trusted
  // component identity, or a person with a role. Errors: PermissionDenied.
  absl::StatusOr<Principal> Identify(const ipc::PeerIdentity& peer) const;
  // The role of the person at `peer` (kNone unless a Unix socket peer).
  Role RoleOf(const ipc::PeerIdentity& peer) const;

  bool checks_credentials() const { return !options_.master_key.empty(); }

 private:
  bool TrustedLocal(const ipc::PeerIdentity& peer) const;
  // Whether other processes can call the registering component (a Unix or TCP endpoint); a
  // pure client serves at most in its own process.
  static bool Reachable(const v1::Registration& registration);
  absl::StatusOr<Principal> Person(const ipc::PeerIdentity& peer) const;

  AuthorityOptions options_;
};

}  // namespace sluice::finder
