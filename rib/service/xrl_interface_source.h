#pragma once
// XrlInterfaceSource: the RIB's InterfaceSource (rib/interface_source.h) over the FEA's
// interface events — it serves fea_ifmgr_client/1.0/interface_events and, at each birth of the
// FEA, subscribes to fea_ifmgr/1.0 with the RIB's own instance name. The FEA answers with a full
// dump (SYNC_START ... SYNC_DONE), then sends changes; every event is handed to the
// InterfaceEvents given to Start() (the RIB's connected routes).
//
// When the FEA dies the interfaces are kept as they were (the forwarding plane did not go
// away); the next birth's dump corrects them.

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
  void Stop() override { events_ = nullptr; }

  // Subscribes to the FEA `instance`'s interface events.
  void FeaBorn(const std::string& instance);

  uint64_t events_received() const { return events_received_; }

 private:
  ipc::XrlRouter& router_;
  InterfaceEvents* events_ = nullptr;
  uint64_t events_received_ = 0;
};

}  // namespace sluice::rib
