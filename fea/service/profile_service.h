#pragma once
// ProfileService: profile/1.0 (ipc/proto/profile.proto) over the process's stage::Profiler —
// list, enable, read and clear profiling points (XORP NSDI'05 §8.1) and describe the process's
// plumbing. A thin adapter: every call runs on the loop and reads or sets the Profiler.
//
//   finder://fea/profile/1.0/enable?point:txt=fea_route_in&enable:bool=true
//   finder://fea/profile/1.0/get_entries?point:txt=fea_route_in
//
// Errors: NOT_FOUND naming an unknown point.
// (The RIB has the same adapter in rib/service/; the pair belongs in a shared folder once
// stage/ may depend on ipc/.)

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "ipc/xrl_router.h"
#include "stage/profile.h"

namespace sluice::fea {

class ProfileService {
 public:
  // `describe` answers describe_plumbing.
  ProfileService(stage::Profiler& profiler, std::function<std::string()> describe);
  // Adds the handlers; call before router.Start().
  absl::Status Register(ipc::XrlRouter& router);

 private:
  stage::Profiler& profiler_;
  std::function<std::string()> describe_;
};

}  // namespace sluice::fea
