#pragma once
// File names of live MRT outputs: a strftime(3) pattern ("/var/lib/sluice/rib.%Y%m%d.%H%M")
// filled in with a time in UTC (MRT timestamps are UTC, RFC 6396 §2, and so are the archives of
// the public collectors), and the periods that rotation and periodic dumps start files at.

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace sluice::bgp::mrt {

// `pattern` with its strftime conversions filled in for `time` (UTC). Errors: InvalidArgument
// for an empty pattern or one whose expansion is empty or longer than 4,095 octets.
absl::StatusOr<std::string> FormatMrtPath(const std::string& pattern, absl::Time time);

// The start of the period of length `period` holding `time`: periods are aligned on the Unix
// epoch, so a 15-minute period starts at :00, :15, :30 and :45 UTC. `period` must be positive.
absl::Time PeriodStart(absl::Time time, absl::Duration period);

}  // namespace sluice::bgp::mrt
