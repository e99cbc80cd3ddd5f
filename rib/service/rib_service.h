#pragma once
// RibService: rib/1.0 (ipc/proto/rib.proto) over the Rib facade (rib/rib.h) and RibClients
// (rib_clients.h). A thin adapter in GoBGP's style: every handler runs on the RIB's event loop
// (the XrlRouter posts calls there), converts the request and makes one call on the core.
//
// Errors are the core's (InvalidArgument naming the route or field, NotFound, ...), unchanged.

#include "absl/status/status.h"
#include "ipc/xrl_router.h"
#include "rib/rib.h"
#include "rib/service/full_push_gate.h"
#include "rib/service/rib_clients.h"

namespace sluice::rib {

class RibService {
 public:
  RibService(ipc::XrlRouter& router, Rib& rib, RibClients& clients);

  // Adds the handlers; call before router.Start().
  absl::Status Register();
  // register_interest waits until `gate` says the IGP routes are in (full_push_gate.h).
  void SetInterestGate(FullPushGate* gate) { gate_ = gate; }

 private:
  absl::Status RegisterRoutes();
  absl::Status RegisterQueries();
  absl::Status RegisterClients();

  ipc::XrlRouter& router_;
  Rib& rib_;
  RibClients& clients_;
  FullPushGate* gate_ = nullptr;
};

}  // namespace sluice::rib
