#pragma once
// What sluice-rtrmgr leaves on disk so that a successor can take over the running processes
// instead of starting copies (DESIGN.md § Restarts: a router manager that dies stops nothing).
//
//   RUNDIR/rtrmgr/running.conf  the configuration the processes have (canonical text,
//                               rtrmgr/config/config_printer.h)
//   RUNDIR/rtrmgr/children      the processes it started, one line each:
//                               NAME PID START_TIME CONFIGURED PROGRAM
//
// Both are written atomically (a temporary file renamed over the old one), mode 0600, owned by
// the router manager's user. START_TIME is field 22 of /proc/PID/stat (clock ticks after boot):
// with the program path it tells a recycled pid from the process that was recorded.
// CONFIGURED is 1 once the process took its configuration.

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace sluice::rtrmgr {

struct ChildRecord {
  std::string name;         // "finder", "fea", "rib", "bgp", "static_routes"
  pid_t pid = 0;            // > 0
  uint64_t start_time = 0;  // /proc/PID/stat field 22, clock ticks after boot
  bool configured = false;
  std::string program;  // the path it was started with (argv[0]); may contain spaces
  friend bool operator==(const ChildRecord&, const ChildRecord&) = default;
};

// The start time of a live process (field 22 of /proc/PID/stat); nullopt when there is no such
// process or it has exited (a zombie).
std::optional<uint64_t> ProcessStartTime(pid_t pid);
// argv[0] of a live process (/proc/PID/cmdline); nullopt when unknown.
std::optional<std::string> ProcessProgram(pid_t pid);
// True when `record` still describes a running process: same pid, same start time, same
// program.
bool IsSameProcess(const ChildRecord& record);

// Writes `text` to `path` atomically (PATH.new, then rename), mode 0600. Errors: Unavailable
// naming the file.
absl::Status WriteFileAtomically(const std::string& path, const std::string& text);
// The contents of `path`, which must be a regular file of ours, not a link. Errors: NotFound
// (no file), FailedPrecondition (not ours or not a regular file), Unavailable.
absl::StatusOr<std::string> ReadOwnFile(const std::string& path);

// The children file's text for `records`, and back. ParseChildren errors: DataLoss naming the
// line that is not a record (a corrupt file: the caller ignores it).
std::string FormatChildren(const std::vector<ChildRecord>& records);
absl::StatusOr<std::vector<ChildRecord>> ParseChildren(const std::string& text);

absl::Status WriteChildren(const std::string& path, const std::vector<ChildRecord>& records);
// Errors: ReadOwnFile's and ParseChildren's.
absl::StatusOr<std::vector<ChildRecord>> ReadChildren(const std::string& path);

}  // namespace sluice::rtrmgr
