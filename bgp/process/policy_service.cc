#include "bgp/process/policy_service.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "ipc/method.h"
#include "ipc/methods/policy_backend.h"
#include "ipc/policy_backend_request.h"
#include "ipc/proto/policy_backend.pb.h"

namespace sluice::bgp::process {

namespace pb = ::sluice::policy_backend::v1;

absl::StatusOr<BgpPolicyBackend::Bank> BgpPolicyBackend::ParseBank(const std::string& filter) {
  const size_t colon = filter.find(':');
  const std::string kind = filter.substr(0, colon);
  const std::string arg = colon == std::string::npos ? "" : filter.substr(colon + 1);
  Bank bank;
  if (kind == "import" || kind == "export") {
    bank.kind = kind == "import" ? Kind::kImport : Kind::kExport;
    absl::StatusOr<net::IPAddress> a = net::IPAddress::Parse(arg);
    if (!a.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("filter \"", filter, "\": ", kind, ":ADDRESS needs a peer address"));
    }
    bank.address = *a;
    return bank;
  }
  if (kind == "redist" && !arg.empty()) {
    bank.kind = Kind::kRedist;
    bank.protocol = arg;
    return bank;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "filter \"", filter, "\": sluice-bgp has import:ADDRESS, export:ADDRESS, redist:PROTOCOL"));
}

absl::Status BgpPolicyBackend::Configure(const std::string& filter,
                                         const policy::FilterRequest& request) {
  ASSIGN_OR_RETURN(Bank bank, ParseBank(filter));
  const policy::Verdict bank_default =
      bank.kind == Kind::kRedist ? policy::Verdict::kReject : policy::Verdict::kAccept;
  // Compiled in full before anything changes: on error the running filter stays.
  ASSIGN_OR_RETURN(std::shared_ptr<const policy::Filter> compiled,
                   policy::CompileFilterRequest(request, bank_default, {}));
  PolicyBankInfo info;
  info.filter = filter;
  info.configured = true;
  info.policies = request.policies;
  info.default_action = std::string(policy::VerdictName(compiled->spec().default_verdict));
  switch (bank.kind) {
    case Kind::kImport:
    case Kind::kExport: {
      BgpProcess::PeerPolicySlots& slots = bgp_->PolicySlots(bank.address);
      (bank.kind == Kind::kImport ? slots.import_slot : slots.export_slot).Set(compiled);
      RETURN_IF_ERROR(bgp_->RefilterPeer(bank.address));
      break;
    }
    case Kind::kRedist:
      if (redist_ == nullptr) {
        return absl::FailedPreconditionError("redistribution needs a RIB (sluice-bgp --no-rib)");
      }
      redist_->Configure(bank.protocol, compiled);
      break;
  }
  info_[filter] = std::move(info);
  return absl::OkStatus();
}

absl::Status BgpPolicyBackend::Reset(const std::string& filter) {
  ASSIGN_OR_RETURN(Bank bank, ParseBank(filter));
  switch (bank.kind) {
    case Kind::kImport:
    case Kind::kExport: {
      BgpProcess::PeerPolicySlots& slots = bgp_->PolicySlots(bank.address);
      (bank.kind == Kind::kImport ? slots.import_slot : slots.export_slot).Set(nullptr);
      RETURN_IF_ERROR(bgp_->RefilterPeer(bank.address));
      break;
    }
    case Kind::kRedist:
      if (redist_ == nullptr) return absl::NotFoundError("no redistribution without a RIB");
      RETURN_IF_ERROR(redist_->Reset(bank.protocol));
      break;
  }
  info_.erase(filter);
  return absl::OkStatus();
}

absl::Status BgpPolicyBackend::PushRoutes(const std::string& filter) {
  if (filter.empty()) {
    for (const auto& [name, info] : info_) RETURN_IF_ERROR(PushRoutes(name));
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(Bank bank, ParseBank(filter));
  if (bank.kind == Kind::kRedist) {
    if (redist_ == nullptr) return absl::NotFoundError("no redistribution without a RIB");
    return redist_->Push(bank.protocol);
  }
  return bgp_->RefilterPeer(bank.address);
}

std::vector<PolicyBankInfo> BgpPolicyBackend::List() const {
  std::vector<PolicyBankInfo> out;
  for (const auto& [name, info] : info_) out.push_back(info);
  return out;
}

absl::Status ServePolicyBackend(ipc::XrlRouter& router, BgpPolicyBackend& backend) {
  RETURN_IF_ERROR(
      router.Handle(ipc::methods::policy_backend::kConfigure,
                    [&](const pb::ConfigureRequest& r) -> absl::StatusOr<pb::ConfigureReply> {
                      const policy::FilterRequest request = ipc::FilterRequestFrom(r);
                      RETURN_IF_ERROR(backend.Configure(r.filter(), request));
                      return pb::ConfigureReply();
                    }));
  RETURN_IF_ERROR(router.Handle(ipc::methods::policy_backend::kReset,
                                [&](const pb::ResetRequest& r) -> absl::StatusOr<pb::ResetReply> {
                                  RETURN_IF_ERROR(backend.Reset(r.filter()));
                                  return pb::ResetReply();
                                }));
  RETURN_IF_ERROR(
      router.Handle(ipc::methods::policy_backend::kPushRoutes,
                    [&](const pb::PushRoutesRequest& r) -> absl::StatusOr<pb::PushRoutesReply> {
                      RETURN_IF_ERROR(backend.PushRoutes(r.filter()));
                      return pb::PushRoutesReply();
                    }));
  RETURN_IF_ERROR(
      router.Handle(ipc::methods::policy_backend::kListFilters,
                    [&](const pb::ListFiltersRequest&) -> absl::StatusOr<pb::ListFiltersReply> {
                      pb::ListFiltersReply reply;
                      for (const PolicyBankInfo& i : backend.List()) {
                        pb::FilterInfo* out = reply.add_filters();
                        out->set_filter(i.filter);
                        out->set_configured(i.configured);
                        for (const std::string& p : i.policies) out->add_policies(p);
                        out->set_default_action(i.default_action);
                      }
                      return reply;
                    }));
  return absl::OkStatus();
}

}  // namespace sluice::bgp::process
