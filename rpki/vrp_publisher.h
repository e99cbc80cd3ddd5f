#pragma once
// The subscribers of rpki/1.0 and what they are sent on rpki_client/1.0/vrp_changes (see
// ipc/proto/rpki_client.proto): on subscribe, the whole VRP set in batches marked `full`, the
// last with `dump_done`; after that, the store's net changes as they happen. Nothing is sent
// before SetComplete (see rpki_service.h): a subscriber that comes earlier gets its dump then.
// Calls to one
// subscriber travel in order on the router's stream to it. A subscriber whose instance dies is
// forgotten; one whose call fails is forgotten too (it subscribes again when it comes back).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ipc/xrl_router.h"
#include "rpki/vrp_store.h"

namespace sluice::rpki {

class VrpPublisher {
 public:
  // At most this many VRPs per call.
  static constexpr size_t kBatch = 10000;

  // `router` and `store` outlive the publisher. `epoch`: this process's (random) epoch.
  VrpPublisher(ipc::XrlRouter* router, VrpStore* store, uint64_t epoch);
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

 private:
  void SendDump(const std::string& instance);
  // The store keeps changes only while someone will be sent them.
  void UpdateTracking();
  // `last`: the last batch of one change (rpki_client.proto).
  void Send(const std::string& instance, const std::vector<Vrp>& announced,
            const std::vector<Vrp>& withdrawn, bool full, bool dump_done, bool last);
  void Forget(const std::string& instance);

  ipc::XrlRouter* router_;
  VrpStore* store_;
  uint64_t epoch_;
  absl::flat_hash_map<std::string, ipc::WatchId> subscribers_;  // instance → its death watch
  uint64_t batches_sent_ = 0;
  bool complete_ = false;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace sluice::rpki
