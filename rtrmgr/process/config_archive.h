#pragma once
// ConfigArchive: the last kKeep committed configurations, for `sluice configure rollback N`.
//
// Each is a file DIR/SEQ.conf (canonical text, rtrmgr/config/config_printer.h; mode 0600, written
// atomically as saved_state.h's files) where SEQ is a decimal number that grows with every
// commit. Entry 0 is the newest (what runs), entry 1 the one before, and so on. The directory
// is made (0700) on the first Add.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace sluice::rtrmgr {

class ConfigArchive {
 public:
  static constexpr size_t kKeep = 20;

  explicit ConfigArchive(std::string dir) : dir_(std::move(dir)) {}
  const std::string& dir() const { return dir_; }

  // Adds `text` as the newest entry, unless it is the newest already, and removes entries past
  // kKeep. Errors: Unavailable naming the directory or file that could not be written.
  absl::Status Add(const std::string& text);
  // The path of entry `n` (0: newest). Errors: NotFound saying how many entries there are.
  absl::StatusOr<std::string> Path(size_t n) const;
  // The entries' sequence numbers, newest first (files that are not SEQ.conf are ignored).
  std::vector<uint64_t> Sequence() const;

 private:
  std::string FileOf(uint64_t seq) const;
  std::string dir_;
};

// Where the archive lives: /var/lib/sluice/archive for the system's router (run directory
// /run/sluice) when /var/lib/sluice exists, else RUNDIR/rtrmgr/archive.
std::string DefaultArchiveDir(const std::string& rundir);

}  // namespace sluice::rtrmgr
