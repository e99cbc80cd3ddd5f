#include "rtrmgr/process/config_archive.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "rtrmgr/process/saved_state.h"

namespace sluice::rtrmgr {

std::string ConfigArchive::FileOf(uint64_t seq) const {
  return absl::StrCat(dir_, "/", seq, ".conf");
}

std::vector<uint64_t> ConfigArchive::Sequence() const {
  std::vector<uint64_t> seqs;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
    const std::string file = entry.path().filename().string();
    absl::string_view name = file;
    uint64_t seq = 0;
    if (absl::ConsumeSuffix(&name, ".conf") && absl::SimpleAtoi(name, &seq) &&
        name == absl::StrCat(seq) && entry.is_regular_file(ec)) {
      seqs.push_back(seq);
    }
  }
  std::sort(seqs.rbegin(), seqs.rend());
  return seqs;
}

absl::StatusOr<std::string> ConfigArchive::Path(size_t n) const {
  const std::vector<uint64_t> seqs = Sequence();
  if (n >= seqs.size()) {
    return absl::NotFoundError(absl::StrCat("the archive (", dir_, ") holds ", seqs.size(),
                                            " configurations: no rollback ", n));
  }
  return FileOf(seqs[n]);
}

absl::Status ConfigArchive::Add(const std::string& text) {
  if (mkdir(dir_.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::UnavailableError(absl::StrCat("cannot make ", dir_, ": ", strerror(errno)));
  }
  std::vector<uint64_t> seqs = Sequence();
  if (!seqs.empty()) {
    absl::StatusOr<std::string> newest = ReadOwnFile(FileOf(seqs[0]));
    if (newest.ok() && *newest == text) return absl::OkStatus();
  }
  const uint64_t seq = seqs.empty() ? 1 : seqs[0] + 1;
  if (absl::Status s = WriteFileAtomically(FileOf(seq), text); !s.ok()) return s;
  seqs.insert(seqs.begin(), seq);
  for (size_t i = kKeep; i < seqs.size(); ++i) unlink(FileOf(seqs[i]).c_str());
  return absl::OkStatus();
}

std::string DefaultArchiveDir(const std::string& rundir) {
  struct stat st;
  if (rundir == "/run/sluice" && stat("/var/lib/sluice", &st) == 0 && S_ISDIR(st.st_mode)) {
    return "/var/lib/sluice/archive";
  }
  return rundir + "/rtrmgr/archive";
}

}  // namespace sluice::rtrmgr
