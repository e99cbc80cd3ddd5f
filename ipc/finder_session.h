#pragma once
// FinderSession: one Finder.Session stream of a router (internal to ipc/; the protocol is in
// ipc/proto/finder.proto).
//
// Start() opens the stream and sends the registration. Events arrive on the loop through
// `on_event`, in the Finder's order; when the stream ends (the Finder refused the registration,
// stopped, or could not be reached) `on_closed` runs on the loop once with the reason. A router
// makes a new session for every attempt to (re)connect.

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "ipc/loop_ref.h"
#include "ipc/method_table.h"
#include "ipc/proto/finder.pb.h"

namespace sluice::ipc::internal {

class FinderSession {
 public:
  static std::shared_ptr<FinderSession> Start(
      const std::string& finder_address, const finder::v1::Registration& registration,
      std::shared_ptr<LoopRef> loop, std::shared_ptr<ReactorCount> reactors,
      std::function<void(finder::v1::SessionEvent)> on_event,
      std::function<void(absl::Status)> on_closed);
  virtual ~FinderSession() = default;

  // Loop thread: sends a resolve, watch or unwatch request.
  virtual void Send(finder::v1::SessionRequest request) = 0;
  // Loop thread: ends the session; on_event and on_closed will not run any more.
  virtual void Cancel() = 0;
};

}  // namespace sluice::ipc::internal
