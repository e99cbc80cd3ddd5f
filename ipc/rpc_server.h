#pragma once
// RpcServer: the gRPC side of a router's incoming calls (internal to ipc/).
//
// One generic callback service serves:
//   - "/sluice.ipc.v1.XrlChannel/Open": the ordered call stream from another router
//     (ipc/proto/channel.proto): binds are authorized once, calls parsed on the gRPC thread,
//     and each frame's calls posted to the loop as one task, in stream order;
//   - every other path "/PACKAGE.SERVICE/RPC" as a plain unary call with its key and caller in
//     metadata (ipc/call_metadata.h), for the Finder's relay and any gRPC client.
// Handlers run on the loop; replies are written back from whichever thread answers. Unix
// sockets are accepted by a UnixListener (mode and group as asked, whatever the umask); TCP
// endpoints use the process's transport security (ipc/transport.h).

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ipc/loop_ref.h"
#include "ipc/method_table.h"
#include "ipc/unix_listener.h"

namespace sluice::ipc::internal {

inline constexpr char kChannelPath[] = "/sluice.ipc.v1.XrlChannel/Open";

class RpcServer {
 public:
  RpcServer(const MethodTable* methods, std::shared_ptr<LoopRef> loop);
  ~RpcServer();  // Stop()s

  // Listens on `listen` ("unix:/path", "tcp:127.0.0.1:PORT"); Unix socket files get `access`.
  // `endpoints` gets them with TCP ports filled in. Errors: Unavailable naming the endpoint,
  // InvalidArgument for a bad one, FailedPrecondition for TCP without TLS or `insecure`.
  absl::Status Start(const std::vector<std::string>& listen, SocketAccess access,
                     std::vector<std::string>* endpoints);
  // Answers every call still open with UNAVAILABLE and stops serving; blocks until gRPC is done
  // with every call. Idempotent.
  void Stop();

  class Impl;  // implementation detail (rpc_server.cc)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::ipc::internal
