#include "finder/authority.h"

#include <unistd.h>

#include "absl/strings/str_format.h"
#include "ipc/caller.h"
#include "ipc/caller_key.h"
#include "ipc/transport.h"

namespace sluice::finder {

const char* RoleName(Role role) {
  switch (role) {
    case Role::kAdmin:
      return "admin";
    case Role::kOperator:
      return "operator";
    case Role::kNone:
      break;
  }
  return "none";
}

Authority::Authority(AuthorityOptions options) : options_(std::move(options)) {
  if (options_.finder_uid == static_cast<uid_t>(-1)) options_.finder_uid = geteuid();
}

bool Authority::TrustedLocal(const ipc::PeerIdentity& peer) const {
  if (checks_credentials()) return false;
  if (peer.transport == ipc::PeerIdentity::Transport::kPlainTcp) return true;  // `insecure;`
  return peer.unix_socket() && (peer.uid == options_.finder_uid || peer.uid == 0);
}

Role Authority::RoleOf(const ipc::PeerIdentity& peer) const {
  if (!peer.unix_socket()) return Role::kNone;
  if (peer.uid == 0) return Role::kAdmin;
  if (options_.admin_group && peer.InGroup(*options_.admin_group)) return Role::kAdmin;
  if (options_.operator_group && peer.InGroup(*options_.operator_group)) return Role::kOperator;
  return Role::kNone;
}

absl::StatusOr<Principal> Authority::Person(const ipc::PeerIdentity& peer) const {
  Principal principal;
  principal.person = true;
  principal.role = RoleOf(peer);
  principal.user_name = peer.unix_socket() ? ipc::UserName(peer.uid) : "";
  if (principal.role == Role::kNone) {
    return absl::PermissionDeniedError(absl::StrFormat(
        "%s has no Sluice role: members of group %s may read (operator), members of %s may "
        "change (admin)",
        peer.Describe(), options_.operator_group_name, options_.admin_group_name));
  }
  return principal;
}

absl::StatusOr<Principal> Authority::Identify(const ipc::PeerIdentity& peer) const {
  if (peer.transport == ipc::PeerIdentity::Transport::kTls) {
    Principal principal;
    principal.certificate = peer.certificate_name;
    return principal;
  }
  if (TrustedLocal(peer)) return Principal();
  return Person(peer);
}

absl::StatusOr<Principal> Authority::Admit(const ipc::PeerIdentity& peer,
                                           const v1::Registration& registration) const {
  const std::string& class_name = registration.class_name();
  if (class_name == ipc::kPersonClass) {
    return absl::PermissionDeniedError(absl::StrFormat(
        "class %s is reserved for the people the Finder calls for", ipc::kPersonClass));
  }
  if (!registration.credential().empty() && checks_credentials()) {
    if (ipc::SameKey(registration.credential(),
                     ipc::ClassCredential(options_.master_key, class_name))) {
      return Principal();
    }
    return absl::PermissionDeniedError(absl::StrFormat(
        "%s presented a wrong credential for class %s", peer.Describe(), class_name));
  }
  if (peer.transport == ipc::PeerIdentity::Transport::kTls) {
    const std::string allowed_class = ipc::CertificateClass(peer.certificate_name);
    const std::string allowed_instance = ipc::CertificateInstance(peer.certificate_name);
    if (allowed_class != class_name ||
        (!allowed_instance.empty() && allowed_instance != registration.instance_name())) {
      return absl::PermissionDeniedError(
          absl::StrFormat("the certificate %s does not allow registering class %s instance %s",
                          peer.certificate_name, class_name, registration.instance_name()));
    }
    Principal principal;
    principal.certificate = peer.certificate_name;
    return principal;
  }
  if (TrustedLocal(peer)) return Principal();
  if (!Reachable(registration)) return Person(peer);
  return absl::PermissionDeniedError(absl::StrFormat(
      "%s may not register class %s: a component needs its class credential (given by "
      "sluice-rtrmgr) or a TLS certificate naming its class",
      peer.Describe(), class_name));
}

bool Authority::Reachable(const v1::Registration& registration) {
  for (const std::string& endpoint : registration.endpoints()) {
    if (endpoint.rfind("inproc:", 0) != 0) return true;
  }
  return false;
}

}  // namespace sluice::finder
