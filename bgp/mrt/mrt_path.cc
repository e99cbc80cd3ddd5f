#include "bgp/mrt/mrt_path.h"

#include <ctime>

#include "absl/strings/str_cat.h"

namespace sluice::bgp::mrt {

absl::StatusOr<std::string> FormatMrtPath(const std::string& pattern, absl::Time time) {
  if (pattern.empty()) return absl::InvalidArgumentError("the file name pattern is empty");
  const time_t t = absl::ToTimeT(time);
  struct tm tm {};
  gmtime_r(&t, &tm);
  char out[4096];
  const size_t n = strftime(out, sizeof out, pattern.c_str(), &tm);
  if (n == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("the file name pattern \"", pattern, "\" expands to nothing or too much"));
  }
  return std::string(out, n);
}

absl::Time PeriodStart(absl::Time time, absl::Duration period) {
  const absl::Duration since = time - absl::UnixEpoch();
  return absl::UnixEpoch() + absl::Floor(since, period);
}

}  // namespace sluice::bgp::mrt
