#pragma once
// Routes for the policy benchmark: the PCH full table (577,706 prefixes from one peer) read
// through `bgpdump -m` (the MRT reader is not on this branch yet) and cached as text under the
// build folder; synthetic routes when SLUICE_DATA_DIR or bgpdump is missing.

#include <string>
#include <vector>

#include "policy/simple_route.h"

namespace sluice::policy::bench {

struct BenchRoutes {
  std::vector<SimpleRoute> routes;
  std::string source;  // what they are, for the benchmark's output
};

BenchRoutes LoadBenchRoutes();

// Parses one `bgpdump -m` announcement line (BGP4MP|time|A|peer|peer-as|prefix|as-path|origin|
// nexthop|local-pref|med|communities|...). False for other lines.
bool ParseBgpdumpLine(const std::string& line, SimpleRoute* out);

}  // namespace sluice::policy::bench
