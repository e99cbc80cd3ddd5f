#pragma once
// FinderServer: the Finder's gRPC face (ipc/proto/finder.proto) on top of Registry, and the
// relay of people's calls (finder/relay.h).
//
// Every session and call is identified from the kernel or a certificate (ipc/peer_identity.h):
// Unix sockets are accepted by the Finder itself to read SO_PEERCRED. ListTargets and
// GetDescriptors answer components and people with a role (finder/authority.h).
//
// gRPC threads only move messages: every request is posted to the Finder's event loop, where
// the Registry runs, and answers are written back from there. A component's Session stream
// closing — process exit, crash, kill -9: the kernel closes its socket — is seen at once and
// posted to the loop, which deregisters the component and tells its watchers (a few ms on one
// host). A remote host that vanishes without closing the connection is found by keepalive
// pings within about 15 s.
//
//   boost::asio::io_context io;
//   FinderServer finder(io, {.listen = {"unix:/tmp/sluice-rundir/finder.sock"}});
//   if (auto s = finder.Start(); !s.ok()) ...;
//   io.run();

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "finder/access_list.h"
#include "finder/authority.h"
#include "ipc/unix_listener.h"

namespace boost::asio {
class io_context;
}

namespace sluice::finder {

class Registry;

struct FinderOptions {
  // Endpoints to listen on: "unix:/path" (a stale socket file there is replaced unless another
  // Finder answers on it) and/or "tcp:127.0.0.1:PORT" (PORT 0 picks one; mutual TLS or
  // `insecure`, ipc/transport.h). Empty, with no listen_fds: the default
  // unix:$SLUICE_RUNDIR/finder.sock (ipc/rundir.h).
  std::vector<std::string> listen;
  // Listening Unix sockets inherited from the router manager, which keeps them across Finder
  // restarts (callers queue in the backlog meanwhile).
  std::vector<int> listen_fds;
  // The mode and group of the Unix sockets the Finder binds itself: people use them.
  ipc::SocketAccess socket_access{.mode = 0660};
  // Who may register as what; people's roles (finder/authority.h).
  AuthorityOptions authority;
  AccessList access_list;
  // After start, watchers' WatchSynced is held back this long so that components can
  // re-register after a Finder restart before anyone concludes they died.
  std::chrono::milliseconds recovery_grace{1000};
};

class FinderServer {
 public:
  FinderServer(boost::asio::io_context& io, FinderOptions options);
  ~FinderServer();  // Stop()s
  FinderServer(const FinderServer&) = delete;
  FinderServer& operator=(const FinderServer&) = delete;

  // Binds and starts serving. Errors: Unavailable naming the endpoint (cannot bind, another
  // Finder is running there), InvalidArgument (bad endpoint).
  absl::Status Start();
  // Ends every session (components see the Finder go away) and stops serving. Call on the loop
  // thread or after the loop stopped. Idempotent.
  void Stop();

  // The endpoints being served, TCP ports filled in ("tcp:127.0.0.1:40123").
  const std::vector<std::string>& endpoints() const;
  // The Finder's state; loop thread only.
  Registry& registry();

  class Impl;  // implementation detail (finder_server.cc)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::finder
