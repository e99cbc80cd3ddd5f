#pragma once
// PeerIdentity: who is at the other end of a connection, as the kernel or a certificate says —
// never as the caller says (DESIGN.md § Security).
//
//   Unix socket  SO_PEERCRED (pid, uid, gid at connect time) and SO_PEERGROUPS (its
//                supplementary groups). Sluice servers accept Unix connections themselves
//                (ipc/unix_listener.h) and hand each descriptor to gRPC, whose peer string is
//                then "fd:N"; the credentials are read from that descriptor.
//   TCP + TLS    the verified client certificate's subject common name ("fea", "fea/host1").
//   plain TCP    nothing: only with `insecure;`.

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace grpc {
class ServerContextBase;
}

namespace sluice::ipc {

struct PeerIdentity {
  enum class Transport { kUnknown, kUnix, kTls, kPlainTcp };
  Transport transport = Transport::kUnknown;
  // kUnix.
  pid_t pid = 0;
  uid_t uid = static_cast<uid_t>(-1);
  gid_t gid = static_cast<gid_t>(-1);
  std::vector<gid_t> groups;  // supplementary groups
  // kTls: the certificate's subject common name.
  std::string certificate_name;

  std::string address;  // gRPC's peer string, for Describe()

  bool unix_socket() const { return transport == Transport::kUnix; }
  bool InGroup(gid_t group) const;
  // "uid 1001 (alice), pid 4242", "certificate fea", "plain TCP ipv4:127.0.0.1:4000".
  std::string Describe() const;
};

// The credentials of the process at the other end of connected Unix socket `fd`.
// Errors: Internal naming errno (not a Unix socket, closed).
absl::StatusOr<PeerIdentity> UnixPeerIdentity(int fd);

// The identity of the client of a gRPC call. Unknown transport when the call came over a
// connection gRPC accepted itself (a TCP port without TLS: kPlainTcp).
PeerIdentity IdentifyPeer(const grpc::ServerContextBase& context);

// The user name of `uid`, or "uid-N" when it has none that is a valid component name
// (1-64 letters, digits, '_', '-', '.').
std::string UserName(uid_t uid);
// The gid of group `name`, if it exists.
std::optional<gid_t> GroupId(const std::string& name);

}  // namespace sluice::ipc
