#include "rtrmgr/config/config_validator.h"

#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "policy/compiler.h"

namespace sluice::rtrmgr {
namespace {

void CheckChain(const std::vector<NameRef>& chain, std::string_view bank, const Config& config,
                Diagnostics* diags) {
  const policy::PolicyConfig& parsed = *config.policy.parsed;
  for (const NameRef& ref : chain) {
    if (parsed.FindStatement(ref.name) != nullptr) continue;
    if (const policy::NamedSet* set = parsed.FindSet(ref.name)) {
      diags->Add(ref.where.loc, absl::StrFormat("%s policy '%s' is a %s, not a policy-statement",
                                                bank, ref.name, policy::SetKindName(set->kind)));
    } else {
      diags->Add(ref.where.loc,
                 absl::StrFormat("%s policy '%s' is not defined (no policy-statement %s in the "
                                 "policy block)",
                                 bank, ref.name, ref.name));
    }
  }
}

// "lo 127.0.0.1/8 ::1/128, eth0 10.0.0.1/24" (shortened when long).
std::string LocalAddresses(const Config& config) {
  std::vector<std::string> parts = {"lo 127.0.0.1/8 ::1/128"};
  for (const auto& [name, interface] : config.interfaces) {
    std::string part = name;
    for (const InterfaceAddressConfig& a : interface.addresses) part += " " + a.ToString();
    parts.push_back(part);
    if (parts.size() >= 6) {
      parts.push_back("...");
      break;
    }
  }
  return absl::StrJoin(parts, ", ");
}

std::string InterfaceNames(const Config& config) {
  std::vector<std::string> names = {kLoopbackInterface};
  for (const auto& [name, interface] : config.interfaces) names.push_back(name);
  return absl::StrJoin(names, ", ");
}

// fea { remote-only; }: the forwarding engines are on other hosts, reached through the Finder's
// TCP listener, and each reports its own interfaces.
void CheckRemoteOnly(const Config& config, Diagnostics* diags) {
  if (!config.fea.remote_only) return;
  if (config.finder.listen.empty()) {
    diags->Add(config.fea.where.loc,
               "fea remote-only: the FEAs on other hosts reach the Finder over TCP; give the "
               "finder block a listen address (finder { listen ADDRESS port N; tls { ... } })");
  }
  for (const auto& [name, interface] : config.interfaces) {
    diags->Add(interface.where.loc,
               absl::StrFormat("interface %s: with fea remote-only there is no local FEA to "
                               "configure; each remote FEA reports its own interfaces",
                               name));
  }
}

}  // namespace

void ValidateConfig(const Config& config, bool policy_block_ok, Diagnostics* diags) {
  CheckRemoteOnly(config, diags);
  // A remote FEA's addresses are its host's: nothing here to check them against.
  const bool dummy = config.fea.backend == FeaBackend::kDummy && !config.fea.remote_only;
  for (const auto& [address, peer] : config.bgp.peers) {
    if (policy_block_ok) {
      CheckChain(peer.import_policies, "import", config, diags);
      CheckChain(peer.export_policies, "export", config, diags);
    }
    // With the dummy FEA the router's addresses are the configured ones; with netlink they are
    // the kernel's, known only when the FEA runs.
    const auto& local = peer.session.local_address;
    if (dummy && local && !config.IsLocalAddress(*local)) {
      diags->Add(peer.local_ip_where.loc,
                 absl::StrFormat("local-ip %s of peer %s is not an address of any configured "
                                 "interface (the dummy FEA has: %s)",
                                 local->ToString(), address.ToString(), LocalAddresses(config)));
    }
  }
  // A group's chains, also when it has no peer yet (with peers, the same errors are said once).
  for (const auto& [name, group] : config.bgp.groups) {
    if (!policy_block_ok) break;
    CheckChain(group.settings.import_policies, "import", config, diags);
    CheckChain(group.settings.export_policies, "export", config, diags);
  }
  if (dummy) {
    for (const BgpListen& l : config.bgp.listen) {
      if (l.address.is_unspecified() || config.IsLocalAddress(l.address)) continue;
      diags->Add(l.where.loc,
                 absl::StrFormat("listen address %s is not an address of any configured "
                                 "interface (the dummy FEA has: %s)",
                                 l.address.ToString(), LocalAddresses(config)));
    }
    for (const auto& [prefix, route] : config.static_routes.routes) {
      if (route.interface.empty() || config.HasInterface(route.interface)) continue;
      diags->Add(route.interface_where.loc,
                 absl::StrFormat("route %s: interface '%s' is not configured (interfaces: %s)",
                                 prefix.ToString(), route.interface, InterfaceNames(config)));
    }
  }
  if (!policy_block_ok) return;
  // Every statement compiles on its own, used by a bank or not (the policy library's
  // CheckPolicyConfig, one error per statement instead of the first only).
  const policy::PolicyConfig& parsed = *config.policy.parsed;
  for (const policy::PolicyStatement& st : parsed.statements) {
    policy::FilterSpec spec;
    spec.policies = {st.name};
    spec.where = st.loc;
    auto program = policy::CompileProgram(parsed, spec);
    if (!program.ok()) diags->AddPolicyError(program.status(), config.file, st.loc);
  }
}

}  // namespace sluice::rtrmgr
