#pragma once
// ChannelClient: a router's calls to one remote endpoint (internal to ipc/).
//
// Send() puts a call on the ordered stream "/sluice.ipc.v1.XrlChannel/Open": the first call of
// a method on the stream also sends a Bind carrying the method key. Calls queued while a frame
// is being written go out together in the next frame, so many calls in flight cost few gRPC
// messages, and the receiver runs them in the order they were sent. SendUnary() makes a plain
// unary gRPC call instead (key and caller in metadata, ipc/call_metadata.h; not ordered with
// other calls), directly or through the Finder's relay.
//
// Replies are parsed and calls finished on the loop. When the stream fails (the target died,
// the endpoint refused), every call in flight fails with UNAVAILABLE and `on_failure` runs on the
// loop; the channel is then dead and fails further calls the same way.

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "ipc/handler.h"
#include "ipc/loop_ref.h"
#include "ipc/method_table.h"

namespace sluice::ipc::internal {

// Who the channel leads to and who calls through it.
struct ChannelPeer {
  std::string endpoint;   // "unix:/p", "tcp:H:P"
  std::string target;     // names the peer in error messages ("rib")
  std::string tls_name;   // over TLS, the name the peer's certificate must carry ("fea")
  std::string caller_id;  // our identity "CLASS/INSTANCE", sent with every bind
};

class ChannelClient {
 public:
  // `reactors` counts live gRPC reactors.
  static std::shared_ptr<ChannelClient> Create(ChannelPeer peer, std::shared_ptr<LoopRef> loop,
                                               std::shared_ptr<ReactorCount> reactors,
                                               std::function<void(absl::Status)> on_failure);
  virtual ~ChannelClient() = default;

  // Loop thread. `path` "/sluice.rib.v1.Rib/AddRoute4", `key` the 16-octet key the Finder
  // gave us for it.
  virtual void Send(const std::string& path, const std::string& key,
                    std::unique_ptr<OutgoingCall> call) = 0;
  // `relay_to`: when the channel leads to the Finder, the instance it relays the call to.
  virtual void SendUnary(const std::string& path, const std::string& key,
                         const std::string& relay_to, std::unique_ptr<OutgoingCall> call) = 0;
  // Loop thread: cancels the stream; calls in flight are dropped without their callbacks (the
  // router is shutting down).
  virtual void Cancel() = 0;
  virtual const std::string& endpoint() const = 0;
};

}  // namespace sluice::ipc::internal
