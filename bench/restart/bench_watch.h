#pragma once
// What restart_bench watches while a process recovers: the kernel's route events (an
// `ip -4 monitor route` child writing to a file), the times of lines in the processes' logs
// (each line starts with an RFC 3339 UTC timestamp, base/log.h), and the downstream
// sluice-replay's --json progress lines.

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>

#include "absl/time/time.h"

namespace sluice::bench::restart {

// `ip -4 monitor route` on this network namespace, line-buffered into `file`.
class KernelMonitor {
 public:
  explicit KernelMonitor(std::string file);
  ~KernelMonitor();
  // The monitor file's size: a mark to count events from.
  size_t Mark() const;
  // Events on `table` since `mark`: deletions, and additions or changes.
  size_t Deletions(size_t mark, unsigned table) const;
  size_t Additions(size_t mark, unsigned table) const;

 private:
  size_t Count(size_t mark, unsigned table, bool deleted) const;
  std::string file_;
  pid_t pid_ = -1;
};

// The time of the first line of log `file` written at or after `after` that contains `text`;
// nullopt if none.
std::optional<absl::Time> LogLineTime(const std::string& file, absl::Time after,
                                      const std::string& text);

// The lowest "held" of the downstream's {"event":"progress",...} lines in `file` stamped
// (CLOCK_MONOTONIC seconds) from `from_mono` on; -1 if none.
long LowestHeld(const std::string& file, double from_mono);

// CLOCK_MONOTONIC in seconds (sluice-replay's "mono").
double MonotonicSeconds();

// Routes in kernel table `table` (a netlink dump through `ip`).
size_t KernelRoutes(unsigned table);

}  // namespace sluice::bench::restart
