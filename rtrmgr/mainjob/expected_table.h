#pragma once
// ExpectedTable: what the main job's upstream peer announces, computed from the same capture (or
// synthetic table) that sluice-replay sends, so that the summary can name every prefix the
// router did not accept and say why.

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "net/prefix.h"

namespace sluice::rtrmgr::mainjob {

struct ExpectedTable {
  std::string peer;                 // the capture peer replayed ("206.220.231.55 AS3856")
  uint64_t updates = 0;             // UPDATEs it sent
  std::set<net::Prefix> announced;  // every prefix announced at least once
  std::set<net::Prefix> final;      // announced and not withdrawn at the end
  std::set<net::Prefix> as0;        // final prefixes whose AS_PATH holds AS 0 (RFC 7607)
  std::map<net::Prefix, std::string> as_paths;  // final prefix -> AS_PATH text
};

// The peer sluice-replay picks by default (the one with the most announcements) of `path`.
absl::StatusOr<ExpectedTable> ExpectedFromCapture(const std::string& path);
// sluice-replay --synthetic N (seed 1).
ExpectedTable ExpectedSynthetic(uint64_t prefixes);

}  // namespace sluice::rtrmgr::mainjob
