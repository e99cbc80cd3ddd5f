#pragma once
// BgpPolicyBackend: sluice-bgp's policy_backend/1.0 (ipc/proto/policy_backend.proto). Banks:
//   import:ADDRESS   the peer's ImportFilter (bgp/stages/import_filter.h), through its
//                    FilterSlot (BgpProcess::PolicySlots)
//   export:ADDRESS   the peer's ExportFilter (bgp/stages/export_filter.h), likewise
//   redist:PROTOCOL  BgpRedist (bgp_redist.h)
// configure compiles in full first (policy/filter_request.h); only then is the slot swapped and
// the peer's stages told (BgpProcess::RefilterPeer), which move its routes to the new filter in
// a background walk while new routes keep flowing. A bad policy returns InvalidArgument
// "FILE:LINE:COL: ..." and changes nothing. A peer's banks may be configured before the peer.
//
// Single-threaded: the handlers run on the process's event loop.

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bgp/process/bgp_process.h"
#include "bgp/process/bgp_redist.h"
#include "ipc/xrl_router.h"
#include "policy/filter_request.h"

namespace sluice::bgp::process {

struct PolicyBankInfo {
  std::string filter;
  bool configured = false;
  std::vector<std::string> policies;
  std::string default_action;  // "accept" / "reject"
};

class BgpPolicyBackend {
 public:
  BgpPolicyBackend(BgpProcess* bgp, BgpRedist* redist) : bgp_(bgp), redist_(redist) {}

  // Errors: InvalidArgument (unknown bank or address, bad policy with its location).
  absl::Status Configure(const std::string& filter, const policy::FilterRequest& request);
  // Errors: InvalidArgument (unknown bank); NotFound (redist bank never configured).
  absl::Status Reset(const std::string& filter);
  // "" = every bank.
  absl::Status PushRoutes(const std::string& filter);
  std::vector<PolicyBankInfo> List() const;

 private:
  enum class Kind { kImport, kExport, kRedist };
  struct Bank {
    Kind kind;
    net::IPAddress address;  // import, export
    std::string protocol;    // redist
  };
  static absl::StatusOr<Bank> ParseBank(const std::string& filter);

  BgpProcess* bgp_;
  BgpRedist* redist_;
  std::map<std::string, PolicyBankInfo> info_;
};

// Serves policy_backend/1.0 on `router` (both outlive the router's handlers).
absl::Status ServePolicyBackend(ipc::XrlRouter& router, BgpPolicyBackend& backend);

}  // namespace sluice::bgp::process
