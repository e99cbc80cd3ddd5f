#include "policy/filter_request.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace sluice::policy {

absl::StatusOr<std::shared_ptr<const Filter>> CompileFilterRequest(const FilterRequest& request,
                                                                   Verdict bank_default,
                                                                   const CompileOptions& options) {
  FilterSpec spec;
  spec.policies = request.policies;
  if (request.default_action.empty()) {
    spec.default_verdict = bank_default;
  } else if (request.default_action == "accept") {
    spec.default_verdict = Verdict::kAccept;
  } else if (request.default_action == "reject") {
    spec.default_verdict = Verdict::kReject;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("default_action \"", request.default_action,
                                                   "\": expected accept, reject or nothing"));
  }
  return Filter::FromText(request.source, request.start, spec, options);
}

}  // namespace sluice::policy
