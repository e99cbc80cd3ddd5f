#pragma once
// Redump: a publisher's repair of one subscriber's copy of its state — sluice-rpki's VRPs in
// sluice-bgp, an FEA's interfaces in the RIB. The subscriber gets the whole state (a dump), then
// the changes. When a call to it fails while it stays up — lost on the way (base/lost_call.h) or
// refused — its copy is unknown, and no birth will repair it. Then:
//   - after a backoff (1 s, doubling up to 30 s while failures follow one another within a
//     minute) it gets the whole state again: `dump` runs, and sends it with Sending();
//   - meanwhile no changes are sent to it (pending()): the dump carries them;
//   - failures of calls sent before the last dump count no more (that dump carried their
//     content), nor do failures while a dump is pending.
// A subscriber that dies is the publisher's to forget; so is one that answers NOT_FOUND or
// UNIMPLEMENTED (it serves no such method). Everything on the event loop; `dump` never runs after
// the object is destroyed.

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "base/backoff.h"

namespace sluice::ipc {

class Redump {
 public:
  // `calls` names the calls in the log ("vrp_changes to bgp").
  Redump(boost::asio::io_context& io, std::string calls, std::function<void()> dump);
  ~Redump();
  Redump(const Redump&) = delete;
  Redump& operator=(const Redump&) = delete;

  // A dump is being sent now (the first or a repair): nothing is pending any more. Returns its
  // number, which the calls of the dump and the changes after it carry to Failed().
  uint64_t Sending();
  // The number of the last dump sent (0 before the first).
  uint64_t dump() const { return dumps_; }
  // A dump is scheduled: send no changes.
  bool pending() const { return pending_; }
  enum class Outcome {
    kForget,   // the subscriber serves no such method: the publisher forgets it
    kRepair,   // a dump is scheduled (logged with the wait)
    kIgnored,  // a dump was sent since, or one is pending
  };
  // A call sent after dump number `dump` failed with `status`.
  Outcome Failed(uint64_t dump, const absl::Status& status);
  // Dumps sent as repairs.
  uint64_t redumps() const { return redumps_; }

 private:
  boost::asio::steady_timer timer_;
  std::string calls_;
  std::function<void()> dump_;
  uint64_t dumps_ = 0;
  uint64_t redumps_ = 0;
  bool pending_ = false;
  Backoff backoff_{1, 30, std::chrono::seconds(60)};
};

// What a publisher keeps of a subscriber: the watch on its death (XrlRouter::WatchInstance)
// and the repair of its copy.
struct DumpSubscriber {
  DumpSubscriber(boost::asio::io_context& io, uint64_t watch, std::string calls,
                 std::function<void()> dump)
      : watch(watch), redump(io, std::move(calls), std::move(dump)) {}
  uint64_t watch;  // ipc::WatchId
  Redump redump;
};

}  // namespace sluice::ipc
