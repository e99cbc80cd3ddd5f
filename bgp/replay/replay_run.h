#pragma once
// The steps of one sluice-replay run (local to bgp/replay; main() in replay_main.cc calls them):
// the summary (replay_report.cc).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bgp/replay/asio.h"
#include "bgp/replay/replay_feed.h"
#include "bgp/replay/replay_options.h"
#include "bgp/replay/replay_session.h"

namespace sluice::bgp::replay {

using Sessions = std::vector<std::unique_ptr<ReplaySession>>;

// `s` with '"', '\\' and control characters escaped for a JSON string.
std::string JsonEscape(const std::string& s);

// Prints the summary of the sessions on stdout (a JSON line with --json, else a line or three
// per session); true when every session ended without error (or by signal) and sent its table.
bool PrintSummary(const Options& o, const Sessions& sessions, double seconds);

}  // namespace sluice::bgp::replay
