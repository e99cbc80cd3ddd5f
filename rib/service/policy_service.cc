#include "rib/service/policy_service.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "ipc/method.h"
#include "ipc/methods/policy_backend.h"
#include "ipc/policy_backend_request.h"
#include "ipc/proto/policy_backend.pb.h"
#include "policy/filter_request.h"

namespace sluice::rib {

namespace pb = ::sluice::policy_backend::v1;

namespace {

// "origin:PROTOCOL" -> PROTOCOL. Errors: InvalidArgument naming the banks there are.
absl::StatusOr<std::string> OriginProtocol(const std::string& filter) {
  const std::string kPrefix = "origin:";
  if (absl::StartsWith(filter, kPrefix)) {
    std::string protocol = filter.substr(kPrefix.size());
    if (OriginPolicy::Supports(protocol)) return protocol;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("filter \"", filter, "\": sluice-rib has origin:static and origin:connected"));
}

}  // namespace

absl::Status RibPolicyService::Register() {
  RETURN_IF_ERROR(router_.Handle(
      ipc::methods::policy_backend::kConfigure,
      [this](const pb::ConfigureRequest& r) -> absl::StatusOr<pb::ConfigureReply> {
        ASSIGN_OR_RETURN(std::string protocol, OriginProtocol(r.filter()));
        const policy::FilterRequest request = ipc::FilterRequestFrom(r);
        // Compiled in full before anything changes: on error the running filter stays.
        ASSIGN_OR_RETURN(std::shared_ptr<const policy::Filter> filter,
                         policy::CompileFilterRequest(request, policy::Verdict::kAccept,
                                                      OriginPolicy::Options()));
        const std::string action(policy::VerdictName(filter->spec().default_verdict));
        RETURN_IF_ERROR(rib_.SetOriginPolicy(protocol, std::move(filter)));
        configured_[r.filter()] = Info{request.policies, action};
        return pb::ConfigureReply();
      }));
  RETURN_IF_ERROR(
      router_.Handle(ipc::methods::policy_backend::kReset,
                     [this](const pb::ResetRequest& r) -> absl::StatusOr<pb::ResetReply> {
                       ASSIGN_OR_RETURN(std::string protocol, OriginProtocol(r.filter()));
                       RETURN_IF_ERROR(rib_.SetOriginPolicy(protocol, nullptr));
                       configured_.erase(r.filter());
                       return pb::ResetReply();
                     }));
  RETURN_IF_ERROR(
      router_.Handle(ipc::methods::policy_backend::kPushRoutes,
                     [this](const pb::PushRoutesRequest& r) -> absl::StatusOr<pb::PushRoutesReply> {
                       if (r.filter().empty()) {
                         for (const char* p : {"static", "connected"})
                           RETURN_IF_ERROR(rib_.PushOriginPolicy(p));
                         return pb::PushRoutesReply();
                       }
                       ASSIGN_OR_RETURN(std::string protocol, OriginProtocol(r.filter()));
                       RETURN_IF_ERROR(rib_.PushOriginPolicy(protocol));
                       return pb::PushRoutesReply();
                     }));
  RETURN_IF_ERROR(
      router_.Handle(ipc::methods::policy_backend::kListFilters,
                     [this](const pb::ListFiltersRequest&) -> absl::StatusOr<pb::ListFiltersReply> {
                       pb::ListFiltersReply reply;
                       for (const char* bank : {"origin:connected", "origin:static"}) {
                         pb::FilterInfo* out = reply.add_filters();
                         out->set_filter(bank);
                         auto it = configured_.find(bank);
                         out->set_configured(it != configured_.end());
                         if (it == configured_.end()) continue;
                         for (const std::string& p : it->second.policies) out->add_policies(p);
                         out->set_default_action(it->second.default_action);
                       }
                       return reply;
                     }));
  return absl::OkStatus();
}

}  // namespace sluice::rib
