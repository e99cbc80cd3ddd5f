#pragma once
// Prefix sets for benchmarks: the prefixes announced in a real MRT capture, or a synthetic
// Internet-like IPv4 table when the capture is not available.
//
// Until the project's MRT reader exists, a capture is read with Debian's `bgpdump -m` (the
// prefix is field 6 of its `A` lines); the distinct prefixes, in order of first announcement,
// are cached as text (one prefix a line) so that later runs start at once.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "net/prefix.h"

namespace sluice::bench {

struct BenchPrefixes {
  std::vector<net::Prefix> prefixes;  // distinct, in order of first announcement
  std::string source;                 // what they came from, for the report
};

// The distinct prefixes announced in $SLUICE_DATA_DIR/mrt/<capture>, cached in
// <cache_dir>/<capture>.prefixes.txt (rebuilt when older than the capture). When SLUICE_DATA_DIR
// is unset, the capture is missing or bgpdump fails, prints why on stderr and returns
// SyntheticIPv4Table(synthetic_count) instead.
BenchPrefixes LoadCapturePrefixes(std::string_view capture, const std::string& cache_dir,
                                  size_t synthetic_count);

// `count` distinct IPv4 prefixes shaped like a 2015 full table: about half /24s, the rest mostly
// /16../23, clustered under a few thousand /16 allocations, plus 0.0.0.0/0. Deterministic in
// `seed`; in random order.
std::vector<net::Prefix> SyntheticIPv4Table(size_t count, uint64_t seed = 1);

}  // namespace sluice::bench
