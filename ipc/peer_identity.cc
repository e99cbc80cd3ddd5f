#include "ipc/peer_identity.h"

#include <grp.h>
#include <pwd.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "grpcpp/server_context.h"

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59  // Linux >= 4.13
#endif

namespace sluice::ipc {
namespace {

bool ValidName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

std::vector<gid_t> PeerGroups(int fd) {
  std::vector<gid_t> groups(16);
  for (int attempt = 0; attempt < 4; ++attempt) {
    socklen_t length = static_cast<socklen_t>(groups.size() * sizeof(gid_t));
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups.data(), &length) == 0) {
      groups.resize(length / sizeof(gid_t));
      return groups;
    }
    if (errno != ERANGE) return {};
    groups.resize(length / sizeof(gid_t) + 1);
  }
  return {};
}

}  // namespace

bool PeerIdentity::InGroup(gid_t group) const {
  return gid == group || std::find(groups.begin(), groups.end(), group) != groups.end();
}

std::string PeerIdentity::Describe() const {
  switch (transport) {
    case Transport::kUnix:
      return absl::StrFormat("uid %d (%s), pid %d", uid, UserName(uid), pid);
    case Transport::kTls:
      return absl::StrFormat("certificate %s at %s", certificate_name, address);
    case Transport::kPlainTcp:
      return absl::StrFormat("plain TCP %s", address);
    case Transport::kUnknown:
      break;
  }
  return absl::StrFormat("unknown peer %s", address);
}

absl::StatusOr<PeerIdentity> UnixPeerIdentity(int fd) {
  ucred credentials{};
  socklen_t length = sizeof(credentials);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) {
    return absl::InternalError(absl::StrCat("SO_PEERCRED: ", std::strerror(errno)));
  }
  PeerIdentity identity;
  identity.transport = PeerIdentity::Transport::kUnix;
  identity.pid = credentials.pid;
  identity.uid = credentials.uid;
  identity.gid = credentials.gid;
  identity.groups = PeerGroups(fd);
  return identity;
}

PeerIdentity IdentifyPeer(const grpc::ServerContextBase& context) {
  const std::string peer = context.peer();
  PeerIdentity unknown;
  unknown.address = peer;
  int fd = -1;
  if (peer.rfind("fd:", 0) == 0 && absl::SimpleAtoi(peer.substr(3), &fd) && fd >= 0) {
    // The connection is alive while one of its calls is: the descriptor is still its own.
    auto identity = UnixPeerIdentity(fd);
    if (!identity.ok()) return unknown;
    identity->address = peer;
    return *std::move(identity);
  }
  auto auth = context.auth_context();
  if (auth != nullptr && auth->IsPeerAuthenticated()) {
    PeerIdentity identity;
    identity.transport = PeerIdentity::Transport::kTls;
    identity.address = peer;
    for (const auto& name : auth->FindPropertyValues("x509_common_name")) {
      identity.certificate_name.assign(name.data(), name.size());
    }
    return identity;
  }
  if (peer.rfind("ipv4:", 0) == 0 || peer.rfind("ipv6:", 0) == 0) {
    unknown.transport = PeerIdentity::Transport::kPlainTcp;
  }
  return unknown;
}

std::string UserName(uid_t uid) {
  passwd entry{};
  passwd* result = nullptr;
  char buffer[1024];
  if (getpwuid_r(uid, &entry, buffer, sizeof(buffer), &result) == 0 && result != nullptr &&
      ValidName(result->pw_name)) {
    return result->pw_name;
  }
  return absl::StrCat("uid-", uid);
}

std::optional<gid_t> GroupId(const std::string& name) {
  group entry{};
  group* result = nullptr;
  char buffer[4096];
  if (getgrnam_r(name.c_str(), &entry, buffer, sizeof(buffer), &result) != 0 || result == nullptr) {
    return std::nullopt;
  }
  return result->gr_gid;
}

}  // namespace sluice::ipc
