#pragma once
// UnixListener: a Unix stream socket whose connections Sluice accepts itself and hands to a
// gRPC server (grpc::AddInsecureChannelFromFd), so that the server can read each caller's
// SO_PEERCRED (ipc/peer_identity.h); gRPC's own Unix listener hides the descriptor.
//
// The socket file gets exactly the mode and group asked for, whatever the umask: the socket's
// mode is set before bind(2), so the file never exists with wider permissions.
//
//   auto listener = UnixListener::Bind("/run/sluice/finder.sock", {.mode = 0660, .group = ops});
//   server = builder.BuildAndStart();
//   (*listener)->Start(server.get());
//   ...
//   (*listener)->Stop();   // before server->Shutdown()

#include <sys/types.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"

namespace grpc {
class Server;
}

namespace sluice::ipc {

struct SocketAccess {
  mode_t mode = 0600;
  gid_t group = static_cast<gid_t>(-1);  // -1: the process's group
  uid_t owner = static_cast<uid_t>(-1);  // -1: the process's user (another needs root)
};

class UnixListener {
 public:
  // Binds and listens on `path`. A socket file left there by a dead process is replaced; one
  // that still accepts connections is not. Errors: Unavailable ("already in use", or bind's
  // errno) naming the path; InvalidArgument for a path longer than 107 octets.
  static absl::StatusOr<std::unique_ptr<UnixListener>> Bind(const std::string& path,
                                                            SocketAccess access);
  // Takes over `fd`, a listening Unix socket inherited from the router manager; the path stays
  // on Stop() (its owner keeps it). Errors: InvalidArgument when `fd` is not a listening Unix
  // stream socket.
  static absl::StatusOr<std::unique_ptr<UnixListener>> Adopt(int fd);
  ~UnixListener();
  UnixListener(const UnixListener&) = delete;
  UnixListener& operator=(const UnixListener&) = delete;

  // Accepts connections on a thread of its own and hands each one to `server`, which must
  // outlive Stop().
  void Start(grpc::Server* server);
  // Stops accepting (joins the thread), closes the socket and removes the file it bound.
  // Connections already handed over stay with the server. Idempotent.
  void Stop();

  const std::string& path() const { return path_; }

 private:
  UnixListener(int fd, std::string path, bool owns_path);
  void AcceptLoop(grpc::Server* server);

  int fd_;
  int wake_fd_;  // eventfd: Stop() wakes the accepting thread
  std::string path_;
  bool owns_path_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
};

// True when something accepts connections on the Unix socket `path`.
bool UnixSocketAnswers(const std::string& path);

// Binds and listens on `path` as UnixListener::Bind does, and returns the socket (close-on-exec)
// for a caller that hands it to another process (the router manager keeps the Finder's).
absl::StatusOr<int> BindUnixSocket(const std::string& path, SocketAccess access);

}  // namespace sluice::ipc
