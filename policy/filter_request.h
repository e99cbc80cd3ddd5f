#pragma once
// FilterRequest: what a policy_backend/1.0 `configure` call carries (ipc/proto/policy_backend
// .proto), kept free of the wire types so every process's adapter compiles it the same way
// (XORP's policy_backend).

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "policy/filter.h"
#include "policy/lexer.h"

namespace sluice::policy {

struct FilterRequest {
  std::string source;                 // named sets and policy-statements
  std::vector<std::string> policies;  // the chain, in order
  std::string default_action;         // "accept", "reject", "" (the bank's default)
  SourceLocation start;               // where `source` starts, for error locations
};

// Parses and compiles a request (Filter::FromText: every statement of `source` must compile, the
// chain with `options`). Errors: InvalidArgument "FILE:LINE:COL: ..." for a bad policy or an
// unknown policy in the chain, InvalidArgument for an unknown default_action.
absl::StatusOr<std::shared_ptr<const Filter>> CompileFilterRequest(const FilterRequest& request,
                                                                   Verdict bank_default,
                                                                   const CompileOptions& options);

}  // namespace sluice::policy
