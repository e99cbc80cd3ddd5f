#pragma once
// XrlInterfaceSource: the RIB's InterfaceSource (rib/interface_source.h) over the FEAs'
// interface events — it serves fea_ifmgr_client/1.0/interface_events and, at each birth of an
// FEA, subscribes to its fea_ifmgr/1.0 with the RIB's own instance name. An FEA answers with a
// full dump (SYNC_START ... SYNC_DONE), then sends changes.
//
// Who sent an event is the caller the Finder vouches for (ipc/caller.h), a component of class
// "fea"; anyone else is refused. Each FEA's events go to its own InterfaceEvents (SetPerFea:
// the Rib's FeaView of that FEA), and those of the shared FEA (SetShared) also to the
// InterfaceEvents given to Start() (the RIB's connected routes).
//
// When an FEA dies its interfaces are kept as they were (the forwarding plane did not go
// away); the next birth's dump corrects them.

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "ipc/xrl_router.h"
#include "rib/interface_source.h"

namespace sluice::rib {

class XrlInterfaceSource : public InterfaceSource {
 public:
  explicit XrlInterfaceSource(ipc::XrlRouter& router);

  // Serves fea_ifmgr_client/1.0; call before router.Start().
  absl::Status Register();

  void Start(InterfaceEvents* events) override { events_ = events; }
  // Delivers nothing more, to Start()'s events or to any FEA's.
  void Stop() override {
    events_ = nullptr;
    per_fea_ = nullptr;
    on_synced_ = nullptr;
  }

  // `per_fea(instance)`: where FEA `instance`'s events go (nullptr: nowhere but the shared
  // ones); `on_synced(instance)` runs after each of its dumps has been delivered.
  void SetPerFea(std::function<InterfaceEvents*(const std::string&)> per_fea,
                 std::function<void(const std::string&)> on_synced);
  // The FEA whose events also go to Start()'s InterfaceEvents.
  void SetShared(const std::string& instance) { shared_ = instance; }
  // Subscribes to the FEA `instance`'s interface events; `done` (if set) gets the answer.
  void Subscribe(const std::string& instance,
                 std::function<void(const absl::Status&)> done = nullptr);

  uint64_t events_received() const { return events_received_; }

 private:
  ipc::XrlRouter& router_;
  InterfaceEvents* events_ = nullptr;
  std::string shared_;
  std::function<InterfaceEvents*(const std::string&)> per_fea_;
  std::function<void(const std::string&)> on_synced_;
  uint64_t events_received_ = 0;
};

}  // namespace sluice::rib
