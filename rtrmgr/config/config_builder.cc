// The top level: interfaces, fea, rib, protocols { static rpki bgp }, policy, finder, metrics,
// user.
#include "rtrmgr/config/config_builder.h"

#include "absl/strings/str_format.h"
#include "rtrmgr/config/config_reader.h"

namespace sluice::rtrmgr {
namespace {

void BuildPolicy(const ConfigNode& node, PolicyBlock* policy, Diagnostics* diags) {
  if (!node.is_policy) {
    // `policy` written without a block: the tree parser did not hand it to the policy parser.
    ExpectBlock(node, 0, "policy { prefix-list ...; policy-statement NAME { ... } }", diags);
    return;
  }
  if (!node.args.empty()) {
    diags->Add(node.args[0].loc,
               absl::StrFormat("expected '{' after 'policy', found %s", node.args[0].Describe()));
  }
  if (node.policy == nullptr) return;  // its error is already reported
  policy->parsed = node.policy;
  auto items = SplitPolicyItems(node.policy_text);
  if (!items.ok()) {
    diags->Add(node.loc, std::string(items.status().message()));
    return;
  }
  policy->items = *std::move(items);
}

}  // namespace

void BuildConfig(const ConfigTree& tree, Config* config, Diagnostics* diags) {
  const ConfigNode* interfaces = nullptr;
  BlockReader("the configuration", diags)
      .Once("interfaces",
            [&](const ConfigNode& n) {
              interfaces = &n;
              BuildInterfaces(n, config, diags);
            })
      .Once("fea",
            [&](const ConfigNode& n) {
              BuildFea(TakeLog(n, "fea", &config->log, diags), &config->fea, diags);
            })
      .Once("rib",
            [&](const ConfigNode& n) {
              BuildRib(TakeLog(n, "rib", &config->log, diags), &config->rib, diags);
            })
      .Once("protocols",
            [&](const ConfigNode& n) {
              if (!ExpectBlock(n, 0, "protocols { static { ... } rpki { ... } bgp { ... } }",
                               diags)) {
                return;
              }
              BlockReader("protocols", diags)
                  .Once("static",
                        [&](const ConfigNode& s) {
                          BuildStatic(TakeLog(s, "static", &config->log, diags),
                                      &config->static_routes, diags);
                        })
                  .Once("rpki",
                        [&](const ConfigNode& s) {
                          BuildRpki(TakeLog(s, "rpki", &config->log, diags), &config->rpki, diags);
                        })
                  .Once("bgp",
                        [&](const ConfigNode& s) {
                          BuildBgp(TakeLog(s, "bgp", &config->log, diags), &config->bgp, diags);
                        })
                  .Read(n.children);
            })
      .Once("policy", [&](const ConfigNode& n) { BuildPolicy(n, &config->policy, diags); })
      .Once("finder",
            [&](const ConfigNode& n) {
              BuildFinder(TakeLog(n, "finder", &config->log, diags), &config->finder, diags);
            })
      .Once("metrics", [&](const ConfigNode& n) { BuildMetrics(n, &config->metrics, diags); })
      .Once("log", [&](const ConfigNode& n) { BuildLog(n, &config->log.all, diags); })
      .Once("user",
            [&](const ConfigNode& n) {
              const ConfigValue* v = ExpectOne(n, "user NAME;", diags);
              if (!v) return;
              if (auto name = ReadName(*v, "_.-", 32, false, "a user name", diags)) {
                config->user = *name;
              }
            })
      .Read(tree.statements);
  if (interfaces != nullptr && config->fea.backend == FeaBackend::kNetlink &&
      !interfaces->children.empty()) {
    diags->Add(interfaces->loc,
               "with 'backend netlink' the FEA reads interfaces and addresses from the kernel; "
               "remove the interfaces block or use 'backend dummy'");
  }
}

}  // namespace sluice::rtrmgr
