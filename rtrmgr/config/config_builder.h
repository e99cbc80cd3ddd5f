#pragma once
// From the statement tree to the typed configuration (config.h): each section's keywords, the
// values they take and the checks that need nothing outside the section (ranges, families,
// duplicates, required statements). Cross-section checks are config_validator.h's.
// Internal to the configuration library; config_loader.h is the public entry.

#include "rtrmgr/config/config.h"
#include "rtrmgr/config/config_tree.h"
#include "rtrmgr/config/diagnostics.h"

namespace sluice::rtrmgr {

// The whole file's statements into `config`; errors to `diags`.
void BuildConfig(const ConfigTree& tree, Config* config, Diagnostics* diags);

// One section each (`node` is the section's statement: interfaces, fea, rib, static, bgp,
// finder, policy).
void BuildInterfaces(const ConfigNode& node, Config* config, Diagnostics* diags);
void BuildFea(const ConfigNode& node, FeaConfig* fea, Diagnostics* diags);
void BuildRib(const ConfigNode& node, RibConfig* rib, Diagnostics* diags);
void BuildStatic(const ConfigNode& node, StaticConfig* routes, Diagnostics* diags);
void BuildRpki(const ConfigNode& node, RpkiConfig* rpki, Diagnostics* diags);
void BuildBgp(const ConfigNode& node, BgpConfig* bgp, Diagnostics* diags);
void BuildFinder(const ConfigNode& node, FinderConfig* finder, Diagnostics* diags);
void BuildMetrics(const ConfigNode& node, MetricsConfig* metrics, Diagnostics* diags);
// log { ... } (build_log.cc).
void BuildLog(const ConfigNode& node, LogSettings* log, Diagnostics* diags);
// `block` without its `log { ... }` statement, which goes to log->processes[process].
ConfigNode TakeLog(const ConfigNode& block, const std::string& process, LogConfig* log,
                   Diagnostics* diags);
// Inside bgp: `peer ADDRESS { }` (of `group`, null outside one: the peer starts from its
// settings), `group NAME { }` (its settings and its peers), `network PREFIX [{ }]`.
void BuildPeer(const ConfigNode& n, const BgpGroup* group, BgpConfig* bgp, Diagnostics* diags);
void BuildGroup(const ConfigNode& n, BgpConfig* bgp, Diagnostics* diags);
void BuildNetwork(const ConfigNode& n, BgpConfig* bgp, Diagnostics* diags);
// bmp { station ADDRESS { port N; buffer-size MIB; } ... } (build_bgp_bmp.cc).
void BuildBmp(const ConfigNode& n, BgpConfig* bgp, Diagnostics* diags);
// Inside bgp: `mrt { table-dump "PATTERN" { interval 2h; } updates "PATTERN" { rotate 15m; } }`.
void BuildBgpMrt(const ConfigNode& n, BgpMrtConfig* mrt, Diagnostics* diags);

// Names shared by several sections.
// A policy name as the policy language spells it: [A-Za-z_][A-Za-z0-9_.-]*, at most 64.
std::optional<std::string> ReadPolicyName(const ConfigValue& v, Diagnostics* diags);
// An AS number 1..4294967295 other than AS_TRANS (RFC 6793).
std::optional<uint32_t> ReadAsNumber(const ConfigValue& v, std::string_view what,
                                     Diagnostics* diags);

}  // namespace sluice::rtrmgr
