#pragma once
// A process's resident memory and CPU time as Linux reports them in /proc/PID/stat and
// /proc/PID/statm (proc(5)).

#include <sys/types.h>

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"

namespace sluice::rtrmgr::metrics {

struct ProcessStats {
  uint64_t rss_bytes = 0;    // resident set size, octets
  double cpu_seconds = 0.0;  // user + system time since the process started
};

// From the text of /proc/PID/stat (its utime and stime, fields 14 and 15, in clock ticks of
// `ticks_per_second`) and of /proc/PID/statm (its resident field, the second, in pages of
// `page_size` octets). The command name in stat may hold spaces and parentheses: fields are
// counted after its last ')'. Errors: InvalidArgument when either text is not in that form.
absl::StatusOr<ProcessStats> ParseProcStats(std::string_view stat, std::string_view statm,
                                            long ticks_per_second, long page_size);

// Reads both files of `pid`. Errors: NotFound when the process is gone (or not readable),
// ParseProcStats's.
absl::StatusOr<ProcessStats> ReadProcessStats(pid_t pid);

}  // namespace sluice::rtrmgr::metrics
