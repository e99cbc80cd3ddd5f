#pragma once
// What a policy_backend/1.0 configure call asks for, as the policy compiler takes it: the one
// translation from the wire (ipc/proto/policy_backend.proto) to policy::FilterRequest
// (policy/filter_request.h), used by every backend (sluice-bgp, sluice-rib). Header-only: a
// caller needs sluice_policy_backend_proto and sluice_policy.

#include "ipc/proto/policy_backend.pb.h"
#include "policy/filter_request.h"

namespace sluice::ipc {

// The request's policies, source text and default action, and where its text starts in the
// router manager's configuration file (file, line and column, when given) so that compile
// errors name them.
inline policy::FilterRequest FilterRequestFrom(const policy_backend::v1::ConfigureRequest& r) {
  policy::FilterRequest request;
  request.source = r.source();
  request.policies.assign(r.policies().begin(), r.policies().end());
  request.default_action = r.default_action();
  if (!r.file().empty()) request.start.file = r.file();
  if (r.line() > 0) request.start.line = int(r.line());
  if (r.column() > 0) request.start.column = int(r.column());
  return request;
}

}  // namespace sluice::ipc
