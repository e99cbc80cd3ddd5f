#pragma once
// The version every Sluice program reports: on `--version` and in common/1.0 get_version.
//
//   sluice-bgp --version        prints "sluice-bgp 0.1.0 (g1234abc)"

#include <string_view>

namespace sluice::base {

// The project version (CMake's project(VERSION)), followed by the git describe of the source
// when it was configured from a git checkout: "0.1.0 (g1234abc)"; otherwise "0.1.0".
std::string_view Version();

// Prints "PROGRAM VERSION\n" on stdout: what each program's --version does before exiting 0.
void PrintVersion(std::string_view program);

}  // namespace sluice::base
