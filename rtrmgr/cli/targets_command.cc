// sluice targets: every registered component, its endpoints and its methods in XRL form.
//
//   rib (class rib)  unix:/run/sluice/rib/rib.1234.sock
//     common/1.0/get_status
//     rib/1.0/add_route4

#include <iostream>

#include "absl/strings/str_join.h"
#include "ipc/method_name.h"
#include "rtrmgr/cli/command.h"
#include "rtrmgr/cli/xrl_client.h"

namespace sluice::rtrmgr::cli {

int RunTargets(const std::vector<std::string>& args, Context& context) {
  if (!args.empty()) {
    *context.err << Usage(*FindCommand("targets"));
    return kUsage;
  }
  XrlClient client(context.finder_address, context.timeout_ms);
  auto targets = client.ListTargets();
  if (!targets.ok()) {
    *context.err << "sluice targets: " << targets.status().message() << "\n";
    return kFailed;
  }
  for (const auto& target : targets->targets()) {
    std::vector<std::string> endpoints;
    for (const std::string& endpoint : target.endpoints()) {
      if (endpoint.rfind("inproc:", 0) != 0) endpoints.push_back(endpoint);
    }
    *context.out << target.instance_name() << " (class " << target.class_name()
                 << (target.sole_instance() ? ", sole instance" : "") << ")  "
                 << (endpoints.empty() ? "(no endpoints)" : absl::StrJoin(endpoints, " ")) << "\n";
    for (const auto& service : target.services()) {
      for (const std::string& rpc : service.methods()) {
        auto name = ipc::MethodName::FromService(service.name(), rpc);
        *context.out << "  "
                     << (name.ok() && !name->xrl().empty() ? name->xrl()
                                                           : service.name() + "." + rpc)
                     << "\n";
      }
    }
  }
  return kOk;
}

}  // namespace sluice::rtrmgr::cli
