#pragma once
// The subscribers of rpki/1.0 and what they are sent on rpki_client/1.0/vrp_changes (see
// ipc/proto/rpki_client.proto): on subscribe, the whole VRP set in batches marked `full`, the
// last with `dump_done`; after that, the store's net changes as they happen. Nothing is sent
// before SetComplete (see rpki_service.h): a subscriber that comes earlier gets its dump then.
// Calls to one subscriber travel in order on the router's stream to it.
//
// A subscriber whose instance dies is forgotten (it subscribes again when it comes back), and so
// is one that answers NOT_FOUND or UNIMPLEMENTED (it serves no rpki_client/1.0). Any other
// failed call — lost on the way (UNAVAILABLE, DEADLINE_EXCEEDED) or refused — leaves the
// subscriber's set unknown while it stays up: it gets the whole set again as a new dump after a
// backoff, and no changes meanwhile (ipc/redump.h).
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "ipc/redump.h"
#include "ipc/xrl_router.h"
#include "rpki/vrp_store.h"

namespace sluice::rpki {

class VrpPublisher {
 public:
  // At most this many VRPs per call.
  static constexpr size_t kBatch = 10000;

  // `router` and `store` outlive the publisher. `epoch`: this process's (random) epoch. Timers
  // (the repair of failed calls) run on `io`.
  VrpPublisher(boost::asio::io_context& io, ipc::XrlRouter* router, VrpStore* store,
               uint64_t epoch);
  ~VrpPublisher();

  // `instance` (a component) receives the whole set now, then the changes.
  void Subscribe(const std::string& instance);
  // Sends the store's net changes to every subscriber (call after anything that may change it).
  void Flush();
  // The set is complete: every subscriber gets its dump now, and changes from then on.
  void SetComplete();
  bool complete() const { return complete_; }

  size_t subscribers() const { return subscribers_.size(); }
  uint64_t batches_sent() const { return batches_sent_; }
  // Dumps sent again after a failed call, to the current subscribers.
  uint64_t redumps() const;

 private:
  void SendDump(const std::string& instance);
  // A call to `instance`, sent after its dump number `dump`, failed with `status`.
  void Failed(const std::string& instance, uint64_t dump, const absl::Status& status);
  // The store keeps changes only while someone will be sent them.
  void UpdateTracking();
  // `dump_start`: the first batch of a dump; `last`: the last batch of one change
  // (rpki_client.proto).
  void Send(const std::string& instance, const std::vector<Vrp>& announced,
            const std::vector<Vrp>& withdrawn, bool full, bool dump_start, bool dump_done,
            bool last);
  void Forget(const std::string& instance);

  boost::asio::io_context& io_;
  ipc::XrlRouter* router_;
  VrpStore* store_;
  uint64_t epoch_;
  absl::flat_hash_map<std::string, std::unique_ptr<ipc::DumpSubscriber>>
      subscribers_;  // by instance
  uint64_t batches_sent_ = 0;
  bool complete_ = false;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace sluice::rpki
