#pragma once
// Checks of a configuration that need more than one section: names used before they can be
// trusted (an import or export policy that is not defined, a static route through an interface
// that is not configured), a peer's local-ip that is not one of the dummy FEA's addresses, and
// policies that parse but do not compile. Errors name the place the reference was written.

#include "rtrmgr/config/config.h"
#include "rtrmgr/config/diagnostics.h"

namespace sluice::rtrmgr {

// `policy_block_ok` false (the policy block has an error, already reported) skips the policy
// references and compilation, which would only repeat that error.
void ValidateConfig(const Config& config, bool policy_block_ok, Diagnostics* diags);

}  // namespace sluice::rtrmgr
