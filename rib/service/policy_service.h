#pragma once
// RibPolicyService: sluice-rib's policy_backend/1.0 (ipc/proto/policy_backend.proto).
// Banks: "origin:static" and "origin:connected" — the policy on routes of those
// protocols as they enter the RIB (rib/origin_policy.h). configure compiles in full first
// (policy/filter_request.h, with what a RIB route offers: OriginPolicy::Options()); a bad policy
// is refused with "FILE:LINE:COL: ..." and the running one stays. On success the filter is
// swapped in and the protocol's routes are re-filtered in the background.
//
// Handlers run on the RIB's event loop.

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ipc/xrl_router.h"
#include "rib/rib.h"

namespace sluice::rib {

class RibPolicyService {
 public:
  RibPolicyService(ipc::XrlRouter& router, Rib& rib) : router_(router), rib_(rib) {}
  // Adds the handlers; call before router.Start().
  absl::Status Register();

 private:
  struct Info {
    std::vector<std::string> policies;
    std::string default_action;
  };
  ipc::XrlRouter& router_;
  Rib& rib_;
  std::map<std::string, Info> configured_;  // by bank name
};

}  // namespace sluice::rib
